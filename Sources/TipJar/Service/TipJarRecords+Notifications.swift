import Foundation

extension TipJarRecords {
    /// The App Store Server Notifications about a transaction, oldest first, with their attempts; none when the
    /// storage keeps no notifications queue (``ServerNotificationStorage``).
    public func notifications(transactionID: UInt64) async throws -> [ServerNotification] {
        guard let queue = storage as? any ServerNotificationStorage else { return [] }
        return try await queue.notifications(matching: NotificationQuery(transactionID: transactionID, limit: 100))
    }
}
