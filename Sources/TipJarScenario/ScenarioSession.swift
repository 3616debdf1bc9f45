import Foundation
import TipJar

/// The state of one scenario's run: the client, and the IDs the server gave the installs,
/// accounts and transactions that the file calls by name. Used by one run at a time.
final class ScenarioSession {
    let transport: any ScenarioTransport
    /// Install name → install ID.
    var installs: [String: String] = [:]
    /// Transaction name (`as`) → transaction ID.
    var transactions: [String: UInt64] = [:]
    /// Appended to every account name, so runs against one server never share an Apple Account
    /// (and never see each other's unfinished transactions).
    let accountSuffix: String
    /// The notification settings as they were before the scenario's first `notifications` step (`GET
    /// /api/notifications/settings`), put back when the run ends (``restoreSettings()``): a scenario rehearses against
    /// the dashboard a person uses, and must leave their notifications URL and time scale as it found them.
    var notificationSettingsBefore: JSONValue?
    /// The developer's servers the scenario stood up (`failingServer`), stopped when the run ends.
    var receivers: [ScenarioReceiver] = []

    init(transport: any ScenarioTransport, accountSuffix: String) {
        self.transport = transport
        self.accountSuffix = accountSuffix
    }

    /// Remembers the notification settings before a scenario first changes them.
    func rememberNotificationSettings() async throws {
        guard notificationSettingsBefore == nil else { return }
        notificationSettingsBefore = try await read("/api/notifications/settings")
    }

    /// Puts back what the scenario changed outside its own accounts: the notification settings.
    /// - Returns: a line saying what was restored, or `nil` when nothing was changed.
    func restoreSettings() async -> String? {
        defer {
            for receiver in receivers { receiver.stop() }
            receivers = []
        }
        guard let before = notificationSettingsBefore else { return nil }
        do {
            let answer = try await send("PUT", "/api/notifications/settings", body: before)
            guard answer.status == 200 else { return "could not restore the notification settings: HTTP \(answer.status)" }
            notificationSettingsBefore = nil
            return "restored the notification settings it changed"
        } catch {
            return "could not restore the notification settings: \(error)"
        }
    }

    /// Every store setting at its default (Sources/TipJar/README.md, "Store settings"), for `store` steps with `reset: true`: one field
    /// per ``StoreSettings/declarations`` entry, nested as `GET /api/store` answers.
    static let defaultStoreSettings: [String: JSONValue] = {
        func json(_ value: StoreSetting.Value) -> JSONValue {
            switch value {
            case .text(let text): .string(text)
            case .number(let number): .number(Double(number))
            case .flag(let flag): .bool(flag)
            case .off: .null
            }
        }
        var settings: [String: JSONValue] = [:]
        for declaration in StoreSettings.declarations(in: nil) { settings[declaration.key] = json(declaration.defaultValue) }
        for object in StoreSettings.settingObjects {
            settings[object] = .object(
                Dictionary(
                    uniqueKeysWithValues: StoreSettings.declarations(in: object).map {
                        ($0.path[1], json($0.defaultValue))
                    }))
        }
        return settings
    }()

    func accountID(named name: String) -> String { "\(name)-\(accountSuffix)" }

    func send(_ method: String, _ path: String, body: JSONValue? = nil) async throws -> ScenarioHTTPClient.Answer {
        do {
            return try await transport.send(method, path, body: body)
        } catch {
            throw StepFailure(description: "\(method) \(path): \(error.description)")
        }
    }

    /// ``send(_:_:body:)`` with an `Authorization` field of its own (the App Store Server API's JWT).
    func send(_ method: String, _ path: String, body: JSONValue?, authorization: String) async throws -> ScenarioHTTPClient.Answer {
        do {
            return try await transport.send(method, path, body: body, authorization: authorization)
        } catch {
            throw StepFailure(description: "\(method) \(path): \(error.description)")
        }
    }

