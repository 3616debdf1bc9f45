import Foundation
import Mustache
import TipJar

/// What a template renders: names to typed values, built once per request and rendered without
/// any conversion (the `Mustache` library's fast path).
typealias TemplateData = [String: MustacheValue]

/// Builds the logic-free data the templates render: typed Mustache values
/// (strings, numbers, booleans, lists and objects), built from domain values and testable without rendering.
enum ViewModels {
    /// The first eight characters of an install ID, for lists.
    static func shortID(_ id: String) -> String { String(id.prefix(8)) }

    /// `text` in pieces that end after each `@` and `.`, for a template to write with a `<wbr>` after each (each
    /// piece escaped): a long e-mail address then wraps at its natural breaks instead of widening its table.
    static func breakable(_ text: String) -> MustacheValue {
        var pieces: [MustacheValue] = []
        var piece = ""
        for character in text {
            piece.append(character)
            if character == "@" || character == "." {
                pieces.append(.string(piece))
                piece = ""
            }
        }
        if !piece.isEmpty || pieces.isEmpty { pieces.append(.string(piece)) }
        return .array(pieces)
    }

    /// A value for a URL path segment or query: everything but letters, digits and `-._~` percent-encoded
    /// (RFC 3986 §2.3 unreserved characters).
    static func urlComponent(_ text: String) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    /// Filled and empty hearts, e.g. `♥♥♡♡♡`.
    static func heartsText(_ hearts: Int) -> String {
        let filled = max(0, min(Install.maximumHearts, hearts))
        return String(repeating: "♥", count: filled) + String(repeating: "♡", count: Install.maximumHearts - filled)
    }

    static func install(_ install: Install) -> MustacheValue {
        [
            "id": .string(install.id), "shortID": .string(shortID(install.id)), "label": .string(install.label),
            "hasLabel": .bool(!install.label.isEmpty), "locale": .string(install.locale.rawValue), "storefront": .string(install.storefront),
            "accountID": .string(install.accountID), "hearts": .int(install.hearts), "heartsText": .string(heartsText(install.hearts)),
            "legacyHasTipped": .bool(install.legacyHasTipped), "isRunning": .bool(install.isRunning),
        ]
    }

    /// The hearts row: the visible hearts, their accessible name, and the thank-you line, which
    /// stays on the screen whenever there is a heart (not only right after a purchase).
    static func hearts(_ hearts: Int, strings: TipJarStrings) -> MustacheValue {
        var data: TemplateData = ["text": .string(heartsText(hearts)), "label": .string(strings.heartsLabel(hearts))]
        if hearts > 0 { data["thanks"] = .string(strings.thanks) }
        return .object(data)
    }

    static func strings(_ strings: TipJarStrings) -> MustacheValue {
        [
            "infoAndCredits": .string(strings.infoAndCredits), "blurb": .string(strings.blurb), "loading": .string(strings.loading),
            "showTips": .string(strings.showTips), "retry": .string(strings.retry), "restore": .string(strings.restore),
            "ok": .string(strings.ok), "unreachable": .string(strings.unreachable),
        ]
    }

    /// The tip jar's state for `fragments/tipjar`: `loading`, `unavailable` with its message, or
    /// `ready` with its tiles.
    static func state(_ state: TipJarState, strings: TipJarStrings, disabled: Bool = false) -> MustacheValue {
        switch state {
        case .loading:
            return ["name": "loading", "loading": true]
        case .unavailable(let reason):
            let message = reason == .empty ? strings.unavailableEmpty : strings.unavailableFailed
            return ["name": "unavailable", "unavailable": true, "message": .string(message)]
        case .ready(let offers):
            return ["name": "ready", "ready": true, "offers": .array(offers.map { tile($0, disabled: disabled) })]
        }
    }

    static func tile(_ offer: TipOffer, disabled: Bool = false) -> MustacheValue {
        [
            "productID": .string(offer.productID), "name": .string(offer.name), "emoji": .string(offer.emoji),
            "displayPrice": .string(offer.displayPrice), "tierName": .string(offer.tier?.rawValue ?? "other"), "disabled": .bool(disabled),
        ]
    }

    static func delivery(_ delivery: Delivery) -> MustacheValue {
        let at = UTCTimestamp(delivery.at)
        return [
            "at": .string(at.isoWithMilliseconds), "atShort": .string(at.short), "atDate": .string(at.datePart), "atTime": .string(at.timePart),
            "path": .string(delivery.path == .otherDevice ? "another device" : delivery.path.rawValue),
            "transactionID": .string(String(delivery.transactionID)), "productID": .string(delivery.productID),
            "outcome": .string(delivery.outcome.rawValue), "finished": .bool(delivery.finished),
            "reason": delivery.note.map { .string($0.text) } ?? .null,
            // Purchase options: shown only when they differ from the defaults.
            "quantity": delivery.purchasedQuantity == 1 ? .null : .string("×\(delivery.purchasedQuantity)"),
            "appAccountToken": delivery.appAccountToken.map { .string($0.uuidString.lowercased()) } ?? .null,
        ]
    }

