import Foundation
import Testing
import TipJar

@testable import SQLiteDatabase
@testable import TipJarSQLite

/// The App Store Server Notifications queue on a real SQLite file (`TipJarSchema.v14`,
/// Sources/TipJar/Model/ServerNotification.swift): each event queued in the write that caused it, never lost across a
/// reopen, and every state change a compare-and-set with exactly one winner.
@Suite("Server notifications queue")
struct NotificationQueueTests {
    static let url = "http://127.0.0.1:9/notifications"

    static func world(url: String? = NotificationQueueTests.url) async throws -> TestWorld {
        let world = try await TestWorld.make()
        try await world.storage.save(NotificationSettings(url: url, timeScale: 1))
        return world
    }

    static func tip(_ world: TestWorld, _ installID: String) async throws -> UInt64 {
        try #require(try await world.service.purchase(productID: TestWorld.coffee, installID: installID).transactionID)
    }

    static func all(_ world: TestWorld) async throws -> [ServerNotification] {
        try await world.storage.notifications(matching: NotificationQuery(limit: 100))
    }

    @Test func nothingIsQueuedWhileNoNotificationsURLIsSet() async throws {
        let world = try await Self.world(url: nil)
        let install = try await world.runningInstall()
        _ = try await Self.tip(world, install.id)
        #expect(try await Self.all(world).isEmpty)
    }

    @Test func aPurchaseQueuesOneTimeChargeDueAtOnceWithTheTransactionAsItWasThen() async throws {
        let world = try await Self.world()
        let install = try await world.runningInstall()
        let id = try await Self.tip(world, install.id)
        let stored = try #require(try await world.storage.transaction(withID: id))
        let queued = try await Self.all(world)
        #expect(queued.count == 1)
        let charge = try #require(queued.first)
        #expect(charge.type == .oneTimeCharge && charge.transactionID == id && charge.state == .pending && charge.attemptCount == 0)
        #expect(charge.createdAt == stored.transaction.purchaseDate && charge.nextAttemptAt == charge.createdAt)
        #expect(charge.snapshot?.revocationDate == nil && charge.snapshot?.signedDate == stored.transaction.signedDate)
        #expect(try await world.storage.dueNotifications(at: charge.createdAt, limit: 10).map(\.id) == [charge.id])
    }

