import Foundation
import TipJar

extension DashboardStack {
    /// The notifications controller, when the storage keeps a notifications queue.
    static func notificationControllers(
        service: TipJarService, storage: any TipJarStorage, environment: TipJarEnvironment, renderer: PageRenderer
    ) -> [any DashboardController] {
        guard let queue = storage as? any ServerNotificationStorage else { return [] }
        return [NotificationsController(service: service, queue: queue, renderer: renderer, clock: environment.now)]
    }

    /// The sender of the storage's notifications queue, or `nil` when it keeps none.
    static func notificationSender(service: TipJarService, storage: any TipJarStorage, environment: TipJarEnvironment) -> NotificationSender? {
        guard let queue = storage as? any ServerNotificationStorage else { return nil }
        let records = service.records
        let service = service
        return NotificationSender(
            queue: queue, transaction: { id in try await records.transaction(withID: id) }, bundleID: service.appBundleID,
            environment: { service.settings.environment.rawValue }, now: environment.now)
    }

    /// Starts delivering the notifications queue in the background (`serve` and `scenario run` call it; tests call
    /// ``NotificationSender/sendDue(limit:)`` themselves or this). Cancel the task to stop.
    /// - Returns: the sender's task, or `nil` when the storage keeps no queue.
    @discardableResult
    public func startNotifications() -> Task<Void, Never>? {
        guard let sender = notificationSender else { return nil }
        let commits = storage.commits
        return Task.detached { await sender.run(commits: commits) }
    }

    /// Saves a notifications URL given at start-up (`serve --notifications-url`), checked as the API checks it.
    /// - Throws: `TipJarError.invalidValue` for a URL that is not http(s); storage errors.
    public func setNotificationsURL(_ url: String?, timeScale: Int?) async throws {
        guard let queue = storage as? any ServerNotificationStorage else { return }
        var settings = try await queue.notificationSettings()
        if let url { settings.url = try NotificationSettings.checkedURL(url) }
        if let timeScale { settings.timeScale = try NotificationSettings.checkedTimeScale(timeScale) }
        try await queue.save(settings)
    }
}
