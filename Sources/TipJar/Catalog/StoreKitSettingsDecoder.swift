import Foundation

/// Reads a `.storekit` file's `settings` object into ``StoreKitFileSettings``: every key is applied or noted
/// as ignored with the reason; a wrongly typed value is noted, never a refusal. Only a `settings` that is not
/// an object and an unknown `_storefront` code refuse the file. Internal to the importer.
struct StoreKitSettingsDecoder {
    /// The StoreKit APIs a `_storeKitErrors` entry can name, as Xcode writes them (the StoreKitTest
    /// `FailableStoreKitAPI` types: https://developer.apple.com/documentation/storekittest/failablestorekitapi).
    enum API: String, CaseIterable {
        case loadProducts = "Load Products", purchase = "Purchase", verification = "Verification", appStoreSync = "App Store Sync"
        case subscriptionStatus = "Subscription Status", appTransaction = "App Transaction"
        case manageSubscriptions = "Manage Subscriptions Sheet", refundRequest = "Refund Request Sheet"
        case offerCodeRedeem = "Offer Code Redeem Sheet"

        /// The `SKTestFailures.<API>` cases (`current.type`) a failure of this API can be, when the tip jar calls
        /// it (StoreKitTest's Swift interface, iOS 17 SDK: `LoadProducts` and `AppStoreSync` have `generic` only,
        /// `Purchase` has `generic` and `purchase`, `Verification` has `verification`; `RefundRequest` has `generic` and
        /// `refundRequest`, https://developer.apple.com/documentation/storekittest/sktestfailures/refundrequest); empty
        /// for an API a tip jar never calls.
        var errorKinds: [ErrorKind] {
            switch self {
            case .loadProducts, .appStoreSync: [.generic]
            case .purchase: [.generic, .purchase]
            case .refundRequest: [.generic, .refundRequest]
            case .verification: [.verification]
            default: []
            }
        }
    }

    /// Why keys the tip jar has no use for are ignored.
    static func ignoredReason(for key: String) -> String {
        let lowered = key.lowercased()
        if lowered.contains("timerate") {
            return "the subscription time rate speeds up renewals: it means nothing for consumables"
        }
        if lowered.contains("billing") {
            return "billing retry and grace periods apply to auto-renewable subscriptions: they mean nothing for consumables"
        }
        if ["_applicationinternalid", "_developerteamid", "_lastsynchronizeddate"].contains(lowered) {
            return "App Store Connect sync metadata: nothing to simulate"
        }
        return "not a setting this dashboard knows: nothing applied"
    }

    /// The boolean keys of `settings` that feed a store setting (``StoreSetting/FileFeed/flag(key:whenTrue:whenFalse:)``),
    /// with the setting and the report's words for true and false.
    static let flagFeeds: [String: (StoreSetting, String, String)] = Dictionary(
        uniqueKeysWithValues:
            StoreSettings.declarations.compactMap { declaration in
                guard case .flag(let key, let whenTrue, let whenFalse) = declaration.file else { return nil }
                return (key, (declaration, whenTrue, whenFalse))
            })

