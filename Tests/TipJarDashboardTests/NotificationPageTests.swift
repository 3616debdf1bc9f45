import Foundation
import TestSupport
import Testing
import TipJar

@testable import TipJarDashboard

/// The `/notifications` page and the transaction page's notifications (Templates/pages/notifications.mustache,
/// Templates/partials/transaction-notifications.mustache): plain forms with the session's CSRF token, no JavaScript.
@Suite("Notification pages")
struct NotificationPageTests {
    let pages = PageTests()

    @Test func theSettingsFormSavesAURLAndRefusesOneThatIsNotHTTP() async throws {
        try await withLiveServer { server in
            let session = try await pages.session(server)
            let page = await server.send("GET", "/notifications", fields: [("Cookie", session.cookie)])
            #expect(page.status == 200 && page.body.contains(#"<form method="post" action="/notifications/settings""#))
            #expect(page.body.contains(#"name="csrfToken" value="\#(session.token)""#) && page.body.contains("No URL is set"))
            let saved = await pages.post(server, "/notifications/settings", session, form: "url=http%3A%2F%2F127.0.0.1%3A9%2Fn&timeScale=3600")
            #expect(saved.status == 303 && saved["Location"] == "/notifications?flash=saved")
            #expect(try await server.storage.notificationSettings() == NotificationSettings(url: "http://127.0.0.1:9/n", timeScale: 3_600))
            let refused = await pages.post(server, "/notifications/settings", session, form: "url=javascript%3Aalert(1)")
            #expect(refused.status == 400)
            let unsigned = await server.send(
                "POST", "/notifications/settings", fields: [("Content-Type", "application/x-www-form-urlencoded"), ("Cookie", session.cookie)],
                body: "url=")
            #expect(unsigned.status == 403, "no CSRF token, no change")
            #expect(try await server.storage.notificationSettings().url == "http://127.0.0.1:9/n")
        }
    }

    @Test func theListShowsEachNotificationWithItsTypeTransactionPayloadAndAttemptsAndFiltersByType() async throws {
        try await withLiveServer { server in
            try await server.storage.save(NotificationSettings(url: "http://127.0.0.1:9/n", timeScale: 1))
            try await NotificationSenderTests.buy(server)
            let transport = NotificationSenderTests.ScriptedTransport { _ in .noResponse }
            try await NotificationSenderTests.sender(server, transport, clock: .init(Date().addingTimeInterval(1))).sendDue()
            let tid = try #require(try await server.storage.notifications(matching: NotificationQuery()).first?.transactionID)
            let session = try await pages.session(server)
            let page = await server.send("GET", "/notifications", fields: [("Cookie", session.cookie)]).body
            #expect(page.contains("<strong><code>ONE_TIME_CHARGE</code></strong>") && page.contains(#"<a href="/transactions/\#(tid)">"#))
            #expect(page.contains(#"<code class="failed">NO_RESPONSE</code>"#) && page.contains("&quot;notificationType&quot; : &quot;ONE_TIME_CHARGE&quot;"))
            #expect(page.contains(#"action="/notifications/1/resend""#))
            #expect(!(await server.send("GET", "/notifications?type=TEST").body.contains("<strong><code>ONE_TIME_CHARGE</code></strong>")))
            #expect(await server.send("GET", "/notifications?type=NOPE").status == 400)
            let transaction = await server.send("GET", "/transactions/\(tid)").body
            #expect(transaction.contains("Its App Store Server Notifications") && transaction.contains("<code>ONE_TIME_CHARGE</code>"))
        }
    }

    @Test func resendQueuesACopyWithANewUUIDAndLeavesTheOriginalAsItWas() async throws {
        try await withLiveServer { server in
            try await server.storage.save(NotificationSettings(url: "http://127.0.0.1:9/n", timeScale: 1))
            try await NotificationSenderTests.buy(server)
            let transport = NotificationSenderTests.ScriptedTransport { _ in .success }
            let sender = NotificationSenderTests.sender(server, transport, clock: .init(Date().addingTimeInterval(1)))
            try await sender.sendDue()
            let session = try await pages.session(server)
            let reply = await pages.post(server, "/notifications/1/resend", session, form: "")
            #expect(reply.status == 303 && reply["Location"] == "/notifications?flash=resent")
            #expect(await pages.post(server, "/notifications/99/resend", session, form: "").status == 404)
            try await sender.sendDue()
            let all = try await server.storage.notifications(matching: NotificationQuery())
            #expect(all.map(\.state) == [.delivered, .delivered] && all.map(\.type) == [.oneTimeCharge, .oneTimeCharge])
            #expect(all[0].attempts.count == 1, "the original is never sent again")
            #expect(all[0].notificationUUID != all[1].notificationUUID && all[0].transactionID == all[1].transactionID)
        }
    }

