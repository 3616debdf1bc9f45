import Foundation
import Synchronization
import TestSupport
import Testing
import TipJar
import SQLiteDatabase
import TipJarSQLite

@testable import TipJarDashboard

/// The sender of the notifications queue (Sources/TipJarDashboard/Notifications/NotificationSender.swift): Apple's retry schedule
/// on an injected clock, one post per notification whatever the number of senders, and a purchase that never waits
/// for the developer's server.
@Suite("Notification sender")
struct NotificationSenderTests {
    /// A transport that answers from a script and counts what it was given, by payload.
    final class ScriptedTransport: NotificationTransport {
        let results: @Sendable (Int) -> SendAttemptResult
        let posted = Mutex<[String]>([])

        init(_ results: @escaping @Sendable (Int) -> SendAttemptResult) { self.results = results }

        func post(_ body: Data, to url: URL, timeout: TimeInterval) async -> NotificationAttemptOutcome {
            let payload = (try? JSONSerialization.jsonObject(with: body) as? [String: String])?["signedPayload"] ?? ""
            let count = posted.withLock { posted in
                posted.append(payload)
                return posted.count - 1
            }
            let result = results(count)
            return NotificationAttemptOutcome(result: result, detail: result.rawValue, url: url.absoluteString)
        }
    }

    /// A clock a test moves by hand.
    final class ManualClock: Sendable {
        let date: Mutex<Date>
        init(_ date: Date) { self.date = Mutex(date) }
        var now: Date { date.withLock { $0 } }
        func set(_ new: Date) { date.withLock { $0 = new } }
    }

    static func sender(_ server: LiveServer, _ transport: some NotificationTransport, clock: ManualClock) -> NotificationSender {
        let records = server.service.records
        return NotificationSender(
            queue: server.storage, transport: transport, transactions: { try await records.transactions(withIDs: $0) },
            bundleID: server.service.appBundleID, environment: { "LocalTesting" }, now: { clock.now })
    }

    static func buy(_ server: LiveServer, count: Int = 1) async throws {
        let install = try #require(await server.json("POST", "/api/installs", #"{"accountID":"ana","launch":true}"#).object["id"] as? String)
        for _ in 0..<count {
            #expect(await server.json("POST", "/api/installs/\(install)/purchases", #"{"productID":"com.example.tipjar.tip.coffee"}"#).status == 200)
        }
    }

    /// A live server whose notifications go to `receiver`, with `backlog` purchases queued before its sender starts,
    /// and the sender running as `serve` runs it until `body` returns.
    static func withSender(
        to receiver: ScriptedReceiver, timeScale: Int = 1, backlog: Int = 0, _ body: (LiveServer) async throws -> Void
    ) async throws {
        try await withLiveServer { server in
            try await server.storage.save(NotificationSettings(url: receiver.url, timeScale: timeScale))
            if backlog > 0 { try await buy(server, count: backlog) }
            let sending = Task { await server.stack.runNotifications() }
            defer { sending.cancel() }
            try await body(server)
        }
    }

    /// The body is `{"signedPayload": …}` (https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2),
    /// the same JSON whether the payload is a compact JWS (copied as it is) or anything else (through `JSONEncoder`).
    @Test func thePostedBodyIsTheSignedPayloadAsJSONWhateverItHolds() throws {
        for payload in ["eyJhbGciOiJub25lIn0.eyJ4IjoiPj4-Pz8_In0.", "", #"quote " backslash \ é \#u{1}"#] {
            let body = NotificationSender.body(payload)
            #expect(try JSONSerialization.jsonObject(with: body) as? [String: String] == ["signedPayload": payload])
        }
        #expect(String(decoding: NotificationSender.body("a.b."), as: UTF8.self) == #"{"signedPayload":"a.b."}"#)
    }

