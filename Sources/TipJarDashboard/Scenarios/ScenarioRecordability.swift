import Foundation
import TipJar

/// Whether "Save as scenario" (`GET /api/installs/{id}/scenario`, ``ScenariosController``) can record an install, as
/// far as the timeline alone tells: the install page (``InstallsController``) says why not in place of the link
/// instead of offering a download that answers `409`, and the download refuses with the same words.
enum ScenarioRecordability {
    /// Why the download would refuse the install, or `nil`. The timeline is bounded (``Timeline``: an install's last
    /// 50 events, the last 1,000 store-wide ones), so an install with a long history loses its creation, or the store
    /// changes made since, and ``ScenarioRecorder`` cannot replay it faithfully. (A ledger row from another install on
    /// the same account is found only by reading the ledger, and still answers `409` with its reason.)
    static func refusal(installID: String, timeline: Timeline) -> String? {
        let events = timeline.events(installID: installID, limit: Int.max)
        guard let created = events.last(where: { $0.kind == "install.created" }) else { return creationLeftTheTimeline }
        guard timeline.storeWideEvents(since: created.at).isComplete else { return storeChangesLeftTheTimeline }
        return nil
    }

    /// The refusal when the install's creation is no longer on the timeline.
    static let creationLeftTheTimeline = "This install's creation is no longer on the timeline (it keeps the last events only), so its steps cannot be recorded."
    /// The refusal when store changes made since the install's creation are no longer all on the timeline.
    static let storeChangesLeftTheTimeline =
        "The store changes since this install was created are no longer all on the timeline (it keeps the last events only), so its steps cannot be recorded."
}
