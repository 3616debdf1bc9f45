import Foundation
import TestSupport
import Testing

@testable import SQLiteDatabase
@testable import TipJarSQLite

/// The WAL checkpoints run beside the writer (`DatabaseCheckpointer`): SQLite's WAL file format
/// (<https://www.sqlite.org/fileformat2.html#walformat>) is a 32-byte header and, per frame, a 24-byte
/// frame header and one page, so the `-wal` file's size says how many frames it ever held at once (a WAL
/// that restarts is overwritten from its beginning, not truncated).
@Suite("DatabaseCheckpointer")
struct DatabaseCheckpointerTests {
    static let pageSize = 4_096

    /// The frames the `-wal` file has room for (0 when there is none).
    func walFrames(_ path: String) -> Int {
        let size = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        return max(0, size - 32) / (Self.pageSize + 24)
    }

    func makePool(_ path: String, checkpointPages: Int32) throws -> DatabasePool {
        var configuration = DatabaseConfiguration(durability: .normal)
        configuration.checkpointPages = checkpointPages
        let pool = try DatabasePool(path: path, configuration: configuration)
        try pool.writeSync { db in try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, payload BLOB NOT NULL)") }
        return pool
    }

    /// Commits one row of about a page, `count` times, each in its own transaction.
    func commitRows(_ pool: DatabasePool, count: Int) throws {
        for _ in 0..<count {
            try pool.writeSync { db in try db.execute(sql: "INSERT INTO t(payload) VALUES (?)", arguments: [[UInt8](repeating: 7, count: 3_000)]) }
        }
    }

    @Test("A commit never runs SQLite's automatic checkpoint: below the threshold the WAL keeps every frame")
    func commitsDoNotCheckpoint() throws {
        let folder = try SQLiteTemporaryFolder()
        let path = folder.path("db.sqlite")
        let pool = try makePool(path, checkpointPages: 100_000)
        // SQLite's automatic checkpoint would have copied and restarted the WAL at 1,000 pages.
        try commitRows(pool, count: 1_500)
        #expect(walFrames(path) >= 1_500)
        #expect(pool.writer.checkpointer?.checkpointCount == 0)
        try pool.close()
    }

    @Test("Past the threshold the checkpointer copies the WAL and the WAL restarts, so under steady commits it stays bounded")
    func walStaysBoundedUnderSteadyCommits() throws {
        let folder = try SQLiteTemporaryFolder()
        let path = folder.path("db.sqlite")
        let pool = try makePool(path, checkpointPages: 50)
        try commitRows(pool, count: 6_000)
        #expect(eventuallyBlocking { (pool.writer.checkpointer?.checkpointCount ?? 0) > 0 })
        // Without checkpoints the WAL would hold over 6,000 frames (a page or more a row). With them it restarts,
        // at the latest when it reaches four times the threshold (200 frames), however fast the commits come.
        #expect(walFrames(path) <= 220)
        try pool.close()
    }

    @Test("Every commit survives the checkpoints: readers and a reopened file see all rows, and closing leaves no -wal")
    func checkpointsKeepEveryCommit() async throws {
        let folder = try SQLiteTemporaryFolder()
        let path = folder.path("db.sqlite")
        let pool = try makePool(path, checkpointPages: 50)
        try commitRows(pool, count: 1_000)
        #expect(eventuallyBlocking { (pool.writer.checkpointer?.checkpointCount ?? 0) > 0 })
        #expect(try await pool.read { try $0.fetchValue(sql: "SELECT count(*) FROM t", as: Int64.self) } == 1_000)
        try pool.close()
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        let reopened = try DatabasePool(path: path)
        #expect(try reopened.readSync { try $0.fetchValue(sql: "SELECT count(*) FROM t", as: Int64.self) } == 1_000)
        #expect(try reopened.readSync { try $0.fetchValue(sql: "PRAGMA integrity_check", as: String.self) } == "ok")
        try reopened.close()
    }

    @Test("A read-only database has no checkpointer")
    func readOnlyHasNoCheckpointer() throws {
        let folder = try SQLiteTemporaryFolder()
        let path = folder.path("db.sqlite")
        try makeSQLiteTestDatabase(at: path, rows: 3)
        let pool = try DatabasePool(path: path, configuration: DatabaseConfiguration(readOnly: true))
        #expect(pool.writer.checkpointer == nil)
        try pool.close()
    }
}
