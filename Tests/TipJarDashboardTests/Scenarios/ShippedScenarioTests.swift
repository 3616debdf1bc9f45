import Foundation
import Synchronization
import Testing
import TipJarScenario

/// The scenarios shipped in `Public/scenarios/` (one per row of Public/scenarios/README.md's "Rehearse these
/// StoreKit traps" table), run against a real dashboard, and the `tipjar scenario run` exit codes.
@Suite("shipped scenarios")
struct ShippedScenarioTests {
    static var folder: URL { LiveServer.repositoryRoot.appendingPathComponent("Public/scenarios") }

    static var shippedFiles: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0.hasSuffix(".json") }.sorted()
    }

    /// Runs a scenario in process against a fresh `LiveServer`.
    static func run(_ scenario: Scenario, file: String = "test.json") async throws -> ScenarioResult {
        try await withLiveServer { server in
            // Notifications are sent as `serve` sends them (a failingServer step watches the attempts).
            let notifications = Task { await server.stack.runNotifications() }
            defer { notifications.cancel() }
            return await ScenarioRunner(transport: server.stack.scenarioTransport, output: { _ in })
                .run(scenario, file: file)
        }
    }

    @Test func everyTrapOfTheScenariosREADMEHasAShippedScenario() throws {
        let readme = try String(contentsOf: Self.folder.appendingPathComponent("README.md"), encoding: .utf8)
        let rows = readme.components(separatedBy: "\n").filter { $0.range(of: #"^\| (\d+)\. "#, options: .regularExpression) != nil }
        #expect(rows.count == 16)
        for number in 1...rows.count {
            let prefix = String(format: "trap-%02d-", number)
            #expect(Self.shippedFiles.contains { $0.hasPrefix(prefix) }, "no \(prefix)*.json for trap \(number)")
        }
    }

    @Test(arguments: shippedFiles)
    func eachShippedScenarioPasses(_ file: String) async throws {
        let scenario = try Scenario.load(contentsOf: Self.folder.appendingPathComponent(file).path)
        let result = try await Self.run(scenario, file: file)
        let failure = result.firstFailure.map(\.line) ?? ""
        #expect(result.passed, "\(file): \(failure)")
        #expect(result.steps.allSatisfy { $0.verdict == .passed })
    }

    @Test func theCommandRunsEveryShippedScenarioAndWritesJUnit() async throws {
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("junit-\(UUID().uuidString).xml")
        let files = Self.shippedFiles.map { Self.folder.appendingPathComponent($0).path }
        let run = try await CommandLineTests.run(["scenario", "run"] + files + ["--junit", report.path], timeout: .seconds(120))
        #expect(run.status == 0, "\(run.output)\(run.error)")
        #expect(run.output.contains("all \(files.count) scenarios passed"), "a real plural, not scenario(s)")
        let xml = try String(contentsOf: report, encoding: .utf8)
        #expect(xml.components(separatedBy: "<testsuite ").count - 1 == files.count)
        #expect(xml.contains(#"failures="0" errors="0">"#))
    }

    @Test func aScenarioExpectingAWrongHeartCountFailsNamingTheStepAndExits1() async throws {
        let original = try String(
            contentsOf: Self.folder.appendingPathComponent("trap-01-purchase-and-listener-report-the-same-transaction.json"),
            encoding: .utf8)
        let edited = original.replacingOccurrences(of: #""hearts": 1,"#, with: #""hearts": 2,"#)
        #expect(edited != original)
        let file = try ScenarioFiles.write(edited)
        let report = file.deletingPathExtension().appendingPathExtension("xml")
        let run = try await CommandLineTests.run(["scenario", "run", file.path, "--junit", report.path])
        #expect(run.status == 1)
        #expect(run.output.contains("FAIL 3 purchase ana com.example.tipjar.tip.coffee"))
        #expect(run.output.contains("FAILED \(file.path) step 3 (purchase ana com.example.tipjar.tip.coffee): hearts: expected 2, got 1"))
        let xml = try String(contentsOf: report, encoding: .utf8)
        #expect(xml.contains(#"<failure message="hearts: expected 2, got 1""#))
    }

    @Test func runAgainstARunningServerWithURL() async throws {
        let run = try await withLiveServer(transport: .live) { server in
            let file = Self.folder.appendingPathComponent("trap-09-removed-product-arrives-through-the-listener.json").path
            let origin = server.origin
            return try? await CommandLineTests.run(["scenario", "run", file, "--url", origin])
        }
        #expect(run?.status == 0, "\(run?.output ?? "")\(run?.error ?? "")")
        #expect(run?.output.contains("ok   3 externalPurchase ana com.example.tipjar.tip.dessert: 201") == true)
    }

    @Test func anUnreachableURLFailsTheFirstStepAndExits1() async throws {
        let file = Self.folder.appendingPathComponent("trap-01-purchase-and-listener-report-the-same-transaction.json").path
        let run = try await CommandLineTests.run(["scenario", "run", file, "--url", "http://127.0.0.1:1"])
        #expect(run.status == 1)
        #expect(run.output.contains("FAIL 1 store"))
        #expect(run.output.contains("connect to 127.0.0.1:1"))
    }
}

/// Temporary scenario files for tests.
enum ScenarioFiles {
    static func write(_ text: String, name: String = "scenario.json") throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tipjar-scenario-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: file)
        return file
    }
}

