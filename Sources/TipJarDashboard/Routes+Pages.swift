import Foundation
import HTTPServer
import Mustache
import TipJar

extension Routes {
    func registerPages(in router: inout Router) {
        router.get("/") { request, _ in
            await handling(request) { try await pageCache.page(request, csrfToken: csrfToken(request)) { try await overviewPage(request, csrfToken: $0) } }
        }
        router.get("/installs") { request, _ in
            await handling(request) { try await withFormSession(request) { try await pageCache.page(request, csrfToken: $0) { try await installsPage(request, csrfToken: $0) } } }
        }
        router.get("/installs/:id") { request, parameters in
            await handling(request) {
                let load = request.queryValue("load") == "now"
                let installID = Self.installID(parameters)
                return try await withFormSession(request) { token in
                    try await pageCache.page(request, csrfToken: token, isStorable: { await isStorable(installID: installID, loads: load) }) {
                        try await installPage(request, installID: installID, load: load, csrfToken: $0)
                    }
                }
            }
        }
        router.get("/installs/:id/offers") { request, parameters in
            await handling(request) {
                let installID = Self.installID(parameters)
                guard Self.wantsFragment(request) else {
                    return try await withFormSession(request) { token in
                        try await pageCache.page(request, csrfToken: token, isStorable: { await isStorable(installID: installID, loads: true) }) {
                            try await installPage(request, installID: installID, load: true, csrfToken: $0)
                        }
                    }
                }
                // With a session, the tiles and the other states carry the same token, so the fragment can be stored.
                let token = csrfToken(request)
                if !token.isEmpty {
                    return try await onScreen(request, installID: installID) {
                        try await pageCache.page(request, csrfToken: token, isStorable: { await isStorable(installID: installID, loads: true) }) {
                            let install = try await service.install(installID)
                            let state = try await service.loadOffers(installID: installID)
                            return try html("fragments/tipjar", try await tipJarData(request, install: install, state: state, csrfToken: $0))
                        }
                    }
                }
                return try await onScreen(request, installID: installID) {
                    let install = try await service.install(installID)
                    let state = try await service.loadOffers(installID: installID)
                    // Only the ready state renders forms (the tiles); loading and unavailable have none.
                    guard case .ready = state else { return try html("fragments/tipjar", try await tipJarData(request, install: install, state: state)) }
                    return try await withFormSession(request) {
                        try html("fragments/tipjar", try await tipJarData(request, install: install, state: state, csrfToken: $0))
                    }
                }
            }
        }
        router.get("/installs/:id/live") { request, parameters in
            await handling(request) {
                let install = try await service.install(Self.installID(parameters))
                return try await liveFragments(request, install: install, feedback: nil)
            }
        }
        router.get("/store") { request, _ in
            await handling(request) { try await withFormSession(request) { try await pageCache.page(request, csrfToken: $0) { try await storePage(request, csrfToken: $0) } } }
        }
        router.get("/catalog") { request, _ in
            await handling(request) { try await pageCache.page(request, csrfToken: csrfToken(request)) { try await catalogPage(request, csrfToken: $0) } }
        }
    }

    /// Whether an install page or tip jar fragment just rendered may be stored: not while a purchase (or its sheet,
    /// which closes by itself after a timeout) is open, and not when its load waited for the simulated latency.
    func isStorable(installID: String, loads: Bool) async -> Bool {
        guard await !service.isPurchaseOpen(installID: installID) else { return false }
        guard loads else { return true }
        let settings = await service.store.settings
        return !(settings.catalog == .slow && settings.latencyMs > 0)
    }

    func overviewPage(_ request: HTTPRequest, csrfToken: String) async throws -> HTTPResponse {
        var data = pageData(request, nav: "overview", csrfToken: csrfToken)
        let overview = try await storage.overview()
        data["overview"] = ["installs": overview.installs, "tips": overview.tips, "hearts": overview.hearts, "isEmpty": overview.installs == 0]
        data["settings"] = ViewModels.settings(await service.store.settings)
        data["events"] = service.timeline.events(installID: nil, limit: 20).map(ViewModels.event)
        return try html("pages/overview", data)
    }

