import Foundation

/// The pause between two checks of a condition: long enough that a test running beside others on two cores leaves
/// the machine to the code it waits for, short enough that a condition that holds is seen at once.
public let eventuallyPollInterval: Duration = .milliseconds(10)

/// Checks `condition` until it holds or `timeout` passes, pausing ``eventuallyPollInterval`` between checks, and
/// answers whether it held. This is the only way a test waits: for a condition with a deadline, never for a duration.
///
/// The deadline is a bound on a hang, not a measurement: a condition that holds answers at once, so the timeout can
/// be generous. A whole suite on two shared cores can keep the code under test from running for more than ten seconds:
/// at its start some nine hundred tests queue on the two threads of the task pool, and in one CI run a task a test had
/// just made waited there past a 10 s deadline before it ran at all (the trivial tests of that run report 13 s).
/// - Parameters:
///   - timeout: how long to keep checking; 30 s unless told.
///   - condition: what must become true (another task or thread makes it so).
/// - Returns: Whether `condition` held before the deadline (it is checked once more at the deadline).
/// - Throws: What `condition` throws.
public func eventually(timeout: Duration = .seconds(30), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: eventuallyPollInterval)
    }
    return try await condition()
}

/// ``eventually(timeout:_:)`` for a synchronous caller on a thread of its own (a blocking socket test,
/// a SQLite writer): the pause blocks this thread, never a task of the cooperative pool.
/// - Parameters:
///   - timeout: how long to keep checking; 30 s unless told.
///   - condition: what must become true (another thread makes it so).
/// - Returns: Whether `condition` held before the deadline.
/// - Throws: What `condition` throws.
public func eventuallyBlocking(timeout: Duration = .seconds(30), _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        let (seconds, attoseconds) = eventuallyPollInterval.components
        Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) / 1e18)
    }
    return try condition()
}

/// Runs blocking work (a socket read, `waitpid`, a SQLite call) on a thread of its own, so the cooperative pool (two
/// threads on a two-core machine) stays free for the tasks the work is waiting for.
/// - Parameter body: the blocking work.
/// - Returns: What `body` returns.
public func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: body()) }
    }
}
