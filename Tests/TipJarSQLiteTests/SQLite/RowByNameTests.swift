import Foundation
import Testing
import TipJar

@testable import SQLiteDatabase
@testable import TipJarSQLite

/// Reading a result column by its name (`sqlite3_column_name`, https://www.sqlite.org/c3ref/column_name.html):
/// the storage's decoders do, so a column's place in a `SELECT` does not matter and adding one is a name.
@Suite("Rows read by column name")
struct RowByNameTests {
    /// The same columns in the opposite order.
    static func reversed(_ columns: String) -> String {
        columns.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.reversed().joined(separator: ", ")
    }

    @Test func theStorageDecodersReadTheirColumnsWhateverTheirOrder() async throws {
        let world = try await TestWorld.make()
        defer { try? world.storage.pool.close() }
        let install = try await world.runningInstall(storefront: "BRA")
        _ = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        let stored = try #require(try await world.storage.install(withID: install.id))
        let transactions = try await world.storage.recentTransactions(limit: 10)
        let ledger = try await world.storage.ledger(installID: install.id, limit: 10)
        #expect(stored.hearts == 1 && transactions.count == 1 && !ledger.isEmpty)

        let (shuffledInstall, shuffledTransactions) = try world.storage.pool.readSync { db in
            let install = try db.cachedStatement(
                sql: """
                    SELECT \(Self.reversed(SQLiteTipJarStorage.installColumns)) FROM \(SQLiteTipJarStorage.installsWithAccounts)
                    WHERE installs.id = ?
                    """
            ).fetchOne(arguments: [install.id], SQLiteTipJarStorage.install)
            let transactions = try db.cachedStatement(sql: "SELECT \(Self.reversed(SQLiteTipJarStorage.transactionColumns)) FROM transactions")
                .fetchAll(SQLiteTipJarStorage.storedTransaction)
            return (install, transactions)
        }
        #expect(shuffledInstall == stored)
        #expect(shuffledTransactions == transactions)
    }

    @Test func anUnknownColumnNameThrowsADatabaseErrorNamingIt() throws {
        let folder = try SQLiteTemporaryFolder()
        let pool = try DatabasePool(path: folder.path("db.sqlite"))
        defer { try? pool.close() }
        let error = try pool.readSync { db in
            try db.cachedStatement(sql: "SELECT 1 AS hearts, 'a' AS label").fetchOne { row in
                expectSQLiteError { _ = try row.value(named: "heart", as: Int.self) }
            }
        }
        let unwrapped = try #require(error ?? nil)
        #expect(unwrapped.resultCode == 25, "SQLITE_RANGE")
        #expect(unwrapped.message.contains("\"heart\""), "names the column asked for: \(unwrapped.message)")
        #expect(unwrapped.message.contains("hearts, label"), "and the columns there are: \(unwrapped.message)")
    }

    @Test func aNameMatchesTheLeftmostColumnIgnoringCase() throws {
        let folder = try SQLiteTemporaryFolder()
        let pool = try DatabasePool(path: folder.path("db.sqlite"))
        defer { try? pool.close() }
        let read = try pool.readSync { db in
            try db.cachedStatement(sql: "SELECT 1 AS Hearts, 2 AS hearts, 3 AS label").fetchOne { row in
                (try row.value(named: "hearts", as: Int.self), try row.value(named: "HEARTS", as: Int.self), try row.value(named: "Label", as: Int.self))
            }
        }
        #expect(read.map { [$0.0, $0.1, $0.2] } == [1, 1, 3], "SQL compares names ignoring case: the leftmost wins")
    }

    /// Rows that read different names, or the same names in another order, each get their own columns: what a
    /// statement remembers of the last row's reads is a shortcut, never an answer.
    @Test func rowsThatReadOtherNamesInAnotherOrderGetTheirOwnColumns() throws {
        let folder = try SQLiteTemporaryFolder()
        let pool = try DatabasePool(path: folder.path("db.sqlite"))
        defer { try? pool.close() }
        try pool.writeSync { db in
            try db.execute(sql: "CREATE TABLE t(a INTEGER, b INTEGER, c INTEGER)")
            for i in 0..<6 { try db.execute(sql: "INSERT INTO t VALUES (?, ?, ?)", arguments: [i, 10 + i, 100 + i]) }
        }
        let orders = [["a", "b", "c"], ["c", "a"], ["b"], ["b", "c", "a"], ["a", "a", "c"], ["c", "b", "a"]]
        let read = try pool.readSync { db in
            var row = 0
            return try db.cachedStatement(sql: "SELECT a, b, c FROM t ORDER BY a").fetchAll { values in
                defer { row += 1 }
                return try orders[row].map { try values.value(named: $0, as: Int.self) }
            }
        }
        let expected = orders.enumerated().map { row, names in names.map { ["a": row, "b": 10 + row, "c": 100 + row][$0]! } }
        #expect(read == expected)
    }
}
