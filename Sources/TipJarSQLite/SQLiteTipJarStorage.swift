import SQLiteDatabase
import Foundation
import Synchronization
import TipJar

/// The core's `TipJarStorage` on an SQLite file: every method is one unit of work on the
/// `DatabasePool` (a write on its serialized writer, a read on its readers), and `record(_:)` does the duplicate check atomically in SQL
/// (`INSERT … ON CONFLICT DO NOTHING`, then `sqlite3_changes()`), committing the ledger row, the
/// heart and the finished flag together before it returns.
public final class SQLiteTipJarStorage: TipJarStorage {
    /// The connections: one serialized writer and the readers.
    public let pool: DatabasePool
    /// What each committed write touched (``ChangeLog``): every write of this storage goes through
    /// ``write(savepoint:_:)``, which reports its keys after its `COMMIT`, before its caller is answered.
    public let changeLog = ChangeLog()
    /// Whether a notifications URL is set, so that a purchase committed now has a `ONE_TIME_CHARGE` to queue
    /// (`TipJarSchema.v18`): its write then touches ``ChangeKey/notifications``, which wakes the sender. Set at open and
    /// by every settings save, after its commit.
    let queuesOneTimeCharges = Atomic<Bool>(false)

    /// Opens (creating if needed) the database at `path` and applies pending migrations.
    /// - Parameters:
    ///   - path: The SQLite file, e.g. `./tipjar.sqlite3`.
    ///   - configuration: Durability and busy timeout.
    ///   - upgrading: Called with each migration's identifier before it upgrades a file that had older ones
    ///     (`DatabaseMigrator.migrate(_:upgrading:)`), never for a new file.
    /// - Throws: `DatabaseError` for a corrupt, foreign or read-only file (never modified), and
    ///   `DatabaseMigrator` errors for a database written by a newer version.
    public init(path: String, configuration: DatabaseConfiguration = DatabaseConfiguration(), upgrading: ((String) -> Void)? = nil) throws {
        pool = try DatabasePool(path: path, configuration: configuration)
        try Self.migrator.migrate(pool, upgrading: upgrading)
        if !configuration.readOnly {
            try pool.writer.writeSync { db in
                try db.watchRowChanges(inTables: Self.notificationTables, insertsInto: ["transactions"])
                queuesOneTimeCharges.store(try Self.notificationSettings(db).url != nil, ordering: .relaxed)
            }
        }
    }

    /// The tables of the notifications queue: a write that changed a row of one (a trigger of `TipJarSchema.v14`
    /// included) touched ``ChangeKey/notifications``, and so did one that inserted a transaction while a URL is set
    /// (a `ONE_TIME_CHARGE` for the sender to queue, `TipJarSchema.v18`).
    static let notificationTables = ["notifications", "notification_settings"]

    /// What one write touched, filled in by its body (``write(savepoint:_:)``).
    struct WriteChanges {
        /// The keys it touched.
        var keys: [ChangeKey] = []
        /// Whether its reach is not named (every key counts it).
        var everything = false

        /// Adds an install and the account it is signed in with: every change to an install's row or ledger names both.
        mutating func install(_ installID: String, accountID: String) {
            keys.append(.install(installID))
            keys.append(.account(accountID))
        }

        /// Adds what a change to a stored transaction touches: its account and the install that bought it.
        mutating func transaction(_ stored: StoredTransaction) {
            install(stored.installID, accountID: stored.accountID)
        }
    }

    /// The one door for this storage's writes: `body` on the writer (``DatabaseWriter/write(savepoint:_:)``), filling
    /// in what it touched; once it committed, the keys go to ``changeLog`` (with ``ChangeKey/notifications`` when a
    /// row of the queue changed, a trigger's included), before the caller is answered. A write that threw reports
    /// nothing: its work was undone.
    nonisolated(nonsending) func write<T: Sendable>(
        savepoint: Bool = true, _ body: @escaping @Sendable (Database, inout WriteChanges) throws -> T
    ) async throws -> T {
        let (value, changes) = try await pool.write(savepoint: savepoint) { db in
            let (queueRows, insertedTransactions) = (db.rowChangesInWatchedTables, db.rowInsertsInWatchedTables)
            var changes = WriteChanges()
            let value = try body(db, &changes)
            if db.rowChangesInWatchedTables != queueRows
                || (db.rowInsertsInWatchedTables != insertedTransactions && self.queuesOneTimeCharges.load(ordering: .relaxed))
            {
                changes.keys.append(.notifications)
            }
            return (value, changes)
        }
        if changes.everything {
            changeLog.changedEverything()
        } else if !changes.keys.isEmpty {
            changeLog.changed(changes.keys)
        }
        return value
    }

    /// The install and account keys of `installID` (none when no install has that ID), read inside the write.
    static func installKeys(_ installID: String, in db: Database, into changes: inout WriteChanges) throws {
        guard
            let accountID: String = try db.cachedStatement(sql: "SELECT account_id FROM installs WHERE id = ?")
                .fetchOne(arguments: [installID], { try $0.value(at: 0) })
        else { return }
        changes.install(installID, accountID: accountID)
    }

