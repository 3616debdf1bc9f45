/// Waiting for a condition with a deadline, never for a duration: the condition is checked until it holds or
/// the deadline passes, with a 10 ms pause between checks so that a test running beside others on two cores
/// leaves the machine to the server instead of spinning.
enum DeadlineWait {
    /// Whether `condition` held within `seconds`.
    static func until(seconds: Int = 10, _ condition: () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return await condition()
    }
}
