import Foundation
import Testing

@testable import SQLiteDatabase
@testable import TipJarSQLite

@Suite("Database and Statement")
struct DatabaseTests {
    let folder: SQLiteTemporaryFolder
    let pool: DatabasePool

    init() throws {
        folder = try SQLiteTemporaryFolder()
        pool = try DatabasePool(path: folder.path("db.sqlite"))
        try pool.writeSync { db throws in
            try db.execute(
                sql: """
                    CREATE TABLE v(id INTEGER PRIMARY KEY, i INTEGER, s TEXT, d REAL, b INTEGER, bytes BLOB, data BLOB);
                    CREATE TABLE u(name TEXT NOT NULL UNIQUE)
                    """)
        }
    }

    @Test("Every supported Swift type round-trips through bind and column reads, 64-bit intact")
    func typesRoundTrip() throws {
        try pool.writeSync { db throws in
            try db.execute(
                sql: "INSERT INTO v(i, s, d, b, bytes, data) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [Int64.max, "pourboire ☕️", 2.5, true, [UInt8]([0, 1, 255]), Data([9, 8]) as Data?])
            #expect(db.lastInsertedRowID == 1)
            #expect(db.changes == 1)
            try db.execute(
                sql: "INSERT INTO v(i, s, data, bytes) VALUES (:i, :s, :data, :bytes)",
                arguments: ["i": Int.min, "s": nil, "data": nil as Data?, "bytes": [UInt8]()])
        }
        try pool.readSync { db throws in
            let statement = try db.cachedStatement(sql: "SELECT i, s, d, b, bytes, data FROM v ORDER BY id")
            var rows = 0
            try statement.forEachRow { row throws in
                rows += 1
                if rows == 1 {
                    #expect(try row.value(at: 0, as: Int64.self) == Int64.max)
                    #expect(try row.value(named: "S", as: String.self) == "pourboire ☕️")
                    #expect(try row.value(at: 2, as: Double.self) == 2.5)
                    #expect(try row.value(at: 3, as: Bool.self) == true)
                    #expect(try row.value(at: 4, as: [UInt8].self) == [0, 1, 255])
                    #expect(try row.value(named: "data", as: Data?.self) == Data([9, 8]))
                } else {
                    #expect(try row.value(at: 0, as: Int.self) == Int.min)
                    #expect(try row.value(at: 1, as: String?.self) == nil)
                    #expect(row[1] == .null)
                    #expect(try row.value(named: "data", as: Data?.self) == nil)
                    #expect(try row.value(at: 4, as: [UInt8].self) == [])
                }
            }
            #expect(rows == 2)
        }
    }

    @Test("Typed reads refuse mismatches instead of converting silently")
    func typedReadsAreStrict() throws {
        try pool.writeSync { db in try db.execute(sql: "INSERT INTO v(s) VALUES ('12')") }
        try pool.readSync { db throws in
            let error = expectSQLiteError { _ = try db.fetchValue(sql: "SELECT s FROM v", as: Int64.self) }
            #expect(error?.resultCode == 20)  // SQLITE_MISMATCH
            let missing = expectSQLiteError { _ = try db.fetchOne(sql: "SELECT s FROM v") { try $0.value(named: "nope", as: String.self) } }
            #expect(missing?.resultCode == 25)  // SQLITE_RANGE
        }
    }

    @Test("Cached statements are reused per SQL text and reset with cleared bindings")
    func statementCacheResets() throws {
        try pool.writeSync { db throws in
            let first = try db.cachedStatement(sql: "SELECT ?")
            try first.bind([Int64(42)])
            #expect(try first.step())
            let again = try db.cachedStatement(sql: "SELECT ?")
            #expect(first === again)
            #expect(try again.step())
            #expect(again.value(at: 0) == .null)  // bindings cleared, statement restarted
            #expect(try db.prepare(sql: "SELECT ?") !== first)
            // Whichever way the next user runs it: binding nothing finds NULL, binding finds its own values.
            try first.bind(["kept by nobody"])
            #expect(try db.cachedStatement(sql: "SELECT ?").fetchOne { $0[0] } == .null)
            try first.bind(["kept by nobody"])
            #expect(try db.cachedStatement(sql: "SELECT ?").fetchOne(arguments: ["mine"]) { $0[0] } == .text("mine"))
            // A bind that failed part-way leaves nothing either: a run that binds nothing then finds NULLs.
            let two = try db.cachedStatement(sql: "SELECT :a, :b")
            try two.bind(["a": 1, "b": 2])
            #expect(throws: DatabaseError.self) { try db.cachedStatement(sql: "SELECT :a, :b").bind(["a": 3]) }
            #expect(try db.cachedStatement(sql: "SELECT :a, :b").fetchOne { [$0[0], $0[1]] } == [.null, .null])
        }
    }

    @Test("Wrong argument counts and multiple statements in prepare are refused")
    func argumentValidation() throws {
        try pool.writeSync { db throws in
            #expect(expectSQLiteError { try db.execute(sql: "INSERT INTO v(i) VALUES (?)", arguments: [1, 2]) }?.resultCode == 25)
            #expect(expectSQLiteError { try db.execute(sql: "INSERT INTO v(i) VALUES (?)") }?.resultCode == 25)
            #expect(expectSQLiteError { try db.execute(sql: "INSERT INTO v(i) VALUES (:i)", arguments: ["j": 1]) }?.resultCode == 25)
            #expect(expectSQLiteError { _ = try db.prepare(sql: "SELECT 1; SELECT 2") }?.resultCode == 21)
            _ = try db.prepare(sql: "SELECT 1; -- trailing comment")
        }
    }

    @Test("DatabaseError carries the extended code, message and SQL but never bound values")
    func errorDescriptionOmitsValues() throws {
        let secret = "receipt-SECRET-123"
        let error = expectSQLiteError {
            try pool.writeSync { db throws in
                try db.execute(sql: "INSERT INTO u(name) VALUES (?)", arguments: [secret])
                try db.execute(sql: "INSERT INTO u(name) VALUES (?)", arguments: [secret])
            }
        }
        let unwrapped = try #require(error)
        #expect(unwrapped.isConstraintViolation)
        #expect(unwrapped.extendedResultCode == 2067)  // SQLITE_CONSTRAINT_UNIQUE
        #expect(unwrapped.sql == "INSERT INTO u(name) VALUES (?)")
        #expect(unwrapped.description.contains("SQLITE_CONSTRAINT"))
        #expect(unwrapped.description.contains("INSERT INTO u(name) VALUES (?)"))
        #expect(!unwrapped.description.contains(secret))
        #expect(try pool.readSync { try $0.fetchValue(sql: "SELECT COUNT(*) FROM u", as: Int64.self) } == 0)
    }

    @Test("inTransaction nests as a savepoint: an inner failure undoes only the inner work")
    func nestedTransactionIsSavepoint() throws {
        try pool.writeSync { db throws in
            try db.execute(sql: "INSERT INTO u(name) VALUES ('outer')")
            _ = try? db.inTransaction {
                try db.execute(sql: "INSERT INTO u(name) VALUES ('inner')")
                throw DatabaseError(extendedResultCode: 1, message: "boom")
            }
        }
        let names = try pool.readSync { try $0.fetchAll(sql: "SELECT name FROM u") { try $0.value(at: 0, as: String.self) } }
        #expect(names == ["outer"])
    }

    @Test("Statements held past close fail with SQLITE_MISUSE instead of crashing")
    func statementAfterClose() throws {
        let statement = try pool.readSync { try $0.cachedStatement(sql: "SELECT 1") }
        try pool.close()
        #expect(expectSQLiteError { _ = try statement.step() }?.resultCode == 21)
        #expect(expectSQLiteError { try pool.readSync { _ in } }?.resultCode == 21)
        try pool.close()  // idempotent
    }
}