    /// The keys of the stored transaction `id` (its account and the install that bought it; none when it is gone),
    /// read inside the write.
    static func transactionKeys(_ id: UInt64, in db: Database, into changes: inout WriteChanges) throws {
        guard
            let (accountID, installID) = try db.cachedStatement(sql: "SELECT account_id, install_id FROM transactions WHERE id = ?")
                .fetchOne(arguments: [Int64(bitPattern: id)], { (try $0.value(at: 0, as: String.self), try $0.value(at: 1, as: String.self)) })
        else { return }
        changes.install(installID, accountID: accountID)
    }

    /// The migrator with every schema step of `TipJarSchema`.
    public static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for (identifier, migrate) in TipJarSchema.migrations {
            migrator.registerMigration(identifier, migrate)
        }
        return migrator
    }

    // MARK: Installs

    /// The install columns ``install(_:)`` reads by name, from `installs` and its account's row
    /// (`v7-account-storefronts`); follow it with ``installsWithAccounts`` as the `FROM` clause. Their order is free.
    static let installColumns = """
        installs.id, installs.label, installs.locale, accounts.storefront, installs.account_id, installs.hearts,
        installs.legacy_has_tipped, installs.is_running, installs.created_at_ms
        """
    /// `installs` with each install's account: one lookup of the `accounts` primary key per install. `CROSS JOIN`
    /// keeps `installs` the outer loop (https://www.sqlite.org/optoverview.html#crossjoin), so every install query
    /// keeps the plan it had on `installs` alone (by ID, by account, by creation time, by hearts).
    static let installsWithAccounts = "installs CROSS JOIN accounts ON accounts.account_id = installs.account_id"

    /// An install from a row of ``installColumns``, read by column name.
    static func install(_ row: Row) throws -> Install {
        Install(
            id: try row.value(named: "id"), label: try row.value(named: "label"),
            locale: AppLocale(rawValue: try row.value(named: "locale")) ?? .en, storefront: try row.value(named: "storefront"),
            accountID: try row.value(named: "account_id"), hearts: try row.value(named: "hearts"),
            legacyHasTipped: try row.value(named: "legacy_has_tipped"), isRunning: try row.value(named: "is_running"),
            createdAt: date(try row.value(named: "created_at_ms")))
    }

    /// `TipJarStorage.insert(_:)` for an install: the account's row is created with `install.storefront` unless it
    /// exists (`ON CONFLICT DO NOTHING`), then the install is saved, in one transaction; the install comes back
    /// with the account's storefront. - Throws: `DatabaseError` (constraint on a duplicate ID; nothing kept).
    @discardableResult
    public nonisolated(nonsending) func insert(_ install: Install) async throws -> Install {
        try await write { db, changes in
            changes.install(install.id, accountID: install.accountID)
            try db.execute(
                sql: "INSERT INTO accounts (account_id, storefront) VALUES (?, ?) ON CONFLICT (account_id) DO NOTHING",
                arguments: [install.accountID, install.storefront])
            try db.execute(
                sql: """
                    INSERT INTO installs (id, label, locale, account_id, hearts, legacy_has_tipped, is_running, created_at_ms)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    install.id, install.label, install.locale.rawValue, install.accountID,
                    install.hearts, install.legacyHasTipped, install.isRunning, Self.milliseconds(install.createdAt),
                ])
            var saved = install
            saved.storefront =
                try db.cachedStatement(sql: "SELECT storefront FROM accounts WHERE account_id = ?")
                .fetchOne(arguments: [install.accountID]) { try $0.value(at: 0) } ?? install.storefront
            return saved
        }
    }

    /// `TipJarStorage.install(withID:)`: by primary key, a point read on the caller's thread.
    public nonisolated(nonsending) func install(withID id: String) async throws -> Install? {
        try pool.pointFetchOne(sql: Self.installByIDSQL, arguments: [id], Self.install)
    }

    /// One install with its account's storefront, by primary key.
    static let installByIDSQL = "SELECT \(installColumns) FROM \(installsWithAccounts) WHERE installs.id = ?"

    /// `TipJarStorage.installs(matching:)`: newest first; a hex/dash search is an ID-prefix range on the
    /// primary key, any other text a case-insensitive label match; `LIMIT pageSize + 1` tells whether more follow.
    public nonisolated(nonsending) func installs(matching query: InstallQuery) async throws -> InstallPage {
        var conditions: [String] = []
        var arguments: [any DatabaseValueConvertible] = []
        let search = query.search.trimmingCharacters(in: .whitespaces)
        if !search.isEmpty {
            if search.allSatisfy({ $0.isHexDigit || $0 == "-" }) {
                // ID prefix: a range on the primary key, so the index answers it.
                conditions.append("(installs.id >= ? AND installs.id < ? || char(1114111))")
                arguments += [search.lowercased(), search.lowercased()]
            } else {
                conditions.append("instr(lower(installs.label), lower(?)) > 0")
                arguments.append(search)
            }
        }
        if let hearts = query.hearts {
            conditions.append("installs.hearts = ?")
            arguments.append(hearts)
        }
        if let accountID = query.accountID {
            conditions.append("installs.account_id = ?")
            arguments.append(accountID)
        }
        let whereClause = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let sql = """
            SELECT \(Self.installColumns) FROM \(Self.installsWithAccounts) \(whereClause)
            ORDER BY installs.created_at_ms DESC, installs.id DESC LIMIT ? OFFSET ?
            """
        arguments += [query.pageSize + 1, (query.page - 1) * query.pageSize]
        let values = arguments.map(\.databaseValue)
        let rows = try await pool.read { db in
            try db.cachedStatement(sql: sql).fetchAll(arguments: StatementArguments(values), Self.install)
        }
        return InstallPage(installs: Array(rows.prefix(query.pageSize)), hasMore: rows.count > query.pageSize)
    }

    /// `TipJarStorage.runningInstallIDs(accountID:except:)`: through `installs_by_account`, a point read on the caller's thread.
    public nonisolated(nonsending) func runningInstallIDs(accountID: String, except installID: String) async throws -> [String] {
        try pool.pointFetchAll(sql: Self.otherRunningInstallsSQL, arguments: [accountID, installID]) { try $0.value(at: 0, as: String.self) }
    }

    /// The account's running installs but one, read inside every purchase's write (`issue(_:thenRecord:)`) and by a
    /// delivery through the listener: through `installs_by_account`.
    static let otherRunningInstallsSQL = "SELECT id FROM installs WHERE account_id = ? AND is_running = 1 AND id <> ? ORDER BY id"

    /// `TipJarStorage.setRunning(_:installID:)`.
    public nonisolated(nonsending) func setRunning(_ isRunning: Bool, installID: String) async throws {
        try await write { db, changes in
            try Self.installKeys(installID, in: db, into: &changes)
            try db.execute(sql: "UPDATE installs SET is_running = ? WHERE id = ?", arguments: [isRunning, installID])
        }
    }

    /// `TipJarStorage.setLabel(_:installID:)`: the label is a bound parameter, never SQL.
    public nonisolated(nonsending) func setLabel(_ label: String, installID: String) async throws {
        try await write { db, changes in
            try Self.installKeys(installID, in: db, into: &changes)
            try db.execute(sql: "UPDATE installs SET label = ? WHERE id = ?", arguments: [label, installID])
        }
    }

    /// `TipJarStorage.setStorefront(_:accountID:)`: the account's row is read and changed in one write transaction
    /// (writes are serialized, so no other change comes between), with bound parameters.
    public nonisolated(nonsending) func setStorefront(_ countryCode: String, accountID: String) async throws -> String? {
        try await write { db, changes in
            let before: String? = try db.cachedStatement(sql: "SELECT storefront FROM accounts WHERE account_id = ?")
                .fetchOne(arguments: [accountID]) { try $0.value(at: 0) }
            guard let before, before != countryCode else { return nil }
            changes.keys.append(.account(accountID))
            try db.execute(sql: "UPDATE accounts SET storefront = ? WHERE account_id = ?", arguments: [countryCode, accountID])
            return before
        }
    }

    /// `TipJarStorage.migrateLegacyFlag(installID:)`: one conditional `UPDATE`; `sqlite3_changes()` says
    /// whether it ran, so it can never run twice.
    public nonisolated(nonsending) func migrateLegacyFlag(installID: String) async throws -> Bool {
        try await write { db, changes in
            try db.execute(
                sql: """
                    UPDATE installs SET hearts = CASE WHEN hearts = 0 THEN 1 ELSE hearts END, legacy_has_tipped = 0
                    WHERE id = ? AND legacy_has_tipped = 1
                    """, arguments: [installID])
            guard db.changes == 1 else { return false }
            try Self.installKeys(installID, in: db, into: &changes)
            return true
        }
    }

    // MARK: Store

    /// `TipJarStorage.storeSettings()`: the JSON row of `store_settings`, decoded. - Throws: `DecodingError` on a damaged row.
    public nonisolated(nonsending) func storeSettings() async throws -> StoreSettings? {
        let json: String? = try await pool.read { db in
            try db.cachedStatement(sql: "SELECT json FROM store_settings WHERE id = 1").fetchOne { try $0.value(at: 0) }
        }
        guard let json else { return nil }
        return try JSONDecoder().decode(StoreSettings.self, from: Data(json.utf8))
    }

    /// `TipJarStorage.save(_:)`: an upsert of the single `store_settings` row.
    public nonisolated(nonsending) func save(_ settings: StoreSettings) async throws {
        let json = String(decoding: try JSONEncoder().encode(settings), as: UTF8.self)
        try await write { db, changes in
            changes.keys.append(.store)
            try db.execute(
                sql: "INSERT INTO store_settings (id, json) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET json = excluded.json",
                arguments: [json])
        }
    }
}
