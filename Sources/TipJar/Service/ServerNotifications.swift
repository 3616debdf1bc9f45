import Foundation

/// The App Store Server Notifications the store keeps, through the service (``TipJarService/notifications``): their
/// settings, the list of what was queued and sent, and the two actions a person or a backend takes on the queue
/// (queue a `TEST` or a copy to resend). The web layer reaches the queue here and nowhere else; claiming and recording
/// attempts is the sender's alone, which the composition root builds over the storage itself.
///
/// On a storage that keeps no queue (``isKept`` is `false`) the settings read as a new database's, the lists are
/// empty, and saving or queueing throws ``TipJarError/invalidValue(field:reason:)``.
public struct ServerNotifications: Sendable {
    let queue: (any ServerNotificationStorage)?

    /// Whether the storage keeps a notifications queue.
    public var isKept: Bool { queue != nil }

    /// The saved settings (a new database's when nothing is kept: no URL, time scale 1).
    public func notificationSettings() async throws -> NotificationSettings {
        try await queue?.notificationSettings() ?? NotificationSettings()
    }

    /// Saves the settings. From then on events are queued only while a URL is set.
    public func save(_ settings: NotificationSettings) async throws {
        try await kept().save(settings)
    }

    /// Queues a notification made outside an event of the store: a `TEST` (Apple's "Request a Test Notification",
    /// https://developer.apple.com/documentation/appstoreserverapi/request-a-test-notification), or a copy to resend.
    /// - Returns: it, with its ``ServerNotification/id``.
    public func enqueue(_ notification: ServerNotification) async throws -> ServerNotification {
        try await kept().enqueue(notification)
    }

    /// The notification with `id`, with its attempts.
    public func notification(id: Int64) async throws -> ServerNotification? {
        try await queue?.notification(id: id)
    }

    /// The `TEST` notification with `token`, with its attempts.
    public func notification(testToken: String) async throws -> ServerNotification? {
        try await queue?.notification(testToken: testToken)
    }

    /// Notifications that pass `query` (``ServerNotificationStorage/notifications(matching:)``).
    public func notifications(matching query: NotificationQuery) async throws -> [ServerNotification] {
        try await queue?.notifications(matching: query) ?? []
    }

    private func kept() throws -> any ServerNotificationStorage {
        guard let queue else { throw TipJarError.invalidValue(field: "notifications", reason: "this storage keeps no notifications queue") }
        return queue
    }
}

extension TipJarService {
    /// The App Store Server Notifications queue and its settings (``ServerNotifications``).
    public nonisolated var notifications: ServerNotifications {
        ServerNotifications(queue: storage as? any ServerNotificationStorage)
    }
}
