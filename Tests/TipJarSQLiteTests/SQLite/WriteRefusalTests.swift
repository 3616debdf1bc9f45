import CSQLite
import Foundation
import Synchronization
import TestSupport
import Testing
import TipJar

@testable import SQLiteDatabase
@testable import TipJarSQLite

/// "A server never acknowledges a write that cannot survive", and a locked database costs a
/// caller one busy timeout, not one per write it queued.
@Suite("Write refusals")
struct WriteRefusalTests {
    /// Collects the faults a queue reports through `DatabaseConfiguration.onFault`.
    final class FaultLog: Sendable {
        let faults = Mutex<[DatabaseError]>([])
        var configuration: DatabaseConfiguration {
            DatabaseConfiguration(groupCommit: true, onFault: { fault in self.faults.withLock { $0.append(fault) } })
        }
    }

    @Test("A write queued while another write waits for a lock fails with it, without waiting again")
    func oneLockWaitPerCaller() async throws {
        let folder = try SQLiteTemporaryFolder()
        let path = folder.path("db.sqlite")
        let queue = try DatabasePool(path: path, configuration: .init(busyTimeout: .seconds(1), groupCommit: true))
        try queue.writeSync { db in try db.execute(sql: "CREATE TABLE t(x INTEGER)") }
        let blocker = try Database(path: path, flags: SQLITE_OPEN_READWRITE)
        try blocker.execute(sql: "BEGIN EXCLUSIVE")

        let submitted = Mutex<(any Error)?>(nil)
        queue.writer.submit({ db in try db.execute(sql: "INSERT INTO t VALUES (1)") }) { result in
            if case .failure(let error) = result { submitted.withLock { $0 = error } }
        }
        #expect(eventuallyBlocking { queue.pendingWriteCount == 0 })  // the writer took it and waits for the lock
        await #expect(throws: DatabaseError.self) {
            try await queue.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        }
        #expect((submitted.withLock { $0 } as? DatabaseError)?.isBusy == true)
        #expect(queue.busyTimeoutCount == 1, "the second write shared the first one's wait")

        // A write queued after the wait ended waits for the lock itself, once.
        await #expect(throws: DatabaseError.self) {
            try await queue.write { db in try db.execute(sql: "INSERT INTO t VALUES (3)") }
        }
        #expect(queue.busyTimeoutCount == 2)
        try blocker.execute(sql: "ROLLBACK")
        try await queue.write { db in try db.execute(sql: "INSERT INTO t VALUES (4)") }
        #expect(try queue.readSync { try $0.fetchAll(sql: "SELECT x FROM t") { try $0.value(at: 0, as: Int64.self) } } == [4])
        try blocker.close()
        try queue.close()
    }

    @Test("A purchase's issue and record, one operation, wait for a lock once")
    func issueThenRecordWaitsForALockOnce() async throws {
        let world = try await TestWorld.make(database: DatabaseConfiguration(busyTimeout: .milliseconds(200), groupCommit: true))
        let install = try await world.runningInstall()
        let blocker = try Database(path: world.path, flags: SQLITE_OPEN_READWRITE)
        try blocker.execute(sql: "BEGIN EXCLUSIVE")
        let transaction = Transaction(id: 9_001, productID: TestWorld.coffee, purchaseDate: TestWorld.epoch, storefront: "USA")
        let waits = world.storage.pool.busyTimeoutCount
        let delivery = Delivery(
            installID: install.id, transactionID: 9_001, productID: TestWorld.coffee, path: .purchase,
            outcome: .counted, finished: true, at: TestWorld.epoch)
        let error = await #expect(throws: DatabaseError.self) {
            try await world.storage.issue(
                StoredTransaction(
                    transaction: transaction, accountID: install.accountID, installID: install.id,
                    status: .purchased), thenRecord: delivery)
        }
        #expect(error?.isBusy == true)
        #expect(world.storage.pool.busyTimeoutCount - waits == 1, "the record did not wait for the lock again")
        try blocker.execute(sql: "ROLLBACK")
        try blocker.close()
        #expect(try await world.storage.transaction(withID: 9_001) == nil)
    }

    @Test("A deleted -wal stops writes for good, naming the file, reported once; its commits were checkpointed first")
    func deletedWALStopsWrites() async throws {
        let folder = try SQLiteTemporaryFolder()
        let path = folder.path("db.sqlite")
        let log = FaultLog()
        let queue = try DatabasePool(path: path, configuration: log.configuration)
        try await queue.write { db in try db.execute(sql: "CREATE TABLE t(x INTEGER)") }
        for x in 1...10 { try await queue.write { db in try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [x]) } }
        #expect(unlink(path + "-wal") == 0)

        for x in 11...12 {
            do {
                try await queue.write { db in try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [x]) }
                Issue.record("write \(x) was acknowledged after its -wal was deleted")
            } catch let error as DatabaseError {
                #expect(error.isFileMoved)
                #expect(error.path == path + "-wal")
                #expect(error.message.contains(path + "-wal"))
            }
        }
        #expect(log.faults.withLock { $0.count } == 1)
        #expect(log.faults.withLock { $0.first?.message.contains("copied into \(path)") } == true)

        // A crash now leaves only the database file: it holds every acknowledged write.
        let crashed = folder.path("after-crash.sqlite")
        try FileManager.default.copyItem(atPath: path, toPath: crashed)
        let reopened = try DatabasePool(path: crashed)
        #expect(try reopened.readSync { try $0.fetchValue(sql: "SELECT COUNT(*) FROM t", as: Int64.self) } == 10)
        try reopened.close()
        try queue.close()
    }

    @Test("A database file replaced while open stops writes, naming the file")
    func replacedDatabaseStopsWrites() async throws {
        let folder = try SQLiteTemporaryFolder()
        let path = folder.path("db.sqlite")
        let log = FaultLog()
        let queue = try DatabasePool(path: path, configuration: log.configuration)
        try await queue.write { db in try db.execute(sql: "CREATE TABLE t(x INTEGER)") }
        try makeSQLiteTestDatabase(at: folder.path("other.sqlite"), rows: 1)
        #expect(rename(folder.path("other.sqlite"), path) == 0)
        do {
            try await queue.write { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
            Issue.record("a write was acknowledged into a database file no path names")
        } catch let error as DatabaseError {
            #expect(error.isFileMoved)
            #expect(error.path == path)
            #expect(error.message.contains("another file is there now"))
        }
        #expect(log.faults.withLock { $0.count } == 1)
        try queue.close()
    }
}
