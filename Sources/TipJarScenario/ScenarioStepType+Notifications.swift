import Foundation

extension ScenarioStepType {
    /// Every step type, in the order Public/scenarios/README.md documents them: the table's
    /// (ScenarioStepType+Table.swift), then the notification steps.
    public static let all: [ScenarioStepType] = core + notificationSteps

    /// The App Store Server Notifications steps: set the notifications URL, answer a `CONSUMPTION_REQUEST` as the
    /// developer's server does (Send Consumption Information), and expect a notification of a type.
    static let notificationSteps: [ScenarioStepType] = [
        ScenarioStepType(
            name: "notifications",
            summary:
                "Set where App Store Server Notifications go (PUT /api/notifications/settings): url (empty: none) and timeScale; the run puts the settings it found back when it ends.",
            install: .none, fields: ["url": .text, "timeScale": .integer(1...3_600_000)], required: [], titleFields: ["url"]
        ) { step, session in
            try await session.rememberNotificationSettings()
            var body: [String: JSONValue] = [:]
            if let url = step.fields["url"] { body["url"] = url.stringValue == "" ? .null : url }
            if let scale = step.fields["timeScale"] { body["timeScale"] = scale }
            return StepAnswer(try await session.send("PUT", "/api/notifications/settings", body: .object(body)))
        },
        ScenarioStepType(
            name: "failingServer",
            summary:
                "Stand up the developer's server in the process that runs the scenario, failing its first failures requests (default 3) with status (default 500) and answering 200 after, and send notifications to it at timeScale (default 3600000: Apple's hours are milliseconds); it stops, and the settings it found are put back, when the run ends.",
            install: .none, fields: ["failures": .integer(0...10), "status": .integer(400...599), "timeScale": .integer(1...3_600_000)],
            required: [], titleFields: ["failures"]
        ) { step, session in
            try await session.rememberNotificationSettings()
            let receiver = try ScenarioReceiver(failures: step.fields["failures"]?.intValue ?? 3, status: step.fields["status"]?.intValue ?? 500)
            session.receivers.append(receiver)
            let body: JSONValue = .object(["url": .string(receiver.url), "timeScale": step.fields["timeScale"] ?? .number(3_600_000)])
            return StepAnswer(try await session.send("PUT", "/api/notifications/settings", body: body))
        },
        ScenarioStepType(
            name: "consumptionInformation",
            summary:
                "Answer a CONSUMPTION_REQUEST as the developer's server does: Send Consumption Information (PUT /inApps/v2/transactions/consumption/{transactionID}) for the transaction named by transaction, else the install's last counted one, with refundPreference.",
            install: .uses,
            fields: [
                "transaction": .string, "refundPreference": .choice(["DECLINE", "GRANT_FULL", "GRANT_PRORATED"]),
                "deliveryStatus": .choice(["DELIVERED", "UNDELIVERED_QUALITY_ISSUE", "UNDELIVERED_WRONG_ITEM", "UNDELIVERED_SERVER_OUTAGE", "UNDELIVERED_OTHER"]),
            ],
            required: [], titleFields: ["refundPreference"]
        ) { step, session in
            let id = try await session.transactionToRefund(step)
            let transaction = try await session.read("/api/transactions/\(id)")
            let bundleID = transaction["jwsPayload"]?["bundleId"]?.stringValue ?? "com.example.tipjar"
            var body: [String: JSONValue] = [
                "customerConsented": .bool(true), "sampleContentProvided": .bool(false),
                "deliveryStatus": step.fields["deliveryStatus"] ?? .string("DELIVERED"),
            ]
            if let preference = step.fields["refundPreference"] { body["refundPreference"] = preference }
            var answer = StepAnswer(
                try await session.send(
                    "PUT", "/inApps/v2/transactions/consumption/\(id)", body: .object(body),
                    authorization: "Bearer " + ScenarioSession.appStoreServerAPIToken(bundleID: bundleID)))
            answer.transactionID = nil
            return answer
        },
        ScenarioStepType(
            name: "expectNotification",
            summary:
                "Wait until the store has queued a notification of type about the transaction named by transaction (else the install's last counted one), and, when given, until it is in state after that many attempts, for at most timeoutMs (GET /api/notifications).",
            install: .uses,
            fields: [
                "type": .choice(["ONE_TIME_CHARGE", "CONSUMPTION_REQUEST", "REFUND", "REFUND_DECLINED", "REFUND_REVERSED"]),
                "transaction": .string, "timeoutMs": .integer(1...600_000), "state": .choice(["pending", "sending", "delivered", "failed"]),
                "attempts": .integer(1...6),
            ],
            required: ["type"], titleFields: ["type"]
        ) { step, session in
            let id = try await session.transactionToRefund(step)
            let type = step.fields["type"]?.stringValue ?? ""
            let path = "/api/notifications?type=\(type)&transactionID=\(id)"
            let deadline = ContinuousClock.now + .milliseconds(step.fields["timeoutMs"]?.intValue ?? 5_000)
            let state = step.fields["state"]?.stringValue
            let attempts = step.fields["attempts"]?.intValue
            var seen = "none was queued (is a notifications URL set?)"
            while true {
                let answer = try await session.send("GET", path)
                if let found = answer.json?.arrayValue, let notification = found.last {
                    let ended = (notification["sendAttempts"]?.arrayValue ?? []).filter { $0["underWay"]?.boolValue != true }
                    let results = ended.compactMap { $0["sendAttemptResult"]?.stringValue }
                    let now = notification["state"]?.stringValue ?? ""
                    seen = "it is \(now) after \(results.count) attempt\(results.count == 1 ? "" : "s")" + (results.isEmpty ? "" : " (\(results.joined(separator: ", ")))")
                    if (state == nil || state == now) && (attempts == nil || attempts == results.count) {
                        var held = StepAnswer(answer)
                        held.outcome = "\(type): \(seen)"
                        return held
                    }
                }
                guard ContinuousClock.now < deadline else {
                    throw StepFailure(description: "the \(type) notification about transaction \(id): \(seen)")
                }
                try await Task.sleep(for: .milliseconds(50))
            }
        },
    ]
}

extension ScenarioSession {
    /// A bearer JWT of the shape the App Store Server API asks for (header `alg` ES256, `kid`, `typ`; claims `iss`,
    /// `iat`, `exp`, `aud`, `bid`; https://developer.apple.com/documentation/appstoreserverapi/generating-json-web-tokens-for-api-requests).
    /// Its signature is 64 bytes of nothing: the dashboard checks the shape, not the signature (no key of the
    /// developer's is held there).
    static func appStoreServerAPIToken(bundleID: String, now: Date = Date()) -> String {
        func part(_ text: String) -> String { base64URL(Data(text.utf8)) }
        let issued = Int(now.timeIntervalSince1970)
        let header = #"{"alg":"ES256","kid":"SCENARIO01","typ":"JWT"}"#
        let claims = #"{"iss":"scenario","iat":\#(issued),"exp":\#(issued + 600),"aud":"appstoreconnect-v1","bid":"\#(bundleID)"}"#
        return part(header) + "." + part(claims) + "." + base64URL(Data(repeating: 0, count: 64))
    }

    static func base64URL(_ data: Data) -> String {
        var text = data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }
}
