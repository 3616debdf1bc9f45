import Mustache
import TipJar

extension Routes {
    /// Timeline events as the overview's "Recent events" and an install's timeline show them: an event's install is
    /// a link while the install exists, and plain text once it was deleted (its page would answer 404). Looks up
    /// each install the events name once.
    func eventRows(_ events: [InstallEvent]) async throws -> MustacheValue {
        var existing: Set<String> = []
        for id in Set(events.compactMap(\.installID)) where try await service.records.install(withID: id) != nil {
            existing.insert(id)
        }
        return .array(events.map { ViewModels.event($0, installExists: $0.installID.map(existing.contains) ?? false) })
    }
}
