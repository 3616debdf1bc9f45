import Foundation
import TipJar

/// Builds the logic-free data the templates render (STYLE.md rule 10): plain dictionaries of
/// strings, numbers, booleans and arrays, built from domain values and testable without rendering.
enum ViewModels {
    /// `2026-11-30T08:01:02.345Z`.
    static func iso(_ date: Date) -> String { UTCTimestamp(date).isoWithMilliseconds }

    /// `2026-11-30 08:01:02` (UTC), for tables.
    static func short(_ date: Date) -> String { UTCTimestamp(date).short }

    /// The first eight characters of an install ID, for lists.
    static func shortID(_ id: String) -> String { String(id.prefix(8)) }

    /// Filled and empty hearts, e.g. `♥♥♡♡♡`.
    static func heartsText(_ hearts: Int) -> String {
        let filled = max(0, min(Install.maximumHearts, hearts))
        return String(repeating: "♥", count: filled) + String(repeating: "♡", count: Install.maximumHearts - filled)
    }

    static func install(_ install: Install) -> [String: Any] {
        ["id": install.id, "shortID": shortID(install.id), "label": install.label, "hasLabel": !install.label.isEmpty, "locale": install.locale.rawValue,
         "storefront": install.storefront, "accountID": install.accountID, "hearts": install.hearts,
         "heartsText": heartsText(install.hearts), "legacyHasTipped": install.legacyHasTipped, "isRunning": install.isRunning]
    }

    static func hearts(_ hearts: Int, strings: TipJarStrings) -> [String: Any] {
        ["text": heartsText(hearts), "label": strings.heartsLabel.replacingOccurrences(of: "%d", with: String(hearts))]
    }

    static func strings(_ strings: TipJarStrings) -> [String: Any] {
        ["infoAndCredits": strings.infoAndCredits, "blurb": strings.blurb, "loading": strings.loading,
         "showTips": strings.showTips, "retry": strings.retry, "restore": strings.restore]
    }

    /// The tip jar's state for `fragments/tipjar`: `loading`, `unavailable` with its message, or
    /// `ready` with its tiles.
    static func state(_ state: TipJarState, strings: TipJarStrings, disabled: Bool = false) -> [String: Any] {
        switch state {
        case .loading:
            return ["name": "loading", "loading": true]
        case .unavailable(let reason):
            let message = reason == .empty ? strings.unavailableEmpty : strings.unavailableFailed
            return ["name": "unavailable", "unavailable": true, "message": message]
        case .ready(let offers):
            return ["name": "ready", "ready": true, "offers": offers.map { tile($0, disabled: disabled) }]
        }
    }

    static func tile(_ offer: TipOffer, disabled: Bool = false) -> [String: Any] {
        ["productID": offer.productID, "name": offer.name, "emoji": offer.emoji, "displayPrice": offer.displayPrice,
         "tierName": offer.tier?.rawValue ?? "other", "disabled": disabled]
    }

    static func delivery(_ delivery: Delivery) -> [String: Any] {
        let at = UTCTimestamp(delivery.at)
        return ["at": at.isoWithMilliseconds, "atShort": at.short, "path": delivery.path.rawValue,
         "transactionID": String(delivery.transactionID), "productID": delivery.productID,
         "outcome": delivery.outcome.rawValue, "finished": delivery.finished]
    }

    static func event(_ event: InstallEvent) -> [String: Any] {
        let at = UTCTimestamp(event.at)
        var data: [String: Any] = ["at": at.isoWithMilliseconds, "atShort": at.short, "kind": event.kind, "detail": event.detail]
        if let id = event.installID {
            data["installID"] = id
            data["installShort"] = shortID(id)
        }
        return data
    }

    static func settings(_ settings: StoreSettings) -> [String: Any] {
        var failures: [[String: Any]] = []
        if let error = settings.failures.loadProducts { failures.append(["name": "Load Products", "error": error.rawValue]) }
        if let error = settings.failures.purchase { failures.append(["name": "Purchase", "error": error.rawValue]) }
        if let error = settings.failures.verification { failures.append(["name": "Verification", "error": error.rawValue]) }
        if let error = settings.failures.sync { failures.append(["name": "App Store Sync", "error": error.rawValue]) }
        return ["catalog": settings.catalog.rawValue, "isSlow": settings.catalog == .slow, "latencyMs": settings.latencyMs,
                "purchaseOutcome": settings.purchaseOutcome.rawValue, "isFailed": settings.purchaseOutcome == .failed,
                "purchaseError": settings.purchaseError.rawValue, "purchaseLatencyMs": settings.purchaseLatencyMs,
                "failureList": failures, "crashBeforeFinish": settings.crashBeforeFinish,
                "listenerReemits": settings.listenerReemits]
    }

    /// What `fragments/tipjar` needs: the install, the localized strings, the hearts and the state.
    static func tipJar(install: Install, state: TipJarState, isPurchaseOpen: Bool, csrfToken: String) -> [String: Any] {
        let strings = TipJarStrings.of(install.locale)
        return ["install": Self.install(install), "installID": install.id, "t": Self.strings(strings),
                "hearts": hearts(install.hearts, strings: strings), "csrfToken": csrfToken,
                "state": Self.state(state, strings: strings, disabled: isPurchaseOpen)]
    }

    /// The whole `/installs/{id}` page, from domain values only (no I/O), so it can be tested and
    /// benchmarked without a server.
    static func installPage(install: Install, state: TipJarState, isPurchaseOpen: Bool, ledger: [Delivery],
                            events: [InstallEvent], csrfToken: String, catalogName: String, textSize: String?,
                            feedback: Feedback?) -> [String: Any] {
        var data = tipJar(install: install, state: state, isPurchaseOpen: isPurchaseOpen, csrfToken: csrfToken)
        data["catalogName"] = catalogName
        data["nav"] = ["installs": true]
        let size = textSizes.map(\.value).contains(textSize ?? "") ? textSize! : "default"
        data["textSize"] = size
        data["textSizes"] = choices(textSizes, selected: size)
        data["feedback"] = feedback?.data ?? [:]
        data["ledger"] = ledger.map(delivery)
        data["events"] = events.map(event)
        data["live"] = "/installs/\(install.id)/live"
        return data
    }

    /// `<option>`/radio choices: `[{value, name, selected}]`.
    static func choices(_ values: [(value: String, name: String)], selected: String) -> [[String: Any]] {
        values.map { ["value": $0.value, "name": $0.name, "selected": $0.value == selected] }
    }

    /// Choices for an optional error: "off" plus every case.
    static func failureChoices<E: RawRepresentable & CaseIterable>(_ type: E.Type, selected: E?) -> [[String: Any]] where E.RawValue == String {
        choices([("", "off")] + E.allCases.map { ($0.rawValue, $0.rawValue) }, selected: selected?.rawValue ?? "")
    }

    /// The text sizes of the install page's switch; `accessibility` stacks the tiles (DESIGN.md rule 10).
    static let textSizes: [(value: String, name: String)] = [("default", "Default"), ("large", "Large"), ("accessibility", "Accessibility (AX5)")]
}

extension ViewModels {
    /// ISO 8601 UTC without fractions, e.g. `2026-11-30T08:01:02Z` (the JSON API's `at`).
    static func isoSeconds(_ date: Date) -> String { UTCTimestamp(date).iso }
}
