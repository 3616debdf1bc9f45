import Foundation
import Testing
import TipJar

@testable import TipJarDashboard

/// The overview's recent events: a run of store settings changes is one row that says how many, so the installs'
/// events keep their room; every other event stays, newest first.
@Suite("Overview: recent events")
struct OverviewEventsTests {
    func event(_ kind: String, _ seconds: Double, install: String? = nil) -> InstallEvent {
        InstallEvent(installID: install, at: Date(timeIntervalSince1970: seconds), kind: kind, detail: "Store settings changed.")
    }

    @Test func aRunOfStoreSettingsChangesIsOneRowThatSaysHowMany() {
        let newestFirst = [
            event("store.settings", 9), event("store.settings", 8), event("store.settings", 7),
            event("purchase.closed", 6, install: "a"), event("store.settings", 5), event("launch", 4, install: "a"),
        ]
        let rows = InstallsController.recentEvents(newestFirst)
        #expect(rows.map(\.kind) == ["store.settings", "purchase.closed", "store.settings", "launch"])
        #expect(rows[0].detail == "Store settings changed 3 times.")
        #expect(rows[0].at == Date(timeIntervalSince1970: 9), "the run shows its newest change")
        #expect(rows[2].detail == "Store settings changed.", "a single change keeps its own words")
    }

    @Test func atMostTheLimitOfRowsAreKept() {
        let newestFirst = (0..<30).map { event($0.isMultiple(of: 2) ? "launch" : "store.settings", Double(100 - $0), install: "a") }
        #expect(InstallsController.recentEvents(newestFirst, limit: 20).count == 20)
    }
}
