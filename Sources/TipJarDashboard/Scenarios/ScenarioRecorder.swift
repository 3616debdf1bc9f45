import Foundation
import TipJar
import TipJarScenario

/// Writes the steps taken on one install as a scenario (`GET /api/installs/{id}/scenario`, the
/// install page's "Save as scenario"): the install's timeline events become steps, the store
/// changes made meanwhile become `store` steps, and the ledger rows each step added (the durable
/// record) become its expectations, with the hearts they came to. Replayed on a fresh database
/// the file comes to the same hearts and ledger.
///
/// The timeline is in memory and bounded (`Timeline`: an install's last 50 events, the last 1,000
/// store-wide ones); an install whose creation is no longer on it, or whose ledger holds rows no
/// step of its own explains (a transaction of another install on the same account), cannot be
/// recorded faithfully and is refused with the reason.
struct ScenarioRecorder {
    var install: Install
    /// The install's events and the store-wide `store.settings` events, oldest first.
    var events: [InstallEvent]
    /// The install's ledger, oldest first.
    var ledger: [Delivery]
    /// The store's settings now.
    var currentSettings: StoreSettings
    /// The ledger's transactions that another install issued (same account).
    var foreignTransactions: Set<UInt64> = []

    /// Why an install cannot be recorded.
    struct Refusal: Error { var message: String }

    static let name = "install"

    func scenario() throws -> Scenario {
        guard let created = events.firstIndex(where: { $0.kind == "install.created" && $0.installID == install.id }) else {
            throw Refusal(message: "This install's creation is no longer on the timeline (it keeps the last events only), so its steps cannot be recorded.")
        }
        let storeChanges = events.filter { $0.kind == "store.settings" }
        var settings = storeChanges.first { $0.at >= events[created].at }.flatMap { Self.settings($0.attributes["previous"]) } ?? currentSettings
        var steps = [ScenarioStep(type: Self.type("store"), fields: ["reset": .bool(true), "settings": Self.patch(settings)])]
        var cursor = 0, hearts = 0
        var named: Set<UInt64> = []
        if let foreign = ledger.first(where: { foreignTransactions.contains($0.transactionID) }) {
            throw Refusal(
                message:
                    "Transaction \(foreign.transactionID) reached this install from another install on the same account (\(foreign.path.rawValue)); a recording covers one install's own steps."
            )
        }
        var legacy = events[created].attributes["legacyHasTipped"] == "true"
        for event in events[created...] {
            if event.kind == "store.settings" {
                guard let next = Self.settings(event.attributes["settings"]), next != settings else { continue }
                settings = next
                steps.append(ScenarioStep(type: Self.type("store"), fields: ["reset": .bool(true), "settings": Self.patch(settings)]))
                continue
            }
            guard event.installID == install.id, var step = try step(for: event, settings: settings, legacy: &legacy) else { continue }
            // A refused restore (App Store Sync failure) delivered nothing.
            let consumed = step.expect.status == 503 ? 0 : rows(for: event, from: cursor)
            if let transactionID = event.attributes["transactionID"].flatMap(UInt64.init), step.fields["as"] != nil { named.insert(transactionID) }
            // A refund names its transaction only when a step above named it; else the runner refunds the last counted one.
            if let reference = step.fields["transaction"]?.stringValue, !named.contains(where: { "t\($0)" == reference }) { step.fields["transaction"] = nil }
            // The legacy migration's heart comes before the launch's deliveries (TipJarService.launch).
            if event.kind == "launch", step.expect.hearts == 1 { hearts = max(hearts, 1) }
            for row in ledger[cursor..<(cursor + consumed)] where row.outcome == .counted { hearts = min(5, hearts + 1) }
            if consumed > 0 || ["launch", "restore", "purchase.closed", "askToBuy.approved", "refund", "external"].contains(event.kind) {
                step.expect.ledger = ledger[cursor..<(cursor + consumed)].map { row in
                    ScenarioExpectation.LedgerRow(
                        path: row.path.rawValue, outcome: row.outcome.rawValue, finished: row.finished,
                        productID: row.productID, transaction: named.contains(row.transactionID) ? "t\(row.transactionID)" : nil)
                }
                step.expect.hearts = hearts
            }
            cursor += consumed
            steps.append(step)
        }
        guard cursor == ledger.count else {
            throw Refusal(
                message:
                    "The ledger holds \(ledger.count - cursor == 1 ? "1 row" : "\(ledger.count - cursor) rows") that no step of this install explains (transaction \(ledger[cursor].transactionID), \(ledger[cursor].path.rawValue)): a transaction of another install on the same account, or events older than the timeline keeps."
            )
        }
        let label = install.label.isEmpty ? install.id : install.label
        return Scenario(
            name: "Recorded: install \(label)", description: "The steps taken on install \(install.id), recorded with the outcomes that were seen.",
            steps: steps)
    }

