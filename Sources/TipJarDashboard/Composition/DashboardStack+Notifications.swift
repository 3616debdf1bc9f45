import Foundation
import TipJar

extension DashboardStack {
    /// The notifications controller, when the storage keeps a notifications queue.
    static func notificationControllers(
        service: TipJarService, storage: any TipJarStorage, environment: TipJarEnvironment, renderer: PageRenderer,
        policy: NotificationURLPolicy
    ) -> [any DashboardController] {
        guard let queue = storage as? any ServerNotificationStorage else { return [] }
        return [
            NotificationsController(
                service: service, queue: queue, renderer: renderer, clock: environment.now, policy: policy)
        ]
    }

    /// The sender of the storage's notifications queue, or `nil` when it keeps none.
    static func notificationSender(
        service: TipJarService, storage: any TipJarStorage, environment: TipJarEnvironment, policy: NotificationURLPolicy
    ) -> NotificationSender? {
        guard let queue = storage as? any ServerNotificationStorage else { return nil }
        let records = service.records
        let service = service
        return NotificationSender(
            queue: queue, transport: HTTPNotificationTransport(policy: policy), transaction: { id in try await records.transaction(withID: id) },
            bundleID: service.appBundleID,
            environment: { service.settings.environment.rawValue }, now: environment.now)
    }

    /// Starts delivering the notifications queue in the background (`serve` and `scenario run` call it; tests call
    /// ``NotificationSender/sendDue(limit:)`` themselves or this). Cancel the task to stop.
    /// - Returns: the sender's task, or `nil` when the storage keeps no queue.
    /// - Parameter log: where a failure of the queue's storage is written (the sender goes on).
    @discardableResult
    public func startNotifications(log: @escaping @Sendable (String) -> Void = { _ in }) -> Task<Void, Never>? {
        guard let sender = notificationSender else { return nil }
        // Woken only by changes to the queue or its settings (a purchase queues its notification in the same write),
        // never by another install's page or purchase with no notification.
        let wakeUps = storage.changeLog.changes(of: [.notifications])
        return Task.detached { await sender.run(wakeUps: wakeUps, log: log) }
    }

    /// Saves a notifications URL given at start-up (`serve --notifications-url`), checked as the API checks it.
    /// - Throws: `TipJarError.invalidValue` for a URL the ``NotificationURLPolicy`` refuses; storage errors.
    public func setNotificationsURL(_ url: String?, timeScale: Int?) async throws {
        guard let queue = storage as? any ServerNotificationStorage else { return }
        var settings = try await queue.notificationSettings()
        if let url { settings.url = try NotificationSettings.checkedURL(url, policy: notificationURLPolicy) }
        if let timeScale { settings.timeScale = try NotificationSettings.checkedTimeScale(timeScale) }
        try await queue.save(settings)
    }
}
