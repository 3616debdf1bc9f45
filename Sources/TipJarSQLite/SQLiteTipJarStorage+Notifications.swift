import SQLiteDatabase
import Foundation
import TipJar

extension SQLiteTipJarStorage: ServerNotificationStorage {
    // MARK: Server notifications (TipJarSchema.v14)

    /// The `notifications` columns ``notification(_:)`` reads by name.
    static let notificationColumns = """
        id, notification_type, subtype, transaction_id, created_at_ms, has_snapshot, signed_date_ms, revocation_date_ms,
        revocation_reason, revocation_type, revocation_percentage, consumption_request_reason, test_token,
        notification_uuid, signed_payload, state, attempt_count, next_attempt_ms
        """

    /// A notification from a row of ``notificationColumns`` (its attempts not read).
    static func notification(_ row: Row) throws -> ServerNotification {
        let snapshot: ServerNotification.TransactionSnapshot? =
            try row.value(named: "has_snapshot") as Bool
            ? ServerNotification.TransactionSnapshot(
                signedDate: (try row.value(named: "signed_date_ms", as: Int64?.self)).map(date),
                revocationDate: (try row.value(named: "revocation_date_ms", as: Int64?.self)).map(date),
                revocationReason: (try row.value(named: "revocation_reason", as: String?.self)).flatMap(Transaction.RevocationReason.init(rawValue:)),
                revocationType: (try row.value(named: "revocation_type", as: String?.self)).flatMap(Transaction.RevocationType.init(rawValue:)),
                revocationPercentage: try row.value(named: "revocation_percentage", as: Int?.self))
            : nil
        return ServerNotification(
            id: try row.value(named: "id"),
            type: ServerNotification.NotificationType(rawValue: try row.value(named: "notification_type")) ?? .test,
            subtype: try row.value(named: "subtype", as: String?.self),
            transactionID: (try row.value(named: "transaction_id", as: Int64?.self)).map { UInt64(bitPattern: $0) },
            createdAt: date(try row.value(named: "created_at_ms")), snapshot: snapshot,
            consumptionRequestReason: try row.value(named: "consumption_request_reason", as: String?.self),
            testToken: try row.value(named: "test_token", as: String?.self),
            notificationUUID: try row.value(named: "notification_uuid", as: String?.self),
            signedPayload: try row.value(named: "signed_payload", as: String?.self),
            state: ServerNotification.State(rawValue: try row.value(named: "state")) ?? .failed,
            attemptCount: try row.value(named: "attempt_count"), nextAttemptAt: date(try row.value(named: "next_attempt_ms")))
    }

    /// `notifications` read with their attempts, in one read.
    static func withAttempts(_ notifications: [ServerNotification], _ db: Database) throws -> [ServerNotification] {
        let statement = try db.cachedStatement(
            sql: "SELECT attempted_at_ms, result FROM notification_attempts WHERE notification_id = ? ORDER BY attempt")
        return try notifications.map { notification in
            var read = notification
            read.attempts = try statement.fetchAll(arguments: [notification.id]) { row in
                SendAttempt(
                    date: date(try row.value(named: "attempted_at_ms")),
                    result: SendAttemptResult(rawValue: try row.value(named: "result")) ?? .other)
            }
            return read
        }
    }

    /// `ServerNotificationStorage.notificationSettings()`: the one row of settings (defaults when absent).
    public nonisolated(nonsending) func notificationSettings() async throws -> NotificationSettings {
        try await pool.read { db in
            try db.fetchOne(sql: "SELECT url, time_scale FROM notification_settings WHERE id = 1") { row in
                NotificationSettings(url: try row.value(named: "url", as: String?.self), timeScale: try row.value(named: "time_scale"))
            } ?? NotificationSettings()
        }
    }

