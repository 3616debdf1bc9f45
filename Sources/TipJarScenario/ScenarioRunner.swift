import Foundation
import TipJar

/// Runs scenarios against a dashboard's JSON API, step by step, stopping a scenario at its first
/// failing step (the steps after it depend on it and are reported as skipped).
public struct ScenarioRunner: Sendable {
    /// How requests reach the dashboard under test.
    public let transport: any ScenarioTransport
    /// Where each step's line goes as it finishes. Every line is safe for a terminal: what came from the scenario file
    /// (its path, name, step titles and install labels) or from the server (answers, error bodies) is escaped by
    /// ``Catalog/escapedField(_:)``, so an ESC, BEL, CR or bidirectional control (ECMA-48's control functions,
    /// https://ecma-international.org/publications-and-standards/standards/ecma-48/; Unicode bidi,
    /// https://www.unicode.org/reports/tr9/) is printed as `\u{1B}`, `\u{7}`, `\r`, `\u{202E}`, never acted on.
    public let output: @Sendable (String) -> Void

    /// Creates a runner.
    public init(transport: any ScenarioTransport, output: @escaping @Sendable (String) -> Void) {
        self.transport = transport
        self.output = output
    }

    /// Runs one scenario.
    /// - Parameters:
    ///   - scenario: The parsed scenario.
    ///   - file: Its file name, for the output and the report.
    ///   - accountSuffix: Appended to the scenario's account names (default: random), so
    ///     scenarios run against one server never share an account.
    /// - Returns: Every step's result.
    public func run(_ scenario: Scenario, file: String, accountSuffix: String = String(UUID().uuidString.prefix(8)).lowercased()) async -> ScenarioResult {
        output("scenario \(Catalog.escapedField(file)): \(Catalog.escapedField(scenario.name))")
        let session = ScenarioSession(transport: transport, accountSuffix: accountSuffix)
        var results: [ScenarioStepResult] = []
        var failed = false
        for (offset, step) in scenario.steps.enumerated() {
            let number = offset + 1
            guard !failed else {
                results.append(ScenarioStepResult(number: number, title: step.title, verdict: .skipped, detail: "", seconds: 0))
                continue
            }
            let started = ContinuousClock.now
            let (verdict, detail) = await perform(step, session: session)
            let elapsed = ContinuousClock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let result = ScenarioStepResult(number: number, title: step.title, verdict: verdict, detail: detail, seconds: seconds)
            results.append(result)
            output(result.line)
            if case .failed = verdict { failed = true }
        }
        if let restored = await session.restoreSettings() { output("  \(restored)") }
        let result = ScenarioResult(file: file, name: scenario.name, steps: results)
        if let failure = result.firstFailure, case .failed(let message) = failure.verdict {
            output(
                "FAILED \(Catalog.escapedField(file)) step \(failure.number) (\(Catalog.escapedField(failure.title))): "
                    + Catalog.escapedField(message))
        } else {
            output("passed \(Catalog.escapedField(file)): \(results.count) step\(results.count == 1 ? "" : "s")")
        }
        return result
    }

    private func perform(_ step: ScenarioStep, session: ScenarioSession) async -> (ScenarioStepResult.Verdict, String) {
        do {
            let installID = step.type.install == .uses ? try session.installID(step) : nil
            let before = installID != nil && step.expect.ledger != nil ? try await session.ledger(installID!).count : 0
            let answer = try await step.type.perform(step, session)
            if let name = step.fields["as"]?.stringValue {
                guard let id = answer.transactionID else { return (.failed("\"as\": \"\(name)\": the answer carries no transaction ID (\(answer.summary))"), answer.summary) }
                session.transactions[name] = id
            }
            let mismatches = try await session.check(
                step.expect, installID: installID ?? step.install.flatMap { session.installs[$0] },
                answer: answer, ledgerBefore: before)
            let checked = step.expect.checkedFacts.isEmpty ? "" : " · held: " + step.expect.checkedFacts.joined(separator: ", ")
            return mismatches.isEmpty ? (.passed, answer.summary + checked) : (.failed(mismatches.joined(separator: "; ")), answer.summary)
        } catch {
            return (.failed("\(error)"), "")
        }
    }
}

/// One scenario's run.
public struct ScenarioResult: Sendable {
    /// The file.
    public var file: String
    /// The scenario's name.
    public var name: String
    /// Every step, in order.
    public var steps: [ScenarioStepResult]

    /// Creates a result.
    public init(file: String, name: String, steps: [ScenarioStepResult]) {
        self.file = file
        self.name = name
        self.steps = steps
    }

    /// Whether every step held.
    public var passed: Bool { firstFailure == nil }
    /// The step that failed, if one did.
    public var firstFailure: ScenarioStepResult? {
        steps.first { if case .failed = $0.verdict { return true } else { return false } }
    }
}

/// One step's result.
public struct ScenarioStepResult: Sendable {
    /// What came of the step.
    public enum Verdict: Sendable, Equatable {
        /// Every expectation held.
        case passed
        /// An expectation did not hold, or the step could not do its work: what was expected and what happened.
        case failed(String)
        /// Not run, because an earlier step failed.
        case skipped
    }

    /// The step's number, from 1.
    public var number: Int
    /// Its title (`purchase ana com.example.tipjar.tip.coffee`).
    public var title: String
    /// What came of it.
    public var verdict: Verdict
    /// What the server answered (`200 purchased`).
    public var detail: String
    /// How long it took, in seconds.
    public var seconds: Double

    /// Creates a step result.
    public init(number: Int, title: String, verdict: Verdict, detail: String, seconds: Double) {
        self.number = number
        self.title = title
        self.verdict = verdict
        self.detail = detail
        self.seconds = seconds
    }

    /// `"  ok   3 purchase ana …: 200 purchased"` or `"  FAIL 3 …: 200 purchased: hearts: expected 2, got 1"`; the
    /// title (from the file), the answer and the message (from the server) escaped by ``Catalog/escapedField(_:)``.
    public var line: String {
        let title = Catalog.escapedField(title)
        let answer = detail.isEmpty ? "" : ": \(Catalog.escapedField(detail))"
        switch verdict {
        case .passed: return "  ok   \(number) \(title)\(answer)"
        case .failed(let message): return "  FAIL \(number) \(title)\(answer): \(Catalog.escapedField(message))"
        case .skipped: return "  skip \(number) \(title)"
        }
    }
}