    @Test func aRefundRequestItsDeclineAndAnApprovedRefundEachQueueTheirNotification() async throws {
        let world = try await Self.world()
        let install = try await world.runningInstall()
        let declined = try await Self.tip(world, install.id)
        let refunded = try await Self.tip(world, install.id)
        try await world.service.beginRefundRequest(transactionID: declined, installID: install.id, userAction: .submit, reason: .developerIssue)
        try await world.service.declineRefundRequest(transactionID: declined)
        try await world.service.beginRefundRequest(transactionID: refunded, installID: install.id, userAction: .submit)
        try await world.service.approveRefundRequest(transactionID: refunded)
        let events = try await Self.all(world).map { "\($0.type.rawValue) \($0.transactionID ?? 0) \($0.consumptionRequestReason ?? "-")" }
        #expect(
            events == [
                "ONE_TIME_CHARGE \(declined) -", "ONE_TIME_CHARGE \(refunded) -", "CONSUMPTION_REQUEST \(declined) FULFILLMENT_ISSUE",
                "REFUND_DECLINED \(declined) -", "CONSUMPTION_REQUEST \(refunded) OTHER", "REFUND \(refunded) -",
            ])
        let refund = try #require(try await Self.all(world).last)
        #expect(refund.snapshot?.revocationType == .fullRefund && refund.snapshot?.revocationDate != nil)
    }

    @Test func oneSettleRecordsAnAttemptGivesBackAnUnpostedClaimAndClaimsTheNextInOneWrite() async throws {
        let world = try await Self.world()
        let install = try await world.runningInstall()
        for _ in 0..<3 { _ = try await Self.tip(world, install.id) }
        let queued = try await Self.all(world)
        let start = queued[0].createdAt
        let claims = queued.prefix(2).map { NotificationClaim($0, uuid: "u\($0.id)", payload: "p\($0.id)", attempt: .started(at: start, url: Self.url)) }
        let claimed = try await world.storage.claim(claims, leaseUntil: start.addingTimeInterval(60))
        #expect(claimed.count == 2)
        let posted = SendAttempt(date: start, result: .success, url: Self.url, detail: "HTTP 200", endedAt: start.addingTimeInterval(0.01))
        let next = NotificationClaim(queued[2], uuid: "u3", payload: "p3", attempt: .started(at: start, url: Self.url))
        let won = try await world.storage.settle(
            [NotificationRecord(posted, of: claimed[0], retryAt: nil)], releasing: [NotificationRelease(claimed[1], dueAt: queued[1].nextAttemptAt)],
            claiming: [next], leaseUntil: start.addingTimeInterval(60))
        #expect(won.map(\.id) == [queued[2].id])
        let after = try await Self.all(world)
        #expect(after[0].state == .delivered && after[0].attempts.map(\.result) == [.success])
        #expect(after[1].state == .pending && after[1].attemptCount == 0 && after[1].attempts.isEmpty, "given back as it was: no attempt was made")
        #expect(after[1].nextAttemptAt == queued[1].nextAttemptAt && after[1].notificationUUID == "u\(queued[1].id)", "its UUID stays fixed")
        #expect(after[2].state == .sending && after[2].attempts.count == 1)
        // A release whose claim no longer stands (recorded meanwhile) changes nothing.
        _ = try await world.storage.settle([], releasing: [NotificationRelease(claimed[0], dueAt: start)], claiming: [], leaseUntil: start)
        #expect(try await Self.all(world)[0].state == .delivered)
    }

    @Test func aQueuedNotificationIsNeverLostAcrossAReopen() async throws {
        let world = try await Self.world()
        let install = try await world.runningInstall()
        let id = try await Self.tip(world, install.id)
        let reopened = try await world.reopened()
        let due = try await reopened.storage.dueNotifications(at: .distantFuture, limit: 10)
        #expect(due.map(\.transactionID) == [id] && due.first?.state == .pending)
        #expect(try await reopened.storage.notificationSettings().url == Self.url, "the URL is kept too")
    }

    @Test func ofTwoSendersClaimingOneNotificationExactlyOneWins() async throws {
        let world = try await Self.world()
        let install = try await world.runningInstall()
        _ = try await Self.tip(world, install.id)
        let read = try #require(try await world.storage.dueNotifications(at: .distantFuture, limit: 1).first)
        let lease = read.createdAt.addingTimeInterval(60)
        async let first = world.storage.claim(read, uuid: "a", payload: "payload-a", leaseUntil: lease, attempt: .started(at: read.createdAt, url: Self.url))
        async let second = world.storage.claim(read, uuid: "b", payload: "payload-b", leaseUntil: lease, attempt: .started(at: read.createdAt, url: Self.url))
        let claims = [try await first, try await second].compactMap { $0 }
        #expect(claims.count == 1)
        let claimed = try #require(claims.first)
        #expect(claimed.state == .sending && claimed.notificationUUID == (claimed.signedPayload == "payload-a" ? "a" : "b"))
        #expect(try await world.storage.dueNotifications(at: lease.addingTimeInterval(-1), limit: 10).isEmpty, "claimed: not due during its lease")
    }

    @Test func aNotificationAnsweredWithSuccessIsNeverSentAgain() async throws {
        let world = try await Self.world()
        let install = try await world.runningInstall()
        _ = try await Self.tip(world, install.id)
        let read = try #require(try await world.storage.dueNotifications(at: .distantFuture, limit: 1).first)
        let claimed = try #require(try await world.storage.claim(read, uuid: "u", payload: "p", leaseUntil: read.createdAt, attempt: .started(at: read.createdAt, url: Self.url)))
        #expect(try await world.storage.record(SendAttempt(date: read.createdAt, result: .success), of: claimed, retryAt: nil))
        #expect(try await world.storage.record(SendAttempt(date: read.createdAt, result: .success), of: claimed, retryAt: nil) == false)
        #expect(try await world.storage.claim(read, uuid: "u2", payload: "p2", leaseUntil: .distantFuture, attempt: .started(at: read.createdAt, url: Self.url)) == nil, "a stale read claims nothing")
        #expect(try await world.storage.dueNotifications(at: .distantFuture, limit: 10).isEmpty)
        let delivered = try #require(try await world.storage.notification(id: read.id))
        #expect(delivered.state == .delivered && delivered.attempts == [SendAttempt(date: read.createdAt, result: .success, url: Self.url)])
        #expect(delivered.notificationUUID == "u" && delivered.signedPayload == "p")
    }

    @Test func anAttemptIsOnRecordFromItsStartSoOneCutByACrashStillShows() async throws {
        let world = try await Self.world()
        let install = try await world.runningInstall()
        _ = try await Self.tip(world, install.id)
        let read = try #require(try await world.storage.dueNotifications(at: .distantFuture, limit: 1).first)
        let lease = read.createdAt.addingTimeInterval(60)
        let claimed = try #require(try await world.storage.claim(read, uuid: "u", payload: "p", leaseUntil: lease, attempt: .started(at: read.createdAt, url: Self.url)))
        #expect(claimed.attemptCount == 1, "the claim counts the attempt it starts")
        let reopened = try await world.reopened()
        let underWay = try await reopened.storage.notificationsUnderWay()
        #expect(underWay.map(\.id) == [read.id])
        #expect(underWay.first?.attempts == [.started(at: read.createdAt, url: Self.url)], "the attempt is stored, not yet ended")
        #expect(try await reopened.storage.dueNotifications(at: lease.addingTimeInterval(-1), limit: 10).isEmpty)
        let again = try #require(try await reopened.storage.dueNotifications(at: lease, limit: 10).first)
        #expect(again.state == .sending, "once its lease ends it is due, for the sender to close as cut")
        let cut = SendAttempt(date: read.createdAt, result: .other, detail: "cut", endedAt: lease)
        #expect(try await reopened.storage.record(cut, of: again, retryAt: lease.addingTimeInterval(3_600)))
        let retried = try #require(try await reopened.storage.notification(id: read.id))
        #expect(retried.state == .pending && retried.attempts.map(\.hasEnded) == [true] && retried.attempts.first?.url == Self.url)
        let next = try #require(try await reopened.storage.dueNotifications(at: .distantFuture, limit: 1).first)
        let reclaimed = try #require(
            try await reopened.storage.claim(next, uuid: "other", payload: "other", leaseUntil: .distantFuture, attempt: .started(at: lease, url: Self.url)))
        #expect(reclaimed.notificationUUID == "u" && reclaimed.signedPayload == "p", "a retry sends the same UUID and payload")
        #expect(reclaimed.attemptCount == 2)
    }

    @Test func aFailedAttemptWaitsForItsRetryAndTheLastOneFailsTheNotification() async throws {
        let world = try await Self.world()
        let install = try await world.runningInstall()
        _ = try await Self.tip(world, install.id)
        let read = try #require(try await world.storage.dueNotifications(at: .distantFuture, limit: 1).first)
        let claimed = try #require(try await world.storage.claim(read, uuid: "u", payload: "p", leaseUntil: read.createdAt, attempt: .started(at: read.createdAt, url: Self.url)))
        let retry = read.createdAt.addingTimeInterval(3_600)
        #expect(try await world.storage.record(SendAttempt(date: read.createdAt, result: .timedOut), of: claimed, retryAt: retry))
        #expect(try await world.storage.dueNotifications(at: retry.addingTimeInterval(-1), limit: 10).isEmpty)
        let due = try #require(try await world.storage.dueNotifications(at: retry, limit: 10).first)
        #expect(due.attemptCount == 1 && due.state == .pending)
        #expect(try await world.storage.dueNotifications(at: retry, limit: 10, onlyTests: true).isEmpty, "the test lane holds TEST only")
        let last = try #require(try await world.storage.claim(due, uuid: "u", payload: "p", leaseUntil: retry, attempt: .started(at: retry, url: Self.url)))
        #expect(try await world.storage.record(SendAttempt(date: retry, result: .noResponse), of: last, retryAt: nil))
        let failed = try #require(try await world.storage.notification(id: read.id))
        #expect(failed.state == .failed && failed.attempts.map(\.result) == [.timedOut, .noResponse])
        #expect(try await world.storage.notifications(matching: NotificationQuery(onlyFailures: true)).map(\.id) == [read.id])
    }
}