    /// The page's ledger rows, newest first like the timeline beside it (storage and the JSON API
    /// keep oldest first).
    /// A counted row whose transaction no later row revoked links to the refund sheet
    /// (`/installs/{id}/transactions/{transactionID}/refund-sheet`, ``InstallsController``): the app's
    /// `Transaction.beginRefundRequest(in:)`.
    static func ledgerRows(_ ledger: [Delivery]) -> MustacheValue {
        let revoked = Set(ledger.filter { $0.outcome == .revoked }.map(\.transactionID))
        return .array(
            ledger.reversed().map { row in
                guard case .object(var data) = delivery(row) else { return delivery(row) }
                if row.outcome == .counted, !revoked.contains(row.transactionID) {
                    data["refundHref"] = .string("/installs/\(row.installID)/transactions/\(row.transactionID)/refund-sheet")
                }
                return .object(data)
            })
    }

    /// A timeline event; `installExists` says whether its install can be linked to (``InstallScreen/eventRows(_:)``).
    static func event(_ event: InstallEvent, installExists: Bool = true) -> MustacheValue {
        let at = UTCTimestamp(event.at)
        var data: TemplateData = [
            "at": .string(at.isoWithMilliseconds), "atShort": .string(at.short), "kind": .string(event.kind),
            "detail": .string(event.detail),
        ]
        if let id = event.installID {
            data["installID"] = .string(id)
            data["installShort"] = .string(shortID(id))
            data["installExists"] = .bool(installExists)
        }
        return .object(data)
    }

    /// What `fragments/tipjar` needs: the install, the localized strings, the hearts and the state.
    /// A tile posts to the purchase sheet (`purchase-sheet`), or straight to `purchases` when `skipPurchaseSheet` is on.
    static func tipJar(
        install: Install, state: TipJarState, isPurchaseOpen: Bool, csrfToken: String,
        skipPurchaseSheet: Bool = false
    ) -> TemplateData {
        let strings = TipJarStrings.of(install.locale)
        return [
            "install": Self.install(install), "installID": .string(install.id), "t": Self.strings(strings),
            "hearts": hearts(install.hearts, strings: strings), "csrfToken": .string(csrfToken),
            "state": Self.state(state, strings: strings, disabled: isPurchaseOpen),
            "purchasePath": .string(skipPurchaseSheet ? "purchases" : "purchase-sheet"),
        ]
    }

    /// The whole `/installs/{id}` page, from domain values only (no I/O), so it can be tested and
    /// benchmarked without a server.
    static func installPage(
        install: Install, state: TipJarState, isPurchaseOpen: Bool, ledger: [Delivery],
        events: [InstallEvent], csrfToken: String, catalogName: String, textSize: String?,
        feedback: Feedback?, skipPurchaseSheet: Bool = false, sheet: PurchaseSheet? = nil
    ) -> TemplateData {
        var data = tipJar(
            install: install, state: state, isPurchaseOpen: isPurchaseOpen, csrfToken: csrfToken,
            skipPurchaseSheet: skipPurchaseSheet)
        if let sheet {
            var tileName: String?
            if case .ready(let offers) = state { tileName = offers.first { $0.productID == sheet.product.id }?.name }
            data["sheet"] = purchaseSheet(sheet, strings: .of(install.locale), tileName: tileName)
        }
        data["catalogName"] = .string(catalogName)
        data["nav"] = ["installs": true]
        let size = TextSize(value: textSize) ?? .default
        data["textSize"] = .string(size.rawValue)
        data["textSizeClasses"] = .string(size.classes)
        data["textSizes"] = choices(textSizes, selected: size.rawValue)
        data["feedback"] = feedback?.data ?? [:]
        data["ledger"] = ledgerRows(ledger)
        data["events"] = .array(events.map { event($0) })
        data["hasEvents"] = .bool(!events.isEmpty)
        data["live"] = .string("/installs/\(install.id)/live" + (size == .default ? "" : "?textSize=\(size.rawValue)"))
        data["purchaseOpen"] = .bool(isPurchaseOpen)
        data["purchaseOpenText"] = .string(TipJarStrings.of(install.locale).purchaseOpenHere)
        data["accountPath"] = .string(urlComponent(install.accountID))
        return data
    }

    /// `<option>`/radio choices: `[{value, name, selected}]`.
    static func choices(_ values: [(value: String, name: String)], selected: String) -> MustacheValue {
        .array(values.map { ["value": .string($0.value), "name": .string($0.name), "selected": .bool($0.value == selected)] })
    }

    /// Every App Store storefront (``Storefront/all``) as `<option>` choices, `LUX · Luxembourg (EUR)`.
    static func storefrontChoices(selected: String) -> MustacheValue {
        choices(storefrontNames, selected: selected)
    }

    /// The value and label of every storefront, built once.
    static let storefrontNames: [(value: String, name: String)] = Storefront.all.map {
        ($0.countryCode, "\($0.countryCode) · \($0.name) (\($0.currencyCode))")
    }

    /// The text sizes of the install page's switch (``TextSize``); the accessibility sizes stack the tiles (README
    /// "Domain rules": Layout).
    static let textSizes: [(value: String, name: String)] = TextSize.allCases.map { ($0.rawValue, $0.name) }
}

extension ViewModels {
    /// ISO 8601 UTC without fractions, e.g. `2026-11-30T08:01:02Z` (the JSON API's `at`).
    static func isoSeconds(_ date: Date) -> String { UTCTimestamp(date).iso }

    /// ISO 8601 UTC with milliseconds, e.g. `2026-11-30T08:01:02.345Z` (a transaction's dates: StoreKit's and the JWS
    /// payload's keep milliseconds).
    static func isoMilliseconds(_ date: Date) -> String { UTCTimestamp(date).isoWithMilliseconds }
}
