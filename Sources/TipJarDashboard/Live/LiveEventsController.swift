import Foundation
import HTTPServer
import Mustache
import TipJar

/// The install page's live channel: `GET /installs/{id}/events`, server-sent events
/// (https://html.spec.whatwg.org/multipage/server-sent-events.html). On connect, and after every change that
/// shows on it (a change to the install, its account or the store, timeline events included, see ``LiveChannels``), one
/// `event: live` whose data lines are the fragments `GET /installs/{id}/live` returns (the poll of a page without
/// `EventSource`, also here: the same fragments, ``InstallScreen/liveHTML(installID:feedback:textSize:)``). Every stream of an
/// install shares one render per change (``LiveChannels``); changes that come while an event is being
/// rendered collapse into the next one, and a stream that has not taken an event yet gets only the newest.
/// The stream ends when the install is deleted, the page leaves, or the server shuts down.
struct LiveEventsController: DashboardController {
    let service: TipJarService
    /// One live event channel per watched install, shared by its streams; see ``LiveChannels``.
    let liveChannels: LiveChannels
    let screen: InstallScreen

    func register(in router: inout Router<DashboardContext>) {
        router.get("/installs/:id/live") { request, context in
            try await screen.liveFragments(installID: try context.installID(), feedback: nil, textSize: Self.textSize(request))
        }
        router.get("/installs/:id/events") { request, context in
            let install = try await service.install(try context.installID())  // 404 before a stream starts
            return .eventStream(HTTPBodyStream(chunks: liveEvents(install: install, textSize: Self.textSize(request))))
        }
    }

    /// The page's text size (`?textSize=`, which the page's `data-live` carries when it is not the default).
    static func textSize(_ request: HTTPRequest) -> TextSize {
        TextSize(value: request.queryValue("textSize")) ?? .default
    }

    /// The install's events from its live channel at `textSize` (``LiveChannels``), rendered once per change to the
    /// install, its account or the store, for every stream that watches it.
    func liveEvents(install: Install, textSize: TextSize = .default) -> AsyncStream<[UInt8]> {
        let channel = textSize == .default ? install.id : "\(install.id) \(textSize.rawValue)"
        let installID = install.id
        return liveChannels.subscribe(installID: channel, keys: ChangeKey.shown(installID: install.id, accountID: install.accountID)) { _ in
            await liveEvent(installID: installID, textSize: textSize)
        }
    }

    /// One `event: live` with the install's fragments (``InstallScreen/liveHTML(installID:feedback:textSize:)``), or
    /// `nil` when the install is gone or cannot be read, which ends its streams.
    func liveEvent(installID: String, textSize: TextSize = .default) async -> [UInt8]? {
        guard let html = try? await screen.liveHTML(installID: installID, feedback: nil, textSize: textSize) else { return nil }
        return HTTPResponse.serverSentEvent("live", data: html)
    }
}
