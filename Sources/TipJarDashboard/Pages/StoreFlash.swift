import Foundation
import TipJar

/// What a `/store` action did, carried across its 303 redirect (RFC 9110 §15.4.4) in the query as facts
/// (`flash=approved&transaction=12&install=5cdcb795&delivery=counted&hearts=3`) rather than as text, so a
/// crafted link can only state something in the page's own words; the `Location` ends with the fragment
/// of the section acted on (RFC 3986 §3.5), which is where the page shows the message, so a browser
/// without JavaScript returns to where the person was.
struct StoreFlash: Equatable {
    /// The kind of action, the `flash` value.
    var kind: Kind
    /// The transaction acted on, for approve, decline, refund and purchase outside the app.
    var transactionID: UInt64?
    /// The install's short ID (8 characters).
    var install: String?
    /// How the listener recorded it; `nil` when the install is stopped and the transaction waits for its next launch.
    var outcome: RecordOutcome?
    /// Whether the handler called `finish()` (false when the app crashed before it).
    var finished = true
    /// The install's hearts after the delivery.
    var hearts: Int?

    enum Kind: String {
        case saved, approved, declined, resolved, refunded, external, reset, cleared
        /// A refund request from the app approved (its revocation delivered) or declined (nothing delivered).
        case refundApproved = "refund-approved", refundDeclined = "refund-declined"
        /// One group's Apply (``StoreFormGroup``): only that group's settings changed.
        case savedSettings = "saved-settings", savedFailures = "saved-failures", savedTraps = "saved-traps"

        /// The `id` of the section on `Templates/pages/store.mustache` that the action belongs to.
        var section: String {
            switch self {
            case .saved, .savedSettings: "settings"
            case .savedFailures: "failures"
            case .savedTraps: "traps"
            case .approved, .declined: "pending"
            case .resolved: "interrupted"
            case .refundApproved, .refundDeclined: "refund-requests"
            case .external: "external"
            case .refunded, .cleared: "transactions"
            case .reset: "file-settings"
            }
        }
    }

    /// The flash for a transaction the listener delivered (`delivery`) or that waits for a launch (`nil`).
    static func delivered(_ kind: Kind, transactionID: UInt64, installID: String, delivery: Delivery?, hearts: Int) -> StoreFlash {
        StoreFlash(
            kind: kind, transactionID: transactionID, install: ViewModels.shortID(installID), outcome: delivery?.outcome,
            finished: delivery?.finished ?? true, hearts: delivery == nil ? nil : hearts)
    }

    /// The redirect target: `/store?flash=…#section`.
    var location: String {
        var items = ["flash=\(kind.rawValue)"]
        if let transactionID { items.append("transaction=\(transactionID)") }
        if let install { items.append("install=\(ViewModels.urlComponent(install))") }
        if kind == .approved || kind == .resolved || kind == .refunded || kind == .external || kind == .refundApproved {
            items.append("delivery=\(outcome?.rawValue ?? "waiting")")
            if !finished { items.append("finished=0") }
            if let hearts { items.append("hearts=\(hearts)") }
        }
        return "/store?\(items.joined(separator: "&"))#\(kind.section)"
    }

    /// Reads the facts back from a `/store` request; `nil` when any is missing or malformed (no message then).
    init?(query value: (String) -> String?) {
        guard let kind = value("flash").flatMap(Kind.init(rawValue:)) else { return nil }
        self.kind = kind
        switch kind {
        case .saved, .savedSettings, .savedFailures, .savedTraps, .reset, .cleared: return
        case .approved, .declined, .resolved, .refunded, .external, .refundApproved, .refundDeclined: break
        }
        guard let transactionID = value("transaction").flatMap(UInt64.init),
            let install = value("install"), (1...8).contains(install.count),
            install.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-") })
        else { return nil }
        (self.transactionID, self.install) = (transactionID, install)
        guard kind != .declined, kind != .refundDeclined else { return }
        switch value("delivery") {
        case "waiting": return
        case let raw?:
            guard let outcome = RecordOutcome(rawValue: raw), let hearts = value("hearts").flatMap(Int.init),
                (0...Install.maximumHearts).contains(hearts)
            else { return nil }
            (self.outcome, self.hearts, self.finished) = (outcome, hearts, value("finished") != "0")
        case nil: return nil
        }
    }

    init(
        kind: Kind, transactionID: UInt64? = nil, install: String? = nil, outcome: RecordOutcome? = nil,
        finished: Bool = true, hearts: Int? = nil
    ) {
        (self.kind, self.transactionID, self.install, self.outcome, self.finished, self.hearts) = (kind, transactionID, install, outcome, finished, hearts)
    }

    /// The sentence the section shows: exactly what happened, with no "or".
    var message: String {
        let transaction = "transaction \(transactionID.map(String.init) ?? "")"
        let install = "install \(self.install ?? "")"
        let result: String
        if let outcome {
            let hearts = self.hearts.map { "\($0) heart\($0 == 1 ? "" : "s")" } ?? ""
            result = "was delivered to \(install) (\(outcome.rawValue)\(finished ? "" : ", not finished: the app crashed before finish()"), \(hearts))."
        } else {
            result = "waits for the next launch of \(install) (the app is stopped)."
        }
        switch kind {
        case .saved: return "Store settings saved."
        case .savedSettings: return "Outages and outcomes saved; the other groups kept their settings."
        case .savedFailures: return "Failure injection saved; the other groups kept their settings."
        case .savedTraps: return "Traps saved; the other groups kept their settings."
        case .reset: return "Reset: the store's settings are the file's again."
        case .cleared: return "Cleared: the store forgot every transaction; installs kept their hearts."
        case .declined: return "Declined: Ask to Buy request \(transactionID.map(String.init) ?? "") of \(install) was never charged; nothing is delivered."
        case .approved: return "Approved: new \(transaction) \(result)"
        case .resolved: return "Resolved: the interrupted purchase completed; new \(transaction) \(result)"
        case .refunded: return "Refunded: the revoked \(transaction) \(result)"
        case .refundApproved: return "Refund request approved: the revoked \(transaction) \(result)"
        case .refundDeclined: return "Refund request declined: nothing is delivered for \(transaction) of \(install)."
        case .external: return "Purchased outside the app: \(transaction) \(result)"
        }
    }
}
