import Foundation
import Synchronization
import TestSupport
import Testing
import TipJar
import SQLiteDatabase
import TipJarSQLite

/// "Damage is found without a slow start": after a clean stop `tipjar serve` skips `PRAGMA integrity_check` at
/// start-up and runs it in the background once serving (`Sources/tipjar/ServeCommand+IntegrityCheck.swift`); on
/// damage every read and write of the storage answers 503 naming what the check found, so a damaged index can no
/// longer answer part of a ledger silently. Real files: the damage is one changed byte of an index leaf page,
/// written while the file is closed (<https://www.sqlite.org/fileformat2.html#b_tree_pages>).
@Suite("The background integrity check")
struct BackgroundIntegrityCheckTests {
    static let coffee = #"{"productID":"com.example.tipjar.tip.coffee"}"#
    /// How many purchases the install's ledger holds.
    static let purchases = 12

    /// The `deliveries_by_install` index's root page, a leaf for a ledger this small, with one byte of the install
    /// ID inside one of its cells changed (an index cell's record holds the key's text,
    /// <https://www.sqlite.org/fileformat2.html#record_format>): the entry now names no install.
    static func damageIndexCell(path: String, rootPage: Int, pageSize: Int, installID: String) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let page = (rootPage - 1) * pageSize
        #expect(bytes[page] == 0x0A, "the index's root page is a leaf index page")
        let cells = Int(bytes[page + 3]) << 8 | Int(bytes[page + 4])
        let pointer = page + 8 + 2 * (cells / 2)
        let cell = page + (Int(bytes[pointer]) << 8 | Int(bytes[pointer + 1]))
        let key = Array(installID.utf8)
        let start = try #require((cell..<(cell + 64)).first { Array(bytes[$0..<($0 + key.count)]) == key }, "the cell holds the install ID")
        let last = start + key.count - 1
        bytes[last] = bytes[last] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    @Test("A flipped byte in an index leaf of a cleanly closed file is found once serving: reads and writes answer 503 naming it")
    func damageFoundInTheBackgroundStopsReadsAndWrites() async throws {
        // A ledger, then a clean stop: SQLite's last connection checkpoints the -wal and deletes it.
        let first = try await LiveServer(database: DatabaseConfiguration(groupCommit: true))
        let installReply = await first.json("POST", "/api/installs", #"{"locale":"en","launch":true}"#)
        let id = try #require(installReply.object["id"] as? String)
        for _ in 0..<Self.purchases { #expect(await first.json("POST", "/api/installs/\(id)/purchases", Self.coffee).status == 200) }
        let (rootPage, pageSize) = try first.storage.pool.readSync { db in
            (
                try db.fetchValue(sql: "SELECT rootpage FROM sqlite_schema WHERE type = 'index' AND name = 'deliveries_by_install'", as: Int.self) ?? 0,
                try db.fetchValue(sql: "PRAGMA page_size", as: Int.self) ?? 0
            )
        }
        let path = first.databasePath
        await first.stop()
        defer { try? FileManager.default.removeItem(at: first.directory) }
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "closed cleanly")
        try Self.damageIndexCell(path: path, rootPage: rootPage, pageSize: pageSize, installID: id)

        // Opened as serve opens a cleanly closed file: the header checks only, no integrity_check.
        var configuration = DatabaseConfiguration(groupCommit: true)
        configuration.checksIntegrity = false
        let server = try await LiveServer(database: configuration, directory: first.directory)
        let silent = await server.json("GET", "/api/installs/\(id)/ledger")
        // Before the check the damage goes unseen: the ledger answers 200 (with fewer rows when the lookup crosses the
        // flipped cell, which depends on where the install's rows fell; not asserted, so the test holds for any ID).
        #expect(silent.status == 200)

        let outcome = Mutex<IntegrityCheckOutcome?>(nil)
        server.storage.checkIntegrityInBackground { result in outcome.withLock { $0 = result } }
        let reported = await eventually(timeout: .seconds(30)) { outcome.withLock { $0 } != nil }
        #expect(reported, "the background check ended")
        guard case .damaged(let problems, _, _) = outcome.withLock({ $0 }) else {
            Issue.record("the check did not report damage: \(String(describing: outcome.withLock { $0 }))")
            await server.stop()
            return
        }
        #expect(!problems.isEmpty)

        let ledger = await server.json("GET", "/api/installs/\(id)/ledger")
        #expect(ledger.status == 503)
        let message = ledger.object["error"] as? String ?? ""
        #expect(message.contains("PRAGMA integrity_check found"), "\(ledger.body)")
        #expect(message.contains(problems[0]), "it names what the check found")
        #expect(message.contains("tipjar check-database \(path)"))

        let overview = await server.send("GET", "/")
        #expect(overview.status == 503)
        #expect(overview.body.contains("is damaged"), "the overview page says so")
        #expect(overview.body.contains("tipjar check-database"))

        let purchase = await server.json("POST", "/api/installs/\(id)/purchases", Self.coffee)
        #expect(purchase.status == 503, "a write is refused")
        #expect((purchase.object["error"] as? String)?.contains("is damaged") == true)
        let install = await server.json("GET", "/api/installs/\(id)")
        #expect(install.status == 503, "a read by key is refused too")
        await server.stop()
    }
}
