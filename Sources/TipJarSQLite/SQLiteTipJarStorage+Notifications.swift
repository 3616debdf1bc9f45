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
            sql: """
                SELECT attempted_at_ms, result, url, detail, ended_at_ms FROM notification_attempts
                WHERE notification_id = ? ORDER BY attempt
                """)
        return try notifications.map { notification in
            var read = notification
            read.attempts = try statement.fetchAll(arguments: [notification.id]) { row in
                var attempt = SendAttempt(
                    date: date(try row.value(named: "attempted_at_ms")),
                    result: SendAttemptResult(rawValue: try row.value(named: "result")) ?? .other,
                    url: try row.value(named: "url", as: String?.self), detail: try row.value(named: "detail", as: String?.self))
                attempt.endedAt = (try row.value(named: "ended_at_ms", as: Int64?.self)).map(date)
                return attempt
            }
            return read
        }
    }

    /// Queues the `ONE_TIME_CHARGE`s of the purchases committed since the last time (`TipJarSchema.v18`), in the
    /// caller's write.
    static func queueOneTimeCharges(_ db: Database) throws {
        for sql in TipJarSchema.queueOneTimeCharges { try db.cachedStatement(sql: sql).execute() }
    }

    /// Whether a purchase's `ONE_TIME_CHARGE` waits to be queued (a URL is set and a transaction is past the mark).
    static let chargesWaitSQL = """
        SELECT EXISTS (SELECT 1 FROM transactions WHERE id > s.charges_queued_through) FROM notification_settings s
        WHERE s.id = 1 AND s.url IS NOT NULL
        """

    /// Before a read of the queue: queues the charges of the purchases committed since the last time, so the read
    /// sees every notification committed before it; no write when none waits (one read by key).
    func queueWaitingCharges() async throws {
        let waiting = try pool.pointFetchOne(sql: Self.chargesWaitSQL, arguments: []) { row in try row.value(at: 0, as: Bool.self) } ?? false
        guard waiting else { return }
        try await write { db, _ in try Self.queueOneTimeCharges(db) }
    }

    /// `ServerNotificationStorage.notificationSettings()`: the one row of settings (defaults when absent).
    public nonisolated(nonsending) func notificationSettings() async throws -> NotificationSettings {
        try await pool.read { db in try Self.notificationSettings(db) }
    }

    /// The settings row read on `db`.
    static func notificationSettings(_ db: Database) throws -> NotificationSettings {
        try db.cachedStatement(sql: "SELECT url, time_scale FROM notification_settings WHERE id = 1").fetchOne { row in
            NotificationSettings(url: try row.value(named: "url", as: String?.self), timeScale: try row.value(named: "time_scale"))
        } ?? NotificationSettings()
    }

    /// `ServerNotificationStorage.sendingPlan(at:tests:others:)`: the settings, both due lists and the next due time in
    /// one read (one snapshot, one trip to the reader).
    public nonisolated(nonsending) func sendingPlan(at date: Date, tests: Int, others: Int) async throws -> NotificationSendingPlan {
        try await queueWaitingCharges()
        let now = Self.milliseconds(date)
        return try await pool.read { db in
            let settings = try Self.notificationSettings(db)
            let dueTests = tests > 0 ? try db.cachedStatement(sql: Self.dueTestsSQL).fetchAll(arguments: [now, tests], Self.notification) : []
            let due = others > 0 ? try db.cachedStatement(sql: Self.dueSQL).fetchAll(arguments: [now, others], Self.notification) : []
            let next = try db.cachedStatement(
                sql: "SELECT MIN(next_attempt_ms) FROM notifications WHERE state IN ('pending', 'sending') AND next_attempt_ms > ?"
            ).fetchOne(arguments: [now]) { row in try row.value(at: 0, as: Int64?.self) } ?? nil
            return NotificationSendingPlan(settings: settings, dueTests: dueTests, due: due, nextDue: next.map(Self.date))
        }
    }

    /// Due notifications of every type, through `notifications_due`.
    static let dueSQL = """
        SELECT \(notificationColumns) FROM notifications
        WHERE state IN ('pending', 'sending') AND next_attempt_ms <= ? ORDER BY next_attempt_ms, id LIMIT ?
        """

    /// Due `TEST` notifications, through `notifications_due_tests`.
    static let dueTestsSQL = """
        SELECT \(notificationColumns) FROM notifications INDEXED BY notifications_due_tests
        WHERE state IN ('pending', 'sending') AND notification_type = 'TEST' AND next_attempt_ms <= ? ORDER BY next_attempt_ms, id LIMIT ?
        """

    /// `ServerNotificationStorage.save(_:)`: replaces the settings. The charges of the purchases made under the old
    /// URL are queued first, and the purchases made without one are passed over (`TipJarSchema.v18`).
    public nonisolated(nonsending) func save(_ settings: NotificationSettings) async throws {
        let arguments: StatementArguments = [settings.url, settings.timeScale]
        let setsURL = settings.url != nil
        do {
            try await write { db, _ in
                try Self.queueOneTimeCharges(db)
                try db.execute(
                    sql: """
                        INSERT INTO notification_settings (id, url, time_scale) VALUES (1, ?, ?)
                        ON CONFLICT (id) DO UPDATE SET url = excluded.url, time_scale = excluded.time_scale,
                            charges_queued_through = MAX(charges_queued_through, COALESCE((SELECT MAX(id) FROM transactions), 0))
                        """, arguments: arguments)
                // Here, on the writer, so the writes after this one in commit order see it.
                self.queuesOneTimeCharges.store(setsURL, ordering: .relaxed)
            }
        } catch {
            // Not known to be saved: a purchase may still have a charge to queue, so it wakes the sender (at worst
            // for nothing).
            queuesOneTimeCharges.store(true, ordering: .relaxed)
            throw error
        }
    }

    /// `ServerNotificationStorage.enqueue(_:)`: a `TEST` or a resent copy (the other types are queued by the triggers of `TipJarSchema.v14` in their event's write, a purchase's charge after it, `TipJarSchema.v18`).
    public nonisolated(nonsending) func enqueue(_ notification: ServerNotification) async throws -> ServerNotification {
        let n = notification
        let arguments: StatementArguments = [
            n.type.rawValue, n.subtype, n.transactionID.map { Int64(bitPattern: $0) }, Self.milliseconds(n.createdAt),
            n.snapshot != nil, n.snapshot?.signedDate.map(Self.milliseconds), n.snapshot?.revocationDate.map(Self.milliseconds),
            n.snapshot?.revocationReason?.rawValue, n.snapshot?.revocationType?.rawValue, n.snapshot?.revocationPercentage,
            n.consumptionRequestReason, n.testToken, n.notificationUUID, n.signedPayload, Self.milliseconds(n.nextAttemptAt),
        ]
        let id = try await write { db, _ in
            try Self.queueOneTimeCharges(db)  // the charges committed before it come before it
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

    /// `ServerNotificationStorage.dueNotifications(at:limit:onlyTests:)`: pending ones due, and sending ones whose lease
    /// ended, through `notifications_due` (`notifications_due_tests` for the test lane).
    public nonisolated(nonsending) func dueNotifications(at date: Date, limit: Int, onlyTests: Bool) async throws -> [ServerNotification] {
        try await queueWaitingCharges()
        let now = Self.milliseconds(date)
        let sql = onlyTests ? Self.dueTestsSQL : Self.dueSQL
        return try await pool.read { db in
            try db.cachedStatement(sql: sql).fetchAll(arguments: [now, limit], Self.notification)
        }
    }

    /// `ServerNotificationStorage.notificationsUnderWay()`: every `sending` notification, with its attempts.
    public nonisolated(nonsending) func notificationsUnderWay() async throws -> [ServerNotification] {
        try await queueWaitingCharges()
        return try await pool.read { db in
            let found = try db.fetchAll(
                sql: "SELECT \(Self.notificationColumns) FROM notifications WHERE state = 'sending' ORDER BY id", Self.notification)
            return try Self.withAttempts(found, db)
        }
    }

    /// `ServerNotificationStorage.claim(_:leaseUntil:)`: for each, a compare-and-set on the state, attempt count and due
    /// date it was read with, and its attempt under way, in one write.
    public nonisolated(nonsending) func claim(_ claims: [NotificationClaim], leaseUntil: Date) async throws -> [ServerNotification] {
        try await settle([], releasing: [], claiming: claims, leaseUntil: leaseUntil)
    }

    /// `ServerNotificationStorage.record(_:of:retryAt:)`: the attempt's end and the next state in one write, only while the claim still holds.
    public nonisolated(nonsending) func record(_ attempt: SendAttempt, of claimed: ServerNotification, retryAt: Date?) async throws -> Bool {
        let arguments = Self.recordArguments(NotificationRecord(attempt, of: claimed, retryAt: retryAt))
        return try await write { db, _ in try Self.record(arguments, db) }
    }

    /// `ServerNotificationStorage.settle(_:releasing:claiming:leaseUntil:)`: records, releases and claims, each a
    /// compare-and-set on the claim it names, in one write.
    public nonisolated(nonsending) func settle(
        _ records: [NotificationRecord], releasing: [NotificationRelease], claiming claims: [NotificationClaim], leaseUntil: Date
    ) async throws -> [ServerNotification] {
        guard !records.isEmpty || !releasing.isEmpty || !claims.isEmpty else { return [] }
        let recorded = records.map(Self.recordArguments)
        let released: [(update: StatementArguments, delete: StatementArguments)] = releasing.map { release in
            let n = release.claimed
            return ([Self.milliseconds(release.dueAt), n.id, n.attemptCount], [n.id, n.attemptCount])
        }
        let lease = Self.milliseconds(leaseUntil)
        let claimed: [(update: StatementArguments, insert: StatementArguments, won: ServerNotification)] = claims.map { claim in
            let n = claim.notification
            let update: StatementArguments = [
                lease, claim.uuid, claim.payload, n.id, n.state.rawValue, n.attemptCount, Self.milliseconds(n.nextAttemptAt),
            ]
            let insert: StatementArguments = [
                n.id, n.attemptCount + 1, Self.milliseconds(claim.attempt.date), claim.attempt.result.rawValue, claim.attempt.url,
                claim.attempt.detail, claim.attempt.endedAt.map(Self.milliseconds),
            ]
            // The row as the compare-and-set leaves it (the columns it read are the ones it matched), so the write
            // does not read it back.
            var won = n
            won.state = .sending
            won.nextAttemptAt = Self.date(lease)
            won.attemptCount += 1
            won.notificationUUID = n.notificationUUID ?? claim.uuid
            won.signedPayload = n.signedPayload ?? claim.payload
            return (update, insert, won)
        }
        return try await write { db, _ in
            for arguments in recorded { _ = try Self.record(arguments, db) }
            if !released.isEmpty {
                let update = try db.cachedStatement(
                    sql: """
                        UPDATE notifications SET state = 'pending', next_attempt_ms = ?, attempt_count = attempt_count - 1
                        WHERE id = ? AND state = 'sending' AND attempt_count = ?
                        """)
                let delete = try db.cachedStatement(sql: "DELETE FROM notification_attempts WHERE notification_id = ? AND attempt = ?")
                for row in released {
                    try update.execute(arguments: row.update)
                    if db.changes == 1 { try delete.execute(arguments: row.delete) }
                }
            }
            guard !claimed.isEmpty else { return [] }
            let update = try db.cachedStatement(
                sql: """
                    UPDATE notifications SET state = 'sending', next_attempt_ms = ?, attempt_count = attempt_count + 1,
                        notification_uuid = COALESCE(notification_uuid, ?), signed_payload = COALESCE(signed_payload, ?)
                    WHERE id = ? AND state = ? AND state IN ('pending', 'sending') AND attempt_count = ? AND next_attempt_ms = ?
                    """)
            let insert = try db.cachedStatement(
                sql: """
                    INSERT INTO notification_attempts (notification_id, attempt, attempted_at_ms, result, url, detail, ended_at_ms)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """)
            var won: [ServerNotification] = []
            for row in claimed {
                try update.execute(arguments: row.update)
                guard db.changes == 1 else { continue }
                try insert.execute(arguments: row.insert)
                won.append(row.won)
            }
            return won
        }
    }

    /// The arguments of ``record(_:_:)`` for `record`.
    static func recordArguments(_ record: NotificationRecord) -> (update: StatementArguments, complete: StatementArguments) {
        let attempt = record.attempt
        let state: ServerNotification.State = attempt.result == .success ? .delivered : record.retryAt == nil ? .failed : .pending
        let ended = attempt.endedAt ?? attempt.date
        let next = record.retryAt ?? ended
        return (
            [state.rawValue, Self.milliseconds(next), record.claimed.id, record.claimed.attemptCount],
            [attempt.result.rawValue, attempt.url, attempt.detail, Self.milliseconds(ended), record.claimed.id, record.claimed.attemptCount]
        )
    }

    /// Completes an attempt on `db` while its claim holds. - Returns: `false` when the claim was lost (nothing recorded).
    static func record(_ arguments: (update: StatementArguments, complete: StatementArguments), _ db: Database) throws -> Bool {
        try db.cachedStatement(
            sql: "UPDATE notifications SET state = ?, next_attempt_ms = ? WHERE id = ? AND state = 'sending' AND attempt_count = ?"
        ).execute(arguments: arguments.update)
        guard db.changes == 1 else { return false }
        try db.cachedStatement(
            sql: """
                UPDATE notification_attempts SET result = ?, url = COALESCE(?, url), detail = ?, ended_at_ms = ?
                WHERE notification_id = ? AND attempt = ?
                """
        ).execute(arguments: arguments.complete)
        return true
    }

    /// `ServerNotificationStorage.notification(id:)`, with its attempts.
    public nonisolated(nonsending) func notification(id: Int64) async throws -> ServerNotification? {
        try await queueWaitingCharges()
        return try await pool.read { db in
            let found = try db.fetchAll(sql: "SELECT \(Self.notificationColumns) FROM notifications WHERE id = ?", arguments: [id], Self.notification)
            return try Self.withAttempts(found, db).first
        }
    }

    /// `ServerNotificationStorage.notification(testToken:)`, with its attempts.
    public nonisolated(nonsending) func notification(testToken: String) async throws -> ServerNotification? {
        try await queueWaitingCharges()
        return try await pool.read { db in
            let found = try db.fetchAll(
                sql: "SELECT \(Self.notificationColumns) FROM notifications WHERE test_token = ?", arguments: [testToken], Self.notification)
            return try Self.withAttempts(found, db).first
        }
    }

    /// `ServerNotificationStorage.notifications(matching:)`: filters as bound parameters, oldest or newest first.
    public nonisolated(nonsending) func notifications(matching query: NotificationQuery) async throws -> [ServerNotification] {
        try await queueWaitingCharges()
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
        if let accountID = query.accountID {
            conditions.append("transaction_id IN (SELECT id FROM transactions WHERE account_id = ?)")
            arguments.append(accountID.databaseValue)
        }
        if let scope = query.scope {
            conditions.append(
                "NOT EXISTS (SELECT 1 FROM transactions WHERE id = notifications.transaction_id"
                    + " AND (environment <> ? OR COALESCE(app_bundle_id, ?) <> ?))")
            arguments += [scope.environment.rawValue.databaseValue, scope.appBundleID.databaseValue, scope.appBundleID.databaseValue]
        }
        if query.attemptedOnly { conditions.append("attempt_count > 0") }
        if query.onlyFailures { conditions.append("state <> 'delivered'") }
        if let afterID = query.afterID {
            conditions.append("id > ?")
            arguments.append(afterID.databaseValue)
        }
        if let beforeID = query.beforeID {
            conditions.append("id < ?")
            arguments.append(beforeID.databaseValue)
        }
        arguments.append(query.limit.databaseValue)
        let sql =
            "SELECT \(Self.notificationColumns) FROM notifications"
            + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
            + (query.newestFirst ? " ORDER BY id DESC LIMIT ?" : " ORDER BY id LIMIT ?")
        let bound = StatementArguments(arguments)
        return try await pool.read { db in
            try Self.withAttempts(try db.fetchAll(sql: sql, arguments: bound, Self.notification), db)
        }
    }
}
