import CSQLite
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SQLiteDatabase
@testable import TipJarSQLite

@Suite("DatabasePool")
struct DatabasePoolTests {
    @Test("Opening applies WAL, foreign keys, busy timeout and the configured durability")
    func openingConfiguresConnection() throws {
        let folder = try SQLiteTemporaryFolder()
        for (durability, expected) in [(DatabaseConfiguration.Durability.full, Int64(2)), (.normal, 1)] {
            let pool = try DatabasePool(path: folder.path("\(expected).sqlite"), configuration: .init(durability: durability))
            try pool.readSync { db throws in
                #expect(try db.fetchValue(sql: "PRAGMA journal_mode", as: String.self) == "wal")
                #expect(try db.fetchValue(sql: "PRAGMA synchronous", as: Int64.self) == expected)
                #expect(try db.fetchValue(sql: "PRAGMA foreign_keys", as: Int64.self) == 1)
                #expect(try db.fetchValue(sql: "PRAGMA busy_timeout", as: Int64.self) == 5000)
                #expect(try db.fetchValue(sql: "PRAGMA user_version", as: Int64.self) != 0)  // identity stamp
            }
            try pool.close()
        }
    }

    @Test("write commits before returning; a throwing write rolls back everything it did")
    func writeCommitsOrRollsBack() async throws {
        let folder = try SQLiteTemporaryFolder()
        let pool = try DatabasePool(path: folder.path("db.sqlite"))
        try await pool.write { db in try db.execute(sql: "CREATE TABLE tips(cents INTEGER NOT NULL)") }
        let id = try await pool.write { db throws in
            try db.execute(sql: "INSERT INTO tips(cents) VALUES (?)", arguments: [299])
            return db.lastInsertedRowID
        }
        #expect(id == 1)
        await #expect(throws: DatabaseError.self) {
            try await pool.write { db throws in
                try db.execute(sql: "INSERT INTO tips(cents) VALUES (?)", arguments: [499])
                try db.execute(sql: "INSERT INTO tips(cents) VALUES (?)", arguments: [nil])
            }
        }
        // A second connection sees the committed row only.
        let other = try DatabasePool(path: folder.path("db.sqlite"))
        #expect(try await other.read { try $0.fetchAll(sql: "SELECT cents FROM tips") { try $0.value(at: 0, as: Int64.self) } } == [299])
        #expect(throws: DatabaseError.self) { try other.readSync { try $0.execute(sql: "DELETE FROM tips") } }  // query_only
    }

    @Test("Disk full (max_page_count) throws isFull, rolls back, and the next write succeeds once space is back")
    func diskFullRollsBack() throws {
        let folder = try SQLiteTemporaryFolder()
        let pool = try DatabasePool(path: folder.path("db.sqlite"))
        try pool.writeSync { db in try db.execute(sql: "CREATE TABLE t(payload BLOB)") }
        try pool.writeSync { db throws in
            let pages = try db.fetchValue(sql: "PRAGMA page_count", as: Int64.self) ?? 0
            _ = try db.fetchValue(sql: "PRAGMA max_page_count = \(pages)", as: Int64.self)
        }
        let error = expectSQLiteError {
            try pool.writeSync { db throws in
                try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [[UInt8](repeating: 1, count: 10)])
                try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [[UInt8](repeating: 1, count: 200_000)])
            }
        }
        #expect(error?.isFull == true)
        #expect(try pool.readSync { try $0.fetchValue(sql: "SELECT COUNT(*) FROM t", as: Int64.self) } == 0)
        try pool.writeSync { db throws in
            _ = try db.fetchValue(sql: "PRAGMA max_page_count = 1000000", as: Int64.self)
            try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [[UInt8](repeating: 1, count: 200_000)])
        }
        #expect(try pool.readSync { try $0.fetchValue(sql: "SELECT COUNT(*) FROM t", as: Int64.self) } == 1)
    }

    @Test("A lock held past the busy timeout throws isBusy, writes nothing, and the write succeeds after release")
    func lockedDatabaseIsBusy() throws {
        let folder = try SQLiteTemporaryFolder()
        let path = folder.path("db.sqlite")
        let pool = try DatabasePool(path: path, configuration: .init(busyTimeout: .milliseconds(100)))
        try pool.writeSync { db in try db.execute(sql: "CREATE TABLE t(x INTEGER)") }
        let blocker = try Database(path: path, flags: SQLITE_OPEN_READWRITE)
        try blocker.execute(sql: "BEGIN EXCLUSIVE")
        let started = ContinuousClock.now
        let error = expectSQLiteError {
            try pool.writeSync { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
        }
        #expect(error?.isBusy == true)
        #expect(ContinuousClock.now - started >= .milliseconds(90))
        try blocker.execute(sql: "ROLLBACK")
        #expect(try pool.readSync { try $0.fetchValue(sql: "SELECT COUNT(*) FROM t", as: Int64.self) } == 0)
        try pool.writeSync { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
        #expect(try blocker.fetchValue(sql: "SELECT COUNT(*) FROM t", as: Int64.self) == 1)
        try blocker.close()
    }

    @Test("Group commit: concurrent writes all commit; a failing write undoes only its own work")
    func groupCommitIsolatesFailures() async throws {
        let folder = try SQLiteTemporaryFolder()
        let pool = try DatabasePool(path: folder.path("db.sqlite"), configuration: .init(groupCommit: true))
        try await pool.write { db in try db.execute(sql: "CREATE TABLE t(x INTEGER NOT NULL)") }
        let outcomes = await withTaskGroup(of: (Int, Bool).self) { group in
            for i in 0..<200 {
                group.addTask {
                    do {
                        try await pool.write { db throws in
                            try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [i])
                            if i % 10 == 3 { try db.execute(sql: "INSERT INTO t VALUES (NULL)") }  // fails
                        }
                        return (i, true)
                    } catch {
                        return (i, false)
                    }
                }
            }
            var all: [Int: Bool] = [:]
            for await (i, ok) in group { all[i] = ok }
            return all
        }
        let stored = try await pool.read { db in try db.fetchAll(sql: "SELECT x FROM t ORDER BY x") { try $0.value(at: 0, as: Int.self) } }
        let expected = (0..<200).filter { $0 % 10 != 3 }
        #expect(stored == expected)
        #expect(outcomes.filter { $0.value }.keys.sorted() == expected)
    }

    /// Hands one statement to the writer without waiting for it (`DatabaseWriter.submit`); `onFailure` gets its error.
    func submit(
        _ pool: DatabasePool, sql: String, arguments: StatementArguments, savepoint: Bool = false,
        onFailure: @escaping @Sendable (any Error) -> Void
    ) {
        pool.writer.submit(savepoint: savepoint, { db in try db.execute(sql: sql, arguments: arguments) }) { result in
            if case .failure(let error) = result { onFailure(error) }
        }
    }

    @Test(
        "A submitted write commits no later than the next awaited write, with and without group commit",
        arguments: [false, true])
    func submittedWriteCommitsBeforeTheNextAwaitedWrite(groupCommit: Bool) async throws {
        let folder = try SQLiteTemporaryFolder()
        let pool = try DatabasePool(path: folder.path("db.sqlite"), configuration: .init(groupCommit: groupCommit))
        try await pool.write { db in try db.execute(sql: "CREATE TABLE t(x INTEGER NOT NULL)") }
        for i in 0..<50 {
            submit(
                pool, sql: "INSERT INTO t VALUES (?)", arguments: [i],
                onFailure: { error in Issue.record("submitted write \(i) failed: \(error)") })
            // The awaited write sees the submitted row: it ran first, and both are committed on return.
            let seen = try await pool.write { db in try db.fetchValue(sql: "SELECT count(*) FROM t WHERE x = ?", arguments: [i], as: Int64.self) }
            #expect(seen == 1)
            #expect(try pool.readSync { try $0.fetchValue(sql: "SELECT count(*) FROM t", as: Int64.self) } == Int64(i + 1))
        }
    }

    @Test(
        "A failing submitted statement, without a savepoint, is backed out alone and reported before the next write runs",
        arguments: [false, true])
    func failingSubmittedWriteIsReportedBeforeTheNextWrite(groupCommit: Bool) async throws {
        let folder = try SQLiteTemporaryFolder()
        let pool = try DatabasePool(path: folder.path("db.sqlite"), configuration: .init(groupCommit: groupCommit))
        try await pool.write { db in try db.execute(sql: "CREATE TABLE t(x INTEGER NOT NULL)") }
        let reported = Mutex<[Int32]>([])
        submit(pool, sql: "INSERT INTO t VALUES (1)", arguments: [], onFailure: { error in Issue.record("\(error)") })
        // The second row violates NOT NULL: the whole statement is backed out, and only it.
        submit(
            pool, sql: "INSERT INTO t VALUES (2), (NULL)", arguments: [],
            onFailure: { error in reported.withLock { $0.append((error as? DatabaseError)?.extendedResultCode ?? -1) } })
        let seenByNextWrite = try await pool.write { db in
            try db.execute(sql: "INSERT INTO t VALUES (3)")
            return reported.withLock { $0 }
        }
        #expect(seenByNextWrite == [SQLITE_CONSTRAINT | (5 << 8)])  // SQLITE_CONSTRAINT_NOTNULL
        #expect(try pool.readSync { try $0.fetchAll(sql: "SELECT x FROM t ORDER BY x") { try $0.value(at: 0, as: Int64.self) } } == [1, 3])
    }

    @Test("Queued reads and point reads do not wait while a write holds the writer")
    func readsDoNotWaitForTheWriter() async throws {
        let folder = try SQLiteTemporaryFolder()
        let pool = try DatabasePool(path: folder.path("db.sqlite"), configuration: .init(groupCommit: true))
        try await pool.write { db in
            try db.execute(sql: "CREATE TABLE t(x INTEGER NOT NULL)")
            try db.execute(sql: "INSERT INTO t VALUES (1)")
        }
        let release = DispatchSemaphore(value: 0)
        let writing = DispatchSemaphore(value: 0)
        let slowWrite = Task {
            try await pool.write { db in
                try db.execute(sql: "INSERT INTO t VALUES (2)")
                writing.signal()
                release.wait()  // the writer is busy inside its transaction
            }
        }
        writing.wait()
        // Neither read queues behind the writer: each sees the last commit at once.
        #expect(try await pool.read { try $0.fetchValue(sql: "SELECT count(*) FROM t", as: Int64.self) } == 1)
        #expect(try pool.pointRead { try $0.fetchValue(sql: "SELECT count(*) FROM t", as: Int64.self) } == 1)
        release.signal()
        try await slowWrite.value
        #expect(try await pool.read { try $0.fetchValue(sql: "SELECT count(*) FROM t", as: Int64.self) } == 2)
    }

    @Test("A scan held on one reader holds up neither another scan nor a point read: each takes a free connection")
    func aScanHoldsUpNoOtherRead() async throws {
        let folder = try SQLiteTemporaryFolder()
        let pool = try DatabasePool(path: folder.path("db.sqlite"))
        try await pool.write { db in
            try db.execute(sql: "CREATE TABLE t(x INTEGER NOT NULL)")
            try db.execute(sql: "INSERT INTO t VALUES (1)")
        }
        #expect(pool.readers.count > 1)
        let release = DispatchSemaphore(value: 0)
        let scanning = Atomic<Bool>(false)
        let slowScan = Task {
            try await pool.read { db in
                let count = try db.fetchValue(sql: "SELECT count(*) FROM t", as: Int64.self)
                scanning.store(true, ordering: .releasing)
                release.wait()  // this reader is busy inside its read transaction (on its queue, not a cooperative thread)
                return count
            }
        }
        #expect(await eventually { scanning.load(ordering: .acquiring) })
        let otherScanDone = Atomic<Bool>(false)
        let otherScan = Task {
            let count = try await pool.read { try $0.fetchValue(sql: "SELECT count(*) FROM t", as: Int64.self) }
            otherScanDone.store(true, ordering: .releasing)
            return count
        }
        #expect(await eventually { otherScanDone.load(ordering: .acquiring) }, "the second scan waited behind the first")
        #expect(try pool.pointRead { try $0.fetchValue(sql: "SELECT count(*) FROM t", as: Int64.self) } == 1)
        release.signal()
        #expect(try await slowScan.value == 1)
        #expect(try await otherScan.value == 1)
    }

    @Test("Point reads keep to the first free connection, whose page cache a commit empties once, not to each in turn")
    func pointReadsKeepToTheFirstFreeConnection() async throws {
        let folder = try SQLiteTemporaryFolder()
        let pool = try DatabasePool(path: folder.path("db.sqlite"))
        try await pool.write { db in try db.execute(sql: "CREATE TABLE t(x INTEGER NOT NULL)") }
        #expect(pool.readers.count > 1)
        var connections = Set<ObjectIdentifier>()
        for value in 1...6 {
            try await pool.write { db in try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [value]) }
            // Each read sees the commit before it (the dropped cache is reloaded, never served stale).
            let count = try pool.pointRead { db in
                connections.insert(ObjectIdentifier(db))
                return try db.fetchValue(sql: "SELECT count(*) FROM t", as: Int64.self)
            }
            #expect(count == Int64(value))
        }
        #expect(connections.count == 1)
        // While that connection is busy, a point read takes the next free one rather than waiting.
        let release = DispatchSemaphore(value: 0)
        let held = Atomic<Bool>(false)
        let holder = Thread {
            _ = try? pool.pointRead { db in
                held.store(true, ordering: .releasing)
                release.wait()
                return try db.fetchValue(sql: "SELECT count(*) FROM t", as: Int64.self)
            }
        }
        holder.start()
        #expect(await eventually { held.load(ordering: .acquiring) })
        let other = try pool.pointRead { db in ObjectIdentifier(db) }
        release.signal()
        #expect(!connections.contains(other))
    }

    @Test("A point fetch is one statement in a read transaction of its own: it sees each commit, holds no snapshot after, writes nothing")
    func pointFetchesAreTheirOwnReadTransactions() async throws {
        let folder = try SQLiteTemporaryFolder()
        let pool = try DatabasePool(path: folder.path("db.sqlite"))
        try await pool.write { db in try db.execute(sql: "CREATE TABLE t(x INTEGER NOT NULL)") }
        for value in 1...4 {
            try await pool.write { db in try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [value]) }
            #expect(try pool.pointFetchOne(sql: "SELECT count(*) FROM t", arguments: []) { try $0.value(at: 0, as: Int64.self) } == Int64(value))
            #expect(try pool.pointFetchAll(sql: "SELECT x FROM t WHERE x >= ? ORDER BY x", arguments: [value - 1]) { try $0.value(at: 0, as: Int64.self) }
                == Array(Int64(max(1, value - 1))...Int64(value)))
        }
        // No read transaction is left open on a connection: a checkpoint copies every frame and empties the WAL.
        let other = try Database(path: folder.path("db.sqlite"), flags: SQLITE_OPEN_READWRITE)
        defer { try? other.close() }
        let checkpoint = try other.fetchOne(sql: "PRAGMA wal_checkpoint(TRUNCATE)") { [try $0.value(at: 0, as: Int64.self), try $0.value(at: 1, as: Int64.self)] }
        #expect(checkpoint == [0, 0], "busy, frames left: \(String(describing: checkpoint))")
        #expect(throws: DatabaseError.self) { try pool.pointFetchOne(sql: "INSERT INTO t VALUES (9) RETURNING x", arguments: []) { _ in 1 } }
        #expect(try pool.pointFetchOne(sql: "SELECT count(*) FROM t", arguments: []) { try $0.value(at: 0, as: Int64.self) } == 4)
    }

    @Test("SQLite keeps no memory statistics, so no allocation takes their process-wide mutex")
    func memoryStatisticsAreOff() async throws {
        let folder = try SQLiteTemporaryFolder()
        let pool = try DatabasePool(path: folder.path("db.sqlite"))
        try await pool.write { db in
            try db.execute(sql: "CREATE TABLE t(x TEXT NOT NULL)")
            try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [String(repeating: "x", count: 100_000)])
        }
        #expect(try pool.pointRead { try $0.fetchValue(sql: "SELECT length(x) FROM t", as: Int64.self) } == 100_000)
        // With SQLITE_CONFIG_MEMSTATUS off, sqlite3_memory_used() counts nothing
        // (https://www.sqlite.org/c3ref/c_config_covering_index_scan.html#sqliteconfigmemstatus).
        #expect(sqlite3_memory_used() == 0)
        try pool.close()
    }

    @Test("Closing finalizes statements and later access is refused")
    func closeIsClean() async throws {
        let folder = try SQLiteTemporaryFolder()
        let path = folder.path("db.sqlite")
        let pool = try DatabasePool(path: path)
        try await pool.write { db throws in
            try db.execute(sql: "CREATE TABLE t(x)")
            try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [1])
        }
        try pool.close()
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))  // clean close checkpoints and removes the WAL
        await #expect(throws: DatabaseError.self) { try await pool.read { _ in 1 } }
    }
}
