import Foundation

extension ScenarioSession {
    /// Compares what a step came to with its expectation.
    /// - Parameters:
    ///   - expect: What must hold.
    ///   - installID: The step's install, for the facts read from the server.
    ///   - answer: The step's answer (`nil` for a `wait` condition, which has none).
    ///   - ledgerBefore: How many ledger rows the install had before the step.
    /// - Returns: One sentence per mismatch (`hearts: expected 2, got 1`); empty when all hold.
    func check(_ expect: ScenarioExpectation, installID: String?, answer: StepAnswer?, ledgerBefore: Int?) async throws -> [String] {
        var mismatches: [String] = []
        if let answer {
            let errorText = answer.body?["error"]?.stringValue.map { " (\($0))" } ?? ""
            if let statuses = expect.statuses {
                if statuses.sorted() != answer.statuses.sorted() {
                    mismatches.append("statuses: expected \(statuses.sorted()), got \(answer.statuses.sorted())")
                }
            } else if let status = expect.status {
                if answer.statuses.contains(where: { $0 != status }) { mismatches.append("status: expected \(status), got \(answer.summary)\(errorText)") }
            } else if answer.statuses.contains(where: { !(200..<300).contains($0) }) {
                mismatches.append("status: expected 2xx, got \(answer.statuses.map(String.init).joined(separator: ", "))\(errorText)")
            }
            if let outcome = expect.outcome, outcome != answer.outcome {
                mismatches.append("outcome: expected \(outcome), got \(answer.outcome ?? "none")")
            }
            if let errorName = expect.errorName, errorName.stringValue != answer.errorName {
                mismatches.append("errorName: expected \(errorName.stringValue ?? "none"), got \(answer.errorName ?? "none")")
            }
        }
        guard let installID else {
            if expect.hearts != nil || expect.running != nil || expect.pending != nil || expect.offers != nil || expect.ledger != nil {
                mismatches.append("the install was not created, so its hearts, ledger and state cannot be checked")
            }
            return mismatches
        }
        if expect.hearts != nil || expect.running != nil {
            let install = try await read("/api/installs/\(installID)")
            if let hearts = expect.hearts, install["hearts"]?.intValue != hearts {
                mismatches.append("hearts: expected \(hearts), got \(install["hearts"]?.text ?? "none")")
            }
            if let running = expect.running, install["isRunning"]?.boolValue != running {
                mismatches.append("running: expected \(running), got \(install["isRunning"]?.text ?? "none")")
            }
        }
        if let pending = expect.pending {
            let count = (try await read("/api/store/pending").arrayValue ?? []).filter { $0["installID"]?.stringValue == installID }.count
            if count != pending { mismatches.append("pending: expected \(pending), got \(count)") }
        }
        if let offers = expect.offers {
            let state = try await read("/api/installs/\(installID)/offers")["state"]?.stringValue ?? "none"
            if state != offers { mismatches.append("offers: expected \(offers), got \(state)") }
        }
        if let rows = expect.ledger {
            let added = Array(try await ledger(installID).dropFirst(ledgerBefore ?? 0))
            mismatches += ledgerMismatches(expected: rows, added: added)
        }
        return mismatches
    }

    func ledgerMismatches(expected: [ScenarioExpectation.LedgerRow], added: [JSONValue]) -> [String] {
        let shown = { (rows: [String]) in rows.isEmpty ? "none" : rows.joined(separator: ", ") }
        let got = added.map { "\($0["path"]?.stringValue ?? "?") \($0["outcome"]?.stringValue ?? "?")" }
        guard expected.count == added.count else {
            let wanted = expected.map { "\($0.path ?? "*") \($0.outcome ?? "*")" }
            return ["ledger: expected \(expected.count) new row\(expected.count == 1 ? "" : "s") [\(shown(wanted))], got \(added.count) [\(shown(got))]"]
        }
        var mismatches: [String] = []
        for (index, (row, actual)) in zip(expected, added).enumerated() {
            var wrong: [String] = []
            if let path = row.path, actual["path"]?.stringValue != path { wrong.append("path \(path)") }
            if let outcome = row.outcome, actual["outcome"]?.stringValue != outcome { wrong.append("outcome \(outcome)") }
            if let finished = row.finished, actual["finished"]?.boolValue != finished { wrong.append("finished \(finished)") }
            if let productID = row.productID, actual["productID"]?.stringValue != productID { wrong.append("productID \(productID)") }
            if let name = row.transaction, let id = transactions[name], actual["transactionID"]?.intValue != Int(id) {
                wrong.append("transaction \(name) (\(id))")
            }
            if !wrong.isEmpty {
                mismatches.append("ledger row \(index + 1): expected \(wrong.joined(separator: ", ")), got \(actual.text)")
            }
        }
        return mismatches
    }
}