    @Test func aNotificationAnsweredWith500IsRetriedOnAppleSchedule() async throws {
        try await withLiveServer { server in
            try await server.storage.save(NotificationSettings(url: "http://127.0.0.1:9/n", timeScale: 3_600))
            try await Self.buy(server)
            let queued = try #require(try await server.storage.dueNotifications(at: .distantFuture, limit: 1).first)
            let clock = ManualClock(queued.createdAt)
            let transport = ScriptedTransport { _ in .unsuccessfulHTTPResponseCode }
            let sender = Self.sender(server, transport, clock: clock)
            #expect(try await sender.sendDue() == 1, "the initial attempt, at once")
            var last = queued.createdAt
            // 1, 12, 24, 48 and 72 hours after the previous attempt, an hour a second at time scale 3600.
            for hours in [1.0, 12, 24, 48, 72] {
                clock.set(last.addingTimeInterval(hours - 0.001))
                #expect(try await sender.sendDue() == 0, "not before \(hours) h")
                clock.set(last.addingTimeInterval(hours))
                #expect(try await sender.sendDue() == 1, "the retry \(hours) h after the previous attempt")
                last = clock.now
            }
            clock.set(last.addingTimeInterval(1_000_000))
            #expect(try await sender.sendDue() == 0, "no seventh attempt")
            let failed = try #require(try await server.storage.notification(id: queued.id))
            #expect(failed.state == .failed && failed.attempts.count == 6)
            #expect(failed.attempts.allSatisfy { $0.result == .unsuccessfulHTTPResponseCode })
            let gaps = zip(failed.attempts.dropFirst(), failed.attempts).map { $0.date.timeIntervalSince($1.date) }
            #expect(gaps.map { $0.rounded() } == [1, 12, 24, 48, 72])
            #expect(Set(transport.posted.withLock { $0 }).count == 1, "every retry posts the same signed payload")
        }
    }

    @Test func aRetryThatSucceedsEndsTheRetries() async throws {
        try await withLiveServer { server in
            try await server.storage.save(NotificationSettings(url: "http://127.0.0.1:9/n", timeScale: 3_600))
            try await Self.buy(server)
            let queued = try #require(try await server.storage.dueNotifications(at: .distantFuture, limit: 1).first)
            let clock = ManualClock(queued.createdAt)
            let sender = Self.sender(server, ScriptedTransport { $0 == 0 ? .timedOut : .success }, clock: clock)
            try await sender.sendDue()
            clock.set(queued.createdAt.addingTimeInterval(1))
            try await sender.sendDue()
            clock.set(.distantFuture)
            #expect(try await sender.sendDue() == 0)
            let delivered = try #require(try await server.storage.notification(id: queued.id))
            #expect(delivered.state == .delivered && delivered.attempts.map(\.result) == [.timedOut, .success])
        }
    }

    @Test func twoSendersRacingPostEachNotificationOnce() async throws {
        try await withLiveServer { server in
            try await server.storage.save(NotificationSettings(url: "http://127.0.0.1:9/n", timeScale: 1))
            try await Self.buy(server, count: 12)
            let clock = ManualClock(.distantFuture.addingTimeInterval(-1))
            let transport = ScriptedTransport { _ in .success }
            let one = Self.sender(server, transport, clock: clock)
            let other = Self.sender(server, transport, clock: clock)
            async let first = one.sendDue()
            async let second = other.sendDue()
            #expect(try await first + second == 12)
            let posted = transport.posted.withLock { $0 }
            #expect(posted.count == 12 && Set(posted).count == 12, "each notification posted once")
            #expect(try await server.storage.dueNotifications(at: .distantFuture, limit: 100).isEmpty)
        }
    }

    @Test func aServerThatNeverAnswersHoldsAtMostFourAttemptsAndCostsAPurchaseNothing() async throws {
        let receiver = try ScriptedReceiver { _ in .silence }
        defer { receiver.stop() }
        try await Self.withSender(to: receiver) { server in
            try await Self.buy(server, count: 6)  // each answered while the server holds the posts unanswered
            #expect(await eventually { receiver.bodies.count == 4 }, "four attempts under way at once")
            let queued = try await server.storage.notifications(matching: NotificationQuery(limit: 10))
            #expect(queued.count == 6)
            #expect(queued.filter { $0.state == .sending }.count == 4 && queued.filter { $0.state == .pending }.count == 2)
            #expect(receiver.bodies.count == 4, "never more than four at once")
        }
    }

    @Test func aTestNotificationIsPostedPastABacklogASilentServerHolds() async throws {
        let receiver = try ScriptedReceiver { _ in .silence }
        defer { receiver.stop() }
        try await Self.withSender(to: receiver) { server in
            try await Self.buy(server, count: 8)
            #expect(await eventually { receiver.bodies.count == 4 })
            let test = ServerNotification.requestedTest(at: Date(), makeUUID: { UUID().uuidString }, bundleID: "b", environment: "Xcode")
            _ = try await server.storage.enqueue(test)
            #expect(await eventually { receiver.bodies.count == 5 }, "the TEST lane is free while the backlog's four are held")
            let last = try #require(receiver.bodies.last)
            let payload = try #require((try JSONSerialization.jsonObject(with: last) as? [String: String])?["signedPayload"])
            #expect(payload == test.signedPayload)
        }
    }

