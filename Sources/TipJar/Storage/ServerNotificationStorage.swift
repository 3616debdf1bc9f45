import Foundation

/// The queue of App Store Server Notifications (``ServerNotification``) and its settings. The SQLite storage
/// implements it (`SQLiteTipJarStorage+Notifications.swift`), recording each event in the same write as what caused
/// it, except a purchase's `ONE_TIME_CHARGE`, queued after its commit and before any read of the queue answers
/// (`TipJarSchema.v18`); a storage that does not implement it sends no notifications.
///
/// Every state change names the state it expects (compare-and-set): of two senders racing for one notification
/// exactly one claims it, and an attempt is recorded only by the sender holding the claim, so a notification answered
/// 2xx is never sent again.
public protocol ServerNotificationStorage: Sendable {
    /// The saved settings (a new database: no URL, time scale 1).
    nonisolated(nonsending) func notificationSettings() async throws -> NotificationSettings
    /// Saves the settings. From then on events are queued only while a URL is set.
    nonisolated(nonsending) func save(_ settings: NotificationSettings) async throws
    /// Queues a notification made outside an event of the store (`TEST`, a resend).
    /// - Returns: it, with its ``ServerNotification/id``.
    nonisolated(nonsending) func enqueue(_ notification: ServerNotification) async throws -> ServerNotification
    /// Notifications due at `date` (pending, or sending with an ended lease), oldest first, at most `limit`; only
    /// `TEST` ones when `onlyTests` (the lane a test notification takes past the backlog).
    nonisolated(nonsending) func dueNotifications(at date: Date, limit: Int, onlyTests: Bool) async throws -> [ServerNotification]
    /// What a sender needs for its next step, in one read: the settings, at most `tests` due `TEST` notifications, at
    /// most `others` due notifications of any type (oldest first, as ``dueNotifications(at:limit:onlyTests:)``), and the
    /// earliest due time.
    nonisolated(nonsending) func sendingPlan(at date: Date, tests: Int, others: Int) async throws -> NotificationSendingPlan
    /// Claims each notification for one attempt until `leaseUntil`, in one write, each only while it is in the state it
    /// was read in (same state, attempt count and due date), fixing its UUID and payload if it has none yet, and stores
    /// its `attempt` (an attempt under way, ``SendAttempt/started(at:url:)``) as its next one, so an attempt cut by a
    /// crash is still on record.
    /// - Returns: the notifications claimed (each ``ServerNotification/attemptCount`` counting its attempt); one another
    ///   sender won is left out (nothing changed for it).
    nonisolated(nonsending) func claim(_ claims: [NotificationClaim], leaseUntil: Date) async throws -> [ServerNotification]
    /// Completes the attempt under way of a claimed notification with `attempt`'s result, cause and URL (its start
    /// date kept) and sets its next state: `delivered` for a success, else `pending` until `retryAt`, or `failed` when
    /// `retryAt` is `nil`, only while the claim stands (state `sending`, same count).
    /// - Returns: `false` when the claim was lost (nothing recorded).
    nonisolated(nonsending) func record(_ attempt: SendAttempt, of claimed: ServerNotification, retryAt: Date?) async throws -> Bool
    /// One write for a sender's step: completes each attempt of `records` (as ``record(_:of:retryAt:)``), gives back
    /// each claimed notification of `releasing` that was never posted (its attempt under way removed, its state,
    /// attempt count and due date as they were before the claim, each only while its claim stands), then claims
    /// `claims` (as ``claim(_:leaseUntil:)``).
    /// - Returns: the notifications claimed.
    nonisolated(nonsending) func settle(
        _ records: [NotificationRecord], releasing: [NotificationRelease], claiming claims: [NotificationClaim], leaseUntil: Date
    ) async throws -> [ServerNotification]
    /// Notifications claimed for an attempt (state `sending`), with their attempts: at a sender's start, those a
    /// stopped process left.
    nonisolated(nonsending) func notificationsUnderWay() async throws -> [ServerNotification]
    /// The notification with `id`, with its attempts.
    nonisolated(nonsending) func notification(id: Int64) async throws -> ServerNotification?
    /// The `TEST` notification with `token`, with its attempts.
    nonisolated(nonsending) func notification(testToken: String) async throws -> ServerNotification?
    /// Notifications created in `query`'s window that pass its filters, oldest first (newest first when
    /// ``NotificationQuery/newestFirst``), with their attempts.
    nonisolated(nonsending) func notifications(matching query: NotificationQuery) async throws -> [ServerNotification]
}

/// A read of the notification history (Apple's `NotificationHistoryRequest`,
/// https://developer.apple.com/documentation/appstoreserverapi/notificationhistoryrequest, and the dashboard's list).
public struct NotificationQuery: Sendable, Equatable {
    /// Created at or after this date (`startDate`); `nil`: no bound.
    public var start: Date?
    /// Created before this date (`endDate`); `nil`: no bound.
    public var end: Date?
    /// Only this `notificationType`.
    public var type: ServerNotification.NotificationType?
    /// Only notifications about this transaction.
    public var transactionID: UInt64?
    /// Only notifications about a transaction of this Apple Account: Apple's `transactionId` filter, "any transaction
    /// that belongs to the customer"
    /// (https://developer.apple.com/documentation/appstoreserverapi/notificationhistoryrequest).
    public var accountID: String?
    /// Only notifications about transactions issued in this environment and app (a `TEST`, which is about no
    /// transaction, and one whose transaction the store no longer keeps, pass): Apple keeps each environment's
    /// history apart.
    public var scope: NotificationScope?
    /// Only notifications with at least one attempt (Apple's history lists what it "attempted to send").
    public var attemptedOnly: Bool
    /// Only notifications not delivered: failed for good or still retrying (`onlyFailures`: "notifications that failed
    /// to reach your server, including those … currently retrying"); one that reached the server on a retry is not one.
    public var onlyFailures: Bool
    /// Notifications after this ID only (a page's end, oldest first).
    public var afterID: Int64?
    /// Notifications before this ID only (a page's end, newest first).
    public var beforeID: Int64?
    /// Newest first (the dashboard's lists) instead of oldest first (Apple's history).
    public var newestFirst: Bool
    /// At most this many (Apple's history pages hold 20).
    public var limit: Int

