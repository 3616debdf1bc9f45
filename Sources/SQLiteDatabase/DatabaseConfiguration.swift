/// How a ``DatabasePool`` opens and configures its connection.
///
/// Applied on open, after the file passed validation (see ``DatabasePool/init(path:configuration:)``):
/// `PRAGMA journal_mode=WAL` (<https://www.sqlite.org/wal.html>), `PRAGMA foreign_keys=ON`,
/// `sqlite3_busy_timeout`, and `PRAGMA synchronous` (<https://www.sqlite.org/pragma.html#pragma_synchronous>).
public struct DatabaseConfiguration: Sendable {
    /// What a committed transaction survives.
    public enum Durability: Sendable, Hashable {
        /// `PRAGMA synchronous=FULL`: the WAL is fsynced at every COMMIT, so a committed
        /// tip survives power loss / an OS crash. The default.
        case full
        /// `PRAGMA synchronous=NORMAL`: a committed transaction survives a crash of the
        /// process, but the last transactions may roll back after power loss or an OS
        /// crash (the database stays consistent).
        case normal

        var pragmaValue: String {
            switch self {
            case .full: "FULL"
            case .normal: "NORMAL"
            }
        }
    }

    /// Durability of commits. Default ``Durability/full``.
    public var durability: Durability
    /// How long a statement waits for another connection's lock before failing with
    /// `SQLITE_BUSY` (`sqlite3_busy_timeout`). Default 5 seconds.
    public var busyTimeout: Duration
    /// Open with `SQLITE_OPEN_READONLY`: no pragma that writes is run, writes fail with
    /// `SQLITE_READONLY`, and the read-only-file check is skipped. Default `false`.
    public var readOnly: Bool
    /// Group commit: `write` calls that arrive while another write is running are
    /// batched into one `BEGIN IMMEDIATE … COMMIT`, each in its own SAVEPOINT (a failing
    /// closure undoes only its own work). Every batched caller resumes only after the
    /// shared COMMIT succeeded (or receives the COMMIT error). Default `false`.
    public var groupCommit: Bool
    /// Called once, on the writer's queue, when the queue stops accepting writes for good: the
    /// database file or its `-wal` was deleted, renamed or replaced while open (every later write
    /// then fails with the same ``DatabaseError``, `SQLITE_READONLY_DBMOVED`, naming the file). For a deleted `-wal`
    /// it is called once its commits were copied into the database file, or once that failed for
    /// ``walRescueLimit``, and its message says which (`DatabaseWriter+WALLoss.swift`). Default `nil`.
    public var onFault: (@Sendable (DatabaseError) -> Void)?
    /// The WAL size, in pages, past which the checkpointer copies the WAL into the database
    /// (``DatabaseCheckpointer``). Default 1,000, the threshold of SQLite's own automatic checkpoint.
    public var checkpointPages: Int32 = 1_000
    /// Whether opening runs `PRAGMA integrity_check` (<https://www.sqlite.org/pragma.html#pragma_integrity_check>),
    /// which reads every page and compares every index with its table: about 10 s on a 430 MB database. `false`
    /// keeps every other check of the file (see ``DatabasePool/init(path:configuration:)``) and adds one that
    /// costs nothing: the file holds every page its header counts, so a truncated file is still refused. For a
    /// database closed cleanly, or checked already (``DatabasePool/integrityProblems(path:)``). Default `true`.
    public var checksIntegrity = true
    /// How long the writer tries to copy the commits of a `-wal` deleted while open into the database file
    /// (a checkpoint, retried with back-off while a reader or another checkpoint holds it back) before it gives
    /// up: the writes whose `COMMIT` went into that log then fail instead of being acknowledged
    /// (`DatabaseWriter+WALLoss.swift`). Default 30 seconds.
    public var walRescueLimit: Duration = .seconds(30)
    /// Called on the writer's queue after every `COMMIT` that succeeded (a group-committed batch calls it once),
    /// before any caller of the transaction is answered. Default `nil`.
    public var onCommit: (@Sendable () -> Void)?

    /// Creates a configuration.
    /// - Parameters:
    ///   - durability: Default ``Durability/full``.
    ///   - busyTimeout: Default 5 seconds; clamped to 0…`Int32.max` milliseconds.
    ///   - readOnly: Default `false`.
    ///   - groupCommit: Default `false`.
    ///   - onFault: Default `nil`.
    public init(
        durability: Durability = .full, busyTimeout: Duration = .seconds(5), readOnly: Bool = false, groupCommit: Bool = false,
        onFault: (@Sendable (DatabaseError) -> Void)? = nil
    ) {
        self.durability = durability
        self.busyTimeout = busyTimeout
        self.readOnly = readOnly
        self.groupCommit = groupCommit
        self.onFault = onFault
    }

    /// The busy timeout in whole milliseconds, as `sqlite3_busy_timeout` expects.
    var busyTimeoutMilliseconds: Int32 {
        let (seconds, attoseconds) = busyTimeout.components
        let milliseconds = seconds.multipliedReportingOverflow(by: 1000)
        if milliseconds.overflow || seconds < 0 { return seconds < 0 ? 0 : Int32.max }
        let total = milliseconds.partialValue + attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(0, total))
    }
}