    @Test func aBacklogTravelsInBatchesOverKeptConnectionsEachNotificationPostedOnce() async throws {
        let receiver = try ScriptedReceiver { _ in ScriptedReceiver.kept(200) }
        defer { receiver.stop() }
        try await Self.withSender(to: receiver, backlog: 40) { server in
            #expect(
                try await eventually {
                    try await server.storage.notifications(matching: NotificationQuery(limit: 100)).allSatisfy { $0.state == .delivered }
                })
            let delivered = try await server.storage.notifications(matching: NotificationQuery(limit: 100))
            #expect(delivered.count == 40 && delivered.allSatisfy { $0.attempts.map(\.result) == [.success] })
            #expect(Set(receiver.bodies).count == 40 && receiver.bodies.count == 40, "each posted once")
            #expect(receiver.connections < 40, "a healthy server's backlog shares connections: \(receiver.connections)")
        }
    }

    @Test func aBatchThatMeetsAFailureGivesItsUnpostedNotificationsBackAsTheyWere() async throws {
        // Healthy for the first four (one a lane), so the lanes batch; then the fifth request fails.
        let receiver = try ScriptedReceiver { number in number == 4 ? ScriptedReceiver.status(500) : ScriptedReceiver.kept(200) }
        defer { receiver.stop() }
        try await Self.withSender(to: receiver, timeScale: 3_600, backlog: 40) { server in
            #expect(
                try await eventually {
                    let all = try await server.storage.notifications(matching: NotificationQuery(limit: 100))
                    return all.filter { $0.state == .delivered }.count == 39 && !all.contains { $0.state == .sending }
                })
            let all = try await server.storage.notifications(matching: NotificationQuery(limit: 100))
            let failed = try #require(all.first { $0.state == .pending })
            #expect(failed.attempts.map(\.result) == [.unsuccessfulHTTPResponseCode], "retried on Apple's schedule")
            #expect(all.allSatisfy { $0.attempts.count == 1 }, "a notification given back unposted keeps no attempt")
            #expect(receiver.bodies.count == 40, "each posted once, the failed one included")
        }
    }

    @Test func stoppingTheSenderCutsAnAttemptUnderWayAndRecordsItForARetry() async throws {
        let receiver = try ScriptedReceiver { _ in .silence }
        defer { receiver.stop() }
        try await withLiveServer { server in
            try await server.storage.save(NotificationSettings(url: receiver.url, timeScale: 1))
            let sending = Task { await server.stack.runNotifications() }  // as `serve` runs it in its task group
            try await Self.buy(server)
            #expect(await eventually { receiver.bodies.count == 1 })
            sending.cancel()
            await sending.value  // returns once the attempt is recorded, not at the attempt's 5 s deadline
            let notification = try #require(try await server.storage.notifications(matching: NotificationQuery(limit: 1)).first)
            let attempt = try #require(notification.attempts.last)
            #expect(attempt.hasEnded && attempt.result == .other && attempt.detail == HTTPNotificationTransport.cutShort, "\(attempt)")
            #expect(notification.state == .pending, "retried on Apple's schedule at the next start")
        }
    }

    @Test func anAttemptCutByAStopIsClosedAsOtherAtStartAndRetriedOnAppleSchedule() async throws {
        try await withLiveServer { server in
            try await server.storage.save(NotificationSettings(url: "http://127.0.0.1:9/n", timeScale: 3_600))
            try await Self.buy(server)
            let queued = try #require(try await server.storage.dueNotifications(at: .distantFuture, limit: 1).first)
            let clock = ManualClock(queued.createdAt)
            let sender = Self.sender(server, ScriptedTransport { _ in .success }, clock: clock)
            let url = try #require(URL(string: "http://127.0.0.1:9/n"))
            // The process stops between the claim and the answer: the attempt is on record, under way.
            _ = try #require(try await sender.claim(queued, url: url, settings: NotificationSettings(url: url.absoluteString, timeScale: 3_600)))
            let underWay = try #require(try await server.storage.notification(id: queued.id))
            #expect(underWay.state == .sending && underWay.attempts.count == 1 && !underWay.attempts[0].hasEnded)
            clock.set(queued.createdAt.addingTimeInterval(0.2))
            #expect(try await sender.closeCutAttempts() == 1, "the next start closes it")
            let closed = try #require(try await server.storage.notification(id: queued.id))
            #expect(closed.state == .pending && closed.attempts.map(\.result) == [.other] && closed.attempts[0].hasEnded)
            #expect(closed.attempts[0].detail?.contains("stopped") == true)
            #expect(closed.nextAttemptAt == queued.createdAt.addingTimeInterval(1), "1 hour after the cut attempt began, at 3600x")
            #expect(try await sender.sendDue() == 0, "not before its retry")
            clock.set(closed.nextAttemptAt)
            #expect(try await sender.sendDue() == 1)
            let delivered = try #require(try await server.storage.notification(id: queued.id))
            #expect(delivered.state == .delivered && delivered.attempts.map(\.result) == [.other, .success])
        }
    }

    @Test func aLaneOpensOnlyWhenTheOnesBeforeItAreFull() throws {
        let url = try #require(URL(string: "http://127.0.0.1:9/n"))
        func claimed(_ count: Int, tests: Int = 0) -> [NotificationSender.Claimed] {
            (0..<count).map { index in
                let notification = ServerNotification(
                    id: Int64(index), type: index < tests ? .test : .oneTimeCharge, createdAt: Date(timeIntervalSince1970: 0))
                return NotificationSender.Claimed(notification: notification, url: url, timeScale: 1, dueAt: notification.createdAt)
            }
        }
        func sizes(_ count: Int, tests: Int = 0, batchSize: Int) -> (tests: [Int], backlog: [Int]) {
            let lanes = NotificationSender.lanes(for: claimed(count, tests: tests), testLanes: 1, backlogLanes: 4, batchSize: batchSize)
            return (lanes.tests.map(\.count), lanes.backlog.map(\.count))
        }
        #expect(sizes(12, batchSize: 16) == ([], [12]), "what a step gathered goes over one connection")
        #expect(sizes(40, batchSize: 16) == ([], [16, 16, 8]))
        #expect(sizes(64, batchSize: 16) == ([], [16, 16, 16, 16]), "a backlog fills every lane")
        #expect(sizes(4, batchSize: 1) == ([], [1, 1, 1, 1]), "a server that failed gets one a lane")
        #expect(sizes(3, tests: 1, batchSize: 16) == ([1], [2]), "a TEST takes its own lane")
        let order = NotificationSender.lanes(for: claimed(20), testLanes: 0, backlogLanes: 4, batchSize: 16).backlog
        #expect(order.flatMap { $0.map(\.notification.id) } == Array(0..<20), "in the order they were due")
    }

    @Test func aOneTimeChargeSentAfterARefundStillShowsTheTransactionUnrefunded() async throws {
        try await withLiveServer { server in
            try await server.storage.save(NotificationSettings(url: "http://127.0.0.1:9/n", timeScale: 1))
            try await Self.buy(server)
            let charge = try #require(try await server.storage.dueNotifications(at: .distantFuture, limit: 1).first)
            let id = try #require(charge.transactionID)
            #expect(await server.json("POST", "/api/transactions/\(id)/refund", #"{"reason":"other"}"#).status == 200)
            let transport = ScriptedTransport { _ in .success }
            try await Self.sender(server, transport, clock: ManualClock(.distantFuture.addingTimeInterval(-1))).sendDue()
            // Up to four sends go at once, so the receiver may hear the refund first. Apple's `signedDate` says why
            // that is fine: a receiver with "multiple notifications for the same transaction ID" uses "the most recent
            // `signedDate`", not the order of arrival. So the pair is read by type.
            let payloads = try transport.posted.withLock { $0 }
                .map { try AppStoreServerAPITests.decode($0.split(separator: ".")[1]) }
                .sorted { ($0["notificationType"] as? String == "ONE_TIME_CHARGE") && ($1["notificationType"] as? String != "ONE_TIME_CHARGE") }
            #expect(payloads.compactMap { $0["notificationType"] as? String } == ["ONE_TIME_CHARGE", "REFUND"])
            for payload in payloads {
                #expect(Set(payload.keys) == ["notificationType", "notificationUUID", "data", "version", "signedDate"])
                #expect(payload["version"] as? String == "2.0")
                let data = try #require(payload["data"] as? [String: Any])
                #expect(Set(data.keys) == ["bundleId", "environment", "signedTransactionInfo"])
            }
            let transactions = try payloads.map { payload in
                let data = try #require(payload["data"] as? [String: Any])
                let jws = try #require(data["signedTransactionInfo"] as? String)
                return try AppStoreServerAPITests.decode(jws.split(separator: ".")[1])
            }
            #expect(transactions[0]["revocationDate"] == nil, "the charge shows the transaction as it was bought")
            #expect(transactions[1]["revocationDate"] != nil && transactions[1]["revocationType"] as? String == "REFUND_FULL")
        }
    }
}
