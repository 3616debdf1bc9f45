import CSQLite
import Foundation
import Synchronization
import TestSupport
import Testing
import TipJar
import SQLiteDatabase
import TipJarSQLite

/// Database faults at the HTTP level: a locked database and a full disk answer 503 with nothing
/// half-written, and the server recovers when the lock or the space comes back; a request waits for
/// a lock once; a deleted `-wal` stops every acknowledgement, naming the file, and loses nothing.
@Suite("Database faults over HTTP")
struct DatabaseFaultTests {
    static let coffee = #"{"productID":"com.example.tipjar.tip.coffee"}"#

    func install(_ server: LiveServer) async throws -> String {
        let reply = await server.json("POST", "/api/installs", #"{"locale":"en","launch":true}"#)
        return try #require(reply.object["id"] as? String)
    }

    func snapshot(_ server: LiveServer, _ id: String) async -> (hearts: Int?, ledger: Int) {
        (await server.json("GET", "/api/installs/\(id)").object["hearts"] as? Int, await server.json("GET", "/api/installs/\(id)/ledger").array.count)
    }

    @Test func lockedLongerThanTheBusyTimeoutIs503ThenRecovers() async throws {
        try await withLiveServer(database: DatabaseConfiguration(durability: .normal, busyTimeout: .milliseconds(200), groupCommit: true)) { server in
            let id = try await install(server)
            #expect(await server.json("POST", "/api/installs/\(id)/purchases", Self.coffee).status == 200)
            let before = await snapshot(server, id)

            var other: OpaquePointer?
            #expect(sqlite3_open(server.databasePath, &other) == SQLITE_OK)
            #expect(sqlite3_exec(other, "BEGIN EXCLUSIVE", nil, nil, nil) == SQLITE_OK)
            let locked = await server.json("POST", "/api/installs/\(id)/purchases", Self.coffee)
            #expect(locked.status == 503)
            #expect((locked.object["error"] as? String)?.contains("locked") == true)
            let page = await server.send("POST", "/api/installs/\(id)/stop", fields: [("Content-Type", "application/json")])
            #expect(page.status == 503)
            #expect(sqlite3_exec(other, "ROLLBACK", nil, nil, nil) == SQLITE_OK)
            sqlite3_close(other)

            let after = await snapshot(server, id)
            #expect(after.hearts == before.hearts, "nothing half-written")
            #expect(after.ledger == before.ledger)
            let recovered = await server.json("POST", "/api/installs/\(id)/purchases", Self.coffee)
            #expect(recovered.status == 200)
            #expect(recovered.object["outcome"] as? String == "purchased")
        }
    }

    @Test func aPurchaseOnALockedDatabaseWaitsForTheLockOnce() async throws {
        try await withLiveServer(database: DatabaseConfiguration(durability: .normal, busyTimeout: .milliseconds(300), groupCommit: true)) { server in
            let id = try await install(server)
            var other: OpaquePointer?
            #expect(sqlite3_open(server.databasePath, &other) == SQLITE_OK)
            #expect(sqlite3_exec(other, "BEGIN EXCLUSIVE", nil, nil, nil) == SQLITE_OK)
            let waitsBefore = server.storage.pool.busyTimeoutCount
            // The store's insert and the handler's record are one storage operation; the purchase waits once.
            let locked = await server.json("POST", "/api/installs/\(id)/purchases", Self.coffee)
            #expect(locked.status == 503)
            #expect(server.storage.pool.busyTimeoutCount - waitsBefore == 1)
            #expect(sqlite3_exec(other, "ROLLBACK", nil, nil, nil) == SQLITE_OK)
            sqlite3_close(other)
            #expect(await server.json("POST", "/api/installs/\(id)/purchases", Self.coffee).status == 200)
        }
    }

    @Test func aDeletedWALIs503NamingTheFileLoggedOnceAndNothingAcknowledgedIsLost() async throws {
        let faults = Mutex<[DatabaseError]>([])
        try await withLiveServer(database: DatabaseConfiguration(groupCommit: true, onFault: { fault in faults.withLock { $0.append(fault) } })) { server in
            let id = try await install(server)
            #expect(await server.json("POST", "/api/installs/\(id)/purchases", Self.coffee).status == 200)
            #expect(unlink(server.databasePath + "-wal") == 0)
            for _ in 0..<2 {
                let refused = await server.json("POST", "/api/installs/\(id)/purchases", Self.coffee)
                #expect(refused.status == 503)
                #expect((refused.object["error"] as? String)?.contains(server.databasePath + "-wal") == true, "\(refused.body)")
            }
            #expect(faults.withLock { $0.count } == 1)
            #expect(await server.json("GET", "/api/installs/\(id)").object["hearts"] as? Int == 1, "reads still answer")
            // A crash now leaves the database file alone: the install and its purchase are in it.
            let copy = server.directory.appendingPathComponent("after-crash.sqlite3").path
            try FileManager.default.copyItem(atPath: server.databasePath, toPath: copy)
            let reopened = try SQLiteTipJarStorage(path: copy)
            #expect(try await reopened.install(withID: id)?.hearts == 1)
            try reopened.pool.close()
        }
    }

    @Test func diskFullIsAClearErrorAndTheNextPurchaseAfterSpaceIsFreedSucceeds() async throws {
        try await withLiveServer { server in
            let id = try await install(server)
            #expect(await server.json("POST", "/api/installs/\(id)/purchases", Self.coffee).status == 200)
            let before = await snapshot(server, id)

            let pages = try server.storage.pool.writeSync { db in try db.fetchValue(sql: "PRAGMA page_count", as: Int64.self) ?? 0 }
            _ = try server.storage.pool.writeSync { db in try db.fetchValue(sql: "PRAGMA max_page_count = \(pages)", as: Int64.self) }
            var full: HTTPReply?
            for _ in 0..<200 {
                let reply = await server.json("POST", "/api/installs/\(id)/purchases", Self.coffee)
                if reply.status != 200 { full = reply; break }
            }
            let refusal = try #require(full, "the database never filled up")
            #expect(refusal.status == 503)
            #expect((refusal.object["error"] as? String)?.contains("full") == true)

            let counted = await server.json("GET", "/api/installs/\(id)/ledger").array.filter { $0["outcome"] as? String == "counted" }.count
            let hearts = await server.json("GET", "/api/installs/\(id)").object["hearts"] as? Int
            #expect(hearts == min(5, counted), "hearts and ledger stay consistent")
            #expect((before.hearts ?? 0) <= (hearts ?? 0))

            _ = try server.storage.pool.writeSync { db in try db.fetchValue(sql: "PRAGMA max_page_count = 1073741823", as: Int64.self) }
            let next = await server.json("POST", "/api/installs/\(id)/purchases", Self.coffee)
            #expect(next.status == 200)
            #expect(next.object["outcome"] as? String == "purchased")
        }
    }
}
