import Foundation

/// An App Store Server Notification V2 the simulated App Store sends to the developer's server
/// (https://developer.apple.com/documentation/appstoreservernotifications/app-store-server-notifications-v2), as the
/// store keeps it in its queue until it is delivered or its retries run out: what happened (``type``), to which
/// transaction, and every attempt to send it with Apple's ``SendAttemptResult``.
///
/// The store records the event in the same write as what caused it (a refund, a refund request and its decision;
/// `TipJarSchema.v14`), so a notification is never lost to a crash between the two; a purchase's `ONE_TIME_CHARGE` is
/// queued from the committed purchase after it, by the sender's next step or the next read of the queue, so a crash
/// between the two loses nothing either (`TipJarSchema.v18`). Its signed payload
/// (``signedPayload``) is written when it is first claimed for sending and never changes afterwards: every retry sends
/// the same `notificationUUID`, as Apple's retries do ("the same notificationUUID", Apple's `notificationUUID`,
/// https://developer.apple.com/documentation/appstoreservernotifications/notificationuuid).
public struct ServerNotification: Sendable, Equatable {
    /// The `notificationType` values this store sends (Apple's `notificationType`,
    /// https://developer.apple.com/documentation/appstoreservernotifications/notificationtype): those a consumable's
    /// life and the Request a Test Notification endpoint give rise to. The subscription types are never sent: no tip
    /// is a subscription.
    public enum NotificationType: String, Sendable, Codable, CaseIterable {
        /// "A notification type that indicates the customer purchased a consumable, non-consumable, or non-renewing
        /// subscription."
        case oneTimeCharge = "ONE_TIME_CHARGE"
        /// "Indicates that the customer initiated a refund request for a consumable in-app purchase … and the App Store
        /// is requesting that you provide consumption data."
        case consumptionRequest = "CONSUMPTION_REQUEST"
        /// "Indicates that the App Store successfully refunded a transaction."
        case refund = "REFUND"
        /// "Indicates the App Store declined a refund request."
        case refundDeclined = "REFUND_DECLINED"
        /// "Indicates that the App Store reversed a previously granted refund due to a dispute that the customer raised."
        case refundReversed = "REFUND_REVERSED"
        /// "A notification type that the App Store server sends when you request it by calling the Request a Test
        /// Notification endpoint."
        case test = "TEST"
    }

    /// Where a notification stands in the queue.
    public enum State: String, Sendable, Codable, CaseIterable {
        /// Waiting for its next attempt at ``ServerNotification/nextAttemptAt``.
        case pending
        /// Claimed by a sender until ``ServerNotification/nextAttemptAt`` (its lease): a sender that dies mid-attempt
        /// leaves it to be claimed again once the lease ends.
        case sending
        /// Answered 200–206: never sent again.
        case delivered
        /// Its last retry failed: never sent again.
        case failed
    }

    /// The transaction's fields that change after it is issued, as they were when the event happened, so a
    /// notification sent later shows the transaction as it was then (a `ONE_TIME_CHARGE` retried after a refund
    /// still shows it unrefunded).
    public struct TransactionSnapshot: Sendable, Equatable {
        /// `signedDate` then; `nil` keeps the transaction's own.
        public var signedDate: Date?
        /// `revocationDate` then; `nil`: not revoked.
        public var revocationDate: Date?
        /// `revocationReason` then.
        public var revocationReason: Transaction.RevocationReason?
        /// `revocationType` then (full or prorated refund).
        public var revocationType: Transaction.RevocationType?
        /// `revocationPercentage` then, in milliunits of a percent (0...100,000).
        public var revocationPercentage: Int?

        /// Creates a snapshot of the fields as they were.
        public init(
            signedDate: Date?, revocationDate: Date?, revocationReason: Transaction.RevocationReason?,
            revocationType: Transaction.RevocationType?, revocationPercentage: Int?
        ) {
            self.signedDate = signedDate
            self.revocationDate = revocationDate
            self.revocationReason = revocationReason
            self.revocationType = revocationType
            self.revocationPercentage = revocationPercentage
        }

        /// `transaction` with the snapshot's fields.
        public func applied(to transaction: Transaction) -> Transaction {
            var copy = transaction
            if let signedDate { copy.signedDate = signedDate }
            copy.revocationDate = revocationDate
            copy.revocationReason = revocationReason
            copy.revocationType = revocationType
            copy.revocationPercentage = revocationPercentage
            return copy
        }
    }

