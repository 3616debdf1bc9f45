import Foundation
import HTTPServer
import Mustache
import TipJar

/// The install page's live channel: `GET /installs/{id}/events`, server-sent events
/// (https://html.spec.whatwg.org/multipage/server-sent-events.html). On connect, and after every change that
/// shows on it (a timeline event of the install or a store-wide one, any storage commit, see ``LiveChannels``), one
/// `event: live` whose data lines are the fragments `GET /installs/{id}/live` returns. Every stream of an
/// install shares one render per change (``LiveChannels``); changes that come while an event is being
/// rendered collapse into the next one, and a stream that has not taken an event yet gets only the newest.
/// The stream ends when the install is deleted, the page leaves, or the server shuts down.
extension Routes {
    func registerLiveEvents(in router: inout Router<DashboardContext>) {
        router.get("/installs/:id/events") { request, context in
            let install = try await service.install(try context.installID())  // 404 before a stream starts
            return .eventStream(HTTPBodyStream(chunks: liveEvents(installID: install.id)))
        }
    }

    /// The install's events from its live channel (``LiveChannels``), rendered once per change for
    /// every stream that watches it.
    func liveEvents(installID: String) -> AsyncStream<[UInt8]> {
        liveChannels.subscribe(installID: installID) { installID in await liveEvent(installID: installID) }
    }

    /// One `event: live` with the install's fragments (``liveHTML(install:feedback:)``), or `nil` when
    /// the install is gone or cannot be read, which ends its streams.
    func liveEvent(installID: String) async -> [UInt8]? {
        guard let install = try? await service.install(installID),
            let html = try? await liveHTML(install: install, feedback: nil)
        else { return nil }
        return HTTPResponse.serverSentEvent("live", data: html)
    }

    /// The fragments a purchase, restore, poll or live event swaps in: hearts, feedback, ledger, the
    /// install's state line, its timeline, its transaction lives, and whether a purchase (or its sheet) is open, which
    /// disables the tiles of every other tab showing the install (`app.js`). Without `feedback` (a poll or live event), the feedback
    /// fragment holds the notice that is true now (``liveNotice(install:ledger:)``); `app.js` applies it
    /// only where it replaces a pending notice or brings one.
    func liveHTML(install given: Install, feedback: Feedback?) async throws -> String {
        // The hearts and the ledger from one snapshot: a delivery committed between two reads would show its
        // ledger row (and the thank-you) beside the hearts from before it.
        guard let (install, ledger) = try await service.records.installWithLedger(id: given.id, limit: 200) else {
            throw TipJarError.installNotFound(given.id)
        }
        let strings = TipJarStrings.of(install.locale)
        var notice = feedback
        if notice == nil { notice = try await liveNotice(install: install, ledger: ledger) }
        let events = service.timeline.events(installID: install.id, limit: 30)
        let purchaseOpen = await service.isPurchaseOpen(installID: install.id)  // a sheet or purchase in any tab
        return [
            try templates.render("fragments/hearts", ["hearts": ViewModels.hearts(install.hearts, strings: strings)]),
            try templates.render("fragments/feedback", ["feedback": notice?.data ?? [:]]),
            try templates.render("fragments/ledger", ["ledger": ViewModels.ledgerRows(ledger)]),
            try templates.render(
                "fragments/install-meta",
                [
                    "install": ViewModels.install(install),
                    "accountPath": .string(ViewModels.urlComponent(install.accountID)),
                ]),
            try templates.render("fragments/timeline", ["events": try await eventRows(events), "hasEvents": .bool(!events.isEmpty)]),
            try templates.render("fragments/lives", ["lives": try await transactionLives(install: install, ledger: ledger)]),
            try templates.render("fragments/purchase-state", ["purchaseOpen": .bool(purchaseOpen)]),
        ].joined(separator: "\n")
    }

    /// The notice that holds for the install now: pending while one of its Ask to Buy purchases waits (for
    /// approval, or, approved, for the running app's listener); once the latest was approved and its transaction
    /// is on the ledger, the thank-you (or, with the hearts full, its variant); otherwise none.
    ///
    /// A decline keeps the pending notice until the app's next launch: StoreKit delivers a pending purchase's
    /// transaction through `Transaction.updates` only "if a pending purchase succeeds"
    /// (https://developer.apple.com/documentation/storekit/product/purchaseresult/pending), and nothing reaches the
    /// app when a parent declines (in StoreKit Testing the declined transaction still reads as pending, Apple
    /// Developer Forums thread 685183). So the screen shows only what the app can know; the store's side (`/store`,
    /// the transactions, the timeline) shows the decline.
    func liveNotice(install: Install, ledger: [Delivery]) async throws -> Feedback? {
        if try await service.records.pendingTransactions().contains(where: { $0.installID == install.id }) {
            return Feedback(kind: .pending, locale: install.locale)
        }
        let events = service.timeline.events(installID: install.id, limit: 50)
        if events.first(where: { $0.kind.hasPrefix("askToBuy.") || $0.kind == "launch" })?.kind == "askToBuy.declined" {
            return Feedback(kind: .pending, locale: install.locale)
        }
        let decision = events.first { $0.kind.hasPrefix("askToBuy.") }
        guard let decision, decision.kind == "askToBuy.approved",
            let id = decision.attributes["transactionID"].flatMap(UInt64.init)
        else { return nil }
        guard let delivery = ledger.first(where: { $0.transactionID == id }) else {
            // Approved, and on its way to the running app's listener (the ledger row follows at once): still
            // pending for the person looking at the screen, so the thank-you replaces this notice, not nothing.
            return install.isRunning ? Feedback(kind: .pending, locale: install.locale) : nil
        }
        return Feedback(kind: delivery.outcome == .counted ? .purchased : .full, locale: install.locale)
    }
}