/// A scenario rehearses against the dashboard a person uses: whatever notification settings it changes, the run puts
/// back as it found them (Sources/TipJarScenario/ScenarioSession.swift, `restoreSettings()`).
@Suite("scenario runs leave the notification settings alone")
struct ScenarioSettingsRestoreTests {
    @Test func aShippedScenarioThatSetsANotificationsURLPutsTheUsersBackWhenItEnds() async throws {
        let file = "a-refund-request-a-server-answers.json"
        let scenario = try Scenario.load(contentsOf: ShippedScenarioTests.folder.appendingPathComponent(file).path)
        try await withLiveServer { server in
            let mine = #"{"url":"http://127.0.0.1:9000/my-backend","timeScale":7}"#
            #expect(await server.json("PUT", "/api/notifications/settings", mine).status == 200)
            let lines = Mutex<[String]>([])
            let result = await ScenarioRunner(transport: server.stack.scenarioTransport, output: { line in lines.withLock { $0.append(line) } })
                .run(scenario, file: file)
            #expect(result.passed, "\(result.firstFailure.map(\.line) ?? "")")
            let after = await server.json("GET", "/api/notifications/settings").object
            #expect(after["url"] as? String == "http://127.0.0.1:9000/my-backend" && after["timeScale"] as? Int == 7, "\(after)")
            #expect(lines.withLock { $0.contains { $0.contains("restored the notification settings") } })
        }
    }

    @Test func aScenarioThatFailsHalfwayStillPutsTheSettingsBack() async throws {
        let text = """
            {"name": "stops after changing the URL", "steps": [
              {"step": "notifications", "url": "http://127.0.0.1:9/elsewhere", "timeScale": 3600000},
              {"step": "createInstall", "install": "ana", "account": "ana", "launch": true},
              {"step": "expectNotification", "install": "ana", "type": "REFUND", "timeoutMs": 1}
            ]}
            """
        try await withLiveServer { server in
            #expect(await server.json("PUT", "/api/notifications/settings", #"{"url":"http://127.0.0.1:9000/mine","timeScale":1}"#).status == 200)
            let result = await ScenarioRunner(transport: server.stack.scenarioTransport, output: { _ in })
                .run(try Scenario(data: Data(text.utf8), file: "x.json"), file: "x.json")
            #expect(!result.passed)
            let after = await server.json("GET", "/api/notifications/settings").object
            #expect(after["url"] as? String == "http://127.0.0.1:9000/mine" && after["timeScale"] as? Int == 1, "\(after)")
        }
    }
}
