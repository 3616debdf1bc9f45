import Foundation
import Testing
import TipJar

/// Store-wide events are kept apart from install events, and the timeline says whether it still
/// holds every one since a moment (what a recorded scenario needs to replay store changes).
@Suite("Timeline store-wide events")
struct TimelineStoreWideTests {
    static func at(_ seconds: Double) -> Date { Date(timeIntervalSince1970: seconds) }

    @Test func installEventsDoNotPushStoreChangesOut() {
        let timeline = Timeline(perInstall: 2, overall: 2, storeWide: 10)
        timeline.append(InstallEvent(installID: nil, at: Self.at(1), kind: "store.settings", detail: "", attributes: ["settings": "{}"]))
        for second in 2...20 { timeline.append(InstallEvent(installID: "a", at: Self.at(Double(second)), kind: "launch", detail: "")) }
        let store = timeline.storeWideEvents(since: Self.at(0))
        #expect(store.events.map(\.kind) == ["store.settings"])
        #expect(store.events.first?.attributes == ["settings": "{}"])
        #expect(store.isComplete)
    }

    /// The bounds hold at every append, whenever the older events are actually let go: an install's newest
    /// `perInstall`, everyone's newest `overall`, newest first.
    @Test func eachAppendShowsTheNewestEventsWithinTheBounds() {
        let timeline = Timeline(perInstall: 8, overall: 12)
        for second in 1...40 {
            timeline.append(InstallEvent(installID: second % 2 == 0 ? "a" : "b", at: Self.at(Double(second)), kind: "launch", detail: ""))
            let newestOfA = Array(stride(from: second - second % 2, to: 0, by: -2).prefix(8))
            #expect(timeline.events(installID: "a", limit: 100).map(\.at) == newestOfA.map { Self.at(Double($0)) })
            #expect(timeline.events(installID: nil, limit: 100).map(\.at) == (max(1, second - 11)...second).reversed().map { Self.at(Double($0)) })
            #expect(timeline.events(installID: "a", limit: 3).count == min(3, newestOfA.count))
        }
    }

    @Test func historyIsCompleteOnlySinceTheLastDroppedEvent() {
        let timeline = Timeline(storeWide: 2)
        for second in 1...3 { timeline.append(InstallEvent(installID: nil, at: Self.at(Double(second)), kind: "store.settings", detail: "")) }
        #expect(timeline.storeWideEvents(since: Self.at(1)).isComplete == false, "the event at 1 s was dropped")
        #expect(timeline.storeWideEvents(since: Self.at(1.5)).isComplete)
        #expect(timeline.storeWideEvents(since: Self.at(1.5)).events.map(\.at) == [Self.at(2), Self.at(3)])
    }
}
