import CSQLite
import Foundation
import Testing

@testable import SQLiteDatabase
@testable import TipJarSQLite

/// "A bad database file must never be made worse": each refusal names the file and leaves
/// the database (and its -wal) byte-for-byte unchanged.
@Suite("Opening safety")
struct DatabaseFileGuardTests {
    /// Opens `path`, expects a refusal naming `named`, and checks the files did not change.
    func expectRefusal(
        _ path: String, naming named: String, configuration: DatabaseConfiguration = .init(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> DatabaseError? {
        let before = (sqliteFileBytes(path), sqliteFileBytes(path + "-wal"))
        let error = expectSQLiteError({ _ = try DatabasePool(path: path, configuration: configuration) }, sourceLocation: sourceLocation)
        #expect(error?.description.contains(named) == true, "\(String(describing: error))", sourceLocation: sourceLocation)
        #expect(sqliteFileBytes(path) == before.0, "database bytes changed", sourceLocation: sourceLocation)
        #expect(sqliteFileBytes(path + "-wal") == before.1, "-wal bytes changed", sourceLocation: sourceLocation)
        return error
    }

    @Test("Random bytes are refused as not an SQLite database")
    func randomBytesRefused() throws {
        let folder = try SQLiteTemporaryFolder()
        let path = folder.path("random.sqlite")
        _ = FileManager.default.createFile(atPath: path, contents: Data((0..<8192).map { _ in UInt8.random(in: 0...255) }))
        let error = expectRefusal(path, naming: path)
        #expect(error?.isNotADatabase == true)
        #expect(error?.message.contains("is not an SQLite database") == true)
    }

    @Test("A real database cut in half is refused as corrupt")
    func truncatedDatabaseRefused() throws {
        let folder = try SQLiteTemporaryFolder()
        let path = folder.path("cut.sqlite")
        try makeSQLiteTestDatabase(at: path, rows: 400, payloadSize: 300)
        let bytes = try #require(sqliteFileBytes(path))
        for cut in [bytes.count / 2 / 4096 * 4096, bytes.count / 2 + 100] {
            try bytes.prefix(cut).write(to: URL(fileURLWithPath: path))
            let error = expectRefusal(path, naming: path)
            #expect(error?.isCorrupt == true, "cut at \(cut): \(String(describing: error))")
        }
    }

    /// Leaves `path` + `-wal` as a crash would: copies both while the connection is open.
    func crashSnapshot(of source: String, to destination: String, rows: Int) throws {
        let pool = try DatabasePool(path: source)
        try pool.writeSync { db throws in
            try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, payload BLOB)")
            for _ in 0..<rows { try db.execute(sql: "INSERT INTO t(payload) VALUES (zeroblob(500))") }
        }
        try FileManager.default.copyItem(atPath: source, toPath: destination)
        try FileManager.default.copyItem(atPath: source + "-wal", toPath: destination + "-wal")
        try pool.close()
    }

    @Test("A crash-left WAL of the same database is accepted and its commits recovered")
    func ownWALIsRecovered() throws {
        let folder = try SQLiteTemporaryFolder()
        let path = folder.path("crashed.sqlite")
        try crashSnapshot(of: folder.path("live.sqlite"), to: path, rows: 20)
        let pool = try DatabasePool(path: path)
        #expect(try pool.readSync { try $0.fetchValue(sql: "SELECT COUNT(*) FROM t", as: Int64.self) } == 20)
        try pool.close()
    }

    @Test("A WAL from another database is refused, naming the -wal file")
    func foreignWALRefused() throws {
        let folder = try SQLiteTemporaryFolder()
        // Database B, cleanly closed.
        let path = folder.path("b.sqlite")
        try makeSQLiteTestDatabase(at: path, rows: 10)
        // A crash-left WAL of database A, put beside B. SQLite alone would replay it into B.
        try crashSnapshot(of: folder.path("a.sqlite"), to: folder.path("a-copy.sqlite"), rows: 50)
        try FileManager.default.copyItem(atPath: folder.path("a-copy.sqlite-wal"), toPath: path + "-wal")
        let error = expectRefusal(path, naming: path + "-wal")
        #expect(error?.isNotADatabase == true)
        #expect(error?.message.contains("belongs to another database") == true)
    }

    /// The files a crash leaves while SQLite starts a new WAL generation
    /// (<https://www.sqlite.org/walformat.html>): the previous generation was checkpointed into
    /// the database, then the next write rewrote the 32-byte WAL header (new salts) and, in two
    /// more writes, frame 1's 24-byte header and its page. Returns the database file as it was
    /// when the new generation began, and the WAL before and after that write.
    func walRestart(in folder: SQLiteTemporaryFolder, rows: Int) throws -> (database: Data, old: Data, new: Data, pageSize: Int) {
        let path = folder.path("live.sqlite")
        let db = try Database(path: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        defer { try? db.close() }
        try db.execute(sql: "PRAGMA user_version = 4242; PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0")
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, payload BLOB)")
        for _ in 0..<rows { try db.execute(sql: "INSERT INTO t(payload) VALUES (zeroblob(500))") }
        try db.execute(sql: "PRAGMA wal_checkpoint(FULL)")
        let database = try #require(sqliteFileBytes(path))
        let old = try #require(sqliteFileBytes(path + "-wal"))
        try db.execute(sql: "INSERT INTO t(payload) VALUES (zeroblob(500))")  // never acknowledged: the crash comes first
        let new = try #require(sqliteFileBytes(path + "-wal"))
        let pageSize = try #require(try db.fetchValue(sql: "PRAGMA page_size", as: Int64.self))
        #expect(new.prefix(32) != old.prefix(32), "SQLite restarted the WAL with new salts")
        return (database, old, new, Int(pageSize))
    }

    @Test("Every WAL a crash leaves while SQLite starts a new WAL generation opens normally, with all data")
    func crashDuringWALRestartOpens() throws {
        let folder = try SQLiteTemporaryFolder()
        let (database, old, new, pageSize) = try walRestart(in: folder, rows: 20)
        let frame = 24 + pageSize
        let states: [(String, Data)] = [
            ("new header + old frame 1", new.prefix(32) + old[32..<(32 + frame)]),
            ("new header + new frame header + old page bytes", new.prefix(32 + 24) + old[(32 + 24)..<(32 + frame)]),
            ("new header + every old frame", new.prefix(32) + old.dropFirst(32)),
            ("a header with no frames", new.prefix(32)),
        ]
        for (index, (label, wal)) in states.enumerated() {
            let path = folder.path("crashed-\(index).sqlite")
            try database.write(to: URL(fileURLWithPath: path))
            try wal.write(to: URL(fileURLWithPath: path + "-wal"))
            do {
                let pool = try DatabasePool(path: path)
                #expect(try pool.readSync { try $0.fetchValue(sql: "SELECT COUNT(*) FROM t", as: Int64.self) } == 20, "\(label)")
                try pool.writeSync { try $0.execute(sql: "INSERT INTO t(payload) VALUES (zeroblob(10))") }
                #expect(try pool.readSync { try $0.fetchValue(sql: "PRAGMA integrity_check", as: String.self) } == "ok", "\(label)")
                try pool.close()
            } catch {
                Issue.record("\(label): refused: \(error)")
            }
        }
    }

    @Test("A WAL whose header SQLite's recovery ignores (garbage, another page size) opens as SQLite reads it")
    func walWithInvalidHeaderOpensAsSQLiteReadsIt() throws {
        let folder = try SQLiteTemporaryFolder()
        let (database, old, _, _) = try walRestart(in: folder, rows: 7)
        var pageSize = old; pageSize[10] ^= 0x20
        let garbage = Data((0..<old.count).map { _ in UInt8.random(in: 0...255) })
        for (index, wal) in [garbage, pageSize].enumerated() {
            let path = folder.path("ignored-\(index).sqlite")
            try database.write(to: URL(fileURLWithPath: path))
            try wal.write(to: URL(fileURLWithPath: path + "-wal"))
            let pool = try DatabasePool(path: path)
            #expect(try pool.readSync { try $0.fetchValue(sql: "SELECT COUNT(*) FROM t", as: Int64.self) } == 7)
            try pool.close()
        }
    }

    @Test("A sound database with bytes after its last page opens: SQLite uses the header's page count")
    func bytesAfterTheLastPageAreIgnored() throws {
        let folder = try SQLiteTemporaryFolder()
        let path = folder.path("trailing.sqlite")
        try makeSQLiteTestDatabase(at: path, rows: 30)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data((0..<5000).map { _ in UInt8.random(in: 0...255) }))
        try handle.close()
        let pool = try DatabasePool(path: path)
        #expect(try pool.readSync { try $0.fetchValue(sql: "SELECT COUNT(*) FROM t", as: Int64.self) } == 30)
        try pool.close()
    }

