import Foundation
import HTTPServer
import TipJar
import TipJarScenario

/// The App Store Server Notifications the simulated store sends (Sources/TipJar/Model/ServerNotification.swift): their
/// settings (the notifications URL and the time scale of Apple's retry schedule) and the list of what was sent, for
/// scripts (`/api/notifications…`).
struct NotificationsController: DashboardController {
    let service: TipJarService
    let renderer: PageRenderer
    let clock: @Sendable () -> Date
    /// Which notifications URLs are accepted.
    var policy = NotificationURLPolicy()
    /// A new `notificationUUID` (and test token part).
    var makeUUID: @Sendable () -> String = { UUID.timeOrdered(at: Date()).uuidString.lowercased() }

    /// The queue and its settings, through the service.
    var queue: ServerNotifications { service.notifications }

    /// Notifications a page of `/api/notifications` holds by default, and at most (`?limit=`).
    static let apiPageSize = (standard: 100, most: 500)

    /// The JSON of the settings.
    struct SettingsBody: Codable, Equatable {
        var url: String?
        var timeScale: Int

        init(_ settings: NotificationSettings) {
            url = settings.url
            timeScale = settings.timeScale
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(url, forKey: .url)  // `null` when none, never absent
            try container.encode(timeScale, forKey: .timeScale)
        }
    }

    /// A notification as the JSON API lists it: the queue's row, its decoded payload's type, and every attempt.
    struct NotificationBody: Encodable {
        var id: Int64
        var notificationType: String
        var subtype: String?
        var transactionID: String?
        var notificationUUID: String?
        var state: String
        var createdAt: Date
        var nextAttemptAt: Date?
        var sendAttempts: [AttemptBody]
        var signedPayload: String?

        init(_ notification: ServerNotification) {
            id = notification.id
            notificationType = notification.type.rawValue
            subtype = notification.subtype
            transactionID = notification.transactionID.map(String.init)
            notificationUUID = notification.notificationUUID
            state = notification.state.rawValue
            createdAt = notification.createdAt
            nextAttemptAt = notification.state == .pending ? notification.nextAttemptAt : nil
            sendAttempts = notification.attempts.map(AttemptBody.init)
            signedPayload = notification.signedPayload
        }
    }

    /// An attempt as the JSON API lists it: Apple's `sendAttemptItem` fields, and the dashboard's own `url` (where it
    /// posted), `detail` (the cause in words) and `underWay` (started, not yet ended; its result is not known).
    struct AttemptBody: Encodable {
        var attemptDate: Int64
        var sendAttemptResult: String
        var url: String?
        var detail: String?
        var underWay: Bool

        init(_ attempt: SendAttempt) {
            attemptDate = UTCTimestamp.milliseconds(since1970: attempt.date)
            sendAttemptResult = attempt.result.rawValue
            url = attempt.url
            detail = attempt.detail
            underWay = !attempt.hasEnded
        }
    }

    func register(in router: inout Router<DashboardContext>) {
        registerPages(in: &router)
        router.get("/api/notifications/settings") { _, _ in
            JSONBody.response(SettingsBody(try await queue.notificationSettings()))
        }
        router.put("/api/notifications/settings") { request, _ in
            let updated = try Self.patched(try await queue.notificationSettings(), with: request.body, policy: policy)
            try await queue.save(updated)
            return JSONBody.response(SettingsBody(updated))
        }
        // The App Store reverses a refund (REFUND_REVERSED): SimulatedStore.reverseRefund(transactionID:).
        router.post("/api/transactions/:tid/reverse-refund") { _, context in
            let reversed = try await service.reverseRefund(transactionID: try context.transactionID())
            return JSONBody.response(APIModels.TransactionBody(reversed, delivery: nil))
        }
        // Newest first, a page at a time: `?before=ID` continues after a page's last (oldest) notification, and the
        // `Link` field names the next page (RFC 8288 §3, relation "next").
        router.get("/api/notifications") { request, _ in
            var query = NotificationQuery(newestFirst: true, limit: Self.apiPageSize.standard)
            if let text = request.queryValue("limit") {
                guard let limit = Int(text), (1...Self.apiPageSize.most).contains(limit) else {
                    throw TipJarError.invalidValue(field: "limit", reason: "must be a whole number from 1 to \(Self.apiPageSize.most)")
                }
                query.limit = limit
            }
            query.beforeID = try Self.beforeID(request.queryValue("before"))
            if let text = request.queryValue("type") {
                guard let type = ServerNotification.NotificationType(rawValue: text) else {
                    throw TipJarError.invalidValue(
                        field: "type", reason: "must be one of " + ServerNotification.NotificationType.allCases.map(\.rawValue).joined(separator: ", "))
                }
                query.type = type
            }
            if let text = request.queryValue("transactionID") {
                guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
                    throw TipJarError.invalidValue(field: "transactionID", reason: "must be a transaction ID (digits)")
                }
                // Digits beyond UInt64 name no transaction: nothing about it.
                guard let id = UInt64(text) else { return JSONBody.response([NotificationBody]()) }
                query.transactionID = id
            }
            let page = try await queue.notifications(matching: query)
            var response = JSONBody.response(page.map(NotificationBody.init))
            if page.count == query.limit, let last = page.last {
                var next = "/api/notifications?before=\(last.id)&limit=\(query.limit)"
                if let type = query.type { next += "&type=\(type.rawValue)" }
                if let id = query.transactionID { next += "&transactionID=\(id)" }
                response.fields.append(name: "Link", value: "<\(next)>; rel=\"next\"")
            }
            return response
        }
    }

    /// The `before` of a page: a notification ID (digits), or `nil` for the first page (no `before` at all).
    static func beforeID(_ text: String?) throws -> Int64? {
        guard let text else { return nil }
        guard !text.isEmpty, text.utf8.count <= 19, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let id = Int64(text) else {
            throw TipJarError.invalidValue(field: "before", reason: "must be a notification ID (digits)")
        }
        return id
    }

    /// `settings` with the fields of a `PUT` body: `url` (a string, or `null` or `""` for none) and `timeScale`; a
    /// field left out keeps its value.
    /// - Throws: `RequestError` for a body that is not a JSON object or names another field, `TipJarError.invalidValue`
    ///   for a URL the policy refuses or a time scale out of range (nothing saved).
    static func patched(_ settings: NotificationSettings, with body: [UInt8], policy: NotificationURLPolicy) throws -> NotificationSettings {
        guard case .object(let object)? = try? JSONValue(parsing: Data(body)) else {
            throw RequestError(message: "The request needs a JSON object: {\"url\": …, \"timeScale\": …}.")
        }
        if let unknown = object.keys.sorted().first(where: { $0 != "url" && $0 != "timeScale" }) {
            throw RequestError(message: "Unknown field \(unknown): the notification settings are url and timeScale.")
        }
        var updated = settings
        switch object["url"] {
        case nil: break
        case .null?: updated.url = nil
        case .string(let text)?: updated.url = try NotificationSettings.checkedURL(text, policy: policy)
        default: throw TipJarError.invalidValue(field: "url", reason: "must be a string or null")
        }
        switch object["timeScale"] {
        case nil: break
        case .number(let number)? where number == number.rounded() && abs(number) < 1e9:
            updated.timeScale = try NotificationSettings.checkedTimeScale(Int(number))
        default: throw TipJarError.invalidValue(field: "timeScale", reason: "must be a whole number from 1 to \(NotificationSettings.timeScales.upperBound)")
        }
        return updated
    }
}