    /// The queue's key, in the order events happened.
    public var id: Int64
    /// Apple's `notificationType`.
    public var type: NotificationType
    /// Apple's `subtype`; `nil` for every type sent here (Apple names none for them).
    public var subtype: String?
    /// The transaction it is about; `nil` for `TEST`.
    public var transactionID: UInt64?
    /// When the event happened (the store's clock); the payload's `signedDate`.
    public var createdAt: Date
    /// The transaction as it was then.
    public var snapshot: TransactionSnapshot?
    /// Apple's `consumptionRequestReason` for a `CONSUMPTION_REQUEST`
    /// (https://developer.apple.com/documentation/appstoreservernotifications/consumptionrequestreason).
    public var consumptionRequestReason: String?
    /// The `testNotificationToken` of a `TEST` notification.
    public var testToken: String?
    /// `notificationUUID`, fixed when it is first claimed.
    public var notificationUUID: String?
    /// The `signedPayload` sent, fixed when it is first claimed.
    public var signedPayload: String?
    /// Where it is in the queue.
    public var state: State
    /// Attempts made so far.
    public var attemptCount: Int
    /// When it is due (``State/pending``) or when the sender's lease ends (``State/sending``).
    public var nextAttemptAt: Date
    /// Every attempt, oldest first (filled by the reads that say so).
    public var attempts: [SendAttempt]

    /// Creates a notification; a new one is `pending` and due at `nextAttemptAt` (its `createdAt` when `nil`).
    public init(
        id: Int64 = 0, type: NotificationType, subtype: String? = nil, transactionID: UInt64? = nil, createdAt: Date,
        snapshot: TransactionSnapshot? = nil, consumptionRequestReason: String? = nil, testToken: String? = nil,
        notificationUUID: String? = nil, signedPayload: String? = nil, state: State = .pending, attemptCount: Int = 0,
        nextAttemptAt: Date? = nil, attempts: [SendAttempt] = []
    ) {
        self.id = id
        self.type = type
        self.subtype = subtype
        self.transactionID = transactionID
        self.createdAt = createdAt
        self.snapshot = snapshot
        self.consumptionRequestReason = consumptionRequestReason
        self.testToken = testToken
        self.notificationUUID = notificationUUID
        self.signedPayload = signedPayload
        self.state = state
        self.attemptCount = attemptCount
        self.nextAttemptAt = nextAttemptAt ?? createdAt
        self.attempts = attempts
    }

    /// Whether any attempt failed.
    public var hasFailedAttempt: Bool { attempts.contains { $0.hasEnded && $0.result != .success } }

    /// The attempts that have ended, as Apple's history and test status list them (an attempt under way has no
    /// `sendAttemptResult` yet).
    public var endedAttempts: [SendAttempt] { attempts.filter(\.hasEnded) }
}

/// One attempt to send a notification: Apple's `sendAttemptItem`
/// (https://developer.apple.com/documentation/appstoreserverapi/sendattemptitem).
///
/// An attempt is stored when it starts (``endedAt`` `nil`, its ``result`` not yet known) and completed when it ends,
/// so an attempt cut short by a crash is still on record: the sender closes it as `OTHER` when it starts again
/// (Apple lists every attempt, "one for the initial attempt, and up to five for the retries",
/// https://developer.apple.com/documentation/appstoreserverapi/checktestnotificationresponse).
public struct SendAttempt: Sendable, Equatable {
    /// `attemptDate`: when the attempt started.
    public var date: Date
    /// `sendAttemptResult`; `OTHER` while the attempt is under way (``endedAt`` `nil`).
    public var result: SendAttemptResult
    /// The last URL the attempt posted to (the notifications URL, or where a 307 or 308 sent it); `nil` when not kept
    /// (attempts stored before the dashboard kept it).
    public var url: String?
    /// The cause in words, for a person reading the attempt ("connection refused", "no answer in 5 s", "HTTP 500"); `nil`
    /// when not kept. Apple's API has no such field: it is the dashboard's own.
    public var detail: String?
    /// When it ended; `nil` while it is under way.
    public var endedAt: Date?

    /// Creates an attempt started at `date` that ended with `result` (at `endedAt`, `date` when not given).
    public init(date: Date, result: SendAttemptResult, url: String? = nil, detail: String? = nil, endedAt: Date? = nil) {
        self.date = date
        self.result = result
        self.url = url
        self.detail = detail
        self.endedAt = endedAt ?? date
    }

    /// An attempt under way: started at `date`, posting to `url`.
    public static func started(at date: Date, url: String) -> SendAttempt {
        var attempt = SendAttempt(date: date, result: .other, url: url)
        attempt.endedAt = nil
        return attempt
    }

    /// Whether it has ended (an attempt under way has no result yet).
    public var hasEnded: Bool { endedAt != nil }
}