    /// `ServerNotificationStorage.save(_:)`: replaces the settings.
    public nonisolated(nonsending) func save(_ settings: NotificationSettings) async throws {
        let arguments: StatementArguments = [settings.url, settings.timeScale]
        try await write { db, _ in
            try db.execute(
                sql: """
                    INSERT INTO notification_settings (id, url, time_scale) VALUES (1, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET url = excluded.url, time_scale = excluded.time_scale
                    """, arguments: arguments)
        }
    }

    /// `ServerNotificationStorage.enqueue(_:)`: a `TEST` or a resent copy (the other types are queued by the triggers of `TipJarSchema.v14`, in their event's write).
    public nonisolated(nonsending) func enqueue(_ notification: ServerNotification) async throws -> ServerNotification {
        let n = notification
        let arguments: StatementArguments = [
            n.type.rawValue, n.subtype, n.transactionID.map { Int64(bitPattern: $0) }, Self.milliseconds(n.createdAt),
            n.snapshot != nil, n.snapshot?.signedDate.map(Self.milliseconds), n.snapshot?.revocationDate.map(Self.milliseconds),
            n.snapshot?.revocationReason?.rawValue, n.snapshot?.revocationType?.rawValue, n.snapshot?.revocationPercentage,
            n.consumptionRequestReason, n.testToken, n.notificationUUID, n.signedPayload, Self.milliseconds(n.nextAttemptAt),
        ]
        let id = try await write { db, _ in
            try db.execute(
                sql: """
                    INSERT INTO notifications (notification_type, subtype, transaction_id, created_at_ms, has_snapshot, signed_date_ms,
                        revocation_date_ms, revocation_reason, revocation_type, revocation_percentage, consumption_request_reason,
                        test_token, notification_uuid, signed_payload, next_attempt_ms)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: arguments)
            return db.lastInsertedRowID
        }
        var saved = notification
        saved.id = id
        saved.state = .pending
        saved.attemptCount = 0
        saved.attempts = []
        return saved
    }

    /// `ServerNotificationStorage.dueNotifications(at:limit:)`: pending ones due, and sending ones whose lease ended, through `notifications_due`.
    public nonisolated(nonsending) func dueNotifications(at date: Date, limit: Int) async throws -> [ServerNotification] {
        let now = Self.milliseconds(date)
        return try await pool.read { db in
            try db.cachedStatement(
                sql: """
                    SELECT \(Self.notificationColumns) FROM notifications
                    WHERE state IN ('pending', 'sending') AND next_attempt_ms <= ? ORDER BY next_attempt_ms, id LIMIT ?
                    """
            ).fetchAll(arguments: [now, limit], Self.notification)
        }
    }

    /// `ServerNotificationStorage.nextNotificationDue()`: the earliest due time or lease end, `nil` when none waits.
    public nonisolated(nonsending) func nextNotificationDue() async throws -> Date? {
        try await pool.read { db in
            try db.fetchValue(sql: "SELECT MIN(next_attempt_ms) FROM notifications WHERE state IN ('pending', 'sending')", as: Int64.self)
                .map(Self.date)
        }
    }

    /// `ServerNotificationStorage.claim(_:uuid:payload:leaseUntil:)`: a compare-and-set on the state, attempt count and due time read, so of two senders one wins; the UUID and payload are fixed by the first claim.
    public nonisolated(nonsending) func claim(
        _ notification: ServerNotification, uuid: String, payload: String, leaseUntil: Date
    ) async throws -> ServerNotification? {
        let arguments: StatementArguments = [
            Self.milliseconds(leaseUntil), uuid, payload, notification.id, notification.state.rawValue, notification.attemptCount,
            Self.milliseconds(notification.nextAttemptAt),
        ]
        let id = notification.id
        return try await write { db, _ in
            try db.execute(
                sql: """
                    UPDATE notifications SET state = 'sending', next_attempt_ms = ?,
                        notification_uuid = COALESCE(notification_uuid, ?), signed_payload = COALESCE(signed_payload, ?)
                    WHERE id = ? AND state = ? AND state IN ('pending', 'sending') AND attempt_count = ? AND next_attempt_ms = ?
                    """, arguments: arguments)
            guard db.changes == 1 else { return nil }
            return try db.fetchOne(sql: "SELECT \(Self.notificationColumns) FROM notifications WHERE id = ?", arguments: [id], Self.notification)
        }
    }

    /// `ServerNotificationStorage.record(_:of:retryAt:)`: the attempt and the next state in one write, only while the claim still holds.
    public nonisolated(nonsending) func record(_ attempt: SendAttempt, of claimed: ServerNotification, retryAt: Date?) async throws -> Bool {
        let state: ServerNotification.State = attempt.result == .success ? .delivered : retryAt == nil ? .failed : .pending
        let next = retryAt ?? attempt.date
        let update: StatementArguments = [state.rawValue, Self.milliseconds(next), claimed.id, claimed.attemptCount]
        let insert: StatementArguments = [claimed.id, claimed.attemptCount + 1, Self.milliseconds(attempt.date), attempt.result.rawValue]
        return try await write { db, _ in
            try db.execute(
                sql: """
                    UPDATE notifications SET state = ?, attempt_count = attempt_count + 1, next_attempt_ms = ?
                    WHERE id = ? AND state = 'sending' AND attempt_count = ?
                    """, arguments: update)
            guard db.changes == 1 else { return false }
            try db.execute(
                sql: "INSERT INTO notification_attempts (notification_id, attempt, attempted_at_ms, result) VALUES (?, ?, ?, ?)",
                arguments: insert)
            return true
        }
    }

    /// `ServerNotificationStorage.notification(id:)`, with its attempts.
    public nonisolated(nonsending) func notification(id: Int64) async throws -> ServerNotification? {
        try await pool.read { db in
            let found = try db.fetchAll(sql: "SELECT \(Self.notificationColumns) FROM notifications WHERE id = ?", arguments: [id], Self.notification)
            return try Self.withAttempts(found, db).first
        }
    }

    /// `ServerNotificationStorage.notification(testToken:)`, with its attempts.
    public nonisolated(nonsending) func notification(testToken: String) async throws -> ServerNotification? {
        try await pool.read { db in
            let found = try db.fetchAll(
                sql: "SELECT \(Self.notificationColumns) FROM notifications WHERE test_token = ?", arguments: [testToken], Self.notification)
            return try Self.withAttempts(found, db).first
        }
    }

    /// `ServerNotificationStorage.notifications(matching:)`: filters as bound parameters, oldest first.
    public nonisolated(nonsending) func notifications(matching query: NotificationQuery) async throws -> [ServerNotification] {
        var conditions: [String] = []
        var arguments: [DatabaseValue] = []
        if let start = query.start {
            conditions.append("created_at_ms >= ?")
            arguments.append(Self.milliseconds(start).databaseValue)
        }
        if let end = query.end {
            conditions.append("created_at_ms < ?")
            arguments.append(Self.milliseconds(end).databaseValue)
        }
        if let type = query.type {
            conditions.append("notification_type = ?")
            arguments.append(type.rawValue.databaseValue)
        }
        if let transactionID = query.transactionID {
            conditions.append("transaction_id = ?")
            arguments.append(Int64(bitPattern: transactionID).databaseValue)
        }
        if query.attemptedOnly { conditions.append("attempt_count > 0") }
        if query.onlyFailures {
            conditions.append("EXISTS (SELECT 1 FROM notification_attempts WHERE notification_id = notifications.id AND result <> 'SUCCESS')")
        }
        if let afterID = query.afterID {
            conditions.append("id > ?")
            arguments.append(afterID.databaseValue)
        }
        arguments.append(query.limit.databaseValue)
        let sql =
            "SELECT \(Self.notificationColumns) FROM notifications"
            + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")) + " ORDER BY id LIMIT ?"
        let bound = StatementArguments(arguments)
        return try await pool.read { db in
            try Self.withAttempts(try db.fetchAll(sql: sql, arguments: bound, Self.notification), db)
        }
    }
}