    @Test("An index that no longer matches its table is refused (quick_check misses it, integrity_check does not)")
    func damagedIndexRefused() throws {
        let folder = try SQLiteTemporaryFolder()
        let path = folder.path("index.sqlite")
        let rootPage = try makeDatabaseWithDamagedIndex(at: path)
        let quick = try Database(path: path, flags: SQLITE_OPEN_READONLY)
        #expect(try quick.fetchValue(sql: "PRAGMA quick_check", as: String.self) == "ok", "the damage is one quick_check cannot see")
        try quick.close()
        let error = expectRefusal(path, naming: path)
        #expect(error?.isCorrupt == true)
        #expect(error?.message.contains("integrity_check") == true, "\(String(describing: error))")
        #expect(error?.message.contains("by_key") == true, "\(String(describing: error))")
        #expect(rootPage > 2, "the index has a page of its own")
        let problems = try DatabasePool.integrityProblems(path: path)
        #expect(problems.contains { $0.contains("missing from index by_key") }, "\(problems)")
    }

    @Test("Without the integrity check a damaged index opens, but a truncated file is still refused by its header's page count")
    func headerCheckAlone() throws {
        let folder = try SQLiteTemporaryFolder()
        var configuration = DatabaseConfiguration()
        configuration.checksIntegrity = false
        let damaged = folder.path("index.sqlite")
        _ = try makeDatabaseWithDamagedIndex(at: damaged)
        try DatabasePool(path: damaged, configuration: configuration).close()
        let cut = folder.path("cut.sqlite")
        try makeSQLiteTestDatabase(at: cut, rows: 400, payloadSize: 300)
        let bytes = try #require(sqliteFileBytes(cut))
        for size in [bytes.count / 2 / 4096 * 4096, bytes.count - 100] {
            try bytes.prefix(size).write(to: URL(fileURLWithPath: cut))
            let error = expectRefusal(cut, naming: cut, configuration: configuration)
            #expect(error?.isCorrupt == true, "cut to \(size) bytes: \(String(describing: error))")
            #expect(error?.message.contains("truncated") == true, "\(String(describing: error))")
        }
    }