/// Apple's `sendAttemptResult` (https://developer.apple.com/documentation/appstoreserverapi/sendattemptresult), the
/// values of the `SendAttemptResult` enum of Apple's App Store Server Library
/// (`appstoreserverlibrary/models/SendAttemptResult.py`, https://github.com/apple/app-store-server-library-python).
/// Apple documents the names, not which network failure gives which; the mapping the sender uses is in
/// `Sources/TipJarDashboard/Notifications/NotificationTransport.swift`.
public enum SendAttemptResult: String, Sendable, Codable, CaseIterable {
    case success = "SUCCESS"
    case timedOut = "TIMED_OUT"
    case tlsIssue = "TLS_ISSUE"
    case circularRedirect = "CIRCULAR_REDIRECT"
    case noResponse = "NO_RESPONSE"
    case socketIssue = "SOCKET_ISSUE"
    case unsupportedCharset = "UNSUPPORTED_CHARSET"
    case invalidResponse = "INVALID_RESPONSE"
    case prematureClose = "PREMATURE_CLOSE"
    case unsuccessfulHTTPResponseCode = "UNSUCCESSFUL_HTTP_RESPONSE_CODE"
    case other = "OTHER"

    /// The result of an answer with `status`: "Send HTTP 200, or any HTTP code between 200 and 206, if the post was
    /// successful … The system considers all other HTTP codes an unsuccessful post"
    /// (https://developer.apple.com/documentation/appstoreservernotifications/responding-to-app-store-server-notifications).
    public static func forStatus(_ status: Int) -> SendAttemptResult {
        (200...206).contains(status) ? .success : .unsuccessfulHTTPResponseCode
    }
}

/// Where the developer's server is and how fast the queue's clock runs: the notifications URL (App Store Connect's
/// "App Store Server Notifications" URL, https://developer.apple.com/documentation/appstoreservernotifications/enabling-app-store-server-notifications)
/// and the time scale that compresses Apple's retry schedule for a rehearsal.
public struct NotificationSettings: Sendable, Equatable, Codable {
    /// The URL notifications are posted to; `nil`: none is sent (nothing is queued).
    public var url: String?
    /// How many times faster than Apple's the retry schedule runs: 1 is Apple's hours, 3600 makes an hour a second.
    public var timeScale: Int

    /// The time scales allowed: Apple's own (1) up to an hour a millisecond.
    public static let timeScales = 1...3_600_000

    /// Creates settings; by default none is sent and the schedule is Apple's.
    public init(url: String? = nil, timeScale: Int = 1) {
        self.url = url
        self.timeScale = timeScale
    }

    /// A notifications URL as the boundary accepts it: what ``NotificationURLPolicy`` posts to, at most 2,048 bytes.
    /// Apple asks for HTTPS in App Store Connect; a local rehearsal's receiver is usually plain HTTP, so both are taken.
    /// - Returns: the URL's text, or `nil` for an empty one (none).
    /// - Throws: `TipJarError.invalidValue` naming what is wrong.
    public static func checkedURL(_ text: String?, policy: NotificationURLPolicy = NotificationURLPolicy()) throws -> String? {
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        _ = try policy.checked(text)
        return text
    }

    /// Checks the time scale.
    public static func checkedTimeScale(_ value: Int) throws -> Int {
        guard timeScales.contains(value) else {
            throw TipJarError.invalidValue(field: "timeScale", reason: "must be a whole number from 1 to \(timeScales.upperBound)")
        }
        return value
    }
}

/// Apple's retry schedule for version 2 notifications: "it retries five times, at 1, 12, 24, 48, and 72 hours after
/// the previous attempt" (https://developer.apple.com/documentation/appstoreservernotifications/responding-to-app-store-server-notifications).
/// Apple adds: "Retry notifications are available only in the production environment. In the sandbox environment,
/// the App Store server attempts to send the notification one time." The simulated store follows the production
/// schedule in every environment, since a rehearsal is about how a server survives it (Sources/TipJar/StoreKitFidelity.md).
public enum NotificationRetrySchedule {
    /// The hours between an attempt and the next, by the number of attempts made (1 to 5).
    public static let hours = [1, 12, 24, 48, 72]

    /// When the attempt after `attemptsMade` failed attempts is due, the last having been at `last`; `nil` when none
    /// follows (the initial attempt and five retries were made). `timeScale` divides the wait.
    public static func nextAttempt(after last: Date, attemptsMade: Int, timeScale: Int) -> Date? {
        guard attemptsMade >= 1, attemptsMade <= hours.count else { return nil }
        let seconds = Double(hours[attemptsMade - 1]) * 3_600 / Double(max(timeScale, 1))
        return last.addingTimeInterval(seconds)
    }
}
