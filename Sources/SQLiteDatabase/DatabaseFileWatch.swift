import CSQLite
import Foundation

/// Notices, before a write transaction, that the database file or its `-wal` was deleted, renamed
/// or replaced while the connections have it open.
///
/// SQLite keeps reading and writing through the descriptors it opened, so after `rm
/// tipjar.sqlite3-wal` every commit still succeeds, into a file no path names any more: the next
/// crash loses it, and every commit since the WAL was last checkpointed with it
/// (<https://www.sqlite.org/howtocorrupt.html>, "Unlinking or renaming a database file while in use").
///
/// Each check is one `stat(2)` per file, compared with the device and inode recorded when the file
/// was first seen. A file created at the same path later has another inode: the old inode cannot
/// be reused while SQLite keeps it open. Only used on the writer's queue.
struct DatabaseFileWatch {
    /// The database file; its WAL is `path` + `-wal`.
    let path: String
    private var database: Identity?
    private var wal: Identity?

    private struct Identity: Equatable {
        var device: UInt64
        var inode: UInt64
    }

    /// Records the files as they are now; a WAL that does not exist yet is recorded when it appears.
    init(path: String) {
        self.path = path
        database = Self.identity(path)
        wal = Self.identity(path + "-wal")
    }

    /// `nil` while both files are the ones first seen; otherwise an ``DatabaseError`` with
    /// `SQLITE_READONLY_DBMOVED` (<https://www.sqlite.org/rescode.html#readonly_dbmoved>, the code
    /// SQLite gives a database file that moved) naming the file.
    mutating func problem() -> DatabaseError? {
        if let error = Self.compare(path, recorded: &database, what: "database file") { return error }
        return Self.compare(path + "-wal", recorded: &wal, what: "write-ahead log")
    }

    /// Like ``problem()`` for the `-wal` alone (one `stat`): after a `COMMIT`, whether it went into a log no path
    /// names any more.
    mutating func walProblem() -> DatabaseError? {
        Self.compare(path + "-wal", recorded: &wal, what: "write-ahead log")
    }

    /// `SQLITE_READONLY_DBMOVED`, which the CSQLite module does not import (a macro expression).
    static let movedCode: Int32 = SQLITE_READONLY | (4 << 8)

    private static func compare(_ file: String, recorded: inout Identity?, what: String) -> DatabaseError? {
        let now = identity(file)
        guard let first = recorded else {
            recorded = now
            return nil
        }
        guard now != first else { return nil }
        let state = now == nil ? "no file is there any more" : "another file is there now"
        return DatabaseError(
            extendedResultCode: movedCode,
            message:
                "the \(what) \(file) was deleted, renamed or replaced while it was open (\(state)); writes are refused from now on, since SQLite would keep writing to the old file and a crash would lose them",
            path: file)
    }

    private static func identity(_ file: String) -> Identity? {
        var info = stat()
        guard stat(file, &info) == 0 else { return nil }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }
}
