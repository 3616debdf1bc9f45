import Foundation
import Testing

@testable import SQLiteDatabase
@testable import TipJarSQLite

/// A fresh folder under the system temp dir, removed (with permissions restored) on deinit.
final class SQLiteTemporaryFolder {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("tipjar-sqlite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    deinit {
        chmod(url.path, 0o755)
        try? FileManager.default.removeItem(at: url)
    }
}

/// The exact bytes of a file (or nil if absent): compared before/after to prove a refused
/// file was not modified.
func sqliteFileBytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

/// Creates a database with a table `t` holding `rows` rows, then closes it cleanly
/// (checkpointed, no -wal left).
func makeSQLiteTestDatabase(at path: String, rows: Int, payloadSize: Int = 100) throws {
    let pool = try DatabasePool(path: path)
    try pool.writeSync { db throws in
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, payload BLOB NOT NULL)")
        for _ in 0..<rows {
            try db.execute(sql: "INSERT INTO t(payload) VALUES (?)", arguments: [[UInt8](repeating: 7, count: payloadSize)])
        }
    }
    try pool.close()
}

/// Creates a database whose index `by_key` no longer matches its table `t`, as one damaged
/// sector would leave it: one key in the index's leaf page is changed (`key-00420` becomes
/// `key-00425`, so the page stays in key order and `PRAGMA quick_check` still answers ok).
/// - Returns: The index's root page, the page that was changed.
@discardableResult
func makeDatabaseWithDamagedIndex(at path: String) throws -> Int {
    let pool = try DatabasePool(path: path)
    let (rootPage, pageSize) = try pool.writeSync { db throws in
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, key TEXT NOT NULL)")
        try db.execute(sql: "CREATE INDEX by_key ON t(key)")
        for id in 1...50 { try db.execute(sql: "INSERT INTO t(id, key) VALUES (?, ?)", arguments: [id, "key-\(String(format: "%05d", id * 10))"]) }
        return (
            try db.fetchValue(sql: "SELECT rootpage FROM sqlite_master WHERE name = 'by_key'", as: Int64.self) ?? 0,
            try db.fetchValue(sql: "PRAGMA page_size", as: Int64.self) ?? 0
        )
    }
    try pool.close()
    var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    let page = Int(rootPage - 1) * Int(pageSize)
    let key = Array("key-00420".utf8)
    let offset = try #require((page..<(page + Int(pageSize) - key.count)).first { Array(bytes[$0..<($0 + key.count)]) == key })
    bytes[offset + key.count - 1] = UInt8(ascii: "5")
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return Int(rootPage)
}

/// Asserts that `body` throws a `DatabaseError` and returns it.
func expectSQLiteError(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) -> DatabaseError? {
    do {
        try body()
        Issue.record("expected a DatabaseError", sourceLocation: sourceLocation)
        return nil
    } catch let error as DatabaseError {
        return error
    } catch {
        Issue.record("expected a DatabaseError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
