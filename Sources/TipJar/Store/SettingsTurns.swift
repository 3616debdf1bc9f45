import Synchronization

/// Gives changes of the store settings their turn one at a time, in the order they asked (first come, first served):
/// a change reads the settings in force and saves what it makes of them before the next one reads, so two changes
/// to different fields (two `PATCH /api/store` at once) both last, and neither saves over the other with what it
/// read before the other's save. The settings are one row (`store_settings`) that only this process writes, so the
/// turn is the compare-and-set: each change states the settings it expects by reading them inside its turn.
final class SettingsTurns: Sendable {
    private struct State {
        var isTaken = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// How many changes wait for their turn (for tests that hold one change while another asks).
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Runs `body` when every change that asked before has finished.
    nonisolated(nonsending) func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await take()
        defer { give() }
        return try await body()
    }

    nonisolated(nonsending) private func take() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isMine = state.withLock { state in
                if state.isTaken {
                    state.waiting.append(continuation)
                    return false
                }
                state.isTaken = true
                return true
            }
            if isMine { continuation.resume() }
        }
    }

    private func give() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.isTaken = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