    /// Creates a query; by default every notification, at most 100.
    public init(
        start: Date? = nil, end: Date? = nil, type: ServerNotification.NotificationType? = nil, transactionID: UInt64? = nil,
        attemptedOnly: Bool = false, onlyFailures: Bool = false, afterID: Int64? = nil, beforeID: Int64? = nil,
        newestFirst: Bool = false, limit: Int = 100
    ) {
        self.beforeID = beforeID
        self.newestFirst = newestFirst
        self.start = start
        self.end = end
        self.type = type
        self.transactionID = transactionID
        self.attemptedOnly = attemptedOnly
        self.onlyFailures = onlyFailures
        self.afterID = afterID
        self.limit = limit
    }
}

extension ServerNotificationStorage {
    /// Every kind of notification due at `date`, oldest first, at most `limit`.
    public nonisolated(nonsending) func dueNotifications(at date: Date, limit: Int) async throws -> [ServerNotification] {
        try await dueNotifications(at: date, limit: limit, onlyTests: false)
    }
}

extension ServerNotificationStorage {
    /// Claims one notification (``claim(_:leaseUntil:)``). - Returns: it claimed, or `nil` when another sender won.
    public nonisolated(nonsending) func claim(
        _ notification: ServerNotification, uuid: String, payload: String, leaseUntil: Date, attempt: SendAttempt
    ) async throws -> ServerNotification? {
        try await claim([NotificationClaim(notification, uuid: uuid, payload: payload, attempt: attempt)], leaseUntil: leaseUntil).first
    }
}

/// One notification to claim: as it was read, with the `notificationUUID` and `signedPayload` to fix if it has none,
/// and the attempt it starts.
public struct NotificationClaim: Sendable {
    /// The notification as it was read (the compare-and-set's expected state).
    public var notification: ServerNotification
    /// Its `notificationUUID`, kept if it has one.
    public var uuid: String
    /// Its `signedPayload`, kept if it has one.
    public var payload: String
    /// The attempt it starts (``SendAttempt/started(at:url:)``).
    public var attempt: SendAttempt

    /// Creates a claim.
    public init(_ notification: ServerNotification, uuid: String, payload: String, attempt: SendAttempt) {
        self.notification = notification
        self.uuid = uuid
        self.payload = payload
        self.attempt = attempt
    }
}

/// The end of one attempt to record (``ServerNotificationStorage/settle(_:releasing:claiming:leaseUntil:)``).
public struct NotificationRecord: Sendable {
    /// The attempt, ended.
    public var attempt: SendAttempt
    /// The notification as its claim left it.
    public var claimed: ServerNotification
    /// When it is tried again; `nil`: never (delivered, or failed for good).
    public var retryAt: Date?

    /// Creates a record.
    public init(_ attempt: SendAttempt, of claimed: ServerNotification, retryAt: Date?) {
        self.attempt = attempt
        self.claimed = claimed
        self.retryAt = retryAt
    }
}

/// A claimed notification given back unposted (``ServerNotificationStorage/settle(_:releasing:claiming:leaseUntil:)``).
public struct NotificationRelease: Sendable {
    /// The notification as its claim left it.
    public var claimed: ServerNotification
    /// Its due date before the claim.
    public var dueAt: Date

    /// Creates a release.
    public init(_ claimed: ServerNotification, dueAt: Date) {
        self.claimed = claimed
        self.dueAt = dueAt
    }
}

/// What a notifications sender reads before each step (``ServerNotificationStorage/sendingPlan(at:tests:others:)``).
public struct NotificationSendingPlan: Sendable {
    /// The settings now.
    public var settings: NotificationSettings
    /// Due `TEST` notifications, oldest first.
    public var dueTests: [ServerNotification]
    /// Due notifications of any type, oldest first.
    public var due: [ServerNotification]
    /// The earliest due time (or lease end) after the plan's date of a pending or sending notification, `nil` when none
    /// waits (those due already are in the lists, or beyond their limits).
    public var nextDue: Date?

    /// Creates a plan.
    public init(settings: NotificationSettings, dueTests: [ServerNotification], due: [ServerNotification], nextDue: Date?) {
        self.settings = settings
        self.dueTests = dueTests
        self.due = due
        self.nextDue = nextDue
    }
}

/// The environment and app a notification history is read for (``NotificationQuery/scope``).
public struct NotificationScope: Sendable, Equatable {
    /// Only notifications about transactions issued in this environment.
    public var environment: Transaction.Environment
    /// Only notifications about transactions of this app (one saved before bundle IDs were kept counts as this app's).
    public var appBundleID: String

    /// Creates a scope.
    public init(environment: Transaction.Environment, appBundleID: String) {
        self.environment = environment
        self.appBundleID = appBundleID
    }
}
