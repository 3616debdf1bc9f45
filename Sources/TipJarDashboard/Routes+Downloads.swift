import Foundation
import HTTPServer
import TipJar

extension Routes {
    /// `GET /api/installs/{id}/scenario`: the steps taken on the install as a scenario file
    /// (``ScenarioRecorder``), as a download; `409` when the timeline no longer explains them.
    func registerDownloads(in router: inout Router<DashboardContext>) {
        router.get("/api/installs/:id/scenario") { request, context in
            let id = try context.installID()
            let install = try await service.install(id)
            let installEvents = Array(service.timeline.events(installID: id, limit: Int.max).reversed())
            let since = installEvents.first { $0.kind == "install.created" }?.at ?? .distantPast
            let store = service.timeline.storeWideEvents(since: since)
            guard store.isComplete else {
                throw RequestError(status: .conflict, message: Self.storeChangesLeftTheTimeline)
            }
            let events = ScenarioRecorder.merge(store.events.filter { $0.kind == "store.settings" }, installEvents)
            let ledger = try await service.records.ledger(installID: id, limit: 10_000)
            var foreign: Set<UInt64> = []
            for transactionID in Set(ledger.map(\.transactionID)) {
                if let stored = try await service.records.transaction(withID: transactionID), stored.installID != id { foreign.insert(transactionID) }
            }
            let recorder = ScenarioRecorder(
                install: install, events: events, ledger: ledger,
                currentSettings: service.store.settings, foreignTransactions: foreign)
            do {
                var response = HTTPResponse(status: .ok, body: JSONBody.inert(Data(try recorder.scenario().fileText.utf8)))
                response.fields["Content-Type"] = "application/json; charset=utf-8"
                return Self.attachment(response, name: "scenario-\(id).json")
            } catch let refusal as ScenarioRecorder.Refusal {
                throw RequestError(status: .conflict, message: refusal.message)
            }
        }
    }
}
