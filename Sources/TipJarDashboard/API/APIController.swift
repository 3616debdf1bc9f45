import Foundation
import HTTPServer
import TipJar

/// The JSON API under `/api/` (Public/api/openapi.json) and its page for people, `GET /api`: the same actions as the
/// pages, for scripts and the CI of an app under test. Errors are `{"error": "…"}` with a 4xx/5xx status. Its list and
/// ledger reads also answer as downloads (`?format=csv|json`, `APIController+Export.swift`); the session controls
/// (reset, clear, delete) answer at once, where the pages ask first. `GET /api/installs/{id}/scenario`, a recorded
/// scenario, is ``ScenariosController``'s.
struct APIController: DashboardController {
    let service: TipJarService
    /// Rendered answers by request and data version; see ``PageCache``.
    let pageCache: PageCache
    /// For the `/api` page alone.
    let renderer: PageRenderer
    /// `Public/api/openapi.json`, read once, for the `/api` page.
    let apiReference: APIReference
    let cachePolicy: InstallCachePolicy

    func register(in router: inout Router<DashboardContext>) {
        registerInstalls(in: &router)
        registerStore(in: &router)
        registerTransactions(in: &router)
        registerRefundRequests(in: &router)
        // `GET /api`: the JSON API for people, rendered on the server from `Public/api/openapi.json` (read once at
        // start, ``APIReference``), so it needs no JavaScript; the document itself stays at `/api/openapi.json`.
        router.get("/api") { _, context in
            var data = renderer.pageData(context, nav: "api")
            if case .object(let reference) = apiReference.mustacheValue { data.merge(reference) { _, new in new } }
            return try renderer.html("pages/api", data)
        }
    }

