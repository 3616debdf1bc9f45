import Foundation
import TipJar

extension DashboardStack {
    /// The notifications controller, when the storage keeps a notifications queue.
    static func notificationControllers(
        service: TipJarService, environment: TipJarEnvironment, renderer: PageRenderer, policy: NotificationURLPolicy
    ) -> [any DashboardController] {
        guard service.notifications.isKept else { return [] }
        return [NotificationsController(service: service, renderer: renderer, clock: environment.now, policy: policy)]
    }

    /// The sender of the storage's notifications queue, or `nil` when it keeps none. The sender alone claims and records
    /// attempts, so it is built over the storage itself; everyone else reaches the queue through the service.
    static func notificationSender(
        service: TipJarService, storage: any TipJarStorage, environment: TipJarEnvironment, policy: NotificationURLPolicy
    ) -> NotificationSender? {
        guard let queue = storage as? any ServerNotificationStorage else { return nil }
        let records = service.records
        let service = service
        return NotificationSender(
            queue: queue, transport: HTTPNotificationTransport(policy: policy), transactions: { ids in try await records.transactions(withIDs: ids) },
            bundleID: service.appBundleID,
            environment: { service.settings.environment.rawValue }, now: environment.now)
    }

    /// Delivers the notifications queue until the task running it is cancelled, and returns once the attempts under way
    /// are recorded (`serve` and `scenario run` run it in their task group, beside the server; tests call
    /// ``NotificationSender/sendDue(limit:)`` themselves or this). Returns at once when the storage keeps no queue.
    /// - Parameter log: where a failure of the queue's storage is written (the sender goes on).
    public func runNotifications(log: @escaping @Sendable (String) -> Void = { _ in }) async {
        guard let sender = notificationSender else { return }
        // Woken only by changes to the queue or its settings, and by a purchase committed while a URL is set (whose
        // charge its next step queues); never by another install's page or a purchase with no notification.
        await sender.run(changes: storage.changeLog, log: log)
    }

    /// Saves a notifications URL given at start-up (`serve --notifications-url`), checked as the API checks it.
    /// - Throws: `TipJarError.invalidValue` for a URL the ``NotificationURLPolicy`` refuses; storage errors.
    public func setNotificationsURL(_ url: String?, timeScale: Int?) async throws {
        let notifications = service.notifications
        guard notifications.isKept else { return }
        var settings = try await notifications.notificationSettings()
        if let url { settings.url = try NotificationSettings.checkedURL(url, policy: notificationURLPolicy) }
        if let timeScale { settings.timeScale = try NotificationSettings.checkedTimeScale(timeScale) }
        try await notifications.save(settings)
    }
}
