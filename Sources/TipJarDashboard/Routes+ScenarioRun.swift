import Foundation
import HTTPServer
import Mustache
import Synchronization
import TipJar
import TipJarScenario

/// `/store`'s "Run" of a shipped scenario (`Public/scenarios/`): the file runs with the runner of
/// `tipjar scenario run` against this very dashboard, through its JSON API in process (``InProcessTransport``:
/// every middleware, no socket), so it creates its installs and transactions here (on accounts with a random suffix, as every run does). Its `store`
/// steps change this server's store settings; the settings from before the run are put back when it
/// ends. One run at a time (another is refused with 409 while it lasts). The page that answers lists
/// every step with its result.
extension Routes {
    func registerScenarioRuns(in router: inout Router<DashboardContext>) {
        router.post("/store/scenarios/:file/run") { request, context in
            guard let download = scenarioDownloads.first(where: { $0.file == context.parameters["file"] }) else {
                throw RequestError(status: .notFound, message: "No shipped scenario has that file name.")
            }
            let scenario: Scenario
            do throws(ScenarioError) {
                scenario = try Scenario.load(contentsOf: download.path)
            } catch {
                throw RequestError(status: .internalServerError, message: "The shipped file does not load: \(error.description)")
            }
            guard scenarioRuns.begin() else {
                throw RequestError(status: .conflict, message: "Another scenario is running on this server; run this one when it has ended.")
            }
            defer { scenarioRuns.end() }
            let before = service.store.settings
            let result = await ScenarioRunner(transport: scenarioRuns.transport, output: { _ in }).run(scenario, file: download.file)
            try await service.updateStore(before)
            return try html("pages/scenario-run", scenarioRunData(context, result))
        }
    }

    /// The result page's data: the file, whether every step held, and each step's line.
    func scenarioRunData(_ context: DashboardContext, _ result: ScenarioResult) -> TemplateData {
        var data = pageData(context, nav: "store")
        data["run"] = [
            "file": .string(result.file), "name": .string(result.name), "passed": .bool(result.passed),
            "failedStep": .string(result.firstFailure.map { "step \($0.number) (\($0.title))" } ?? ""),
            "steps": .array(
                result.steps.map { step -> MustacheValue in
                    var row: TemplateData = [
                        "number": .int(step.number), "title": .string(step.title), "detail": .string(step.detail),
                        "seconds": .string(String(format: "%.2f", step.seconds)),
                    ]
                    switch step.verdict {
                    case .passed: row["verdict"] = "passed"
                    case .failed(let message): row["verdict"] = "failed"; row["message"] = .string(message)
                    case .skipped: row["verdict"] = "skipped"
                    }
                    return .object(row)
                }),
        ]
        return data
    }
}

/// The scenario runs of `/store`: how their requests reach the dashboard, and the one run at a time (two at once
/// would each put back the other's store settings).
final class ScenarioRuns: Sendable {
    /// The dashboard's JSON API, in process.
    let transport: any ScenarioTransport
    private let running = Mutex(false)

    init(transport: any ScenarioTransport) {
        self.transport = transport
    }

    /// Claims the one run at a time; `false` when one is running. ``end()`` gives it back.
    func begin() -> Bool {
        running.withLock { busy in
            if busy { return false }
            busy = true
            return true
        }
    }

    /// Ends the run ``begin()`` claimed.
    func end() { running.withLock { $0 = false } }
}
