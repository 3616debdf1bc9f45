import Foundation
import HTTPServer
import Mustache
import TipJar

/// The installs: the overview (`/`), the list and its create form (`/installs`), an install's page and its tip jar
/// fragment (`/installs/{id}`, `…/offers`), the app's actions on it (restore, relaunch, stop, label, storefront;
/// `InstallsController+Actions.swift`) and deleting it with its confirmation page. The delete sits here rather than
/// with the transactions' deletes (``TransactionsController``): it removes the install (its page, hearts and ledger)
/// and answers with `/installs`. The purchase routes under `/installs/{id}/` are ``PurchasesController``'s, the live
/// channel and fragments ``LiveEventsController``'s.
struct InstallsController: DashboardController {
    let service: TipJarService
    /// Rendered pages by request and data version; see ``PageCache``.
    let pageCache: PageCache
    let renderer: PageRenderer
    let screen: InstallScreen
    let cachePolicy: InstallCachePolicy

    func register(in router: inout Router<DashboardContext>) {
        router.get("/") { request, context in
            try await pageCache.page(request, csrfToken: renderer.csrfToken(context)) { try await overviewPage(context, csrfToken: $0) }
        }
        router.get("/installs") { request, context in
            try await pageCache.formPage(request, context) { try await installsPage(request, context, csrfToken: $0) }
        }
        router.get("/installs/:id") { request, context in
            let load = request.queryValue("load") == "now"
            let installID = try context.installID()
            return try await pageCache.formPage(
                request, context, region: { await cachePolicy.region(installID: installID) },
                isStorable: { await cachePolicy.isStorable(installID: installID, loads: load) }
            ) {
                try await installPage(request, installID: installID, load: load, csrfToken: $0)
            }
        }
        router.get("/installs/:id/offers") { request, context in
            let installID = try context.installID()
            guard context.wantsFragment else {
                return try await pageCache.formPage(
                    request, context, region: { await cachePolicy.region(installID: installID) },
                    isStorable: { await cachePolicy.isStorable(installID: installID, loads: true) }
                ) {
                    try await installPage(request, installID: installID, load: true, csrfToken: $0)
                }
            }
            // With a session, the tiles and the other states carry the same token, so the fragment can be stored.
            if let token = context.csrfToken {
                return try await screen.onScreen(context, installID: installID) {
                    try await pageCache.page(
                        request, csrfToken: token, region: { await cachePolicy.region(installID: installID) },
                        isStorable: { await cachePolicy.isStorable(installID: installID, loads: true) }
                    ) {
                        let install = try await service.install(installID)
                        let state = try await service.loadOffers(installID: installID)
                        return try renderer.html("fragments/tipjar", try await screen.tipJarData(context, install: install, state: state, csrfToken: $0))
                    }
                }
            }
            return try await screen.onScreen(context, installID: installID) {
                let install = try await service.install(installID)
                let state = try await service.loadOffers(installID: installID)
                // Only the ready state renders forms (the tiles); loading and unavailable have none.
                guard case .ready = state else { return try renderer.html("fragments/tipjar", try await screen.tipJarData(context, install: install, state: state)) }
                return try await renderer.withFormSession(context) {
                    try renderer.html("fragments/tipjar", try await screen.tipJarData(context, install: install, state: state, csrfToken: $0))
                }
            }
        }
        registerActions(in: &router)
        registerRefundSheet(in: &router)
        router.get("/confirm/installs/:id/delete") { request, context in
            let install = try await service.install(try context.installID())
            return try await renderer.confirmPage(
                context, title: "Delete install \(ViewModels.shortID(install.id))?",
                message:
                    "The app is deleted from the device: its \(install.hearts) heart\(install.hearts == 1 ? "" : "s") and its ledger go. Its account's transactions stay with the store, so a new install on account \(install.accountID) receives the unfinished ones at launch.",
                action: "/installs/\(install.id)/delete", button: "Delete the install", cancel: "/installs/\(install.id)")
        }
        router.post("/installs/:id/delete") { request, context in
            try await service.deleteInstall(try context.installID())
            return .redirect(to: "/installs?flash=deleted")
        }
    }

    func overviewPage(_ context: DashboardContext, csrfToken: String) async throws -> HTTPResponse {
        var data = renderer.pageData(context, nav: "overview", csrfToken: csrfToken)
        let overview = try await service.records.overview()
        data["overview"] = [
            "installs": .int(overview.installs), "tips": .int(overview.tips), "hearts": .int(overview.hearts),
            "isEmpty": .bool(overview.installs == 0),
        ]
        data["settings"] = ViewModels.settings(service.settings)
        data["events"] = try await screen.eventRows(Self.recentEvents(service.timeline.events(installID: nil, limit: 200)))
        return try renderer.html("pages/overview", data)
    }

