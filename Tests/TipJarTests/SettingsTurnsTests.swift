import Synchronization
import Testing

@testable import TipJar

/// Changes of the store settings take turns (``SettingsTurns``): a change that asks while another runs starts only
/// when that one has finished, so it reads what the other saved (two `PATCH /api/store` at once both last).
@Suite("Store settings changes take turns")
struct SettingsTurnsTests {
    final class Steps: Sendable {
        let list = Mutex<[String]>([])
        func append(_ step: String) { list.withLock { $0.append(step) } }
        var all: [String] { list.withLock { $0 } }
    }

    @Test func aChangeThatAsksWhileAnotherRunsStartsWhenThatOneHasFinished() async throws {
        let turns = SettingsTurns()
        let steps = Steps()
        let (firstStarted, started) = AsyncStream.makeStream(of: Void.self)
        let (released, release) = AsyncStream.makeStream(of: Void.self)
        let first = Task {
            try await turns.run {
                steps.append("first starts")
                started.yield()
                for await _ in released { break }
                steps.append("first ends")
            }
        }
        for await _ in firstStarted { break }
        let second = Task { try await turns.run { steps.append("second") } }
        while turns.waitingCount == 0 { await Task.yield() }  // the second is waiting for its turn
        #expect(steps.all == ["first starts"])
        release.yield()
        try await first.value
        try await second.value
        #expect(steps.all == ["first starts", "first ends", "second"])
    }

    @Test func aChangeThatThrowsGivesTheTurnToTheNext() async throws {
        struct Refused: Error {}
        let turns = SettingsTurns()
        await #expect(throws: Refused.self) { try await turns.run { throw Refused() } }
        #expect(try await turns.run { 7 } == 7)
        #expect(turns.waitingCount == 0)
    }
}