    @Test func requestATestNotificationQueuesATestWithoutAJWTAndOnlyWithTheFormsToken() async throws {
        try await withLiveServer { server in
            let session = try await pages.session(server)
            #expect(!(await server.send("GET", "/notifications", fields: [("Cookie", session.cookie)]).body.contains("Request a Test Notification</button>")))
            #expect(await pages.post(server, "/notifications/test", session, form: "").status == 409, "no URL: nowhere to send it")
            try await server.storage.save(NotificationSettings(url: "http://127.0.0.1:9/n", timeScale: 1))
            let page = await server.send("GET", "/notifications", fields: [("Cookie", session.cookie)]).body
            #expect(page.contains(#"action="/notifications/test""#) && page.contains("Request a Test Notification</button>"))
            let unsigned = await server.send(
                "POST", "/notifications/test", fields: [("Content-Type", "application/x-www-form-urlencoded"), ("Cookie", session.cookie)], body: "")
            #expect(unsigned.status == 403)
            let reply = await pages.post(server, "/notifications/test", session, form: "")
            #expect(reply.status == 303 && reply["Location"] == "/notifications?flash=test")
            let queued = try await server.storage.notifications(matching: NotificationQuery())
            #expect(queued.map(\.type) == [.test] && queued.first?.testToken != nil && queued.first?.signedPayload != nil)
        }
    }

    @Test func aFailedAttemptShowsTheURLTriedAndTheCauseInWords() async throws {
        let receiver = try ScriptedReceiver { _ in ScriptedReceiver.status(500) }
        defer { receiver.stop() }
        try await withLiveServer { server in
            try await server.storage.save(NotificationSettings(url: receiver.url, timeScale: 1))
            try await NotificationSenderTests.buy(server)
            let sender = NotificationSender(
                queue: server.storage, transactions: { [records = server.service.records] in try await records.transactions(withIDs: $0) },
                bundleID: server.service.appBundleID, environment: { "Xcode" }, now: { Date() })
            #expect(try await sender.sendDue() == 1)
            let page = await server.send("GET", "/notifications").body
            #expect(page.contains(#"<code class="failed">UNSUCCESSFUL_HTTP_RESPONSE_CODE</code>"#))
            #expect(page.contains(#"<span class="cause">HTTP 500</span>"#) && page.contains(#"<code class="url">\#(receiver.url)</code>"#))
            let listed = await server.json("GET", "/api/notifications").array
            let attempt = try #require((listed.first?["sendAttempts"] as? [[String: Any]])?.first)
            #expect(attempt["detail"] as? String == "HTTP 500" && attempt["url"] as? String == receiver.url && attempt["underWay"] as? Bool == false)
        }
    }

    @Test func theListIsNewestFirstAPageAtATimeOnThePageAndInTheAPI() async throws {
        try await withLiveServer { server in
            try await server.storage.save(NotificationSettings(url: "http://127.0.0.1:9/n", timeScale: 1))
            for _ in 0..<(NotificationsController.pageSize + 5) {
                _ = try await server.storage.enqueue(ServerNotification(type: .test, createdAt: Date()))
            }
            let newest = NotificationsController.pageSize + 5
            let first = await server.send("GET", "/notifications").body
            #expect(first.components(separatedBy: "<li class=\"panel notification\">").count - 1 == NotificationsController.pageSize)
            #expect(first.contains(#"action="/notifications/\#(newest)/resend""#) && !first.contains(#"action="/notifications/1/resend""#))
            let oldestShown = newest - NotificationsController.pageSize + 1
            #expect(first.contains(#"<a href="/notifications?before=\#(oldestShown)" rel="next">Older notifications</a>"#))
            let second = await server.send("GET", "/notifications?before=\(oldestShown)").body
            #expect(second.contains(#"action="/notifications/1/resend""#) && second.contains(#"<a href="/notifications">Newest</a>"#))
            #expect(!second.contains("Older notifications"))

            let page = await server.send("GET", "/api/notifications?limit=3")
            let ids = page.array.compactMap { $0["id"] as? Int }
            #expect(ids == [newest, newest - 1, newest - 2])
            #expect(page["Link"] == "</api/notifications?before=\(newest - 2)&limit=3>; rel=\"next\"")
            let next = await server.json("GET", "/api/notifications?before=\(newest - 2)&limit=3").array.compactMap { $0["id"] as? Int }
            #expect(next == [newest - 3, newest - 4, newest - 5])
            #expect(await server.send("GET", "/api/notifications?limit=0").status == 400)
            #expect(await server.send("GET", "/api/notifications?before=x").status == 400)
            #expect(await server.send("GET", "/api/notifications?before=").status == 400, "the document's pattern wants digits")
        }
    }

    @Test func aURLThatCanNeverWorkOrPointsAtCloudMetadataIsRefusedWithTheReason() async throws {
        try await withLiveServer { server in
            for url in ["http://127.0.0.1:0/n", "http://169.254.169.254/latest/meta-data", "http://a:b@127.0.0.1/n", "http://127.0.0.1/a\u{202E}b"] {
                let body = String(decoding: try JSONSerialization.data(withJSONObject: ["url": url]), as: UTF8.self)
                let reply = await server.send("PUT", "/api/notifications/settings", fields: [("Content-Type", "application/json")], body: body)
                #expect(reply.status == 400 && reply.body.contains("url"), "\(url): \(reply.status) \(reply.body)")
            }
            #expect(try await server.storage.notificationSettings().url == nil, "nothing saved")
        }
    }
}