    /// `/api/installs…`: create, list (or export), read, change, load offers, buy, restore, launch, stop, delete.
    func registerInstalls(in router: inout Router<DashboardContext>) {
        router.post("/api/installs") { request, context in
            let body = try JSONBody.decode(APIModels.NewInstall.self, from: request, fields: APIModels.NewInstall.fields)
            var install = try await service.createInstall(
                locale: body.locale ?? service.catalog.defaultLocale, storefront: body.storefront,
                accountID: body.accountID, label: body.label ?? "",
                legacyHasTipped: body.legacyHasTipped ?? false)
            if body.launch == true {
                _ = try await service.launch(installID: install.id)
                install = try await service.install(install.id)
            }
            return JSONBody.response(APIModels.InstallBody(install), status: .created)
        }
        router.get("/api/installs") { request, context in
            // Checked as /api/transactions checks its parameters (``QueryValues``): a bad one is a 400 naming it.
            let query = InstallQuery(
                search: try QueryValues.text(request, "q") ?? "", hearts: try QueryValues.optionalInteger(request, "hearts", in: 0...Install.maximumHearts),
                page: try QueryValues.integer(request, "page", default: 1, in: 1...InstallQuery.maximumPage),
                pageSize: try QueryValues.integer(request, "pageSize", default: 50, in: 1...200))
            if let format = try ExportFormat(request) {
                return try await installsExport(search: query.search, hearts: query.hearts, format: format)
            }
            let page = try await service.records.installs(matching: query)
            struct Page: Encodable { var installs: [APIModels.InstallBody]; var hasMore: Bool }
            return JSONBody.response(Page(installs: page.installs.map(APIModels.InstallBody.init), hasMore: page.hasMore))
        }
        router.get("/api/installs/:id") { request, context in
            let id = try context.installID()
            // A read, sent again from stored bytes while nothing it shows changes (``PageCache``), as the install page is.
            return try await pageCache.page(request, csrfToken: "", region: { await cachePolicy.region(installID: id) }) { _ in
                JSONBody.response(APIModels.InstallBody(try await service.install(id)))
            }
        }
        router.put("/api/installs/:id/label") { request, context in
            let body = try JSONBody.decode(APIModels.LabelBody.self, from: request)
            return JSONBody.response(APIModels.InstallBody(try await service.setLabel(body.label, installID: try context.installID())))
        }
        router.put("/api/installs/:id/storefront") { request, context in
            let body = try JSONBody.decode(APIModels.StorefrontBody.self, from: request)
            return JSONBody.response(APIModels.InstallBody(try await service.setStorefront(body.storefront, installID: try context.installID())))
        }
        router.get("/api/installs/:id/offers") { request, context in
            let id = try context.installID()
            // A load is a read: the same answer is sent again while nothing it depends on changes (``PageCache``).
            return try await pageCache.page(
                request, csrfToken: "", region: { await cachePolicy.region(installID: id) },
                isStorable: { await cachePolicy.isStorable(installID: id, loads: true) }
            ) { _ in
                let install = try await service.install(id)
                switch try await service.loadOffers(installID: id) {
                case .ready(let offers):
                    return JSONBody.response(
                        APIModels.OffersBody(
                            state: "ready",
                            offers: offers.map {
                                APIModels.OfferBody(productID: $0.productID, name: $0.name, emoji: $0.emoji, displayPrice: $0.displayPrice)
                            }))
                case .unavailable(let reason):
                    let strings = TipJarStrings.of(install.locale)
                    return JSONBody.response(
                        APIModels.OffersBody(
                            state: "unavailable",
                            message: reason == .empty ? strings.unavailableEmpty : strings.unavailableFailed))
                case .loading:
                    return JSONBody.response(APIModels.OffersBody(state: "loading"))
                }
            }
        }
        router.post("/api/installs/:id/purchases") { request, context in
            let body = try JSONBody.decode(APIModels.PurchaseRequest.self, from: request)
            let report = try await service.purchase(
                productID: body.productID, installID: try context.installID(),
                options: body.options, userAction: body.userAction)
            let message: String? =
                switch report.outcome {
                case .failed: Feedback.message(forError: report.errorName, locale: report.locale)
                case .unverified: TipJarStrings.of(report.locale).unverified
                default: nil
                }
            return JSONBody.response(
                APIModels.PurchaseBody(
                    outcome: report.outcome.rawValue, transactionID: report.transactionID,
                    hearts: report.hearts, error: message, errorName: report.errorName,
                    recordOutcome: report.recordOutcome?.rawValue
                ).object)
        }
        router.post("/api/installs/:id/restore") { request, context in
            let id = try context.installID()
            do {
                _ = try await service.restore(installID: id)
            } catch let error as StoreKitError {
                let install = try await service.install(id)
                return JSONBody.response(
                    ["error": error.restoreMessage(locale: install.locale), "storeKitError": error.rawValue],
                    status: .serviceUnavailable)
            }
            return JSONBody.response(APIModels.InstallBody(try await service.install(id)))
        }
        router.post("/api/installs/:id/launch") { request, context in
            let id = try context.installID()
            _ = try await service.launch(installID: id)
            return JSONBody.response(APIModels.InstallBody(try await service.install(id)))
        }
        router.post("/api/installs/:id/stop") { request, context in
            JSONBody.response(APIModels.InstallBody(try await service.stop(installID: try context.installID())))
        }
        router.post("/api/installs/:id/external-purchases") { request, context in
            let body = try JSONBody.decode(APIModels.ProductBody.self, from: request)
            let (stored, delivery) = try await service.externalPurchase(productID: body.productID, installID: try context.installID())
            return JSONBody.response(APIModels.TransactionBody(stored, delivery: delivery), status: .created)
        }
        router.get("/api/installs/:id/ledger") { request, context in
            let id = try context.installID()
            let format = try ExportFormat(request)
            return try await pageCache.page(request, csrfToken: "", region: { await cachePolicy.region(installID: id) }) { _ in
                _ = try await service.install(id)
                let rows = try await service.records.ledger(installID: id, limit: 10_000)
                if let format { return ledgerExport(rows, installID: id, format: format) }
                return JSONBody.response(rows.map(APIModels.DeliveryBody.init))
            }
        }
        router.delete("/api/installs/:id") { request, context in
            try await service.deleteInstall(try context.installID())
            return HTTPResponse(status: .noContent)
        }
    }

