import SQLiteDatabase
import Foundation
import HTTPServer
import TipJar
import TipJarDashboard
import TipJarSQLite
import TipJarScenario

/// `tipjar scenario run FILE… [--junit OUT.xml] [--url URL]`: runs scenario files
/// (Public/scenarios/README.md), each against a fresh dashboard on a temporary SQLite database and a loopback port
/// (or, with `--url`, against a running server). Exits 0 when every step held, 1 when one failed,
/// 64 when a file is malformed (nothing runs then) or the command line is wrong.
struct ScenarioCommand {
    static let usage = """
        USAGE: tipjar scenario run FILE... [--junit OUT.xml] [--url URL] [--admin-token TOKEN]

        Runs each scenario file step by step and prints every step with its result. Without
        --url, each file gets a fresh dashboard of its own: a temporary SQLite database and
        an ephemeral port on 127.0.0.1, removed afterwards.

        OPTIONS:
          --junit PATH          Also write a JUnit XML report (one testsuite per file).
          --url URL             Run against a running dashboard (http://HOST:PORT) instead.
          --admin-token TOKEN   Sent as Authorization: Bearer TOKEN (a server started with it).
          -h, --help            Show this help.

        Exits 0 when every expectation held, 1 when a step failed (naming the step, what was
        expected and what happened), 64 for a malformed file (<file>: <JSON location>: <problem>).
        """

    let files: [String]
    let junit: String?
    let url: String?
    let adminToken: String?

    init(arguments: [String]) throws {
        guard arguments.first == "run" else {
            throw UsageError(message: arguments.first.map { "unknown scenario command '\(Catalog.escapedField($0))' (did you mean 'run'?)" } ?? "scenario needs a command: run")
        }
        let reader = try ArgumentReader(Array(arguments.dropFirst()), valued: ["--junit", "--url", "--admin-token"])
        guard !reader.positional.isEmpty else { throw UsageError(message: "scenario run needs at least one FILE") }
        files = reader.positional
        junit = reader.options["--junit"]
        url = reader.options["--url"]
        adminToken = reader.options["--admin-token"]
        if let url { _ = try ScenarioCommand.client(url: url, token: adminToken) }
    }

    static func client(url: String, token: String?) throws -> ScenarioHTTPClient {
        do {
            return try ScenarioHTTPClient(url: url, bearerToken: token)
        } catch {
            throw UsageError(message: Catalog.escapedField("\(error)"))
        }
    }

    func run() async throws -> Int32 {
        var scenarios: [(file: String, scenario: Scenario)] = []
        var malformed: [ScenarioError] = []
        for file in files {
            do {
                scenarios.append((file, try Scenario.load(contentsOf: file)))
            } catch {
                malformed.append(error)
                printError(error.description)
            }
        }
        guard malformed.isEmpty else {
            try writeReport(JUnitReport(results: [], malformed: malformed))
            printError("tipjar: \(malformed.count) malformed scenario file\(malformed.count == 1 ? "" : "s"); nothing was run")
            return 64
        }
        let output: @Sendable (String) -> Void = { FileHandle.standardOutput.write(Data(($0 + "\n").utf8)) }
        var results: [ScenarioResult] = []
        for (file, scenario) in scenarios {
            if let url {
                let runner = ScenarioRunner(transport: try Self.client(url: url, token: adminToken), output: output)
                results.append(await runner.run(scenario, file: file))
            } else {
                results.append(try await Self.runOnFreshDashboard(scenario, file: file, output: output))
            }
        }
        try writeReport(JUnitReport(results: results))
        let failed = results.filter { !$0.passed }
        output(
            failed.isEmpty
                ? results.count == 1 ? "the scenario passed" : "all \(results.count) scenarios passed"
                : "\(failed.count) of \(results.count) scenario\(results.count == 1 ? "" : "s") failed: \(failed.map { Catalog.escapedField($0.file) }.joined(separator: ", "))")
        return failed.isEmpty ? 0 : 1
    }

    func writeReport(_ report: JUnitReport) throws {
        guard let junit else { return }
        do {
            try Data(report.xml.utf8).write(to: URL(fileURLWithPath: junit), options: .atomic)
        } catch {
            printError("tipjar: cannot write the JUnit report \(Catalog.escapedField(junit)): \(Catalog.escapedField(error.localizedDescription))")
            throw error
        }
    }

    /// A fresh dashboard for one scenario, as `serve` builds it: the shipped catalog, a new SQLite
    /// file in a temporary folder, the notifications sender; its requests are answered in process
    /// (``DashboardStack/scenarioTransport``).
    /// Removed afterwards.
    static func runOnFreshDashboard(_ scenario: Scenario, file: String, output: @escaping @Sendable (String) -> Void) async throws -> ScenarioResult {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tipjar-scenario-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let storage = try SQLiteTipJarStorage(
            path: folder.appendingPathComponent("tipjar.sqlite3").path,
            configuration: DatabaseConfiguration(durability: .normal, groupCommit: true))
        defer { try? storage.pool.close() }
        let environment = TipJarEnvironment(
            now: { Date() }, sleep: { try await Task.sleep(for: $0) },
            makeInstallID: { UUID().uuidString.lowercased() }, log: { _, _ in })
        let root = ServeCommand.packageRoot
        let stack = try await DashboardStack(
            catalog: try Catalog.shipped(), storage: storage,
            configuration: DashboardConfiguration(
                templatesDirectory: root.appendingPathComponent("Templates"),
                publicDirectory: root.appendingPathComponent("Public")),
            environment: environment)
        // Notifications are sent as `serve` sends them, so a scenario can watch a server's attempts.
        let result = await withTaskGroup(of: ScenarioResult?.self) { group in
            group.addTask {
                await stack.runNotifications()
                return nil
            }
            let result = await ScenarioRunner(transport: stack.scenarioTransport, output: output).run(scenario, file: file)
            // The sender stops (its attempts under way recorded) before the temporary database closes.
            group.cancelAll()
            return result
        }
        // Late deliveries still waiting are dropped.
        await stack.service.cancelScheduledDeliveries()
        return result
    }
}
