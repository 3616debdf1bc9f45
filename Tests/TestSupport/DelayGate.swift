import Synchronization

/// A wait the test controls: every caller is held until the test opens the gate, so "a delay is over" or "a request
/// is being handled" is a step of the test instead of a race or a real sleep.
///
/// Pass ``sleep`` as an environment's `sleep` (each duration asked for is recorded in ``requested``), or call
/// ``wait()`` from a handler that must stay in flight until the test says so.
public final class DelayGate: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [CheckedContinuation<Void, Never>] = []
        var requested: [Duration] = []
        var held = 0
    }

    private let state = Mutex(State())

    /// A closed gate.
    public init() {}

    /// The closure to pass as an environment's `sleep`: records the duration, then waits at the gate.
    public var sleep: @Sendable (Duration) async throws -> Void { { duration in await self.wait(duration) } }

    /// Records `duration` in ``requested``, then waits at the gate.
    /// - Parameter duration: the delay the caller asked for.
    public func wait(_ duration: Duration) async {
        state.withLock { $0.requested.append(duration) }
        await wait()
    }

    /// Returns at once when the gate is open; otherwise suspends until ``open()``.
    public func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let passes = state.withLock { state -> Bool in
                if state.isOpen { return true }
                state.held += 1
                state.waiters.append(continuation)
                return false
            }
            if passes { continuation.resume() }
        }
    }

    /// Opens the gate for good: every waiter goes on, and later callers do not wait.
    public func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }

    /// Every duration asked for through ``sleep`` or ``wait(_:)``, in order.
    public var requested: [Duration] { state.withLock { $0.requested } }

    /// How many callers wait at the gate now.
    public var waiting: Int { state.withLock { $0.waiters.count } }

    /// How many callers the closed gate has held in all (those it let go included).
    public var held: Int { state.withLock { $0.held } }

    /// Waits, with ``eventually(timeout:_:)``, until at least one caller waits at the gate.
    /// - Parameter timeout: how long to wait; 30 s unless told, as ``eventually(timeout:_:)``.
    /// - Returns: Whether someone waited before the deadline.
    @discardableResult
    public func untilSomeoneWaits(timeout: Duration = .seconds(30)) async -> Bool {
        await eventually(timeout: timeout) { self.waiting > 0 }
    }
}