    /// `/api/store…`: the settings, their reset to the file's, and the Ask to Buy and interrupted queues.
    func registerStore(in router: inout Router<DashboardContext>) {
        router.get("/api/store") { request, context in
            JSONBody.response(APIModels.StoreBody(service.settings))
        }
        // Both apply the body to the settings in force when the change has its turn (``TipJarService/changeStore(_:)``),
        // so two requests at once that name different fields both last. PUT is kept as it was: it sets the fields it
        // names (``StorePatch``); PATCH is JSON Merge Patch (RFC 7396), whose media type ``OriginCheck`` requires.
        router.put("/api/store") { request, context in
            let body = request.body
            return JSONBody.response(APIModels.StoreBody(try await service.changeStore { try StorePatch.apply(body, to: $0) }))
        }
        router.patch("/api/store") { request, context in
            let body = request.body
            return JSONBody.response(
                APIModels.StoreBody(try await service.changeStore { try StorePatch.apply(body, to: $0, semantics: .mergePatch) }))
        }
        router.post("/api/store/reset") { request, context in
            JSONBody.response(APIModels.StoreBody(try await service.resetStore()))
        }
        router.get("/api/store/pending") { request, context in
            JSONBody.response(
                try await service.records.pendingTransactions().map(APIModels.AskToBuyRequestBody.init))
        }
        // The path's ID is the Ask to Buy request's (`requestID`), not a transaction's; approval answers the new transaction.
        router.post("/api/store/pending/:tid/approve") { request, context in
            let approved = try await service.approve(requestID: try context.transactionID())
            return try await transactionResponse(approved.transaction.transaction.id, delivery: approved.delivery)
        }
        router.post("/api/store/pending/:tid/decline") { request, context in
            JSONBody.response(APIModels.AskToBuyRequestBody(try await service.decline(requestID: try context.transactionID())))
        }
        // The path's ID is the interrupted purchase's own; resolving answers the new transaction.
        router.post("/api/store/interrupted/:tid/resolve") { request, context in
            let resolved = try await service.resolveIssue(transactionID: try context.transactionID())
            return try await transactionResponse(resolved.transaction.transaction.id, delivery: resolved.delivery)
        }
    }

    /// The store's transactions: a filtered, paged list (or export), an account's transactions as StoreKit's views
    /// return them (`GET /api/accounts/{accountID}/transactions`), one transaction, its refund, deleting one or all.
    func registerTransactions(in router: inout Router<DashboardContext>) {
        router.get("/api/transactions") { request, context in
            let query = try QueryValues.transactionQuery(request)
            if let format = try ExportFormat(request) { return try await transactionsExport(query, format: format) }
            let page = try await service.records.transactions(matching: query)
            struct Page: Encodable { var transactions: [APIModels.TransactionBody]; var hasMore: Bool }
            return JSONBody.response(
                Page(
                    transactions: page.transactions.map { APIModels.TransactionBody($0, delivery: nil) },
                    hasMore: page.hasMore))
        }
        router.get("/api/accounts/:account/transactions") { request, context in
            let accountID = try context.parameters.require("account")
            let view = try QueryValues.choice(request, "view", TransactionHistoryView.self) ?? .all
            let stored = try await service.history(accountID: accountID, view: view, productID: try QueryValues.text(request, "productID"))
            struct Body: Encodable { var accountID: String; var view: String; var transactions: [APIModels.TransactionBody] }
            return JSONBody.response(
                Body(
                    accountID: accountID, view: view.rawValue,
                    transactions: stored.map { APIModels.TransactionBody($0, delivery: nil) }))
        }
        router.delete("/api/transactions") { request, context in
            try await service.clearTransactions()
            return HTTPResponse(status: .noContent)
        }
        router.get("/api/transactions/:tid") { request, context in
            try await transactionResponse(try context.transactionID(), delivery: nil)
        }
        router.post("/api/transactions/:tid/refund") { request, context in
            let id = try context.transactionID()
            let body =
                request.body.isEmpty
                ? nil : try JSONBody.decode(APIModels.RefundBody.self, from: request, fields: ["reason", "revocationType", "revocationPercentage"])
            let delivery = try await service.refund(
                transactionID: id, reason: body?.reason ?? .other, type: body?.revocationType ?? .fullRefund,
                percentage: body?.revocationPercentage)
            return try await transactionResponse(id, delivery: delivery)
        }
        router.delete("/api/transactions/:tid") { request, context in
            try await service.deleteTransaction(id: try context.transactionID())
            return HTTPResponse(status: .noContent)
        }
    }

    /// The stored transaction `id` as the API shows it, with the delivery the action made, if any.
    /// - Throws: `TipJarError.transactionNotFound` (404) when the store does not keep it.
    func transactionResponse(_ id: UInt64, delivery: Delivery?) async throws -> HTTPResponse {
        guard let stored = try await service.records.transaction(withID: id) else { throw TipJarError.transactionNotFound(id) }
        return JSONBody.response(APIModels.TransactionBody(stored, delivery: delivery))
    }
}