    func installsPage(_ request: HTTPRequest, csrfToken: String) async throws -> HTTPResponse {
        var data = pageData(request, nav: "installs", csrfToken: csrfToken)
        let heartsFilter = request.queryValue("hearts").flatMap { Int($0) }.flatMap { (0...5).contains($0) ? $0 : nil }
        let page = max(1, min(1_000_000, request.queryValue("page").flatMap { Int($0) } ?? 1))
        let search = String((request.queryValue("q") ?? "").prefix(100))
        let query = InstallQuery(search: search, hearts: heartsFilter, page: page)
        let result = try await storage.installs(matching: query)
        data["installs"] = result.installs.map(ViewModels.install)
        data["query"] = ["search": search, "page": page]
        if request.queryValue("flash") == "deleted" { data["flash"] = "Deleted: the app, its hearts and its ledger are gone; its transactions stay with the store." }
        data["heartFilters"] = ViewModels.choices([("", "any")] + (0...5).map { ("\($0)", "\($0)") },
                                                  selected: heartsFilter.map(String.init) ?? "")
        let catalog = service.catalog
        data["locales"] = ViewModels.choices(AppLocale.allCases.map { ($0.rawValue, $0 == .en ? "English (en)" : "Português (pt-BR)") },
                                             selected: catalog.defaultLocale.rawValue)
        data["storefronts"] = ViewModels.storefrontChoices(selected: catalog.defaultStorefront.countryCode)
        func link(_ page: Int) -> String {
            var items = [("page", "\(page)")]
            if !search.isEmpty { items.append(("q", search)) }
            if let heartsFilter { items.append(("hearts", "\(heartsFilter)")) }
            return "/installs?" + items.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&")
        }
        if page > 1 { data["previousPage"] = link(page - 1) }
        if result.hasMore { data["nextPage"] = link(page + 1) }
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
        async let found = storage.installWithLedger(id: installID, limit: 200)
        guard let (install, ledger) = try await found else { throw TipJarError.installNotFound(installID) }
        let state: TipJarState = load ? try await service.loadOffers(installID: installID) : .loading
        let data = ViewModels.installPage(
            install: install, state: state, isPurchaseOpen: await service.isPurchaseOpen(installID: installID),
            ledger: ledger, events: service.timeline.events(installID: installID, limit: 30),
            csrfToken: csrfToken, catalogName: catalogName, textSize: request.queryValue("textSize"),
            feedback: Feedback.fromQuery(request, locale: install.locale),
            skipPurchaseSheet: await service.store.settings.skipPurchaseSheet, sheet: await service.purchaseSheet(installID: installID))
        return try html("pages/install", data)
    }

    /// What `fragments/tipjar` needs about the tip jar itself.
    func tipJarData(_ request: HTTPRequest, install: Install, state: TipJarState, csrfToken: String? = nil) async throws -> TemplateData {
        ViewModels.tipJar(install: install, state: state, isPurchaseOpen: await service.isPurchaseOpen(installID: install.id),
                          csrfToken: csrfToken ?? self.csrfToken(request), skipPurchaseSheet: await service.store.settings.skipPurchaseSheet)
    }

    /// ``liveHTML(install:feedback:)`` as a response.
    func liveFragments(_ request: HTTPRequest, install: Install, feedback: Feedback?) async throws -> HTTPResponse {
        .html(try await liveHTML(install: install, feedback: feedback))
    }

