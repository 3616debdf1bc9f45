import Foundation
import HTTPServer
import Mustache
import TipJar

extension Routes {
    func registerPages(in router: inout Router<DashboardContext>) {
        router.get("/") { request, context in
            try await pageCache.page(request, csrfToken: csrfToken(context)) { try await overviewPage(context, csrfToken: $0) }
        }
        router.get("/installs") { request, context in
            try await withFormSession(context) { try await pageCache.page(request, csrfToken: $0) { try await installsPage(request, context, csrfToken: $0) } }
        }
        router.get("/installs/:id") { request, context in
            let load = request.queryValue("load") == "now"
            let installID = try context.installID()
            return try await withFormSession(context) { token in
                try await pageCache.page(request, csrfToken: token, isStorable: { await isStorable(installID: installID, loads: load) }) {
                    try await installPage(request, installID: installID, load: load, csrfToken: $0)
                }
            }
        }
        router.get("/installs/:id/offers") { request, context in
            let installID = try context.installID()
            guard context.wantsFragment else {
                return try await withFormSession(context) { token in
                    try await pageCache.page(request, csrfToken: token, isStorable: { await isStorable(installID: installID, loads: true) }) {
                        try await installPage(request, installID: installID, load: true, csrfToken: $0)
                    }
                }
            }
            // With a session, the tiles and the other states carry the same token, so the fragment can be stored.
            if let token = context.csrfToken {
                return try await onScreen(context, installID: installID) {
                    try await pageCache.page(request, csrfToken: token, isStorable: { await isStorable(installID: installID, loads: true) }) {
                        let install = try await service.install(installID)
                        let state = try await service.loadOffers(installID: installID)
                        return try html("fragments/tipjar", try await tipJarData(context, install: install, state: state, csrfToken: $0))
                    }
                }
            }
            return try await onScreen(context, installID: installID) {
                let install = try await service.install(installID)
                let state = try await service.loadOffers(installID: installID)
                // Only the ready state renders forms (the tiles); loading and unavailable have none.
                guard case .ready = state else { return try html("fragments/tipjar", try await tipJarData(context, install: install, state: state)) }
                return try await withFormSession(context) {
                    try html("fragments/tipjar", try await tipJarData(context, install: install, state: state, csrfToken: $0))
                }
            }
        }
        router.get("/installs/:id/live") { _, context in
            let install = try await service.install(try context.installID())
            return try await liveFragments(install: install, feedback: nil)
        }
        router.get("/store") { request, context in
            try await withFormSession(context) { try await pageCache.page(request, csrfToken: $0) { try await storePage(request, context, csrfToken: $0) } }
        }
        router.get("/catalog") { request, context in
            try await pageCache.page(request, csrfToken: csrfToken(context)) { try await catalogPage(context, csrfToken: $0) }
        }
    }

    /// Whether an install page or tip jar fragment just rendered may be stored: not while a purchase (or its sheet,
    /// which closes by itself after a timeout) is open, and not when its load waited for the simulated latency.
    func isStorable(installID: String, loads: Bool) async -> Bool {
        guard await !service.isPurchaseOpen(installID: installID) else { return false }
        guard loads else { return true }
        let settings = service.store.settings
        return !(settings.catalog == .slow && settings.latencyMs > 0)
    }

    func overviewPage(_ context: DashboardContext, csrfToken: String) async throws -> HTTPResponse {
        var data = pageData(context, nav: "overview", csrfToken: csrfToken)
        let overview = try await service.records.overview()
        data["overview"] = [
            "installs": .int(overview.installs), "tips": .int(overview.tips), "hearts": .int(overview.hearts),
            "isEmpty": .bool(overview.installs == 0),
        ]
        data["settings"] = ViewModels.settings(service.store.settings)
        data["events"] = try await eventRows(service.timeline.events(installID: nil, limit: 20))
        return try html("pages/overview", data)
    }

    func installsPage(_ request: HTTPRequest, _ context: DashboardContext, csrfToken: String) async throws -> HTTPResponse {
        var data = pageData(context, nav: "installs", csrfToken: csrfToken)
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
        return try html("pages/installs", data)
    }

    /// The name columns of `/catalog`: the app's locales (`en`, `pt-BR`), then every other locale the file holds.
    static func catalogLocales(_ catalog: Catalog) -> [String] {
        catalog.locales(startingWith: AppLocale.allCases.map(\.identifier))
    }

