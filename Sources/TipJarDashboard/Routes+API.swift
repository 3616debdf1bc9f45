import Foundation
import HTTPServer
import TipJar

/// The JSON API under `/api/` (Public/api/openapi.json, shown at `/api`): the same actions as the pages, for scripts and
/// the CI of an app under test. Errors are `{"error": "…"}` with a 4xx/5xx status.
extension Routes {
    func registerAPI(in router: inout Router<DashboardContext>) {
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
            // Checked as /api/transactions checks its parameters (Routes+History.swift): a bad one is a 400 naming it.
            let query = InstallQuery(
                search: try Self.text(request, "q") ?? "", hearts: try Self.optionalInteger(request, "hearts", in: 0...Install.maximumHearts),
                page: try Self.integer(request, "page", default: 1, in: 1...InstallQuery.maximumPage),
                pageSize: try Self.integer(request, "pageSize", default: 50, in: 1...200))
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
            return try await pageCache.page(request, csrfToken: "") { _ in JSONBody.response(APIModels.InstallBody(try await service.install(id))) }
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
            return try await pageCache.page(request, csrfToken: "", isStorable: { await isStorable(installID: id, loads: true) }) { _ in
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
                    recordOutcome: report.recordOutcome?.rawValue))
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
            return try await pageCache.page(request, csrfToken: "") { _ in
                _ = try await service.install(id)
                let rows = try await service.records.ledger(installID: id, limit: 10_000)
                if let format { return ledgerExport(rows, installID: id, format: format) }
                return JSONBody.response(rows.map(APIModels.DeliveryBody.init))
            }
        }
        router.get("/api/store") { request, context in
            JSONBody.response(APIModels.StoreBody(service.store.settings))
        }
        router.put("/api/store") { request, context in
            let updated = try StorePatch.apply(request.body, to: service.store.settings)
            try await service.updateStore(updated)
            return JSONBody.response(APIModels.StoreBody(updated))
        }
        router.get("/api/store/pending") { request, context in
            JSONBody.response(
                try await service.records.pendingTransactions().map {
                    APIModels.PendingBody(transactionID: $0.transaction.id, installID: $0.installID, productID: $0.transaction.productID)
                })
        }
        router.post("/api/store/pending/:tid/approve") { request, context in
            let id = try context.transactionID()
            let delivery = try await service.approve(transactionID: id)
            return try await transactionResponse(id, delivery: delivery)
        }
        router.post("/api/store/pending/:tid/decline") { request, context in
            let id = try context.transactionID()
            try await service.decline(transactionID: id)
            return try await transactionResponse(id, delivery: nil)
        }
        router.post("/api/store/interrupted/:tid/resolve") { request, context in
            let id = try context.transactionID()
            let delivery = try await service.resolveIssue(transactionID: id)
            return try await transactionResponse(id, delivery: delivery)
        }
        router.get("/api/transactions/:tid") { request, context in
            try await transactionResponse(try context.transactionID(), delivery: nil)
        }
        router.post("/api/transactions/:tid/refund") { request, context in
            let id = try context.transactionID()
            let reason = request.body.isEmpty ? nil : try JSONBody.decode(APIModels.RefundBody.self, from: request).reason
            let delivery = try await service.refund(transactionID: id, reason: reason ?? .other)
            return try await transactionResponse(id, delivery: delivery)
        }
    }

    func transactionResponse(_ id: UInt64, delivery: Delivery?) async throws -> HTTPResponse {
        guard let stored = try await service.records.transaction(withID: id) else { throw TipJarError.transactionNotFound(id) }
        return JSONBody.response(APIModels.TransactionBody(stored, delivery: delivery))
    }
}