    func storePage(_ request: HTTPRequest, csrfToken: String) async throws -> HTTPResponse {
        var data = pageData(request, nav: "store", csrfToken: csrfToken)
        let store = service.store
        let settings = await store.settings
        data["settings"] = ViewModels.settings(settings)
        if let flash = StoreFlash(query: request.queryValue) {
            data["flash"] = flash.message
            data["flashIn"] = [flash.kind.section: true]
        }
        data["catalogModes"] = ViewModels.choices(StoreSettings.CatalogMode.allCases.map { ($0.rawValue, $0.rawValue) }, selected: settings.catalog.rawValue)
        data["purchaseOutcomes"] = ViewModels.choices(StoreSettings.PurchaseOutcome.allCases.map { ($0.rawValue, $0.rawValue) },
                                                      selected: settings.purchaseOutcome.rawValue)
        data["purchaseErrors"] = ViewModels.choices(ViewModels.purchaseFailureNames, selected: settings.purchaseError.rawValue)
        data["failLoadProducts"] = ViewModels.failureChoices(StoreKitError.self, selected: settings.failures.loadProducts)
        data["failPurchase"] = ViewModels.choices([("", "off")] + ViewModels.purchaseFailureNames, selected: settings.failures.purchase?.rawValue ?? "")
        data["failVerification"] = ViewModels.failureChoices(VerificationError.self, selected: settings.failures.verification)
        data["failSync"] = ViewModels.failureChoices(StoreKitError.self, selected: settings.failures.sync)
        data["scenarios"] = scenarioDownloads.map { ["href": $0.href, "name": $0.name, "file": $0.file, "runAction": $0.runAction] }
        data["hasScenarios"] = !scenarioDownloads.isEmpty
        data["reemitChoices"] = ViewModels.choices((0...3).map { ("\($0)", $0 == 0 ? "never" : "\($0) time\($0 == 1 ? "" : "s")") },
                                                   selected: "\(settings.listenerReemits)")
        if settings.catalog == .mismatch {
            data["mismatch"] = true
            data["askedIDs"] = service.catalog.tips.map(\.productID).joined(separator: ", ")
            data["heldIDs"] = await store.storeProductIDs.joined(separator: ", ")
        }
        data["pending"] = try await storage.pendingTransactions().map { stored -> [String: Any] in
            ["transactionID": String(stored.transaction.id), "installID": stored.installID,
             "installShort": ViewModels.shortID(stored.installID), "productID": stored.transaction.productID]
        }
        data["interrupted"] = try await store.interruptedTransactions().map { stored -> [String: Any] in
            ["transactionID": String(stored.transaction.id), "installID": stored.installID,
             "installShort": ViewModels.shortID(stored.installID), "productID": stored.transaction.productID]
        }
        data["transactions"] = try await storage.recentTransactions(limit: 50).map { stored -> [String: Any] in
            ["transactionID": String(stored.transaction.id), "installID": stored.installID,
             "installShort": ViewModels.shortID(stored.installID), "productID": stored.transaction.productID,
             "status": stored.status.rawValue, "isRevoked": stored.transaction.isRevoked, "isExternal": stored.isExternal,
             "isFinished": stored.isFinished, "canRefund": stored.status == .purchased && !stored.transaction.isRevoked]
        }
        data["productIDs"] = service.catalog.products.map(\.productID)
        data["installPicker"] = try await installChoices().flatMap { $0.isEmpty ? nil : ["choices": $0] }
        data["fileNotes"] = service.catalog.fileSettings.notes.map { ["line": $0.line, "applied": $0.applied] }
        data["fromFile"] = ViewModels.fromFile(service.catalog.fileSettings, current: settings)
        data["sheetTimeoutMinutes"] = Int(service.purchaseSheetTimeout / 60)
        return try html("pages/store", data)
    }

    func catalogPage(_ request: HTTPRequest, csrfToken: String) async throws -> HTTPResponse {
        var data = pageData(request, nav: "catalog", csrfToken: csrfToken)
        let catalog = service.catalog
        let storefronts = Self.storefrontChoices(catalog).compactMap { Storefront.named($0.value) }
        data["identifier"] = catalog.identifier
        data["formatVersion"] = catalog.formatVersion.description
        data["defaultStorefront"] = catalog.defaultStorefront.countryCode
        data["tipOrder"] = catalog.tipOrder.rawValue
        let locales = Self.catalogLocales(catalog)
        data["localeHeaders"] = locales
        data["storefrontHeaders"] = storefronts.map(\.countryCode)
        data["tips"] = catalog.tips.map { entry -> [String: Any] in
            let tier = catalog.tier(of: entry)
            return ["productID": entry.productID, "emoji": tier?.emoji ?? "💝", "tierName": tier?.rawValue ?? "other",
                    "names": locales.map { locale -> [String: Any] in
                        var name: [String: Any] = ["name": catalog.displayName(of: entry, locale: locale)]
                        if let source = catalog.nameFallback(of: entry, locale: locale) { name["fallback"] = source }
                        return name
                    },
                    "prices": storefronts.map { $0.displayPrice(entry.price) }]
        }
        let sample = catalog.tips.first
        data["sampleTip"] = sample.map { catalog.displayName(of: $0, locale: AppLocale.en.identifier) }
        data["allStorefronts"] = Storefront.all.map { storefront -> [String: Any] in
            ["code": storefront.countryCode, "name": storefront.name, "currency": storefront.currencyCode,
             "locale": storefront.localeIdentifier, "price": sample.map { storefront.displayPrice($0.price) } ?? "—",
             "isDefault": storefront == catalog.defaultStorefront]
        }
        data["nonTips"] = catalog.nonTips.map { ["productID": $0.productID, "type": $0.type.rawValue] }
        data["previews"] = [(AppLocale.en, Storefront.usa), (.ptBR, Storefront.bra)].map { locale, storefront -> [String: Any] in
            let products = catalog.tips.map { service.store.product(for: $0, storefront: storefront, locale: locale) }
            return ["title": "\(locale.rawValue) · \(storefront.countryCode)", "lang": locale.rawValue,
                    "offers": TipJarService.offers(from: products, catalog: catalog).map { ViewModels.tile($0) }]
        }
        return try html("pages/catalog", data)
    }
}