    @Test("A WAL beside a missing database is refused (SQLite would delete it)")
    func orphanWALRefused() throws {
        let folder = try SQLiteTemporaryFolder()
        try crashSnapshot(of: folder.path("live.sqlite"), to: folder.path("copy.sqlite"), rows: 5)
        let path = folder.path("orphan.sqlite")
        try FileManager.default.moveItem(atPath: folder.path("copy.sqlite-wal"), toPath: path + "-wal")
        _ = expectRefusal(path, naming: path + "-wal")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    /// Tests run as root, which `access(2)` and open(2) let write anything; the guard also
    /// treats "no write bit at all" as a deliberate read-only marking, which works as root.
    @Test("A read-only database file or folder is refused at start-up with a clear error")
    func readOnlyRefused() throws {
        let folder = try SQLiteTemporaryFolder()
        let path = folder.path("db.sqlite")
        try makeSQLiteTestDatabase(at: path, rows: 3)
        #expect(chmod(path, 0o444) == 0)
        var error = expectRefusal(path, naming: path)
        #expect(error?.isReadOnly == true)
        #expect(error?.message.contains("is read-only") == true)
        // Read-only configuration is the supported way to open it.
        let reader = try DatabasePool(path: path, configuration: .init(readOnly: true))
        #expect(try reader.readSync { try $0.fetchValue(sql: "SELECT COUNT(*) FROM t", as: Int64.self) } == 3)
        #expect(expectSQLiteError { try reader.writeSync { try $0.execute(sql: "DELETE FROM t") } }?.isReadOnly == true)
        try reader.close()

        #expect(chmod(path, 0o644) == 0)
        #expect(chmod(folder.url.path, 0o555) == 0)
        defer { chmod(folder.url.path, 0o755) }
        error = expectRefusal(path, naming: folder.url.path)
        #expect(error?.isReadOnly == true)
        #expect(error?.message.contains("is read-only") == true)
    }
}
