import Foundation
import HTTPServer
import Mustache
import TipJar
import TipJarScenario

/// Scenarios: an install's steps recorded as a scenario file (`GET /api/installs/{id}/scenario`, "Save as
/// scenario"), and `/store`'s "Run" of a shipped one (`POST /store/scenarios/{file}/run`). The recording is a download
/// under `/api/` but sits here, with the recorder (``ScenarioRecorder``) and the timeline checks it shares with the
/// install page (``ScenarioRecordability``), not with the JSON API's reads. The CSV/JSON exports (`?format=`) are
/// answers of the JSON API's list and ledger routes, so they are ``APIController``'s (`APIController+Export.swift`).
///
/// A run: the file runs with the runner of `tipjar scenario run` against this very dashboard, through its JSON API in
/// process (``InProcessTransport``: every middleware, no socket), so it creates its installs and transactions here (on
/// accounts with a random suffix, as every run does). Its `store` steps change this server's store settings; the
/// settings from before the run are put back when it ends. One run at a time (another is refused with 409 while it
/// lasts). The page that answers lists every step with its result.
struct ScenariosController: DashboardController {
    let service: TipJarService
    let renderer: PageRenderer
    /// The scenario files offered for download on `/store`, read once from `Public/scenarios/`.
    let scenarioDownloads: [ScenarioDownload]
    /// `/store`'s scenario runs, answered by this dashboard in process.
    let scenarioRuns: ScenarioRuns

    func register(in router: inout Router<DashboardContext>) {
        router.get("/api/installs/:id/scenario") { request, context in
            let id = try context.installID()
            let install = try await service.install(id)
            let installEvents = Array(service.timeline.events(installID: id, limit: Int.max).reversed())
            let since = installEvents.first { $0.kind == "install.created" }?.at ?? .distantPast
            let store = service.timeline.storeWideEvents(since: since)
            guard store.isComplete else {
                throw RequestError(status: .conflict, message: ScenarioRecordability.storeChangesLeftTheTimeline)
            }
            let events = ScenarioRecorder.merge(store.events.filter { $0.kind == "store.settings" }, installEvents)
            let ledger = try await service.records.ledger(installID: id, limit: 10_000)
            var foreign: Set<UInt64> = []
            for transactionID in Set(ledger.map(\.transactionID)) {
                if let stored = try await service.records.transaction(withID: transactionID), stored.installID != id { foreign.insert(transactionID) }
            }
            let recorder = ScenarioRecorder(
                install: install, events: events, ledger: ledger,
                currentSettings: service.settings, foreignTransactions: foreign)
            do {
                var response = HTTPResponse(status: .ok, body: JSONBody.inert(Data(try recorder.scenario().fileText.utf8)))
                response.fields["Content-Type"] = "application/json; charset=utf-8"
                return response.attachment(named: "scenario-\(id).json")
            } catch let refusal as ScenarioRecorder.Refusal {
                throw RequestError(status: .conflict, message: refusal.message)
            }
        }
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
            let before = service.settings
            let result = await ScenarioRunner(transport: scenarioRuns.transport, output: { _ in }).run(scenario, file: download.file)
            try await service.updateStore(before)
            return try renderer.html("pages/scenario-run", scenarioRunData(context, result))
        }
    }

    /// The result page's data: the file, whether every step held, and each step's line.
    func scenarioRunData(_ context: DashboardContext, _ result: ScenarioResult) -> TemplateData {
        var data = renderer.pageData(context, nav: "store")
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
