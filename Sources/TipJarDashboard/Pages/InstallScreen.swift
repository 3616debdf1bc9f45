import HTTPServer
import Mustache
import TipJar

/// The simulated app's screen, as several controllers answer it: the tip jar fragment's data, the live fragments a
/// purchase, restore, poll or live event swaps in (``liveHTML(installID:feedback:textSize:)``), the timeline's rows, the install's
/// transaction lives (`InstallScreen+Lives.swift`), and the errors answered to the screen itself: a fragment request
/// (`X-Fragment: 1`) from an install page gets its alert in the install's language, as the app would show it, with
/// the same status the error has everywhere else (``WebErrors/knownError(_:)``). Held by the installs, purchases
/// and live events controllers.
struct InstallScreen: Sendable {
    let service: TipJarService
    let renderer: PageRenderer

    /// Runs a fragment handler of the install `installID`; an error becomes the localized alert
    /// fragment (`fragments/error`), thrown as a ``ScreenAlert``. Requests that are not fragments keep the
    /// chain's answers.
    func onScreen(_ context: DashboardContext, installID: String, _ body: () async throws -> HTTPResponse) async throws -> HTTPResponse {
        guard context.wantsFragment else { return try await body() }
        do {
            return try await body()
        } catch {
            let known = WebErrors.knownError(error)
            let locale = (try? await service.install(installID))?.locale ?? .en
            let strings = TipJarStrings.of(locale)
            let (title, message) = Self.screenAlert(for: error, strings: strings)
            throw ScreenAlert(
                status: known?.status ?? .internalServerError, title: title, message: message, ok: strings.ok,
                isLogged: known?.isLogged ?? true, underlying: error)
        }
    }

    /// The alert's title and message for an error met on the screen, in the screen's strings.
    static func screenAlert(for error: any Error, strings: TipJarStrings) -> (title: String, message: String) {
        switch error {
        case TipJarError.purchaseInProgress: (strings.purchaseInProgressTitle, strings.purchaseInProgress)
        case TipJarError.unknownProduct: (strings.unknownProductTitle, strings.unknownProduct)
        case TipJarError.productNotLoaded(_, let gap): (strings.unknownProductTitle, strings.productNotLoaded(gap))
        case TipJarError.noPurchaseSheet: (strings.sheetClosedTitle, strings.sheetClosed)
        default: (strings.errorTitle, strings.errorMessage)
        }
    }

    /// What `fragments/tipjar` needs about the tip jar itself.
    func tipJarData(_ context: DashboardContext, install: Install, state: TipJarState, csrfToken: String? = nil) async throws -> TemplateData {
        ViewModels.tipJar(
            install: install, state: state, isPurchaseOpen: await service.isPurchaseOpen(installID: install.id),
            csrfToken: csrfToken ?? renderer.csrfToken(context), skipPurchaseSheet: service.settings.skipPurchaseSheet)
    }

    /// ``liveHTML(installID:feedback:textSize:)`` as a response.
    func liveFragments(installID: String, feedback: Feedback?, textSize: TextSize = .default) async throws -> HTTPResponse {
        .html(try await liveHTML(installID: installID, feedback: feedback, textSize: textSize))
    }

    /// The fragments a purchase, restore, poll or live event swaps in: hearts, feedback, ledger, the
    /// install's state line, its timeline, its transaction lives, and whether a purchase (or its sheet) is open, which
    /// disables the tiles of every other tab showing the install (`app.js`). Without `feedback` (a poll or live event), the feedback
    /// fragment holds the notice that is true now (``liveNotice(install:ledger:)``); `app.js` applies it
    /// only where it replaces a pending notice or brings one.
    ///
    /// The install is read here, once, with its ledger (no caller reads it before); `textSize` is the page's, which the
    /// ledger's links carry, so the fragments equal the page's own and a live event that changes nothing swaps nothing.
    func liveHTML(installID: String, feedback: Feedback?, textSize: TextSize = .default) async throws -> String {
        // The hearts and the ledger from one snapshot: a delivery committed between two reads would show its
        // ledger row (and the thank-you) beside the hearts from before it.
        guard let (install, ledger) = try await service.records.installWithLedger(id: installID, limit: 200) else {
            throw TipJarError.installNotFound(installID)
        }
        let templates = renderer.templates
        let strings = TipJarStrings.of(install.locale)
        var notice = feedback
        if notice == nil { notice = try await liveNotice(install: install, ledger: ledger) }
        let events = service.timeline.events(installID: install.id, limit: 30)
        let purchaseOpen = await service.isPurchaseOpen(installID: install.id)  // a sheet or purchase in any tab
        return [
            try templates.render("fragments/hearts", ["hearts": ViewModels.hearts(install.hearts, strings: strings)]),
            try templates.render("fragments/feedback", ["feedback": notice?.data ?? [:]]),
            try templates.render("fragments/ledger", ["ledger": ViewModels.ledgerRows(ledger), "textSize": .string(textSize.rawValue)]),
            try templates.render(
                "fragments/install-meta",
                [
                    "install": ViewModels.install(install),
                    "accountPath": .string(ViewModels.urlComponent(install.accountID)),
                ]),
            try templates.render("fragments/timeline", ["events": try await eventRows(events), "hasEvents": .bool(!events.isEmpty)]),
            try templates.render("fragments/lives", ["lives": try await transactionLives(install: install, ledger: ledger)]),
            try templates.render(
                "fragments/purchase-state", ["purchaseOpen": .bool(purchaseOpen), "purchaseOpenText": .string(strings.purchaseOpenHere)]),
        ].joined(separator: "\n")
    }

    /// The timeline's kinds for an Ask to Buy request the app got `.pending` for (a first request, or one requested again).
    static let askToBuyRequestKinds: Set<String> = ["purchase.askToBuy", "purchase.askToBuyAgain"]

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
        // The newest of the app's requests, the store's decisions and the launches. A request newer than any decision
        // was decided in the store without its decision on the timeline yet (the store's write commits first, its
        // event follows): a render in between found neither the request pending nor an approval, and sent no notice,
        // and the page then kept that empty notice when the thank-you came (a live update replaces only a pending
        // notice, `Public/app.js`). The app knows nothing new until its listener receives the transaction, so pending.
        let latest = events.first { $0.kind.hasPrefix("askToBuy.") || Self.askToBuyRequestKinds.contains($0.kind) || $0.kind == "launch" }
        if let latest, latest.kind == "askToBuy.declined" || Self.askToBuyRequestKinds.contains(latest.kind) {
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

/// An error met on the simulated screen, as the app shows it: the status the error has everywhere else, the
/// alert's words in the install's language. Logged (with the error it stands for) when that error would be.
struct ScreenAlert: HTTPResponseError, CustomStringConvertible {
    let status: HTTPStatus
    let title: String
    let message: String
    /// The alert's button.
    let ok: String
    let isLogged: Bool
    let underlying: any Error

    /// The error it stands for, as the log line names it.
    var description: String { String(describing: underlying) }
}
