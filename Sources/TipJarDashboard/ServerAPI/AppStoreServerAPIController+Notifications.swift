import Foundation
import HTTPServer
import TipJar
import TipJarScenario

/// The App Store Server API's notification endpoints, in Apple's paths and shapes: Request a Test Notification,
/// Get Test Notification Status and Get Notification History, over the store's notifications queue
/// (``TipJarService/notifications``).
extension AppStoreServerAPIController {
    /// Notification history items per page: "up to 20" (Apple's `paginationToken`,
    /// https://developer.apple.com/documentation/appstoreserverapi/get-notification-history).
    static let historyPageSize = 20

    /// One `sendAttemptItem` (https://developer.apple.com/documentation/appstoreserverapi/sendattemptitem).
    struct SendAttemptItem: Encodable {
        var attemptDate: Int64
        var sendAttemptResult: String

        init(_ attempt: SendAttempt) {
            attemptDate = UTCTimestamp.milliseconds(since1970: attempt.date)
            sendAttemptResult = attempt.result.rawValue
        }
    }

    /// A notification as the test status and the history answer it: `signedPayload` and `sendAttempts`
    /// (`CheckTestNotificationResponse`, `NotificationHistoryResponseItem`).
    struct NotificationItem: Encodable {
        var signedPayload: String
        var sendAttempts: [SendAttemptItem]

        init(_ notification: ServerNotification) {
            signedPayload = notification.signedPayload ?? ""
            sendAttempts = notification.endedAttempts.map(SendAttemptItem.init)
        }
    }

    func registerNotifications(in router: inout Router<DashboardContext>) {
        // Request a Test Notification: https://developer.apple.com/documentation/appstoreserverapi/request-a-test-notification
        router.post("/inApps/v1/notifications/test") { request, _ in
            let queue = try notificationQueue()
            guard try await queue.notificationSettings().url != nil else { throw AppStoreServerAPIError.notificationURLNotFound }
            let test = ServerNotification.requestedTest(
                at: clock(), makeUUID: makeUUID, bundleID: service.appBundleID, environment: service.settings.environment.rawValue)
            _ = try await queue.enqueue(test)
            struct Body: Encodable { var testNotificationToken: String }
            return JSONBody.response(Body(testNotificationToken: test.testToken ?? ""))
        }
        // Get Test Notification Status: https://developer.apple.com/documentation/appstoreserverapi/get-test-notification-status
        router.get("/inApps/v1/notifications/test/:token") { request, context in
            let queue = try notificationQueue()
            let token = context.parameters["token"] ?? ""
            guard Self.isTestToken(token) else { throw AppStoreServerAPIError.invalidTestNotificationToken }
            guard let test = try await queue.notification(testToken: token), test.signedPayload != nil else {
                throw AppStoreServerAPIError.testNotificationNotFound
            }
            return JSONBody.response(NotificationItem(test))
        }
        // Get Notification History: https://developer.apple.com/documentation/appstoreserverapi/get-notification-history
        router.post("/inApps/v1/notifications/history") { request, _ in
            let queue = try notificationQueue()
            let asked = try Self.historyQuery(AppStoreServerAPIRequests.object(request.body), now: clock())
            let after = try Self.historyPosition(request.queryValue("paginationToken"))
            var found: [ServerNotification] = []
            if var query = try await customerScoped(asked) {
                query.afterID = after
                query.limit = Self.historyPageSize + 1
                found = try await queue.notifications(matching: query)
            }
            let page = Array(found.prefix(Self.historyPageSize))
            struct Body: Encodable {
                var notificationHistory: [NotificationItem]
                var hasMore: Bool
                var paginationToken: String?
            }
            let hasMore = found.count > page.count
            return JSONBody.response(
                Body(
                    notificationHistory: page.map(NotificationItem.init), hasMore: hasMore,
                    paginationToken: hasMore ? page.last.map { CompactJWS.base64URL(Data("n\($0.id)".utf8)) } : nil))
        }
    }

    /// `query` as Apple reads it: in this environment and app only, and its `transactionId` standing for the customer
    /// it belongs to ("any transaction that belongs to the customer": every notification about the Apple Account's
    /// transactions), by a transaction this API answers for or an `appTransactionId`.
    /// - Returns: the query, or `nil` when the identifier names no customer here (nothing matches).
    func customerScoped(_ query: NotificationQuery?) async throws -> NotificationQuery? {
        guard var query else { return nil }
        query.scope = NotificationScope(environment: service.settings.environment, appBundleID: service.appBundleID)
        guard let id = query.transactionID else { return query }
        query.transactionID = nil
        if let stored = try await service.records.transaction(withID: id), isServed(stored) {
            query.accountID = stored.accountID
        } else if let accountID = try await appTransactions.accountID(String(id), bundleID: service.appBundleID, records: service.records) {
            query.accountID = accountID
        } else {
            return nil
        }
        return query
    }

    /// The queue, or Apple's `ServerNotificationURLNotFoundError` when this storage keeps none.
    func notificationQueue() throws(AppStoreServerAPIError) -> ServerNotifications {
        let notifications = service.notifications
        guard notifications.isKept else { throw .notificationURLNotFound }
        return notifications
    }

