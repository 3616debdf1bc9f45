import SQLiteDatabase
import TipJar

extension DatabaseError: StorageFailure {
    /// The core's name for this SQLite error (<https://www.sqlite.org/rescode.html>):
    /// `SQLITE_READONLY_DBMOVED` → `.fileMoved` (naming ``path``), `SQLITE_CORRUPT` → `.damaged`,
    /// `SQLITE_BUSY` or `SQLITE_LOCKED` → `.locked`, `SQLITE_FULL` → `.diskFull`, any other
    /// `SQLITE_READONLY` → `.readOnly`; every other code (a constraint, a misuse) → `nil`.
    public var unavailable: StorageUnavailable? {
        if isFileMoved { return .fileMoved(path: path) }
        if isCorrupt { return .damaged }
        if isBusy || isLocked { return .locked }
        if isFull { return .diskFull }
        if isReadOnly { return .readOnly }
        return nil
    }

    /// For a damaged file this layer checked itself (`SQLITE_CORRUPT` naming the file, such as the background
    /// `PRAGMA integrity_check`'s, ``SQLiteTipJarStorage/checkIntegrityInBackground(cpuShare:completion:)``): its
    /// message, which says what the check found and how to list every problem. `nil` for any other error, SQLite's
    /// own `SQLITE_CORRUPT` from a statement included.
    public var detail: String? {
        isCorrupt && path != nil && sql == nil ? message : nil
    }
}
