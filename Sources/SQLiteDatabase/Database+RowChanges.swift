import CSQLite
import Foundation

/// Counts the rows changed in some tables on one connection, through `sqlite3_update_hook`
/// (<https://www.sqlite.org/c3ref/update_hook.html>), which SQLite calls for every row a statement inserts, updates
/// or deletes in a rowid table, the rows a trigger changes included. A write learns from it whether a trigger queued
/// something, which the changed-row count of its own statement does not say.
final class RowChangeWatch {
    /// The watched tables' names, NUL-terminated, for `strcmp` against the hook's argument.
    let names: [[CChar]]
    /// Rows changed in the watched tables since the watch began (the writer's queue only).
    var count = 0

    init(tables: [String]) {
        names = tables.map { Array($0.utf8CString) }
    }

    /// The hook's work: one `strcmp` per watched table.
    func rowChanged(in table: UnsafePointer<CChar>) {
        for name in names where strcmp(name, table) == 0 {
            count += 1
            return
        }
    }
}

extension Database {
    /// Starts counting the rows changed in `tables` (rowid tables: SQLite does not call the update hook for a
    /// `WITHOUT ROWID` table), replacing any earlier watch; read the count with ``rowChangesInWatchedTables``. A row a
    /// rolled-back statement or savepoint changed stays counted, so a caller compares the count around work that
    /// committed.
    /// - Parameter tables: the table names, as the schema spells them.
    public func watchRowChanges(inTables tables: [String]) throws {
        let handle = try connection()
        let watch = RowChangeWatch(tables: tables)
        rowChangeWatch = watch
        sqlite3_update_hook(
            handle,
            { context, _, _, table, _ in
                guard let context, let table else { return }
                Unmanaged<RowChangeWatch>.fromOpaque(context).takeUnretainedValue().rowChanged(in: table)
            }, Unmanaged.passUnretained(watch).toOpaque())
    }

    /// Rows changed in the tables of ``watchRowChanges(inTables:)`` since it was called (0 without a watch).
    public var rowChangesInWatchedTables: Int { rowChangeWatch?.count ?? 0 }
}
