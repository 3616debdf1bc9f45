import CSQLite
import Dispatch
import Synchronization

/// Runs the database's WAL checkpoints on a connection and thread of their own, so a commit never waits
/// for one.
///
/// SQLite's automatic checkpoint runs inside the `COMMIT` that takes the WAL past 1,000 pages, on the
/// committing connection (<https://www.sqlite.org/wal.html#automatic_checkpoint>): the writer, and every
/// write queued behind it, waits while it syncs the WAL, copies its pages into the database and syncs
/// that. With `synchronous=NORMAL` the WAL has not been synced since the previous checkpoint, so that
/// commit holds every write behind it for the length of two syncs. The same page says an application may instead turn the automatic checkpoint off
/// and "run checkpoints in a separate thread"; `sqlite3_wal_hook`
/// (<https://www.sqlite.org/c3ref/wal_hook.html>) tells the writer the WAL's size after each commit.
///
/// So the writer's connection carries a WAL hook (which replaces the automatic checkpoint) that, past
/// ``DatabaseConfiguration/checkpointPages`` pages, asks this checkpointer for a `PASSIVE` checkpoint
/// (<https://www.sqlite.org/c3ref/wal_checkpoint_v2.html>): it copies what it can without waiting
/// for the writer or any reader, with the same `synchronous` setting, so it syncs what the automatic
/// checkpoint would. Commits go on meanwhile, which the WAL allows. But a WAL only restarts from its
/// beginning once a checkpoint has copied all of it (<https://www.sqlite.org/wal.html#avoiding_excessively_large_wal_files>),
/// and under steady commits a checkpoint beside the writer never catches up with it. So once the
/// checkpointer has copied the bulk, the next commit finishes the job on the writer itself, as SQLite's
/// automatic checkpoint would: only the few pages committed since remain, so it is short, and the WAL then
/// restarts. Should the WAL still reach four times the threshold (the checkpointer fell behind: a slow disk,
/// a burst of commits), the commit that finds it waits for the checkpointer's pass, then checkpoints in
/// `RESTART` mode, so the WAL restarts at once: it never holds much more than four times the threshold.
///
/// What a commit survives does not change: `synchronous` decides when the WAL is synced, and a
/// checkpoint only copies committed pages.
final class DatabaseCheckpointer: @unchecked Sendable {
    /// The WAL size, in pages, past which a checkpoint is asked for.
    let threshold: Int32
    /// The WAL size, in pages, at which the writer checkpoints and restarts the WAL itself.
    var backstop: Int32 { threshold.multipliedReportingOverflow(by: 4).overflow ? .max : threshold * 4 }
    /// How many pages the checkpointer leaves for the writer's own, finishing checkpoint.
    static let remainderForWriter: Int32 = 64
    /// The most passes the checkpointer makes before it leaves the rest to the writer.
    static let maximumPasses = 4

    private let queue = DispatchQueue(label: "SQLiteDatabase.DatabaseCheckpointer", qos: .utility)
    /// Only accessed on `queue`.
    private var database: Database?
    /// Whether a checkpoint is asked for and has not finished yet (so a busy writer asks once).
    private let requested = Atomic<Bool>(false)
    /// Whether the checkpointer copied the bulk and the writer's next commit is to copy the rest.
    private let finishOnWriter = Atomic<Bool>(false)
    private let checkpoints = Atomic<Int>(0)
    /// How many long reads (a background `PRAGMA integrity_check`) run now: while any does, the backstop does not
    /// wait for readers (see ``holdingBackstop(_:)``).
    private let longReads = Atomic<Int>(0)

    /// Checkpoints run here so far (tests wait for one).
    var checkpointCount: Int { checkpoints.load(ordering: .relaxed) }

    /// Takes ownership of `database`, a read-write connection to the same file, configured like the writer's;
    /// `threshold` is ``DatabaseConfiguration/checkpointPages`` (at least 1).
    init(database: Database, threshold: Int32) {
        self.database = database
        self.threshold = max(1, threshold)
    }

    /// Installs the WAL hook on the writer's connection `writer`; the writer must keep this checkpointer
    /// alive for as long as the connection is open (the hook holds it unretained).
    func watch(_ writer: Database) throws {
        let handle = try writer.connection()
        sqlite3_wal_hook(
            handle,
            { context, connection, _, pages in
                guard let context else { return SQLITE_OK }
                Unmanaged<DatabaseCheckpointer>.fromOpaque(context).takeUnretainedValue().walGrew(to: pages, connection: connection)
                return SQLITE_OK
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Called by the WAL hook on the writer's thread, after a commit, with the WAL's size in pages.
    private func walGrew(to pages: Int32, connection: OpaquePointer?) {
        if pages >= backstop, longReads.load(ordering: .acquiring) > 0 {
            // A long read holds its snapshot for seconds: RESTART would hold this commit (and every write queued behind
            // it) for the busy timeout, waiting for it. The WAL grows instead, by what is committed until it ends.
            finishOnWriter.store(false, ordering: .releasing)
            sqlite3_wal_checkpoint_v2(connection, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            return
        }
        if pages >= backstop {
            // A checkpoint finding another one running returns SQLITE_BUSY without waiting, so first wait for the
            // checkpointer's pass, if one runs (only this hook asks for one). RESTART then waits (the busy timeout)
            // for readers of the WAL, copies the rest and leaves the WAL to start over.
            queue.sync {}
            finishOnWriter.store(false, ordering: .releasing)
            sqlite3_wal_checkpoint_v2(connection, nil, SQLITE_CHECKPOINT_RESTART, nil, nil)
            return
        }
        if finishOnWriter.exchange(false, ordering: .acquiringAndReleasing) {
            // A PASSIVE checkpoint waits for nobody: what a reader still needs stays for the next one.
            sqlite3_wal_checkpoint_v2(connection, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            return
        }
        guard pages >= threshold, !requested.exchange(true, ordering: .acquiringAndReleasing) else { return }
        queue.async { [self] in
            defer { requested.store(false, ordering: .releasing) }
            guard let handle = database?.handle else { return }
            // Pass after pass, each copying what the writer committed during the one before, until few
            // pages remain for the writer. An error (SQLITE_BUSY: the writer checkpoints) leaves them to the next request.
            for _ in 0..<Self.maximumPasses {
                var logged: Int32 = 0
                var copied: Int32 = 0
                guard sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, &logged, &copied) == SQLITE_OK else { return }
                checkpoints.add(1, ordering: .relaxed)
                if logged - copied <= Self.remainderForWriter { break }
            }
            finishOnWriter.store(true, ordering: .releasing)
        }
    }

    /// Runs `body`, a read that holds one snapshot for long (seconds), with the backstop's `RESTART` turned into a
    /// `PASSIVE` checkpoint meanwhile: a `RESTART` waits for every reader (<https://www.sqlite.org/c3ref/wal_checkpoint_v2.html>),
    /// and the writer would wait with it. The WAL then grows by what is committed during `body`, and restarts at the
    /// first backstop after it.
    func holdingBackstop<T>(_ body: () throws -> T) rethrows -> T {
        longReads.add(1, ordering: .acquiringAndReleasing)
        defer { longReads.subtract(1, ordering: .acquiringAndReleasing) }
        return try body()
    }

    /// Closes the connection after a checkpoint already asked for ran. Idempotent.
    func close() throws {
        try queue.sync {
            defer { database = nil }
            try database?.close()
        }
    }
}
