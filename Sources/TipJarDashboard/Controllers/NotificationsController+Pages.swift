import Foundation
import HTTPServer
import Mustache
import TipJar

/// The `/notifications` page: the notifications URL and time scale (a form), every notification the store queued with
/// its decoded payload and its attempts, filtered by type, and Resend; and the rows the transaction page shows
/// (`Templates/partials/transaction-notifications.mustache`). Every form posts with the session's CSRF token and works
/// without JavaScript.
extension NotificationsController {
    func registerPages(in router: inout Router<DashboardContext>) {
        router.get("/notifications") { request, context in
            try await renderer.withFormSession(context) { token in
                var data = renderer.pageData(context, nav: "notifications", csrfToken: token)
                var query = NotificationQuery(beforeID: try Self.beforeID(request.queryValue("before")), newestFirst: true, limit: Self.pageSize)
                let typeText = request.queryValue("type") ?? ""
                if !typeText.isEmpty {
                    guard let type = ServerNotification.NotificationType(rawValue: typeText) else {
                        throw RequestError(message: "type must be one of " + ServerNotification.NotificationType.allCases.map(\.rawValue).joined(separator: ", "))
                    }
                    query.type = type
                }
                let settings = try await queue.notificationSettings()
                data["url"] = .string(settings.url ?? "")
                data["hasURL"] = .bool(settings.url != nil)
                data["timeScale"] = .int(settings.timeScale)
                data["types"] = ViewModels.choices(
                    [("", "every type")] + ServerNotification.NotificationType.allCases.map { ($0.rawValue, $0.rawValue) }, selected: typeText)
                // Newest first: the latest events are what a rehearsal looks at; older ones a page at a time.
                let page = try await queue.notifications(matching: query)
                let rows = page.map(Self.row)
                data["notifications"] = .array(rows)
                data["hasNotifications"] = .bool(!rows.isEmpty)
                if page.count == Self.pageSize, let last = page.last {
                    data["olderURL"] = .string("/notifications?before=\(last.id)" + (typeText.isEmpty ? "" : "&type=\(typeText)"))
                }
                if query.beforeID != nil { data["newestURL"] = .string("/notifications" + (typeText.isEmpty ? "" : "?type=\(typeText)")) }
                data["flash"] = Self.flashes[request.queryValue("flash") ?? ""].map(MustacheValue.string)
                return try renderer.html("pages/notifications", data)
            }
        }
        router.post("/notifications/settings") { _, context in
            var patch: [String: Any] = ["url": context.form["url"] ?? ""]
            if let scale = context.form["timeScale"], !scale.isEmpty {
                guard let value = Int(scale) else { throw TipJarError.invalidValue(field: "timeScale", reason: "must be a whole number") }
                patch["timeScale"] = value
            }
            let body = try JSONSerialization.data(withJSONObject: patch)
            try await queue.save(try Self.patched(try await queue.notificationSettings(), with: Array(body), policy: policy))
            return .redirect(to: "/notifications?flash=saved")
        }
        // The page's "Request a Test Notification": what the App Store Server API's endpoint does, without a JWT.
        router.post("/notifications/test") { _, _ in
            guard try await queue.notificationSettings().url != nil else {
                throw RequestError(status: .conflict, message: "Set a notifications URL first: a test notification goes to it.")
            }
            let test = ServerNotification.requestedTest(
                at: clock(), makeUUID: makeUUID, bundleID: service.appBundleID, environment: service.settings.environment.rawValue)
            _ = try await queue.enqueue(test)
            return .redirect(to: "/notifications?flash=test")
        }
        // Apple has no resend: this queues a copy with a new notificationUUID, due now; the original keeps its state.
        router.post("/notifications/:nid/resend") { _, context in
            guard let text = context.parameters["nid"], let id = Int64(text), let original = try await queue.notification(id: id) else {
                throw RequestError(status: .notFound, message: "No notification has that ID.")
            }
            var copy = ServerNotification(
                type: original.type, subtype: original.subtype, transactionID: original.transactionID, createdAt: original.createdAt,
                snapshot: original.snapshot, consumptionRequestReason: original.consumptionRequestReason, nextAttemptAt: clock())
            if original.type == .test {
                // A TEST has no transaction to sign again: the copy carries the same payload under a new UUID.
                let uuid = UUID().uuidString.lowercased()
                copy.notificationUUID = uuid
                copy.signedPayload = APIModels.signedPayload(
                    for: copy, uuid: uuid, stored: nil, bundleID: service.appBundleID, environment: service.settings.environment.rawValue)
            }
            _ = try await queue.enqueue(copy)
            return .redirect(to: "/notifications?flash=resent")
        }
    }

    static let flashes = [
        "saved": "Saved the notification settings.", "resent": "Queued a copy with a new notificationUUID.",
        "test": "Requested a TEST notification: it is sent at once, ahead of any other waiting.",
    ]

    /// Notifications one page of `/notifications` shows.
    static let pageSize = 50

    /// One notification as the page and the transaction page show it.
    static func row(_ notification: ServerNotification) -> MustacheValue {
        let payload = notification.signedPayload.flatMap(decodedPayload)
        return [
            "id": .string(String(notification.id)), "type": .string(notification.type.rawValue),
            "transactionID": notification.transactionID.map { .string(String($0)) } ?? .null,
            "at": .string(UTCTimestamp(notification.createdAt).isoWithMilliseconds), "state": .string(notification.state.rawValue),
            "uuid": .string(notification.notificationUUID ?? "not sent yet"),
            "nextAttempt": notification.state == .pending ? .string(UTCTimestamp(notification.nextAttemptAt).isoWithMilliseconds) : .null,
            "attempts": .array(
                notification.attempts.enumerated().map { index, attempt in
                    // The URL is shown where it changes (the first attempt, a setting changed, a redirect), not on every line.
                    let changed = index == 0 || notification.attempts[index - 1].url != attempt.url
                    return [
                        "at": .string(UTCTimestamp(attempt.date).isoWithMilliseconds),
                        "result": .string(attempt.hasEnded ? attempt.result.rawValue : "under way"),
                        "success": .bool(attempt.hasEnded && attempt.result == .success),
                        "url": changed ? attempt.url.map(MustacheValue.string) ?? .null : .null,
                        "detail": attempt.hasEnded && attempt.result != .success ? attempt.detail.map(MustacheValue.string) ?? .null : .null,
                    ]
                }),
            "hasAttempts": .bool(!notification.attempts.isEmpty),
            "payload": payload.map(MustacheValue.string) ?? .null,
        ]
    }

    /// The payload part of a signed payload, as indented JSON (the transaction inside stays a JWS).
    static func decodedPayload(_ signed: String) -> String? {
        let parts = signed.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let data = CompactJWS.decodeBase64URL(parts[1]),
            let object = try? JSONSerialization.jsonObject(with: data),
            let pretty = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        else { return nil }
        return String(decoding: pretty, as: UTF8.self)
    }
}

extension TransactionsController {
    /// The notifications about a transaction, for `Templates/partials/transaction-notifications.mustache` (read once
    /// with its diagrams, so the list and the server's lane show the same attempts).
    func notificationRows(_ notifications: [ServerNotification]) -> MustacheValue {
        let rows = notifications.map(NotificationsController.row)
        return ["items": .array(rows), "any": .bool(!rows.isEmpty)]
    }
}
