import Foundation
import TestSupport
import Testing

/// `tipjar serve` with late deliveries still waiting (Public/scenarios/README.md, "Rehearse these StoreKit traps"): a signal stops it
/// without waiting for them, and a charged transaction the stopped app never received reaches it at its first
/// launch after the restart.
@Suite("tipjar serve and late deliveries")
struct ServeLateDeliveryTests {
    /// A running `tipjar serve` on a free port. The blocking waits (its banner, its exit) run on threads of their own,
    /// so the tests beside this one keep the cooperative pool (two threads on a two-core machine).
    struct Serve: @unchecked Sendable {
        let process: ChildProcess
        let port: Int

        static func start(database: String) async throws -> Serve {
            let process = try ChildProcess(CommandLineTests.binary, arguments: ["serve", "--port", "0", "--database", database])
            let banner = await onThread { CommandLineTests.banner(process.standardOutput) }
            let address = try #require(banner.range(of: "http://127.0.0.1:"))
            return Serve(process: process, port: try #require(Int(banner[address.upperBound...].prefix { $0.isNumber })))
        }

        func json(_ method: String, _ target: String, _ body: String = "") async -> HTTPReply {
            var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
            if !body.isEmpty { head += "Content-Type: application/json\r\n" }
            head += "Content-Length: \(body.utf8.count)\r\n\r\n"
            return await TestClient.reply(port: port, head + body)
        }

        /// Sends SIGTERM and answers whether it exited cleanly within ten seconds (it is killed otherwise).
        func terminate() async -> Bool {
            await onThread { [self] in
                kill(process.processIdentifier, SIGTERM)
                if !process.waitForExit(seconds: 10) { kill(process.processIdentifier, SIGKILL) }
                process.waitUntilExit()
                return process.terminationReason == .exit && process.terminationStatus == 0
            }
        }
    }

    @Test func aSignalStopsServeAtOnceWhileAChargedDeliveryAndAMinuteLongReemitWait() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tipjar-late-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let database = directory.appendingPathComponent("tipjar.sqlite3").path
        let first = try await Serve.start(database: database)
        #expect(await first.json("PUT", "/api/store", #"{"listenerReemits":1,"listenerReemitDelayMs":60000}"#).status == 200)
        let created = await first.json("POST", "/api/installs", #"{"launch":true}"#)
        let id = try #require(created.object["id"] as? String)
        let tip = #"{"productID":"com.example.tipjar.tip.coffee"}"#
        #expect(await first.json("POST", "/api/installs/\(id)/purchases", tip).object["recordOutcome"] as? String == "counted")
        #expect(await first.json("PUT", "/api/store", #"{"chargedDespiteError":true}"#).status == 200)
        #expect(await first.json("POST", "/api/installs/\(id)/purchases", tip).object["outcome"] as? String == "failed")
        // Stopped at once, so the charged transaction's delivery (3 s later) finds no listener, whatever the machine's load.
        #expect(await first.json("POST", "/api/installs/\(id)/stop").status == 200)
        #expect(await first.terminate(), "serve exits cleanly without waiting for the 60 s re-emit or the charged delivery")

        let second = try await Serve.start(database: database)
        #expect(await second.json("PUT", "/api/store", #"{"chargedDespiteError":false}"#).status == 200)
        #expect(await second.json("POST", "/api/installs/\(id)/launch").status == 200)
        let ledger = await second.json("GET", "/api/installs/\(id)/ledger").array
        #expect(
            ledger.map { "\($0["path"] as? String ?? "") \($0["outcome"] as? String ?? "")" } == ["purchase counted", "launch counted"],
            "the charged transaction arrives at the first launch after the restart; the dropped re-emit never does")
        #expect(await second.json("GET", "/api/installs/\(id)").object["hearts"] as? Int == 2)
        #expect(await second.terminate())
    }
}
