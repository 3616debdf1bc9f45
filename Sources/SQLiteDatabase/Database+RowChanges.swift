import CSQLite
import Foundation

/// Counts the rows changed in some tables on one connection, through `sqlite3_update_hook`
/// (<https://www.sqlite.org/c3ref/update_hook.html>), which SQLite calls for every row a statement inserts, updates
/// or deletes in a rowid table, the rows a trigger changes included. A write learns from it whether a trigger queued
/// something, which the changed-row count of its own statement does not say.
final class RowChangeWatch {
    /// The watched tables' names, NUL-terminated, for `strcmp` against the hook's argument.
    let names: [[CChar]]
    /// The tables whose inserted rows are counted apart, NUL-terminated.
    let insertNames: [[CChar]]
    /// Rows changed in the watched tables since the watch began (the writer's queue only).
    var count = 0
    /// Rows inserted into the tables of ``insertNames`` since the watch began (the writer's queue only).
    var insertCount = 0

    init(tables: [String], insertsInto insertTables: [String]) {
        names = tables.map { Array($0.utf8CString) }
        insertNames = insertTables.map { Array($0.utf8CString) }
    }

    /// The hook's work: one `strcmp` per watched table.
    func rowChanged(_ operation: Int32, in table: UnsafePointer<CChar>) {
        for name in names where strcmp(name, table) == 0 {
            count += 1
            return
        }
        guard operation == SQLITE_INSERT else { return }
        for name in insertNames where strcmp(name, table) == 0 {
            insertCount += 1
            return
        }
    }
}

extension Database {
    /// Starts counting the rows changed in `tables`, and apart from them the rows inserted into `insertTables` (rowid
    /// tables: SQLite does not call the update hook for a `WITHOUT ROWID` table), replacing any earlier watch; read the
    /// counts with ``rowChangesInWatchedTables`` and ``rowInsertsInWatchedTables``. A row a rolled-back statement or
    /// savepoint changed stays counted, so a caller compares the count around work that committed.
    /// - Parameters:
    ///   - tables: the table names, as the schema spells them.
    ///   - insertTables: tables (not among `tables`) whose inserts are counted apart.
    public func watchRowChanges(inTables tables: [String], insertsInto insertTables: [String] = []) throws {
        let handle = try connection()
        let watch = RowChangeWatch(tables: tables, insertsInto: insertTables)
        rowChangeWatch = watch
        sqlite3_update_hook(
            handle,
            { context, operation, _, table, _ in
                guard let context, let table else { return }
                Unmanaged<RowChangeWatch>.fromOpaque(context).takeUnretainedValue().rowChanged(operation, in: table)
            }, Unmanaged.passUnretained(watch).toOpaque())
    }

    /// Rows changed in the tables of ``watchRowChanges(inTables:)`` since it was called (0 without a watch).
    public var rowChangesInWatchedTables: Int { rowChangeWatch?.count ?? 0 }

    /// Rows inserted into the `insertTables` of ``watchRowChanges(inTables:insertsInto:)`` since it was called.
    public var rowInsertsInWatchedTables: Int { rowChangeWatch?.insertCount ?? 0 }
}