    /// Decodes the `settings` node.
    /// - Throws: ``CatalogError`` when `settings` is not an object or `_storefront` names no storefront.
    func decode(_ node: StoreKitJSONNode) throws(CatalogError) -> StoreKitFileSettings {
        let object = try node.object()
        var result = StoreKitFileSettings()
        var notes: [String: [StoreKitFileSettings.Note]] = [:]
        func note(_ key: String, _ applied: Bool, _ detail: String) {
            notes[key, default: []].append(StoreKitFileSettings.Note(key: key, applied: applied, detail: detail))
        }
        func member(_ key: String) -> StoreKitJSONNode? {
            object[key].map { StoreKitJSONNode(value: $0, path: node.path(forKey: key), file: node.file) }
        }
        func bool(_ key: String) -> Bool? {
            guard let value = member(key) else { return nil }
            do { return try value.bool() } catch { note(key, false, error.problem); return nil }
        }

        for key in object.keys.sorted() {
            guard let value = member(key) else { continue }
            switch key {
            case "_storefront":
                guard let code = try? value.string() else { note(key, false, "\(value.mismatch("a string").problem): new installs start in USA"); continue }
                guard Catalog.nonEmpty(code) != nil else { note(key, false, "empty: new installs start in USA"); continue }
                guard let storefront = Storefront.named(code) else {
                    throw value.error(Storefront.unknownCodeMessage(code))
                }
                result.storefront = storefront
                note(key, true, "\(storefront.countryCode): new installs start in this storefront")
            case "_locale":
                guard let locale = try? value.string() else { note(key, false, "\(value.mismatch("a string").problem): new installs start in en"); continue }
                guard let nonEmpty = Catalog.nonEmpty(locale) else { note(key, false, "empty: new installs start in en"); continue }
                result.locale = nonEmpty
                let install = result.installLocale
                let language = Catalog.language(of: Catalog.normalized(nonEmpty))
                note(
                    key, true,
                    "\(StoreKitJSONNode.shown(nonEmpty)): new installs start in \(install.rawValue)"
                        + (language == "pt" || language == "en" ? "" : " (the tip jar speaks en and pt-BR)")
                        + "; product names fall back to it")
            case let key where Self.flagFeeds[key] != nil:
                guard let feed = Self.flagFeeds[key], let flag = bool(key) else { continue }
                result.set(feed.0, to: .flag(flag))
                note(key, true, flag ? feed.1 : feed.2)
            case "_storeKitErrors":
                decodeErrors(value, into: &result, note: note)
            case "_failTransactionsEnabled", "_storeKitError":
                continue  // decoded together, below
            default:
                note(key, false, Self.ignoredReason(for: key))
            }
        }
        decodeLegacy(failEnabled: bool("_failTransactionsEnabled"), code: member("_storeKitError"), into: &result, note: note)
        result.notes = notes.keys.sorted().flatMap { notes[$0] ?? [] }
        return result
    }

    /// `_failTransactionsEnabled` + `_storeKitError` (Xcode 12's "Fail Transactions" with an `SKError.Code`):
    /// every purchase fails with ``legacyPurchaseFailures``' error for the code, unless a `_storeKitErrors`
    /// Purchase entry already set the Purchase failure. A code `SKTestSession.failureError` does not support is
    /// reported and fails nothing: Apple does not say what the test environment does with one, so nothing is
    /// guessed. An absent `_storeKitError` is 0 (`unknown`): Apple does not document `failureError`'s default
    /// either, so that too is a choice.
    private func decodeLegacy(
        failEnabled: Bool?, code node: StoreKitJSONNode?, into result: inout StoreKitFileSettings,
        note: (String, Bool, String) -> Void
    ) {
        var code: Int?
        var isSupported = true
        if let node {
            if let value = try? node.smallInt(), Self.skErrorCodes.indices.contains(value) {
                code = value
                if Self.legacyPurchaseFailures[value] == nil {
                    isSupported = false
                    note("_storeKitError", false, "\(Self.shownSKErrorCode(value)): SKTestSession.failureError does not support it")
                }
            } else {
                isSupported = false
                note("_storeKitError", false, "\(StoreKitJSONNode.kind(of: node.value)) is not an SKError.Code (0 to \(Self.skErrorCodes.count - 1))")
            }
        }
        func noteUnused(_ why: String) {
            if let code, isSupported { note("_storeKitError", false, "\(Self.shownSKErrorCode(code)) \(why)") }
        }
        guard let failEnabled else {
            noteUnused("is used only with _failTransactionsEnabled true, which the file does not set")
            return
        }
        guard failEnabled else {
            note("_failTransactionsEnabled", true, "false: no legacy purchase failure")
            noteUnused("is used only when _failTransactionsEnabled is true")
            return
        }
        if result.failures.purchase != nil {
            note("_failTransactionsEnabled", false, "true, but the _storeKitErrors Purchase entry sets the Purchase failure and wins")
            noteUnused("is not used: the _storeKitErrors Purchase entry wins")
            return
        }
        guard isSupported, let failure = Self.legacyPurchaseFailures[code ?? 0] else {
            note(
                "_failTransactionsEnabled", false,
                "true, but _storeKitError is not a code SKTestSession.failureError supports"
                    + " (0, 11, 12, 13, 14): no purchase failure applied")
            return
        }
        result.failures.purchase = failure
        note("_failTransactionsEnabled", true, "true: every purchase throws \(failure.typeName).\(failure.rawValue)")
        let source = "Apple documents failureError for StoreKit 1 only; the StoreKit 2 error is this dashboard's choice, see README"
        note(
            "_storeKitError", true,
            code == nil
                ? "absent: SKError.Code 0 (unknown), a choice (failureError's default is undocumented) → StoreKitError.unknown; \(source)"
                : "\(code!) = SKError.Code.\(Self.skErrorCodes[code!]) → \(failure.typeName).\(failure.rawValue) (\(source))")
    }