    /// The storefront columns of `/catalog`: USA and BRA (the storefronts the tip jar is written for), then the
    /// catalog's default.
    static func storefrontChoices(_ catalog: Catalog) -> [(value: String, name: String)] {
        var codes = ["USA", "BRA"]
        if !codes.contains(catalog.defaultStorefront.countryCode) { codes.append(catalog.defaultStorefront.countryCode) }
        return codes.map { ($0, $0) }
    }

    /// The install's page. Without `load`, the tip jar shows its skeleton and `app.js` loads the
    /// offers fragment; with `load` (no-JavaScript path), the offers are loaded before rendering.
    func installPage(_ request: HTTPRequest, installID: String, load: Bool, csrfToken: String) async throws -> HTTPResponse {
        // The install and its ledger come from one snapshot, so hearts and ledger always agree.
        async let found = service.records.installWithLedger(id: installID, limit: 200)
        guard let (install, ledger) = try await found else { throw TipJarError.installNotFound(installID) }
        let state: TipJarState = load ? try await service.loadOffers(installID: installID) : .loading
        let (feedback, shownCookie) = FeedbackOnce.feedback(request, installID: installID, locale: install.locale)
        var data = ViewModels.installPage(
            install: install, state: state, isPurchaseOpen: await service.isPurchaseOpen(installID: installID),
            ledger: ledger, events: service.timeline.events(installID: installID, limit: 30),
            csrfToken: csrfToken, catalogName: catalogName, textSize: request.queryValue("textSize"),
            feedback: feedback,
            skipPurchaseSheet: service.store.settings.skipPurchaseSheet, sheet: await service.purchaseSheet(installID: installID))
        data["lives"] = try await transactionLives(install: install, ledger: ledger)
        if let refusal = scenarioRefusal(installID: installID) { data["scenarioRefusal"] = .string(refusal) }
        var response = try html("pages/install", data)
        if let shownCookie { response.fields.append(name: "Set-Cookie", value: shownCookie) }
        return response
    }

    /// What `fragments/tipjar` needs about the tip jar itself.
    func tipJarData(_ context: DashboardContext, install: Install, state: TipJarState, csrfToken: String? = nil) async throws -> TemplateData {
        ViewModels.tipJar(
            install: install, state: state, isPurchaseOpen: await service.isPurchaseOpen(installID: install.id),
            csrfToken: csrfToken ?? self.csrfToken(context), skipPurchaseSheet: service.store.settings.skipPurchaseSheet)
    }

    /// ``liveHTML(install:feedback:)`` as a response.
    func liveFragments(install: Install, feedback: Feedback?) async throws -> HTTPResponse {
        .html(try await liveHTML(install: install, feedback: feedback))
    }

    func storePage(_ request: HTTPRequest, _ context: DashboardContext, csrfToken: String) async throws -> HTTPResponse {
        let store = service.store
        let settings = store.settings
        var mismatch: (asked: [String], held: [String])?
        if settings.catalog == .mismatch { mismatch = (service.catalog.tips.map(\.productID), store.storeProductIDs) }
        let page = StorePageModel(
            chrome: chrome(context, nav: "store", csrfToken: csrfToken), settings: settings, fileSettings: service.catalog.fileSettings,
            flash: StoreFlash(query: request.queryValue), scenarios: scenarioDownloads, mismatch: mismatch,
            pending: try await service.records.pendingTransactions(), interrupted: try await store.interruptedTransactions(),
            transactions: try await service.records.recentTransactions(limit: 50), productIDs: service.catalog.products.map(\.productID),
            installChoices: try await installChoices(), sheetTimeoutMinutes: Int(service.purchaseSheetTimeout / 60))
        return try html("pages/store", page: page)
    }

    func catalogPage(_ context: DashboardContext, csrfToken: String) async throws -> HTTPResponse {
        let catalog = service.catalog
        let previews = [(AppLocale.en, Storefront.usa), (.ptBR, Storefront.bra)].map { locale, storefront in
            let products = catalog.tips.map { service.store.product(for: $0, storefront: storefront, locale: locale) }
            return (
                title: "\(locale.rawValue) · \(storefront.countryCode)", lang: locale.rawValue,
                offers: TipJarService.offers(from: products, catalog: catalog, locale: locale)
            )
        }
        let page = CatalogPageModel(
            chrome: chrome(context, nav: "catalog", csrfToken: csrfToken), catalog: catalog, locales: Self.catalogLocales(catalog),
            storefronts: Self.storefrontChoices(catalog).compactMap { Storefront.named($0.value) }, previews: previews)
        return try html("pages/catalog", page: page)
    }
}