    /// The step an event stands for, or `nil` for events that are not steps (`purchase.open`, loads, crashes).
    func step(for event: InstallEvent, settings: StoreSettings, legacy: inout Bool) throws -> ScenarioStep? {
        let name = Self.name
        let attributes = event.attributes
        switch event.kind {
        case "install.created":
            var fields: [String: JSONValue] = [
                "locale": .string(attributes["locale"] ?? "en"), "storefront": .string(attributes["storefront"] ?? "USA"),
                "account": .string("recorded"),
            ]
            if let label = attributes["label"], !label.isEmpty { fields["label"] = .string(label) }
            if attributes["legacyHasTipped"] == "true" { fields["legacyHasTipped"] = .bool(true) }
            return ScenarioStep(type: Self.type("createInstall"), install: name, fields: fields, expect: ScenarioExpectation(status: 201, hearts: 0))
        case "launch":
            var step = ScenarioStep(type: Self.type("relaunch"), install: name, expect: ScenarioExpectation(running: true))
            if legacy { step.expect.hearts = 1 }
            legacy = false
            return step
        case "stop":
            return ScenarioStep(type: Self.type("stop"), install: name, expect: ScenarioExpectation(running: false))
        case "restore":
            var expect = ScenarioExpectation()
            if let failure = settings.failures.sync { expect.status = 503; expect.errorName = .string(failure.rawValue) }
            return ScenarioStep(type: Self.type("restore"), install: name, expect: expect)
        case "purchase.closed":
            var fields: [String: JSONValue] = ["productID": .string(attributes["productID"] ?? "")]
            if let transactionID = attributes["transactionID"] { fields["as"] = .string("t\(transactionID)") }
            let expect = ScenarioExpectation(outcome: attributes["outcome"], errorName: attributes["errorName"].map(JSONValue.string) ?? .null)
            return ScenarioStep(type: Self.type("purchase"), install: name, fields: fields, expect: expect)
        case "askToBuy.approved":
            return ScenarioStep(type: Self.type("approve"), install: name)
        case "askToBuy.declined":
            return ScenarioStep(type: Self.type("decline"), install: name, expect: ScenarioExpectation(ledger: []))
        case "refundRequest.success", "refundRequest.userCancelled", "refundRequest.failed":
            // A request decided at once by `refundRequestDecision` also takes the ledger rows of its approval.
            var fields: [String: JSONValue] = ["userAction": .string(attributes["userAction"] ?? "submit")]
            if let reason = attributes["reason"] { fields["reason"] = .string(reason) }
            if let transactionID = attributes["transactionID"] { fields["transaction"] = .string("t\(transactionID)") }
            var expect = ScenarioExpectation(outcome: attributes["status"], errorName: attributes["errorName"].map(JSONValue.string) ?? .null)
            if let errorName = attributes["errorName"] { expect.status = errorName == "duplicateRequest" ? 409 : 503 }
            return ScenarioStep(type: Self.type("refundRequest"), install: name, fields: fields, expect: expect)
        case "refundRequest.declined" where attributes["decidedBy"] != "setting":
            var fields: [String: JSONValue] = [:]
            if let transactionID = attributes["transactionID"] { fields["transaction"] = .string("t\(transactionID)") }
            return ScenarioStep(type: Self.type("declineRefund"), install: name, fields: fields, expect: ScenarioExpectation(ledger: []))
        case "refund" where attributes["refundRequest"] == "setting":
            return nil  // its rows are the refund request's step's, which follows it in the timeline
        case "refund" where attributes["refundRequest"] == "store":
            var fields: [String: JSONValue] = [:]
            if let transactionID = attributes["transactionID"] { fields["transaction"] = .string("t\(transactionID)") }
            return ScenarioStep(type: Self.type("approveRefund"), install: name, fields: fields)
        case "refund":
            var fields: [String: JSONValue] = ["reason": .string(attributes["reason"] ?? "other")]
            if let transactionID = attributes["transactionID"] { fields["transaction"] = .string("t\(transactionID)") }
            return ScenarioStep(type: Self.type("refund"), install: name, fields: fields)
        case "external":
            var fields: [String: JSONValue] = ["productID": .string(attributes["productID"] ?? "")]
            if let transactionID = attributes["transactionID"] { fields["as"] = .string("t\(transactionID)") }
            return ScenarioStep(type: Self.type("externalPurchase"), install: name, fields: fields, expect: ScenarioExpectation(status: 201))
        default:
            return nil
        }
    }