/// Apple's retry schedule, compressed by the time scale (Sources/TipJar/Model/ServerNotification.swift).
@Suite("Notification retry schedule")
struct NotificationRetryScheduleTests {
    @Test func retriesComeOneTwelveTwentyFourFortyEightAndSeventyTwoHoursAfterThePreviousAttemptThenNone() {
        let start = Date(timeIntervalSince1970: 0)
        let waits = (1...6).map { NotificationRetrySchedule.nextAttempt(after: start, attemptsMade: $0, timeScale: 1)?.timeIntervalSince(start) }
        #expect(waits == [3_600, 43_200, 86_400, 172_800, 259_200, nil])
    }

    @Test func theTimeScaleDividesEveryWait() {
        let start = Date(timeIntervalSince1970: 0)
        #expect(NotificationRetrySchedule.nextAttempt(after: start, attemptsMade: 1, timeScale: 3_600)?.timeIntervalSince(start) == 1)
        #expect(NotificationRetrySchedule.nextAttempt(after: start, attemptsMade: 5, timeScale: 3_600)?.timeIntervalSince(start) == 72)
    }

    @Test func onlyTwoHundredToTwoHundredSixIsSuccess() {
        #expect(
            [199, 200, 204, 206, 207, 301, 400, 500].map(SendAttemptResult.forStatus) == [
                .unsuccessfulHTTPResponseCode, .success, .success, .success, .unsuccessfulHTTPResponseCode,
                .unsuccessfulHTTPResponseCode, .unsuccessfulHTTPResponseCode, .unsuccessfulHTTPResponseCode,
            ])
    }

    @Test func aNotificationsURLMustBeAbsoluteHTTPOrHTTPSWithAHost() throws {
        for bad in [
            "ftp://example.com/x", "javascript:alert(1)", "http://", "/relative", "example.com/x", "http://user@example.com/",
            "http://" + String(repeating: "a", count: 2_100) + ".com",
        ] {
            #expect(throws: TipJarError.self, "\(bad.prefix(40))") { try NotificationSettings.checkedURL(bad) }
        }
        #expect(try NotificationSettings.checkedURL("https://example.com/apple") == "https://example.com/apple")
        #expect(try NotificationSettings.checkedURL("  ") == nil)
        #expect(throws: TipJarError.self) { try NotificationSettings.checkedTimeScale(0) }
    }
}