    /// The overview's 20 recent events, newest first, with each run of store settings changes one row that says how
    /// many (`Store settings changed 6 times.`), so a script or a test that sets the store often leaves room for the
    /// installs' events; the install pages and the timeline API keep every one.
    static func recentEvents(_ events: [InstallEvent], limit: Int = 20) -> [InstallEvent] {
        var rows: [(event: InstallEvent, count: Int)] = []
        for event in events {
            if event.kind == "store.settings", let last = rows.last, last.event.kind == "store.settings" {
                rows[rows.count - 1].count += 1
            } else {
                if rows.count == limit { break }
                rows.append((event, 1))
            }
        }
        return rows.map { row in
            guard row.count > 1 else { return row.event }
            var event = row.event
            event.detail = "Store settings changed \(row.count) times."
            return event
        }
    }

    func installsPage(_ request: HTTPRequest, _ context: DashboardContext, csrfToken: String) async throws -> HTTPResponse {
        var data = renderer.pageData(context, nav: "installs", csrfToken: csrfToken)
        let heartsFilter = request.queryValue("hearts").flatMap { Int($0) }.flatMap { (0...5).contains($0) ? $0 : nil }
        let page = max(1, min(1_000_000, request.queryValue("page").flatMap { Int($0) } ?? 1))
        let search = String((request.queryValue("q") ?? "").prefix(100))
        let query = InstallQuery(search: search, hearts: heartsFilter, page: page)
        let result = try await service.records.installs(matching: query)
        data["installs"] = .array(result.installs.map(ViewModels.install))
        data["query"] = ["search": .string(search), "page": .int(page)]
        if request.queryValue("flash") == "deleted" { data["flash"] = "Deleted: the app, its hearts and its ledger are gone; its transactions stay with the store." }
        data["heartFilters"] = ViewModels.choices(
            [("", "any")] + (0...5).map { ("\($0)", "\($0)") },
            selected: heartsFilter.map(String.init) ?? "")
        let catalog = service.catalog
        data["locales"] = ViewModels.choices(
            AppLocale.allCases.map { ($0.rawValue, $0 == .en ? "English (en)" : "Português (pt-BR)") },
            selected: catalog.defaultLocale.rawValue)
        data["storefronts"] = ViewModels.storefrontChoices(selected: catalog.defaultStorefront.countryCode)
        func link(_ page: Int) -> String {
            var items = [("page", "\(page)")]
            if !search.isEmpty { items.append(("q", search)) }
            if let heartsFilter { items.append(("hearts", "\(heartsFilter)")) }
            return "/installs?" + items.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&")
        }
        if page > 1 { data["previousPage"] = .string(link(page - 1)) }
        if result.hasMore { data["nextPage"] = .string(link(page + 1)) }
        return try renderer.html("pages/installs", data)
    }

    /// The install's page. Without `load`, the tip jar shows its skeleton and `app.js` loads the
    /// offers fragment; with `load` (no-JavaScript path), the offers are loaded before rendering.
    func installPage(_ request: HTTPRequest, installID: String, load: Bool, csrfToken: String) async throws -> HTTPResponse {
        // The install and its ledger come from one snapshot, so hearts and ledger always agree.
        async let found = service.records.installWithLedger(id: installID, limit: 200)
        guard let (install, ledger) = try await found else { throw TipJarError.installNotFound(installID) }
        // A load that finished since the launch is shown at once (tiles already loaded need no second tap without
        // JavaScript, nor a skeleton with it); otherwise the skeleton, and app.js loads the offers.
        var state: TipJarState = load ? try await service.loadOffers(installID: installID) : .loading
        if !load, case .ready(let offers)? = await service.lastLoad(installID: installID) { state = .ready(offers) }
        let (feedback, shownCookie) = FeedbackOnce.feedback(request, installID: installID, locale: install.locale)
        var data = ViewModels.installPage(
            install: install, state: state, isPurchaseOpen: await service.isPurchaseOpen(installID: installID),
            ledger: ledger, events: service.timeline.events(installID: installID, limit: 30),
            csrfToken: csrfToken, catalogName: renderer.catalogName, textSize: request.queryValue("textSize"),
            feedback: feedback,
            skipPurchaseSheet: service.settings.skipPurchaseSheet, sheet: await service.purchaseSheet(installID: installID))
        data["lives"] = try await screen.transactionLives(install: install, ledger: ledger)
        data["relaunched"] = .bool(request.queryValue("relaunched") == "1")
        // The answer to a form post without JavaScript (a purchase, Confirm, a refund request) is a new page: its
        // notice takes the focus, so the person hears and sees what happened rather than starting again at <body>.
        data["feedbackFocus"] = .bool(feedback?.notice != nil)
        if let refusal = ScenarioRecordability.refusal(installID: installID, timeline: service.timeline) { data["scenarioRefusal"] = .string(refusal) }
        var response = try renderer.html("pages/install", data)
        if let shownCookie { response.fields.append(name: "Set-Cookie", value: shownCookie) }
        return response
    }
}
