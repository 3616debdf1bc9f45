import CSQLite
import Foundation
import Synchronization
import TestSupport
import Testing
import TipJar

@testable import SQLiteDatabase
@testable import TipJarSQLite

/// The storage side of the background `PRAGMA integrity_check` (`Sources/SQLiteDatabase/BackgroundIntegrityCheck.swift`,
/// <https://www.sqlite.org/pragma.html#pragma_integrity_check>): it finds what start-up skipped, the pool then refuses
/// every read and write as damaged, and closing the pool stops it first. Real files.
@Suite("Background integrity check (storage)")
struct BackgroundIntegrityCheckStorageTests {
    /// Waits (bounded) for the check's answer.
    private static func outcome(of pool: DatabasePool, cpuShare: Double = 0.5) async -> Result<[String], any Error>? {
        let answer = Mutex<Result<[String], any Error>?>(nil)
        pool.checkIntegrityInBackground(cpuShare: cpuShare) { result in answer.withLock { $0 = result } }
        _ = await eventually(timeout: .seconds(30)) { answer.withLock { $0 } != nil }
        return answer.withLock { $0 }
    }

    @Test("A damaged index in a file opened without the check is found in the background")
    func damageStartUpSkippedIsFound() async throws {
        let folder = try SQLiteTemporaryFolder()
        let path = folder.path("db.sqlite")
        try makeDatabaseWithDamagedIndex(at: path)
        var configuration = DatabaseConfiguration()
        configuration.checksIntegrity = false
        let pool = try DatabasePool(path: path, configuration: configuration)
        let problems = try #require(try await Self.outcome(of: pool)?.get())
        #expect(problems.contains { $0.contains("by_key") }, "\(problems)")
        try pool.close()
    }

    @Test("A sound file passes, and the pool goes on reading and writing")
    func soundFilePasses() async throws {
        let folder = try SQLiteTemporaryFolder()
        let path = folder.path("db.sqlite")
        try makeSQLiteTestDatabase(at: path, rows: 200)
        let pool = try DatabasePool(path: path)
        #expect(try await Self.outcome(of: pool)?.get() == [])
        try await pool.write { db in try db.execute(sql: "INSERT INTO t(payload) VALUES (x'00')") }
        #expect(try pool.readSync { try $0.fetchValue(sql: "SELECT COUNT(*) FROM t", as: Int64.self) } == 201)
        try pool.close()
    }

    @Test("Once damage is found every read and write fails as damaged, naming what the check found")
    func damagedStorageRefusesEverything() async throws {
        let folder = try SQLiteTemporaryFolder()
        let path = folder.path("db.sqlite")
        try makeSQLiteTestDatabase(at: path, rows: 3)
        let pool = try DatabasePool(path: path)
        let damage = SQLiteTipJarStorage.damage(path: path, problems: ["row 2 missing from index by_key"])
        pool.refuseAll(with: damage)
        for attempt in 0..<2 {
            let read = #expect(throws: DatabaseError.self) { try pool.readSync { try $0.fetchValue(sql: "SELECT COUNT(*) FROM t", as: Int64.self) } }
            let pointRead = #expect(throws: DatabaseError.self) { try pool.pointRead { try $0.fetchValue(sql: "SELECT 1", as: Int64.self) } }
            let write = await #expect(throws: DatabaseError.self) { try await pool.write { db in try db.execute(sql: "DELETE FROM t") } }
            for error in [read, pointRead, write] {
                #expect(error.flatMap { StorageUnavailable.of($0) } == .damaged, "attempt \(attempt)")
                #expect(error.flatMap { StorageUnavailable.detail(of: $0) }?.contains("tipjar check-database \(path)") == true)
                #expect(error.flatMap { StorageUnavailable.detail(of: $0) }?.contains("row 2 missing from index by_key") == true)
            }
        }
        try pool.close()
        let reopened = try DatabasePool(path: path)
        #expect(try reopened.readSync { try $0.fetchValue(sql: "SELECT COUNT(*) FROM t", as: Int64.self) } == 3, "nothing was written")
        try reopened.close()
    }

    @Test("Closing the pool stops a running check first, so the last connection still deletes the -wal")
    func closeStopsTheCheck() async throws {
        let folder = try SQLiteTemporaryFolder()
        let path = folder.path("db.sqlite")
        try makeSQLiteTestDatabase(at: path, rows: 20_000)
        let pool = try DatabasePool(path: path)
        try await pool.write { db in try db.execute(sql: "INSERT INTO t(payload) VALUES (x'00')") }
        let answer = Mutex<Result<[String], any Error>?>(nil)
        pool.checkIntegrityInBackground(cpuShare: 0.05) { result in answer.withLock { $0 = result } }
        try pool.close()
        let ended = answer.withLock { $0 }
        switch ended {
        case .success(let problems): #expect(problems.isEmpty, "the check finished before the close")
        case .failure(let error): #expect((error as? DatabaseError)?.resultCode == SQLITE_INTERRUPT, "\(error)")
        case nil: Issue.record("close() returned while the check still ran")
        }
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }
}
