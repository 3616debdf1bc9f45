import CSQLite
import Foundation

/// Applies schema migrations in registration order, once each (GRDB's `DatabaseMigrator` shape).
///
/// Applied identifiers are recorded in
/// `tipjar_migrations(identifier TEXT PRIMARY KEY, applied_at TEXT)`; each migration runs
/// in its own `BEGIN IMMEDIATE` transaction together with its record, so a crash leaves
/// either both or neither. A database that recorded identifiers this binary does not know
/// (written by a newer version of the product) is refused and left untouched.
///
///     var migrator = DatabaseMigrator()
///     migrator.registerMigration("v1-create-installs") { db in
///         try db.execute(sql: "CREATE TABLE installs(id INTEGER PRIMARY KEY)")
///     }
///     try migrator.migrate(pool)
public struct DatabaseMigrator: Sendable {
    /// The table recording applied migrations.
    public static let tableName = "tipjar_migrations"

    private var migrations: [(identifier: String, body: @Sendable (Database) throws -> Void)] = []

    /// Creates an empty migrator.
    public init() {}

    /// The registered identifiers, in order.
    public var identifiers: [String] { migrations.map(\.identifier) }

    /// Registers a migration. Identifiers must be unique and are never renamed once shipped.
    /// - Parameters:
    ///   - identifier: A stable name such as `"v1-create-installs"`.
    ///   - body: The schema changes; runs inside the migration's transaction.
    /// - Precondition: `identifier` was not registered before.
    public mutating func registerMigration(_ identifier: String, _ body: @escaping @Sendable (Database) throws -> Void) {
        precondition(!migrations.contains { $0.identifier == identifier }, "migration \(identifier) registered twice")
        migrations.append((identifier, body))
    }

    /// The identifiers recorded as applied, in application order (empty if the table is absent).
    /// Read-only: never creates the table.
    /// - Parameter db: A connection (inside `read` or `write`).
    /// - Throws: ``DatabaseError`` from the queries.
    public func appliedIdentifiers(_ db: Database) throws -> [String] {
        let tableExists =
            try db.fetchValue(
                sql: "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                arguments: [Self.tableName], as: Int64.self) != nil
        guard tableExists else { return [] }
        return try db.fetchAll(sql: "SELECT identifier FROM \(Self.tableName) ORDER BY rowid") {
            try $0.value(at: 0, as: String.self)
        }
    }

    /// Applies every registered migration not yet applied, each in its own write transaction.
    ///
    /// First checks (read-only) that the database knows no identifier this binary lacks;
    /// the check is repeated inside each migration's transaction in case another process
    /// migrated meanwhile.
    /// - Parameter pool: The database.
    /// - Throws: ``DatabaseError`` `SQLITE_ERROR` naming the unknown identifiers and the file
    ///   when the database comes from a newer version (nothing is modified); or what a
    ///   migration throws (that migration is rolled back, earlier ones stay applied); a ``DatabaseError`` from a
    ///   migration's SQL comes back with its code, its message prefixed by the migration's identifier, and the file.
    /// - Parameter upgrading: Called with a migration's identifier before it runs on a database that had migrations
    ///   applied already (an upgrade, which may copy tables; never for a new file's), so a server can say why its
    ///   start-up waits.
    public func migrate(_ pool: DatabasePool, upgrading: ((String) -> Void)? = nil) throws {
        let applied = try pool.readSync { try appliedIdentifiers($0) }
        try refuseUnknown(applied, path: pool.path)
        for migration in migrations where !applied.contains(migration.identifier) {
            try pool.writeSync { db in
                let appliedNow = try appliedIdentifiers(db)
                try refuseUnknown(appliedNow, path: pool.path)
                guard !appliedNow.contains(migration.identifier) else { return }
                if !applied.isEmpty { upgrading?(migration.identifier) }
                try db.execute(sql: "CREATE TABLE IF NOT EXISTS \(Self.tableName) (identifier TEXT PRIMARY KEY, applied_at TEXT)")
                do {
                    try migration.body(db)
                } catch let error as DatabaseError {
                    // The transaction rolls back: say which step could not run, and that nothing of it was kept.
                    throw DatabaseError(
                        extendedResultCode: error.extendedResultCode,
                        message: "migration \(migration.identifier) could not run and was rolled back, "
                            + "leaving the database as it was: \(error.message)",
                        sql: error.sql, path: error.path ?? pool.path)
                }
                try db.execute(
                    sql: "INSERT INTO \(Self.tableName) (identifier, applied_at) VALUES (?, ?)",
                    arguments: [migration.identifier, Self.timestamp()])
            }
        }
    }

    /// `true` when every registered migration is applied and no unknown one is recorded.
    /// - Throws: ``DatabaseError`` from the queries.
    public func isUpToDate(_ pool: DatabasePool) throws -> Bool {
        let applied = try pool.readSync { try appliedIdentifiers($0) }
        return Set(applied) == Set(identifiers)
    }

    private func refuseUnknown(_ applied: [String], path: String) throws {
        let known = Set(identifiers)
        let unknown = applied.filter { !known.contains($0) }
        guard unknown.isEmpty else {
            throw DatabaseError(
                extendedResultCode: SQLITE_ERROR,
                message: "\(path) was migrated by a newer version of Tip Jar (unknown migrations: \(unknown.joined(separator: ", "))); refusing to use it — upgrade the server",
                path: path)
        }
    }

    private static func timestamp() -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date())
    }
}
