import Foundation
import Testing
@testable import TipJarSQLite

/// "A bad database file must never be made worse": each refusal names the file and leaves
/// the database (and its -wal) byte-for-byte unchanged.
@Suite("Opening safety")
struct DatabaseFileGuardTests {
    /// Opens `path`, expects a refusal naming `named`, and checks the files did not change.
    func expectRefusal(_ path: String, naming named: String, configuration: DatabaseConfiguration = .init(),
                       sourceLocation: SourceLocation = #_sourceLocation) -> DatabaseError? {
        let before = (sqliteFileBytes(path), sqliteFileBytes(path + "-wal"))
        let error = expectSQLiteError({ _ = try DatabaseQueue(path: path, configuration: configuration) }, sourceLocation: sourceLocation)
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
        let queue = try DatabaseQueue(path: source)
        try queue.writeSync { db throws in
            try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, payload BLOB)")
            for _ in 0..<rows { try db.execute(sql: "INSERT INTO t(payload) VALUES (zeroblob(500))") }
        }
        try FileManager.default.copyItem(atPath: source, toPath: destination)
        try FileManager.default.copyItem(atPath: source + "-wal", toPath: destination + "-wal")
        try queue.close()
    }

    @Test("A crash-left WAL of the same database is accepted and its commits recovered")
    func ownWALIsRecovered() throws {
        let folder = try SQLiteTemporaryFolder()
        let path = folder.path("crashed.sqlite")
        try crashSnapshot(of: folder.path("live.sqlite"), to: path, rows: 20)
        let queue = try DatabaseQueue(path: path)
        #expect(try queue.readSync { try $0.fetchValue(sql: "SELECT COUNT(*) FROM t", as: Int64.self) } == 20)
        try queue.close()
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

    @Test("A damaged WAL (garbage, wrong page size, bad checksum) is refused, naming the -wal file")
    func damagedWALRefused() throws {
        let folder = try SQLiteTemporaryFolder()
        let source = folder.path("crashed.sqlite")
        try crashSnapshot(of: folder.path("live.sqlite"), to: source, rows: 5)
        let wal = try #require(sqliteFileBytes(source + "-wal"))
        var mutations: [(String, Data)] = [("garbage", Data((0..<wal.count).map { _ in UInt8.random(in: 0...255) }))]
        var pageSize = wal; pageSize[10] ^= 0x20; mutations.append(("page size", pageSize))
        var frame = wal; frame[32 + 24 + 100] ^= 0xFF; mutations.append(("frame checksum", frame))
        for (index, (label, bytes)) in mutations.enumerated() {
            let path = folder.path("damaged-\(index).sqlite")
            try FileManager.default.copyItem(atPath: source, toPath: path)
            try bytes.write(to: URL(fileURLWithPath: path + "-wal"))
            let error = expectRefusal(path, naming: path + "-wal")
            #expect(error?.isNotADatabase == true, "\(label)")
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
        let reader = try DatabaseQueue(path: path, configuration: .init(readOnly: true))
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
