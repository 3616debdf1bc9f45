import CSQLite
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SQLiteDatabase
@testable import TipJarSQLite

/// "No write is acknowledged until its commits are in a file SQLite reads at the next start": after the `-wal` is
/// deleted, the writer copies its commits into the database file with a checkpoint, retried while a reader's old
/// snapshot holds it back (`Sources/SQLiteDatabase/DatabaseWriter+WALLoss.swift`,
/// <https://www.sqlite.org/c3ref/wal_checkpoint_v2.html>). Real files; the "crash" is a copy of the database
/// file alone, which is what a `kill -9` leaves once the `-wal` is gone.
@Suite("A deleted write-ahead log")
struct WALLossTests {
    /// A pool on a new file whose table `t` holds rows 1...`rows`, committed (acknowledged) through the pool.
    private static func pool(in folder: SQLiteTemporaryFolder, rows: Int, log: WriteRefusalTests.FaultLog) async throws -> (DatabasePool, String) {
        let path = folder.path("db.sqlite")
        let pool = try DatabasePool(path: path, configuration: log.configuration)
        try await pool.write { db in try db.execute(sql: "CREATE TABLE t(x INTEGER)") }
        for x in 1...rows { try await pool.write { db in try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [x]) } }
        return (pool, path)
    }

    /// A read-only connection of its own holding the snapshot of the last commit (`BEGIN` and a read), as a long
    /// scan would: no checkpoint can copy what was committed after it until it ends.
    private static func snapshotReader(_ path: String) throws -> Database {
        let reader = try Database(path: path, flags: SQLITE_OPEN_READONLY)
        try reader.execute(sql: "BEGIN")
        _ = try reader.fetchValue(sql: "SELECT COUNT(*) FROM t", as: Int64.self)
        return reader
    }

    /// The rows the database file alone holds: a copy of it opened on its own, as a start after a crash opens it.
    private static func rowsAfterCrash(_ path: String, folder: SQLiteTemporaryFolder) throws -> Int64? {
        let crashed = folder.path("after-crash-\(UUID().uuidString).sqlite")
        try FileManager.default.copyItem(atPath: path, toPath: crashed)
        let reopened = try DatabasePool(path: crashed)
        defer { try? reopened.close() }
        return try reopened.readSync { try $0.fetchValue(sql: "SELECT COUNT(*) FROM t", as: Int64.self) }
    }

    @Test("A COMMIT that lands in a deleted -wal is acknowledged only once its commits are in the database file")
    func commitIntoDeletedWALWaitsForTheCheckpoint() async throws {
        let folder = try SQLiteTemporaryFolder()
        let log = WriteRefusalTests.FaultLog()
        let (pool, path) = try await Self.pool(in: folder, rows: 10, log: log)
        let reader = try Self.snapshotReader(path)
        for x in 11...15 { try await pool.write { db in try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [x]) } }

        let answered = Atomic(false)
        let write = Task {
            defer { answered.store(true, ordering: .sequentiallyConsistent) }
            try await pool.write { db in
                #expect(unlink(path + "-wal") == 0)  // deleted between BEGIN and COMMIT
                try db.execute(sql: "INSERT INTO t VALUES (16)")
            }
        }
        #expect(await eventually { pool.writer.walRescueAttemptCount >= 2 }, "a checkpoint attempt failed while the reader held its snapshot")
        let answeredEarly = answered.load(ordering: .sequentiallyConsistent)
        #expect(!answeredEarly, "the write was answered before its commit was in the database file")
        #expect(try pool.readSync { try $0.fetchValue(sql: "SELECT COUNT(*) FROM t", as: Int64.self) } == 16, "reads go on")

        try reader.execute(sql: "COMMIT")  // the reader lets go: the next attempt copies every frame
        try await write.value
        #expect(log.faults.withLock { $0.count } == 1)
        #expect(log.faults.withLock { $0.first?.message.contains("every commit it held was copied into \(path)") } == true)
        #expect(log.faults.withLock { $0.first?.message.contains("until the server restarts") } == true)
        #expect(try Self.rowsAfterCrash(path, folder: folder) == 16)

        await #expect(throws: DatabaseError.self) { try await pool.write { db in try db.execute(sql: "INSERT INTO t VALUES (17)") } }
        try reader.close()
        try pool.close()
        let reopened = try DatabasePool(path: path)
        #expect(try reopened.readSync { try $0.fetchValue(sql: "SELECT COUNT(*) FROM t", as: Int64.self) } == 16)
        try reopened.close()
    }

    @Test("While a deleted -wal's commits cannot be copied, new writes fail before BEGIN and reads go on")
    func writesRefusedWhileTheCheckpointWaits() async throws {
        let folder = try SQLiteTemporaryFolder()
        let log = WriteRefusalTests.FaultLog()
        let (pool, path) = try await Self.pool(in: folder, rows: 10, log: log)
        let reader = try Self.snapshotReader(path)
        for x in 11...15 { try await pool.write { db in try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [x]) } }
        #expect(unlink(path + "-wal") == 0)

        let answered = Atomic(false)
        let finder = Task {  // the write that finds the log gone, and waits for its commits to be secured
            defer { answered.store(true, ordering: .sequentiallyConsistent) }
            try await pool.write { db in try db.execute(sql: "INSERT INTO t VALUES (100)") }
        }
        #expect(await eventually { pool.writer.walRescueAttemptCount >= 2 })
        let refused = await #expect(throws: DatabaseError.self) {
            try await pool.write { db in try db.execute(sql: "INSERT INTO t VALUES (101)") }
        }
        #expect(refused?.isFileMoved == true)
        #expect(refused?.path == path + "-wal")
        #expect(try pool.readSync { try $0.fetchValue(sql: "SELECT COUNT(*) FROM t", as: Int64.self) } == 15, "reads go on")
        let answeredEarly = answered.load(ordering: .sequentiallyConsistent)
        #expect(!answeredEarly)

        try reader.execute(sql: "COMMIT")
        let found = await #expect(throws: DatabaseError.self) { try await finder.value }
        #expect(found?.isFileMoved == true)
        #expect(log.faults.withLock { $0.count } == 1)
        #expect(log.faults.withLock { $0.first?.message.contains("every commit it held was copied into \(path)") } == true)
        #expect(try Self.rowsAfterCrash(path, folder: folder) == 15, "every acknowledged write is in the database file")
        try reader.close()
        try pool.close()
        let reopened = try DatabasePool(path: path)
        #expect(try reopened.readSync { try $0.fetchValue(sql: "SELECT COUNT(*) FROM t", as: Int64.self) } == 15)
        try reopened.close()
    }

    @Test("Commits that cannot be copied into the database file within the limit fail instead of being acknowledged")
    func commitThatCannotBeSecuredFails() async throws {
        let folder = try SQLiteTemporaryFolder()
        let log = WriteRefusalTests.FaultLog()
        var configuration = log.configuration
        configuration.walRescueLimit = .milliseconds(300)
        let path = folder.path("db.sqlite")
        let pool = try DatabasePool(path: path, configuration: configuration)
        try await pool.write { db in try db.execute(sql: "CREATE TABLE t(x INTEGER)") }
        let reader = try Self.snapshotReader(path)
        let failed = await #expect(throws: DatabaseError.self) {
            try await pool.write { db in
                #expect(unlink(path + "-wal") == 0)
                try db.execute(sql: "INSERT INTO t VALUES (1)")
            }
        }
        #expect(failed?.isFileMoved == true)
        #expect(failed?.message.contains("copying its commits into \(path) failed") == true)
        try reader.execute(sql: "COMMIT")
        try reader.close()
        try pool.close()
    }
}
