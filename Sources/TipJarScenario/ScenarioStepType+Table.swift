import Foundation

extension ScenarioStepType {
    /// The step types before the notification ones (``all``), in the order Public/scenarios/README.md documents them. Each entry is the whole
    /// definition of a step: adding an endpoint to scenarios is one entry here and one name in
    /// `Public/scenarios/schema/scenario.schema.json`.
    static let core: [ScenarioStepType] = [
        ScenarioStepType(
            name: "store", summary: "Change the simulated App Store's settings (a PATCH /api/store, JSON Merge Patch); reset: true first restores every default.",
            install: .none, fields: ["settings": .object, "reset": .bool], required: [], titleFields: []
        ) { step, session in
            var patch: [String: JSONValue] = step.fields["reset"]?.boolValue == true ? ScenarioSession.defaultStoreSettings : [:]
            if case .object(let settings)? = step.fields["settings"] {
                for (key, value) in settings {
                    if key == "failures", case .object(let failures) = value, case .object(var merged)? = patch["failures"] {
                        for (name, failure) in failures { merged[name] = failure }
                        patch[key] = .object(merged)
                    } else {
                        patch[key] = value
                    }
                }
            }
            return StepAnswer(try await session.send("PATCH", "/api/store", body: .object(patch)))
        },
        ScenarioStepType(
            name: "createInstall", summary: "Install the app (POST /api/installs); the install is called by its name from then on.",
            install: .creates,
            fields: [
                "locale": .choice(["en", "pt-BR"]), "storefront": .string, "account": .string, "label": .text,
                "legacyHasTipped": .bool, "launch": .bool,
            ],
            required: [], titleFields: []
        ) { step, session in
            var body: [String: JSONValue] = [:]
            for key in ["locale", "storefront", "label", "legacyHasTipped", "launch"] { body[key] = step.fields[key] }
            if let account = step.fields["account"]?.stringValue { body["accountID"] = .string(session.accountID(named: account)) }
            let answer = try await session.send("POST", "/api/installs", body: .object(body))
            if let id = answer.json?["id"]?.stringValue, let name = step.install { session.installs[name] = id }
            return StepAnswer(answer)
        },
        ScenarioStepType(
            name: "purchase", summary: "Tap a tip (POST /api/installs/{id}/purchases); tabs sends that many taps at once; userAction is the sheet's confirm or cancel.",
            install: .uses, fields: ["productID": .string, "userAction": .choice(["confirm", "cancel"]), "tabs": .integer(1...5), "as": .string],
            required: ["productID"], titleFields: ["productID"]
        ) { step, session in
            var body: [String: JSONValue] = ["productID": step.fields["productID"] ?? .null]
            if let action = step.fields["userAction"] { body["userAction"] = action }
            let path = "/api/installs/\(try session.installID(step))/purchases"
            let tabs = step.fields["tabs"]?.intValue ?? 1
            let client = session.transport
            let payload = JSONValue.object(body)
            let answers = try await withThrowingTaskGroup(of: (Int, ScenarioHTTPClient.Answer).self) { group in
                for tab in 0..<tabs { group.addTask { (tab, try await client.send("POST", path, body: payload)) } }
                var answers: [(Int, ScenarioHTTPClient.Answer)] = []
                for try await answer in group { answers.append(answer) }
                return answers.sorted { $0.0 < $1.0 }.map(\.1)
            }
            // The answer that opened the purchase is the one reported; the others are the taps it refused.
            let primary = answers.first { (200..<300).contains($0.status) } ?? answers[0]
            var result = StepAnswer(primary)
            result.statuses = answers.map(\.status)
            result.outcome = primary.json?["outcome"]?.stringValue
            return result
        },
        askToBuy("approve", summary: "Approve the install's last Ask to Buy purchase (POST /api/store/pending/{requestID}/approve): the request's transaction is issued now."),
        askToBuy("decline", summary: "Decline the install's last Ask to Buy purchase (POST /api/store/pending/{requestID}/decline)."),
        ScenarioStepType(
            name: "resolve", summary: "Resolve the install's last interrupted purchase (POST /api/store/interrupted/{transactionID}/resolve): a new transaction is issued.",
            install: .uses, fields: [:], required: [], titleFields: []
        ) { step, session in
            StepAnswer(try await session.send("POST", "/api/store/interrupted/\(try await session.lastInterrupted(step))/resolve"))
        },
        ScenarioStepType(
            name: "refund", summary: "Refund a transaction (POST /api/transactions/{id}/refund): the one named by transaction, else the install's last counted one.",
            install: .uses,
            fields: [
                "transaction": .string, "reason": .choice(["developerIssue", "other"]),
                "revocationType": .choice(["REFUND_FULL", "REFUND_PRORATED", "FAMILY_REVOKE"]), "revocationPercentage": .integer(0...100_000),
            ],
            required: [], titleFields: ["transaction"]
        ) { step, session in
            let id = try await session.transactionToRefund(step)
            var fields: [String: JSONValue] = [:]
            for key in ["reason", "revocationType", "revocationPercentage"] { fields[key] = step.fields[key] }
            let body: JSONValue? = fields.isEmpty ? nil : .object(fields)
            var answer = StepAnswer(try await session.send("POST", "/api/transactions/\(id)/refund", body: body))
            answer.transactionID = nil
            return answer
        },
        ScenarioStepType(
            name: "refundRequest",
            summary: "Request a refund from the app (POST /api/installs/{id}/transactions/{transactionID}/refund-request, Transaction.beginRefundRequest(in:)): the transaction named by transaction, else the install's last counted one; userAction submit (default) or cancel.",
            install: .uses,
            fields: ["transaction": .string, "userAction": .choice(["submit", "cancel"]), "reason": .choice(["developerIssue", "other"])],
            required: [], titleFields: ["transaction"]
        ) { step, session in
            let id = try await session.transactionToRefund(step)
            var body: [String: JSONValue] = ["userAction": step.fields["userAction"] ?? .string("submit")]
            if let reason = step.fields["reason"] { body["reason"] = reason }
            let path = "/api/installs/\(try session.installID(step))/transactions/\(id)/refund-request"
            var answer = StepAnswer(try await session.send("POST", path, body: .object(body)))
            answer.outcome = answer.body?["status"]?.stringValue
            return answer
        },
        refundDecision("approveRefund", "approve", summary: "Approve the refund request (POST /api/store/refund-requests/{transactionID}/approve): the revoked transaction reaches the listener."),
        refundDecision("declineRefund", "decline", summary: "Decline the refund request (POST /api/store/refund-requests/{transactionID}/decline): nothing reaches the app."),
        installRequest(
            "externalPurchase", "POST", "external-purchases", passing: "productID", fields: ["as": .string],
            summary: "Buy outside the app for the install's account (POST /api/installs/{id}/external-purchases), any product ID."),
        installRequest("relaunch", "POST", "launch", summary: "Launch the app (POST /api/installs/{id}/launch): migration, then unfinished transactions."),
        installRequest("stop", "POST", "stop", summary: "Stop the app (POST /api/installs/{id}/stop): the listener receives nothing until the next launch."),
        installRequest("restore", "POST", "restore", summary: "Tap Restore (POST /api/installs/{id}/restore, AppStore.sync())."),
        installRequest(
            "storefront", "PUT", "storefront", passing: "storefront",
            summary: "Move the install's Apple Account to another storefront (PUT /api/installs/{id}/storefront)."),
        ScenarioStepType(
            name: "offers", summary: "Open the tip jar (GET /api/installs/{id}/offers): Product.products(for:) with the store's catalog settings.",
            install: .uses, fields: [:], required: [], titleFields: []
        ) { step, session in
            var answer = StepAnswer(try await session.send("GET", "/api/installs/\(try session.installID(step))/offers"))
            answer.outcome = answer.body?["state"]?.stringValue
            return answer
        },
        ScenarioStepType(
            name: "wait", summary: "Wait until every condition of until holds (hearts, running, offers, pending), for at most timeoutMs.",
            install: .uses, fields: ["until": .condition, "timeoutMs": .integer(1...600_000)], required: ["until"], titleFields: []
        ) { step, session in
            try await session.wait(step)
        },
    ]
}

