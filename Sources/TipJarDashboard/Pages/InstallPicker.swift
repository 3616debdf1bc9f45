import Foundation
import HTTPServer
import Mustache
import TipJar

/// Picking an install by what a person can read off the dashboard: its full ID, the first 8 or more
/// characters of it (the short ID every list shows), or its label. Install IDs are lowercase UUIDs
/// (`TipJarEnvironment.makeInstallID`), so an ID is compared lowercased. Held by ``StoreController``, whose purchases
/// outside the app name their install this way (`/store`'s external purchase form).
struct InstallPicker: Sendable {
    let service: TipJarService

    /// The most installs the `/store` forms list in a `<select>`; with more, they take typed text.
    static let installPickerLimit = 200

    /// The shortest ID prefix that picks an install: the 8 characters of the short ID lists show.
    static let shortestIDPrefix = 8

    /// The install a form names in `text`: surrounding whitespace and line breaks ignored, case ignored;
    /// the full ID, a unique ID prefix of at least ``shortestIDPrefix`` characters, or a unique label.
    /// - Parameter text: the form's `installID` value.
    /// - Returns: the install's ID.
    /// - Throws: `RequestError` (400) when `text` is empty, a prefix is too short or several installs match
    ///   (naming them); `TipJarError.installNotFound` (404) when none does.
    func pickInstall(_ text: String) async throws -> String {
        let wanted = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !wanted.isEmpty else {
            throw RequestError(message: "installID: choose an install (its label, or at least \(Self.shortestIDPrefix) characters of its ID).")
        }
        let lowered = wanted.lowercased()
        if let install = try await service.records.install(withID: lowered) { return install.id }
        var matches: [Install] = []
        let looksLikeID = lowered.allSatisfy { $0.isHexDigit || $0 == "-" }
        if looksLikeID, lowered.count >= Self.shortestIDPrefix {
            matches = try await service.records.installs(matching: InstallQuery(search: lowered, pageSize: 200)).installs
                .filter { $0.id.hasPrefix(lowered) }
        }
        if matches.isEmpty { matches = try await installs(labelled: wanted, scanning: looksLikeID) }
        switch matches.count {
        case 0:
            if looksLikeID, lowered.count < Self.shortestIDPrefix {
                throw RequestError(message: "installID: \(Catalog.shownInput(wanted)) is too short: give at least \(Self.shortestIDPrefix) characters of the ID, or the label.")
            }
            throw TipJarError.installNotFound(wanted)
        case 1:
            return matches[0].id
        default:
            let named = matches.prefix(10).map { "\(ViewModels.shortID($0.id)) (\(Catalog.shownInput($0.label.isEmpty ? "no label" : $0.label, limit: 40)))" }
            throw RequestError(
                message: "installID: \(Catalog.shownInput(wanted)) matches \(matches.count) installs: "
                    + named.joined(separator: ", ") + (matches.count > 10 ? ", …" : "") + ". Give more of the ID.")
        }
    }

    /// The installs whose label is `label`, ignoring case. The storage searches labels for text that is not
    /// hex digits and dashes (a hex-looking search is an ID prefix, `SQLiteTipJarStorage.installs(matching:)`),
    /// so a hex-looking label is found by reading the installs page by page (at most 10,000).
    private func installs(labelled label: String, scanning: Bool) async throws -> [Install] {
        func same(_ install: Install) -> Bool { install.label.caseInsensitiveCompare(label) == .orderedSame }
        guard scanning else {
            return try await service.records.installs(matching: InstallQuery(search: label, pageSize: 200)).installs.filter(same)
        }
        var found: [Install] = []
        for page in 1...50 {
            let result = try await service.records.installs(matching: InstallQuery(page: page, pageSize: 200))
            found += result.installs.filter(same)
            if !result.hasMore { break }
        }
        return found
    }

    /// The `/store` install picker: every install (label · short ID), newest first, when there are at most
    /// ``installPickerLimit``; `nil` when there are more (the form then takes typed text, Templates/partials/install-picker.mustache).
    func installChoices() async throws -> [MustacheValue]? {
        let page = try await service.records.installs(matching: InstallQuery(pageSize: Self.installPickerLimit))
        guard !page.hasMore else { return nil }
        return page.installs.map { install in
            ["value": .string(install.id), "name": .string((install.label.isEmpty ? "no label" : install.label) + " · " + ViewModels.shortID(install.id))]
        }
    }
}