    /// How many ledger rows from `start` the event's step added: a launch's and a restore's rows
    /// by path, a purchase's, approval's, refund's or outside purchase's rows by transaction.
    func rows(for event: InstallEvent, from start: Int) -> Int {
        let transactionID = event.attributes["transactionID"].flatMap(UInt64.init)
        let matches: (Delivery) -> Bool
        switch event.kind {
        case "launch": matches = { $0.path == .launch }
        case "restore": matches = { $0.path == .restore }
        case "purchase.closed":
            guard let transactionID else { return 0 }
            var first = true
            matches = { row in
                defer { first = false }
                // A revoked row is a refund's (or a refund request's approval), never the purchase's own re-emit.
                return row.transactionID == transactionID && (first ? row.path == .purchase : row.path == .listener && row.outcome != .revoked)
            }
        case "refundRequest.success" where event.attributes["decision"] == "approve":
            guard let transactionID else { return 0 }
            matches = { $0.transactionID == transactionID && $0.path == .listener }
        case "askToBuy.approved", "refund", "external":
            guard let transactionID else { return 0 }
            matches = { $0.transactionID == transactionID && $0.path == .listener }
        default: return 0
        }
        var count = 0
        while start + count < ledger.count, matches(ledger[start + count]) { count += 1 }
        return count
    }

    /// Two event lists, each oldest first, merged by time; at equal times the first list's event comes first.
    static func merge(_ first: [InstallEvent], _ second: [InstallEvent]) -> [InstallEvent] {
        var merged: [InstallEvent] = []
        var (i, j) = (0, 0)
        while i < first.count || j < second.count {
            if j == second.count || (i < first.count && first[i].at <= second[j].at) {
                merged.append(first[i]); i += 1
            } else {
                merged.append(second[j]); j += 1
            }
        }
        return merged
    }

    static func type(_ name: String) -> ScenarioStepType {
        guard let type = ScenarioStepType.named(name) else { preconditionFailure("no scenario step type \(name)") }
        return type
    }

    static func settings(_ text: String?) -> StoreSettings? {
        text.flatMap { try? JSONDecoder().decode(StoreSettings.self, from: Data($0.utf8)) }
    }

    /// The settings as the `PUT /api/store` body.
    static func patch(_ settings: StoreSettings) -> JSONValue {
        let encoder = JSONEncoder()
        guard let data = try? encoder.encode(APIModels.StoreBody(settings)), let value = try? JSONValue(parsing: data) else { return .object([:]) }
        return value
    }
}
