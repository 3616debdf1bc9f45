import Mustache
import TipJar

/// The `/store` page's groups (`Templates/pages/store.mustache`): each is a `<details>` whose summary names its state
/// in one line; a group opens by itself when it holds the message of the last action, something waiting, or a
/// setting that is not at its default, so what needs attention is never folded away.
extension StorePageModel {
    /// `groups.<id>.open` and `groups.<id>.state` for the folding groups (`failures`, `traps`, `queues`,
    /// `file-settings`, `session`); the outages and outcomes are always open.
    var groupsData: MustacheValue {
        let section = flash?.kind.section
        let changed = { (group: StoreFormGroup) in
            StoreSettings.declarations.filter { group.fieldsets.contains($0.group) && $0.value(in: settings) != $0.defaultValue }
        }
        let failures = changed(.failures), traps = changed(.traps)
        let applied = fileSettings.notes.filter(\.applied).count
        let waiting = [
            (pending.count, "waiting for approval"), (interrupted.count, "interrupted"),
            (refundRequests.filter { $0.state == .pending }.count, "refund request\(refundRequests.filter { $0.state == .pending }.count == 1 ? "" : "s") to decide"),
        ].filter { $0.0 > 0 }
        let groups: [(id: String, open: Bool, state: String)] = [
            (
                "failures", section == "failures" || !failures.isEmpty,
                failures.isEmpty ? "all off" : "on: " + failures.map(\.label).joined(separator: ", ")
            ),
            ("traps", section == "traps" || !traps.isEmpty, traps.isEmpty ? "all off" : "\(traps.count) on"),
            (
                "queues", ["pending", "interrupted", "refund-requests"].contains(section) || !waiting.isEmpty,
                waiting.isEmpty ? "nothing waiting" : waiting.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
            ),
            (
                "file-settings", section == "file-settings",
                fileSettings.notes.isEmpty
                    ? "the file has none"
                    : "\(Self.count(fileSettings.notes.count, "key")): \(applied) applied, \(fileSettings.notes.count - applied) ignored"
            ),
            (
                "session", ["external", "transactions"].contains(section),
                "purchase outside the app, refunds, \(transactions.isEmpty ? "no transaction yet" : Self.count(transactions.count, "recent transaction"))"
            ),
        ]
        return .object(
            Dictionary(
                uniqueKeysWithValues: groups.map { group in
                    (group.id, ["open": .bool(group.open), "state": .string(group.state)] as MustacheValue)
                }))
    }

    /// `1 key`, `6 keys`.
    static func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
}
