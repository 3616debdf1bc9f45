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
}