extension ScenarioStepType {
    /// A step that sends one request below the install, `METHOD /api/installs/{id}/<action>`, with
    /// `{"<passing>": …}` as its body when the step names a field to pass through (then required).
    static func installRequest(
        _ name: String, _ method: String, _ action: String, passing field: String? = nil,
        fields extra: [String: FieldRule] = [:], summary: String
    ) -> ScenarioStepType {
        var fields = extra
        if let field { fields[field] = .string }
        return ScenarioStepType(
            name: name, summary: summary, install: .uses, fields: fields, required: Set([field].compactMap { $0 }),
            titleFields: [field].compactMap { $0 }
        ) { step, session in
            let body = field.map { JSONValue.object([$0: step.fields[$0] ?? .null]) }
            return StepAnswer(try await session.send(method, "/api/installs/\(try session.installID(step))/\(action)", body: body))
        }
    }

    /// A step that decides a refund request: the one for the transaction named by `transaction`, else for the
    /// install's last counted one: `POST /api/store/refund-requests/{transactionID}/<action>`.
    static func refundDecision(_ name: String, _ action: String, summary: String) -> ScenarioStepType {
        ScenarioStepType(name: name, summary: summary, install: .uses, fields: ["transaction": .string], required: [], titleFields: ["transaction"]) {
            step, session in
            var answer = StepAnswer(try await session.send("POST", "/api/store/refund-requests/\(try await session.transactionToRefund(step))/\(action)"))
            answer.transactionID = nil
            return answer
        }
    }

    /// A step that answers the install's last Ask to Buy purchase still waiting:
    /// `POST /api/store/pending/{requestID}/<name>`.
    static func askToBuy(_ name: String, summary: String) -> ScenarioStepType {
        ScenarioStepType(name: name, summary: summary, install: .uses, fields: [:], required: [], titleFields: []) { step, session in
            StepAnswer(try await session.send("POST", "/api/store/pending/\(try await session.lastPending(step))/\(name)"))
        }
    }
}
