import Foundation
import TestSupport
import Testing
import TipJar

@testable import TipJarDashboard

/// The App Store Server API's notification endpoints (Request a Test Notification, Get Test Notification Status, Get
/// Notification History) in Apple's shapes and with Apple's error codes, and the notification settings' boundary.
/// Apple's own library judges the same routes in Tests/ServerAPI/check_notifications.py.
@Suite("Notification endpoints")
struct NotificationEndpointTests {
    static var token: [(String, String)] { [AppStoreServerAPITests.bearer(), ("Content-Type", "application/json")] }

    static func call(_ server: LiveServer, _ method: String, _ target: String, _ body: String = "") async -> HTTPReply {
        await server.send(method, target, fields: token, body: body)
    }

    static func errorCode(_ reply: HTTPReply) -> Int? { reply.object["errorCode"] as? Int }

    static func history(_ server: LiveServer, _ fields: String, query: String = "") async -> HTTPReply {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let window = #"{"startDate":\#(now - 3_600_000),"endDate":\#(now + 60_000)"# + (fields.isEmpty ? "" : "," + fields) + "}"
        return await call(server, "POST", "/inApps/v1/notifications/history" + query, window)
    }

    @Test func aTestNotificationNeedsANotificationsURL() async throws {
        try await withLiveServer { server in
            let reply = await Self.call(server, "POST", "/inApps/v1/notifications/test")
            #expect(reply.status == 404 && Self.errorCode(reply) == 4_040_007)
        }
    }

    @Test func aTestNotificationAnswersItsTokenAndItsStatusShowsThePayloadAndAttempts() async throws {
        try await withLiveServer { server in
            #expect(await server.json("PUT", "/api/notifications/settings", #"{"url":"http://127.0.0.1:9/n"}"#).status == 200)
            let requested = await Self.call(server, "POST", "/inApps/v1/notifications/test")
            #expect(requested.status == 200 && Set(requested.object.keys) == ["testNotificationToken"])
            let token = try #require(requested.object["testNotificationToken"] as? String)
            let status = await Self.call(server, "GET", "/inApps/v1/notifications/test/\(token)")
            #expect(status.status == 200 && Set(status.object.keys) == ["signedPayload", "sendAttempts"])
            #expect((status.object["sendAttempts"] as? [Any])?.isEmpty == true, "not attempted yet")
            let signed = try #require(status.object["signedPayload"] as? String)
            let payload = try AppStoreServerAPITests.decode(signed.split(separator: ".")[1])
            #expect(payload["notificationType"] as? String == "TEST" && payload["subtype"] == nil)
            #expect(payload["data"] as? NSDictionary == ["bundleId": "com.example.tipjar", "environment": "Xcode"])
        }
    }

    @Test func aBadOrUnknownTestTokenAnswersApplesCodes() async throws {
        try await withLiveServer { server in
            let bad = await Self.call(server, "GET", "/inApps/v1/notifications/test/a.b")
            #expect(bad.status == 400 && Self.errorCode(bad) == 4_000_020)
            let long = await Self.call(server, "GET", "/inApps/v1/notifications/test/" + String(repeating: "a", count: 129))
            #expect(long.status == 400 && Self.errorCode(long) == 4_000_020)
            let unknown = await Self.call(server, "GET", "/inApps/v1/notifications/test/never-issued")
            #expect(unknown.status == 404 && Self.errorCode(unknown) == 4_040_008)
        }
    }