    /// A GET that must answer 200 with JSON (the reads behind expectations).
    func read(_ path: String) async throws -> JSONValue {
        let answer = try await send("GET", path)
        guard answer.status == 200 else { throw StepFailure(description: "GET \(path) answered \(answer.status)\(Self.errorText(answer))") }
        guard let json = answer.json else { throw StepFailure(description: "GET \(path) answered 200 without a JSON body") }
        return json
    }

    static func errorText(_ answer: ScenarioHTTPClient.Answer) -> String {
        answer.json?["error"]?.stringValue.map { ": \($0)" } ?? ""
    }

    func installID(_ step: ScenarioStep) throws -> String {
        guard let name = step.install, let id = installs[name] else {
            throw StepFailure(description: "the install \"\(step.install ?? "")\" was not created (its createInstall step did not succeed)")
        }
        return id
    }

    /// The install's last Ask to Buy request still waiting (`GET /api/store/pending`): its request ID.
    func lastPending(_ step: ScenarioStep) async throws -> UInt64 {
        let id = try installID(step)
        let pending = try await read("/api/store/pending").arrayValue ?? []
        let mine = pending.filter { $0["installID"]?.stringValue == id }.compactMap { $0["requestID"]?.intValue }
        guard let last = mine.max() else { throw StepFailure(description: "no Ask to Buy purchase of \(step.install ?? "") is waiting") }
        return UInt64(last)
    }

    /// The install's newest interrupted purchase (`GET /api/transactions?installID=…&status=interrupted`).
    func lastInterrupted(_ step: ScenarioStep) async throws -> UInt64 {
        let id = try installID(step)
        let page = try await read("/api/transactions?installID=\(id)&status=interrupted")
        let mine = (page["transactions"]?.arrayValue ?? []).compactMap { $0["transactionID"]?.intValue }
        guard let last = mine.max() else { throw StepFailure(description: "no interrupted purchase of \(step.install ?? "") is waiting") }
        return UInt64(last)
    }

    /// The transaction named by the step's `transaction`, else the install's last counted one.
    func transactionToRefund(_ step: ScenarioStep) async throws -> UInt64 {
        if let name = step.fields["transaction"]?.stringValue {
            guard let id = transactions[name] else { throw StepFailure(description: "the transaction \"\(name)\" was not created") }
            return id
        }
        let rows = try await ledger(try installID(step))
        guard let row = rows.last(where: { $0["outcome"]?.stringValue == "counted" }), let id = row["transactionID"]?.intValue else {
            throw StepFailure(description: "\(step.install ?? "") has no counted transaction to refund")
        }
        return UInt64(id)
    }

    func ledger(_ installID: String) async throws -> [JSONValue] {
        try await read("/api/installs/\(installID)/ledger").arrayValue ?? []
    }

    /// Polls the install until every condition of `until` holds, for at most `timeoutMs`
    /// (default 5,000 ms); each poll reads the facts anew, 20 ms apart.
    func wait(_ step: ScenarioStep) async throws -> StepAnswer {
        let condition = try Self.condition(step.fields["until"])
        let timeout = step.fields["timeoutMs"]?.intValue ?? 5_000
        let installID = try installID(step)
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .milliseconds(timeout))
        while true {
            let mismatches = try await check(condition, installID: installID, answer: nil, ledgerBefore: nil)
            if mismatches.isEmpty {
                var answer = StepAnswer(ScenarioHTTPClient.Answer(status: 200, json: nil, body: []))
                answer.outcome = "held"
                return answer
            }
            guard clock.now < deadline else {
                throw StepFailure(description: "waited \(timeout) ms and the condition never held: \(mismatches.joined(separator: "; "))")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    static func condition(_ value: JSONValue?) throws -> ScenarioExpectation {
        guard let value else { return ScenarioExpectation() }
        do {
            return try ScenarioExpectation(
                node: ScenarioNode(value: value, path: "until", file: ""), names: ScenarioNames(),
                allowing: ScenarioExpectation.conditionFields)
        } catch {
            throw StepFailure(description: error.description)
        }
    }
}