    /// `_storeKitErrors`: `[{name, enabled, current: {type, index} | null}]`, one entry per API; `current.type`
    /// names the `SKTestFailures` case (``API/errorKinds``) and `current.index` the error in that case's table.
    private func decodeErrors(
        _ node: StoreKitJSONNode, into result: inout StoreKitFileSettings,
        note: (String, Bool, String) -> Void
    ) {
        guard let entries = try? node.elements() else {
            note("_storeKitErrors", false, node.mismatch("an array").problem)
            return
        }
        var seen = Set<API>()
        var summary: [String] = []
        for (index, entry) in entries.enumerated() {
            let key = "_storeKitErrors[\(index)]"
            guard let fields = try? entry.object() else { note(key, false, entry.mismatch("an object").problem); continue }
            guard let name = try? entry.requiredMember("name").string() else {
                note(key, false, "no API name (expected \"name\": one of \(API.allCases.map(\.rawValue).joined(separator: ", ")))")
                continue
            }
            guard let api = API(rawValue: name) else {
                note(key, false, "unknown API name \(StoreKitJSONNode.shown("\"\(name)\"")) (expected one of \(API.allCases.map(\.rawValue).joined(separator: ", ")))")
                continue
            }
            guard seen.insert(api).inserted else { note(key, false, "a second \(name) entry: the first one wins"); continue }
            for extra in fields.keys.sorted() where !["name", "enabled", "current"].contains(extra) {
                let value = StoreKitJSONNode.kind(of: fields[extra] ?? NSNull())
                if value != "the boolean false", value != "null" {
                    note(key, false, "\(name): \(extra) is \(value), which no public document explains: not simulated")
                }
            }
            var enabled = false
            if let value = try? entry.optionalMember("enabled") {
                guard let flag = try? value.bool() else { note(key, false, "\(name): enabled \(value.mismatch("true or false").problem)"); continue }
                enabled = flag
            }
            guard enabled else {
                if !api.errorKinds.isEmpty { summary.append("\(name) off") }
                continue
            }
            guard !api.errorKinds.isEmpty,
                let feed = StoreSettings.declarations.first(where: { $0.file == .storeKitErrors(api: api.rawValue) })
            else {
                note(key, false, "\(name) is enabled, but a tip jar never calls this API")
                continue
            }
            guard let current = try? entry.optionalMember("current") else {
                note(key, false, "\(name) is enabled with no current error (current is null)")
                continue
            }
            guard let currentFields = try? current.object(),
                let currentType = try? current.requiredMember("type").string(),
                let position = try? current.requiredMember("index").smallInt()
            else {
                note(key, false, "\(name): current must be {\"type\": string, \"index\": whole number}, found \(StoreKitJSONNode.kind(of: current.value))")
                continue
            }
            let unknownKeys = currentFields.keys.sorted().filter { $0 != "type" && $0 != "index" }
            guard unknownKeys.isEmpty else {
                let shown = unknownKeys.map { StoreKitJSONNode.shown("\"\($0)\"") }.joined(separator: ", ")
                note(
                    key, false,
                    "\(name): current holds \(shown) beside type and index, a shape no Apple document or public file"
                        + " explains: not simulated")
                continue
            }
            guard let kind = api.errorKinds.first(where: { $0.type == currentType }) else {
                let expected = api.errorKinds.map { "\"\($0.type)\"" }.joined(separator: " or ")
                note(key, false, "\(name): current.type \(StoreKitJSONNode.shown("\"\(currentType)\"")) is not simulated (expected \(expected))")
                continue
            }
            guard kind.names.indices.contains(position) else {
                note(key, false, "\(name): current.index \(position) is out of range for \(kind.type) (\(kind.typeName): 0 to \(kind.names.count - 1))")
                continue
            }
            let error = kind.names[position]
            result.set(feed, to: .text(error))
            summary.append(
                kind == .generic || kind == .verification
                    ? "\(name): \(error) (index \(position))"
                    : "\(name): \(kind.typeName).\(error) (\(kind.type) index \(position))")
        }
        let chosen = summary.contains { $0.contains("index ") } ? "; current.index → error is this dashboard's choice, see README" : ""
        note("_storeKitErrors", true, (summary.isEmpty ? "no failure" : summary.joined(separator: ", ")) + chosen)
    }
}
