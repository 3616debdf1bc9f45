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
}
