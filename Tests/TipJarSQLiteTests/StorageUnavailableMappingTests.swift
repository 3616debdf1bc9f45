import CSQLite
import Foundation
import Testing
import TipJar

@testable import SQLiteDatabase
@testable import TipJarSQLite

/// The SQLite adapter names its failures in the core's words (`StorageUnavailable`), so the web layer
/// classifies them without knowing SQLite's result codes (<https://www.sqlite.org/rescode.html>).
@Suite("Storage unavailable: SQLite's errors in the core's words")
struct StorageUnavailableMappingTests {
    /// Each extended result code and the case it maps to (`nil`: not the storage being unavailable).
    static let codes: [(Int32, StorageUnavailable?)] = [
        (SQLITE_BUSY, .locked), (SQLITE_BUSY | (2 << 8), .locked),  // SQLITE_BUSY_SNAPSHOT
        (SQLITE_LOCKED, .locked),
        (SQLITE_FULL, .diskFull),
        (SQLITE_CORRUPT, .damaged), (SQLITE_CORRUPT | (1 << 8), .damaged),  // SQLITE_CORRUPT_VTAB
        (SQLITE_READONLY, .readOnly), (SQLITE_READONLY | (1 << 8), .readOnly),  // SQLITE_READONLY_RECOVERY
        (DatabaseFileWatch.movedCode, .fileMoved(path: "/data/tipjar.sqlite3-wal")),
        (SQLITE_CONSTRAINT | (6 << 8), nil),  // SQLITE_CONSTRAINT_PRIMARYKEY
        (SQLITE_MISUSE, nil), (SQLITE_ERROR, nil), (SQLITE_IOERR, nil),
    ]

    @Test("Every SQLite result code maps to the core's case, a moved file naming its path", arguments: 0..<codes.count)
    func resultCodeMapsToTheCoresCase(_ index: Int) {
        let (code, expected) = Self.codes[index]
        let error = DatabaseError(extendedResultCode: code, message: "test", path: "/data/tipjar.sqlite3-wal")
        #expect(StorageUnavailable.of(error) == expected)
    }

    @Test("A write on a database another process holds locked throws what the core calls locked")
    func lockedDatabaseIsLocked() async throws {
        let world = try await TestWorld.make(database: DatabaseConfiguration(durability: .normal, busyTimeout: .zero, groupCommit: true))
        var other: OpaquePointer?
        #expect(sqlite3_open(world.path, &other) == SQLITE_OK)
        defer { sqlite3_close(other) }
        #expect(sqlite3_exec(other, "BEGIN IMMEDIATE", nil, nil, nil) == SQLITE_OK)
        do {
            _ = try await world.service.createInstall(locale: .en, storefront: nil)
            Issue.record("a write was acknowledged while another process held the lock")
        } catch {
            #expect(StorageUnavailable.of(error) == .locked)
        }
        #expect(sqlite3_exec(other, "ROLLBACK", nil, nil, nil) == SQLITE_OK)
    }

    @Test("A database at its size limit throws what the core calls a full disk")
    func fullDatabaseIsDiskFull() async throws {
        let world = try await TestWorld.make()
        let pages = try world.storage.pool.readSync { try $0.fetchValue(sql: "PRAGMA page_count", as: Int64.self) } ?? 0
        try world.storage.pool.writeSync { db in try db.execute(sql: "PRAGMA max_page_count = \(pages)") }
        let label = String(repeating: "x", count: 100)
        do {
            for _ in 0..<10_000 { _ = try await world.service.createInstall(locale: .en, storefront: nil, label: label) }
            Issue.record("10,000 installs fit in a database limited to its first \(pages) pages")
        } catch {
            #expect(StorageUnavailable.of(error) == .diskFull)
        }
    }

    @Test("A duplicate install ID is a broken constraint, not the storage being unavailable")
    func constraintIsNotUnavailable() async throws {
        let world = try await TestWorld.make()
        let install = try await world.service.createInstall(locale: .en, storefront: nil)
        let error = await #expect(throws: DatabaseError.self) { try await world.storage.insert(install) }
        #expect(error.map { StorageUnavailable.of($0) } == .some(nil))
    }
}
