import Foundation

/// A `TipJarEnvironment.sleep` the test controls: every wait is recorded with its duration and held until the test
/// opens the gate, so "the delay is over" is a step of the test instead of a real sleep.
actor DelayGate {
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var isOpen = false
    /// Every duration asked for, in order.
    private(set) var requested: [Duration] = []

    /// The closure to pass as the environment's `sleep`.
    nonisolated var sleep: @Sendable (Duration) async throws -> Void { { duration in await self.wait(duration) } }

    func wait(_ duration: Duration) async {
        requested.append(duration)
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        waiters.forEach { $0.resume() }
        waiters.removeAll()
    }

    /// Suspends until at least one caller waits at the gate, or ten seconds pass.
    func untilSomeoneWaits() async {
        let deadline = Date().addingTimeInterval(10)
        while waiters.isEmpty, Date() < deadline { await Self.pollInterval() }
    }

    /// Checks `condition` until it holds or ten seconds pass; answers whether it held. Nothing here waits for a
    /// duration to pass: between checks it only leaves the machine to the server (a test that runs beside others
    /// on two cores must not spin).
    static func eventually(_ condition: () async -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if await condition() { return true }
            await pollInterval()
        }
        return await condition()
    }

    /// The pause between two checks of a condition: 10 ms.
    static func pollInterval() async { try? await Task.sleep(for: .milliseconds(10)) }
}