    @Test func theHistoryListsOnlyAttemptedNotificationsTwentyAPage() async throws {
        try await withLiveServer { server in
            try await server.storage.save(NotificationSettings(url: "http://127.0.0.1:9/n", timeScale: 1))
            try await NotificationSenderTests.buy(server, count: 25)
            #expect(await Self.history(server, "").object["notificationHistory"] as? [Any] != nil)
            #expect((await Self.history(server, "").object["notificationHistory"] as? [Any])?.isEmpty == true, "nothing attempted yet")
            let transport = NotificationSenderTests.ScriptedTransport { _ in .success }
            let sender = NotificationSenderTests.sender(server, transport, clock: .init(Date().addingTimeInterval(1)))
            #expect(try await sender.sendDue() == 25)
            let first = await Self.history(server, "")
            #expect(first.status == 200 && Set(first.object.keys) == ["notificationHistory", "hasMore", "paginationToken"])
            #expect((first.object["notificationHistory"] as? [Any])?.count == 20 && first.object["hasMore"] as? Bool == true)
            let item = try #require((first.object["notificationHistory"] as? [[String: Any]])?.first)
            #expect(Set(item.keys) == ["signedPayload", "sendAttempts"])
            #expect((item["sendAttempts"] as? [[String: Any]])?.first?["sendAttemptResult"] as? String == "SUCCESS")
            let next = try #require(first.object["paginationToken"] as? String)
            let second = await Self.history(server, "", query: "?paginationToken=\(next)")
            #expect((second.object["notificationHistory"] as? [Any])?.count == 5 && second.object["hasMore"] as? Bool == false)
            #expect(second.object["paginationToken"] == nil)
            #expect((await Self.history(server, #""onlyFailures":true"#).object["notificationHistory"] as? [Any])?.isEmpty == true)
            #expect((await Self.history(server, #""notificationType":"ONE_TIME_CHARGE""#).object["notificationHistory"] as? [Any])?.count == 20)
            #expect((await Self.history(server, #""notificationType":"DID_RENEW""#).object["notificationHistory"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func aBadHistoryRequestAnswersApplesCodeForWhatIsWrong() async throws {
        try await withLiveServer { server in
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let cases: [(String, Int)] = [
                (#"{"endDate":\#(now)}"#, 4_000_015), (#"{"startDate":"yesterday","endDate":\#(now)}"#, 4_000_015),
                (#"{"startDate":\#(now - 10)}"#, 4_000_016), (#"{"startDate":\#(now),"endDate":\#(now)}"#, 4_000_013),
                (#"{"startDate":\#(now - 181 * 86_400_000),"endDate":\#(now)}"#, 4_000_012),
                (#"{"startDate":\#(now - 10),"endDate":\#(now),"notificationType":"TIP"}"#, 4_000_018),
                (#"{"startDate":\#(now - 10),"endDate":\#(now),"notificationSubtype":"INITIAL_BUY"}"#, 4_000_018),
                (#"{"startDate":\#(now - 10),"endDate":\#(now),"notificationType":"REFUND","transactionId":"1"}"#, 4_000_019),
                (#"{"startDate":\#(now - 10),"endDate":\#(now),"transactionId":"+1"}"#, 4_000_006),
                (#"{"startDate":\#(now - 10),"endDate":\#(now),"onlyFailures":"yes"}"#, 4_000_000), ("[]", 4_000_000), ("", 4_000_000),
            ]
            for (body, code) in cases {
                let reply = await Self.call(server, "POST", "/inApps/v1/notifications/history", body)
                #expect(reply.status == 400 && Self.errorCode(reply) == code, "\(body)")
            }
            let token = await Self.history(server, "", query: "?paginationToken=%25")
            #expect(token.status == 400 && Self.errorCode(token) == 4_000_014)
            let unsigned = await server.send("POST", "/inApps/v1/notifications/history", fields: [("Content-Type", "application/json")], body: "{}")
            #expect(unsigned.status == 401)
        }
    }

    @Test func aNotificationsURLThatIsNotHTTPIsRefusedWith400AndNothingChanges() async throws {
        try await withLiveServer { server in
            #expect(await server.json("PUT", "/api/notifications/settings", #"{"url":"https://example.com/apple","timeScale":60}"#).status == 200)
            for body in [
                #"{"url":"ftp://example.com/"}"#, #"{"url":"javascript:alert(1)"}"#, #"{"url":"http://"}"#, #"{"url":"/relative"}"#,
                #"{"url":42}"#, #"{"timeScale":0}"#, #"{"timeScale":3600001}"#, #"{"timeScale":1.5}"#, #"{"colour":"red"}"#, "[]", "nonsense",
            ] {
                let reply = await server.json("PUT", "/api/notifications/settings", body)
                #expect(reply.status == 400 && reply.object["error"] is String, "\(body)")
            }
            let kept = await server.json("GET", "/api/notifications/settings")
            #expect(kept.object as NSDictionary == ["url": "https://example.com/apple", "timeScale": 60])
            #expect(await server.json("PUT", "/api/notifications/settings", #"{"url":null}"#).object["url"] is NSNull)
        }
    }

    /// The items' count of a history answer.
    static func count(_ reply: HTTPReply) -> Int? { (reply.object["notificationHistory"] as? [Any])?.count }

    /// `transactionId` is "any transaction that belongs to the customer": the customer's notifications, not that one
    /// transaction's, also by `appTransactionId`; `onlyFailures` is "notifications that failed to reach your server,
    /// including those … currently retrying": listed while retrying, not once a retry reached the server
    /// (https://developer.apple.com/documentation/appstoreserverapi/notificationhistoryrequest).
    @Test func theHistoryReadsTransactionIDAsTheCustomerAndOnlyFailuresAsNotYetDelivered() async throws {
        try await withLiveServer { server in
            try await server.storage.save(NotificationSettings(url: "http://127.0.0.1:9/n", timeScale: 1))
            let ana = try await AppStoreServerAPITests.buy(server, account: "ana", count: 2)
            let bo = try await AppStoreServerAPITests.buy(server, account: "bo", count: 1)
            let clock = NotificationSenderTests.ManualClock(Date().addingTimeInterval(1))
            let sender = NotificationSenderTests.sender(
                server, NotificationSenderTests.ScriptedTransport { $0 < 3 ? .unsuccessfulHTTPResponseCode : .success }, clock: clock)
            #expect(try await sender.sendDue() == 3)
            #expect(Self.count(await Self.history(server, #""onlyFailures":true"#)) == 3, "retrying: not delivered yet")
            #expect(Self.count(await Self.history(server, #""transactionId":"\#(ana[1])""#)) == 2, "ana's two, by her second transaction")
            #expect(Self.count(await Self.history(server, #""transactionId":"\#(bo[0])""#)) == 1)
            let payload = try #require(await server.json("GET", "/api/transactions/\(ana[0])").object["jwsPayload"] as? [String: Any])
            let appTransactionID = try #require(payload["appTransactionId"] as? String)
            #expect(Self.count(await Self.history(server, #""transactionId":"\#(appTransactionID)""#)) == 2, "by her appTransactionId")
            #expect(Self.count(await Self.history(server, #""transactionId":"999999""#)) == 0, "nobody's")
            clock.set(Date().addingTimeInterval(2 * 3_600))
            #expect(try await sender.sendDue() == 3)
            #expect(Self.count(await Self.history(server, #""onlyFailures":true"#)) == 0, "delivered on a retry: no longer a failure")
            #expect(Self.count(await Self.history(server, "")) == 3)
        }
    }

    /// Each environment's notification history is its own: after the store moves to `LocalTesting`, the `Xcode`
    /// transactions' notifications are not listed.
    @Test func theNotificationHistoryOfOneEnvironmentHoldsNoneOfAnothers() async throws {
        try await withLiveServer { server in
            try await server.storage.save(NotificationSettings(url: "http://127.0.0.1:9/n", timeScale: 1))
            _ = try await AppStoreServerAPITests.buy(server, count: 2)
            let sender = NotificationSenderTests.sender(
                server, NotificationSenderTests.ScriptedTransport { _ in .success }, clock: .init(Date().addingTimeInterval(1)))
            #expect(try await sender.sendDue() == 2)
            #expect(Self.count(await Self.history(server, "")) == 2)
            #expect(await server.json("PUT", "/api/store", #"{"environment":"LocalTesting"}"#).status == 200)
            #expect(Self.count(await Self.history(server, "")) == 0)
        }
    }
}