/// The App Store reversing a refund (`REFUND_REVERSED`,
/// https://developer.apple.com/documentation/appstoreservernotifications/notificationtype).
@Suite("Refund reversals")
struct RefundReversalTests {
    @Test func aReversedRefundLeavesTheTransactionUnrevokedAndQueuesRefundReversedOnce() async throws {
        let world = try await NotificationQueueTests.world()
        let install = try await world.runningInstall()
        let id = try await NotificationQueueTests.tip(world, install.id)
        _ = try await world.service.refund(transactionID: id)
        let reversed = try await world.store.reverseRefund(transactionID: id)
        #expect(!reversed.transaction.isRevoked && reversed.transaction.revocationType == nil)
        await #expect(throws: TipJarError.notRefunded(id)) { try await world.store.reverseRefund(transactionID: id) }
        let types = try await NotificationQueueTests.all(world).map(\.type)
        #expect(types == [.oneTimeCharge, .refund, .refundReversed])
        let last = try #require(try await NotificationQueueTests.all(world).last)
        #expect(last.snapshot?.revocationDate == nil && last.createdAt == reversed.transaction.signedDate)
    }

    @Test func aTransactionNeverRefundedHasNoRefundToReverse() async throws {
        let world = try await NotificationQueueTests.world()
        let install = try await world.runningInstall()
        let id = try await NotificationQueueTests.tip(world, install.id)
        await #expect(throws: TipJarError.notRefunded(id)) { try await world.store.reverseRefund(transactionID: id) }
        await #expect(throws: TipJarError.transactionNotFound(999)) { try await world.store.reverseRefund(transactionID: 999) }
    }
}

