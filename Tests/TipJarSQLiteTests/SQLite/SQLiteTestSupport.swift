import Foundation
import Testing
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
    let queue = try DatabaseQueue(path: path)
    try queue.writeSync { db throws in
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, payload BLOB NOT NULL)")
        for _ in 0..<rows {
            try db.execute(sql: "INSERT INTO t(payload) VALUES (?)", arguments: [[UInt8](repeating: 7, count: payloadSize)])
        }
    }
    try queue.close()
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