    /// Whether `token` can be a test notification token this server wrote: 1 to 128 letters, digits, `-` and `_`.
    static func isTestToken(_ token: String) -> Bool {
        !token.isEmpty && token.utf8.count <= 128
            && token.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x2D || $0 == 0x5F }
    }

    /// The history page a `paginationToken` continues after; `nil` without one.
    /// - Throws: `InvalidPaginationTokenError` for a token this server did not write.
    static func historyPosition(_ token: String?) throws(AppStoreServerAPIError) -> Int64? {
        guard let token else { return nil }
        guard let data = CompactJWS.decodeBase64URL(Substring(token)), let text = String(data: data, encoding: .utf8), text.first == "n",
            let id = Int64(text.dropFirst()), id >= 0
        else { throw .invalidPaginationToken }
        return id
    }

    /// Apple's `notificationType` values (`NotificationTypeV2` of Apple's App Store Server Library).
    static let notificationTypes: Set<String> = [
        "SUBSCRIBED", "DID_CHANGE_RENEWAL_PREF", "DID_CHANGE_RENEWAL_STATUS", "OFFER_REDEEMED", "DID_RENEW", "EXPIRED",
        "DID_FAIL_TO_RENEW", "GRACE_PERIOD_EXPIRED", "PRICE_INCREASE", "REFUND", "REFUND_DECLINED", "CONSUMPTION_REQUEST",
        "RENEWAL_EXTENDED", "REVOKE", "TEST", "RENEWAL_EXTENSION", "REFUND_REVERSED", "EXTERNAL_PURCHASE_TOKEN", "ONE_TIME_CHARGE",
        "RESCIND_CONSENT", "METADATA_UPDATE", "MIGRATION", "PRICE_CHANGE",
    ]
    /// Apple's `subtype` values (`Subtype` of Apple's App Store Server Library).
    static let subtypes: Set<String> = [
        "INITIAL_BUY", "RESUBSCRIBE", "DOWNGRADE", "UPGRADE", "AUTO_RENEW_ENABLED", "AUTO_RENEW_DISABLED", "VOLUNTARY", "BILLING_RETRY",
        "PRICE_INCREASE", "GRACE_PERIOD", "PENDING", "ACCEPTED", "BILLING_RECOVERY", "PRODUCT_NOT_FOR_SALE", "SUMMARY", "FAILURE", "UNREPORTED",
    ]

    /// The history query of a `NotificationHistoryRequest` body
    /// (https://developer.apple.com/documentation/appstoreserverapi/notificationhistoryrequest): `startDate` and
    /// `endDate` required, in milliseconds, the start before the end and "within the past 180 days"; an end in the
    /// future reads as now; `notificationType` and `notificationSubtype` Apple's values, a subtype only with a type;
    /// "either the transactionId or the notificationType …, but not both"; `onlyFailures` a boolean (the customer's
    /// notifications for a `transactionId`, and the undelivered ones for `onlyFailures`, are read by
    /// ``customerScoped(_:)`` and ``NotificationQuery``). Only notifications
    /// attempted at least once are listed ("notifications that the App Store server attempted to send"). Apple
    /// documents which type and subtype combine; this server takes any pair of known values (a type sent here has no
    /// subtype, so a pair finds nothing). Fields Apple does not name are ignored.
    /// - Returns: the query, or `nil` for a valid request nothing sent here can match (a type or a subtype this store
    ///   never sends).
    static func historyQuery(_ body: [String: JSONValue], now: Date) throws(AppStoreServerAPIError) -> NotificationQuery? {
        func milliseconds(_ field: String) -> Int64? {
            guard case .number(let number)? = body[field], number == number.rounded(), number >= 0, number < 1e15 else { return nil }
            return Int64(number)
        }
        guard let start = milliseconds("startDate") else { throw .invalidStartDate }
        guard var end = milliseconds("endDate") else { throw .invalidEndDate }
        let nowMilliseconds = UTCTimestamp.milliseconds(since1970: now)
        guard start < end else { throw .startDateAfterEndDate }
        guard start >= nowMilliseconds - 180 * 86_400_000 else { throw .startDateTooFarInPast }
        end = min(end, nowMilliseconds + 1)
        var query = NotificationQuery(
            start: Date(timeIntervalSince1970: Double(start) / 1000), end: Date(timeIntervalSince1970: Double(end) / 1000), attemptedOnly: true)
        var filters = 0
        var typeGiven = false
        var matchesNothing = false
        switch body["notificationType"] {
        case nil, .null?: break
        case .string(let type)? where notificationTypes.contains(type):
            typeGiven = true
            filters += 1
            // A type this store never sends matches nothing: a type no row has.
            query.type = ServerNotification.NotificationType(rawValue: type)
            if query.type == nil { matchesNothing = true }
        default: throw .invalidNotificationType
        }
        switch body["notificationSubtype"] {
        case nil, .null?: break
        case .string(let subtype)? where subtypes.contains(subtype) && typeGiven:
            matchesNothing = true  // No notification sent here has a subtype.
        default: throw .invalidNotificationType
        }
        switch body["transactionId"] {
        case nil, .null?: break
        case .string(let text)?:
            guard text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let id = UInt64(text) else { throw .invalidTransactionID }
            query.transactionID = id
            filters += 1
        default: throw .invalidTransactionID
        }
        guard filters <= 1 else { throw .multipleFiltersSupplied }
        switch body["onlyFailures"] {
        case nil, .null?: break
        case .bool(let only)?: query.onlyFailures = only
        default: throw .generalBadRequest("Invalid request. onlyFailures must be true or false.")
        }
        return matchesNothing ? nil : query
    }
}