/// A purchase's `ONE_TIME_CHARGE` queued after its commit (`TipJarSchema.v18`): by the sender's next step or the next read
/// of the queue, in the order bought, with the transaction as bought, before anything else that transaction causes.
@Suite("One-time charges queued after the purchase")
struct OneTimeChargeQueueTests {
    /// The rows of the queue as stored, without the read that queues the waiting charges first.
    static func storedTypes(_ world: TestWorld) throws -> [String] {
        try world.storage.pool.readSync { db in
            try db.fetchAll(sql: "SELECT notification_type FROM notifications ORDER BY id") { try $0.value(at: 0, as: String.self) }
        }
    }

    @Test func aPurchasesCommitWritesNoNotificationAndTheNextReadOfTheQueueQueuesItsCharge() async throws {
        let world = try await NotificationQueueTests.world()
        let install = try await world.runningInstall()
        let first = try await NotificationQueueTests.tip(world, install.id)
        let second = try await NotificationQueueTests.tip(world, install.id)
        #expect(try Self.storedTypes(world).isEmpty, "the purchases committed without a row of the queue")
        #expect(try await NotificationQueueTests.all(world).map(\.transactionID) == [first, second], "in the order bought")
        #expect(try Self.storedTypes(world) == ["ONE_TIME_CHARGE", "ONE_TIME_CHARGE"])
        #expect(try await NotificationQueueTests.all(world).count == 2, "queued once")
    }

    @Test func aChargeWaitingWhenItsTransactionIsRefundedIsQueuedFirstWithTheTransactionAsBought() async throws {
        let world = try await NotificationQueueTests.world()
        let install = try await world.runningInstall()
        let id = try await NotificationQueueTests.tip(world, install.id)
        let bought = try #require(try await world.storage.transaction(withID: id))
        _ = try await world.service.refund(transactionID: id)
        let queued = try await NotificationQueueTests.all(world)
        #expect(queued.map(\.type) == [.oneTimeCharge, .refund])
        #expect(queued[0].snapshot?.revocationDate == nil && queued[0].snapshot?.signedDate == bought.transaction.signedDate)
        #expect(queued[1].snapshot?.revocationDate != nil)
    }

    @Test func aChargeWaitingWhenItsTransactionIsDeletedIsStillQueued() async throws {
        let world = try await NotificationQueueTests.world()
        let install = try await world.runningInstall()
        let id = try await NotificationQueueTests.tip(world, install.id)
        #expect(try await world.storage.deleteTransaction(withID: id))
        #expect(try await NotificationQueueTests.all(world).map(\.transactionID) == [id], "queued before the row went, as the purchase's own write did")
    }

    @Test func purchasesMadeWithoutAURLAreNotQueuedWhenOneIsSetAndThoseMadeWithOneAreWhenItIsCleared() async throws {
        let world = try await NotificationQueueTests.world(url: nil)
        let install = try await world.runningInstall()
        _ = try await NotificationQueueTests.tip(world, install.id)
        try await world.storage.save(NotificationSettings(url: NotificationQueueTests.url, timeScale: 1))
        let underURL = try await NotificationQueueTests.tip(world, install.id)
        try await world.storage.save(NotificationSettings(url: nil, timeScale: 1))
        _ = try await NotificationQueueTests.tip(world, install.id)
        #expect(try await NotificationQueueTests.all(world).map(\.transactionID) == [underURL])
    }

    @Test func aPurchaseWhoseIDIsNotPastTheNewestIsQueuedByItsOwnWrite() async throws {
        let world = try await NotificationQueueTests.world()
        let install = try await world.runningInstall()
        let id = try await NotificationQueueTests.tip(world, install.id)
        _ = try await NotificationQueueTests.all(world)
        var earlier = try #require(try await world.storage.transaction(withID: id))
        earlier.transaction.id = id - 1
        earlier.transaction.originalID = id - 1
        try await world.storage.insert(earlier)
        #expect(try Self.storedTypes(world) == ["ONE_TIME_CHARGE", "ONE_TIME_CHARGE"])
        #expect(try await NotificationQueueTests.all(world).map(\.transactionID) == [id, id - 1])
    }
}
