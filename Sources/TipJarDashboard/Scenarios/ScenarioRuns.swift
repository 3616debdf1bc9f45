import Synchronization
import TipJarScenario

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
