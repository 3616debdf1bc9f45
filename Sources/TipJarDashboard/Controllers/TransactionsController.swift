import Foundation
import HTTPServer
import Mustache
import TipJar

/// The store's transactions and Apple Accounts as pages: the filtered, paged list (`/transactions`), one
/// transaction's page with its life on every install it reached (`/transactions/{id}`, drawn by
/// ``InstallScreen/life(of:stored:install:ledger:notifications:id:)``), an account's transactions as StoreKit's views return
/// them (`/accounts/{accountID}`), and the session controls that forget transactions, as `SKTestSession` offers them:
/// clear all, delete one, each behind a confirmation page (a plain GET page whose form posts, so it needs no
/// JavaScript). The clear is offered on `/store` and answers with it, but sits here with the delete: both change the
/// store's transactions, not its settings. Their JSON counterparts are ``APIController``'s; deleting an install is
/// ``InstallsController``'s. Every query parameter is checked (``QueryValues``); a bad one is a 400 naming it.
struct TransactionsController: DashboardController {
    let service: TipJarService
    let renderer: PageRenderer

    func register(in router: inout Router<DashboardContext>) {
        router.get("/transactions") { request, context in try await transactionsPage(request, context) }
        router.get("/transactions/:tid") { request, context in
            try await transactionPage(context, transactionID: try context.transactionID())
        }
        router.get("/accounts/:account") { request, context in
            try await accountPage(context, accountID: try context.parameters.require("account"))
        }
        router.get("/confirm/transactions-clear") { request, context in
            try await renderer.confirmPage(
                context, title: "Clear every transaction?",
                message:
                    "The store forgets every transaction (SKTestSession.clearTransactions()): pending Ask to Buy purchases, unfinished and refunded ones too. Installs keep their hearts and ledgers, as the app's UserDefaults would.",
                action: "/store/transactions/clear", button: "Clear all transactions", cancel: "/store")
        }
        router.get("/confirm/transactions/:tid/delete") { request, context in
            let id = try context.transactionID()
            guard try await service.records.transaction(withID: id) != nil else { throw TipJarError.transactionNotFound(id) }
            return try await renderer.confirmPage(
                context, title: "Delete transaction \(id)?",
                message: "The store forgets this one transaction (SKTestSession.deleteTransaction(identifier:)). The install keeps its hearts and ledger.",
                action: "/store/transactions/\(id)/delete", button: "Delete the transaction", cancel: "/transactions")
        }
        router.post("/store/transactions/clear") { request, context in
            try await service.clearTransactions()
            return .redirect(to: StoreFlash(kind: .cleared).location)
        }
        router.post("/store/transactions/:tid/delete") { request, context in
            try await service.deleteTransaction(id: try context.transactionID())
            return .redirect(to: "/transactions?flash=deleted")
        }
    }

    // MARK: Pages

    func transactionsPage(_ request: HTTPRequest, _ context: DashboardContext) async throws -> HTTPResponse {
        var data = renderer.pageData(context, nav: "transactions")
        let query = try QueryValues.transactionQuery(request)
        let result = try await service.records.transactions(matching: query)
        data["transactions"] = .array(result.transactions.map(transactionRow))
        data["filters"] = [
            "accountID": .string(query.accountID ?? ""), "installID": .string(query.installID ?? ""),
            "productID": .string(query.productID ?? ""), "page": .int(query.page), "pageSize": .int(query.pageSize),
        ]
        data["statuses"] = ViewModels.choices(
            [("", "any")] + StoredTransaction.Status.allCases.map { ($0.rawValue, $0.rawValue) },
            selected: query.status?.rawValue ?? "")
        data["productIDs"] = .array(service.catalog.products.map { .string($0.productID) })
        data["flash"] = request.queryValue("flash") == "deleted" ? "Deleted: the store forgot the transaction." : nil
        var filters: [(String, String)] = []
        for (name, value) in [
            ("accountID", query.accountID), ("installID", query.installID), ("productID", query.productID),
            ("status", query.status?.rawValue),
        ] {
            if let value { filters.append((name, value)) }
        }
        func link(_ path: String, _ items: [(String, String)]) -> String {
            path + "?" + items.map { "\($0.0)=\(ViewModels.urlComponent($0.1))" }.joined(separator: "&")
        }
        func page(_ number: Int) -> String {
            link("/transactions", [("page", "\(number)")] + (query.pageSize != 50 ? [("pageSize", "\(query.pageSize)")] : []) + filters)
        }
        if query.page > 1 { data["previousPage"] = .string(page(query.page - 1)) }
        if result.hasMore { data["nextPage"] = .string(page(query.page + 1)) }
        data["csvExport"] = .string(link("/api/transactions", [("format", "csv")] + filters))
        data["jsonExport"] = .string(link("/api/transactions", [("format", "json")] + filters))
        return try renderer.html("pages/transactions", data)
    }

    func accountPage(_ context: DashboardContext, accountID: String) async throws -> HTTPResponse {
        var data = renderer.pageData(context, nav: "")
        async let installs = service.records.installs(matching: InstallQuery(pageSize: 200, accountID: accountID))
        let stored = try await service.records.transactions(accountID: accountID, limit: 100_000)
        let catalog = service.catalog
        let includesConsumables = service.settings.includeConsumableInAppPurchaseHistory
        data["includesFinishedConsumables"] = .bool(includesConsumables)
        data["accountID"] = .string(accountID)
        data["onAccountPage"] = true
        data["accountPath"] = .string(ViewModels.urlComponent(accountID))
        data["installs"] = .array(try await installs.installs.map(ViewModels.install))
        func rows(_ view: TransactionHistoryView) -> MustacheValue {
            .array(
                SimulatedStore.history(
                    stored, view: view, catalog: catalog,
                    includeConsumableInAppPurchaseHistory: includesConsumables
                ).map(transactionRow))
        }
        data["all"] = rows(.all)
        data["unfinished"] = rows(.unfinished)
        data["currentEntitlements"] = rows(.currentEntitlements)
        var productIDs = catalog.products.map(\.productID)
        for entry in stored where !productIDs.contains(entry.transaction.productID) { productIDs.append(entry.transaction.productID) }
        data["latest"] = .array(
            productIDs.compactMap { productID -> MustacheValue? in
                let mine = stored.filter { $0.transaction.productID == productID }
                guard !mine.isEmpty else { return nil }
                let latest = SimulatedStore.history(
                    mine, view: .latest, catalog: catalog,
                    includeConsumableInAppPurchaseHistory: includesConsumables
                ).first
                return ["productID": .string(productID), "transaction": latest.map(transactionRow) ?? [:], "none": .bool(latest == nil)]
            })
        data["transactionCount"] = .int(stored.count)
        return try renderer.html("pages/account", data)
    }

    /// `/transactions/{id}`: the store's facts about the transaction and its life on every install of its account
    /// that it reached (the install it was bought on first).
    func transactionPage(_ context: DashboardContext, transactionID: UInt64) async throws -> HTTPResponse {
        guard let stored = try await service.records.transaction(withID: transactionID) else { throw TipJarError.transactionNotFound(transactionID) }
        var data = renderer.pageData(context, nav: "transactions")
        var row = transactionRow(stored)
        if case .object(var fields) = row {
            // The page alone shows the JWS, the environment and the order ID (lists do not encode a JWS per row).
            fields["jwsRepresentation"] = .string(APIModels.JWSTransactionPayload(stored.transaction).jwsRepresentation)
            fields["orderID"] = .string(stored.transaction.orderID)
            fields["statusLine"] = .string(TransactionFacts.statusLine(stored))
            fields["fields"] = TransactionFacts.rows(stored, displayPrice: fields["price"].flatMap { if case .string(let p) = $0, p != "—" { p } else { nil } })
            fields["payloadJSON"] = .string(TransactionFacts.payloadJSON(stored.transaction))
            if let consumption = stored.consumptionInfo { fields["consumptionInfo"] = .string(consumption) }
            row = .object(fields)
        }
        data["transaction"] = row
        let installs = try await service.records.installs(matching: InstallQuery(pageSize: 200, accountID: stored.accountID)).installs
            .sorted { ($0.id == stored.installID ? 0 : 1) < ($1.id == stored.installID ? 0 : 1) }
        let notifications = try await service.records.notifications(transactionID: transactionID)
        var lives: [MustacheValue] = []
        for install in installs {
            // The whole ledger: the heart replay reads every row before this transaction's, however many came after.
            let ledger = try await service.records.ledger(installID: install.id, limit: 1_000_000)
            guard install.id == stored.installID || ledger.contains(where: { $0.transactionID == transactionID }) else { continue }
            lives.append(
                InstallScreen.life(
                    of: transactionID, stored: stored, install: install, ledger: ledger, notifications: notifications,
                    id: "life-\(transactionID)-\(lives.count + 1)"))
        }
        data["lives"] = .array(lives)
        data["installGone"] = .bool(!installs.contains { $0.id == stored.installID })
        data["notifications"] = notificationRows(notifications)
        return try renderer.html("pages/transaction", data)
    }

    /// One row of a transactions table: date, product, price in the transaction's storefront (`Transaction.price`,
    /// the total for a quantity above 1, with the unit price beside it: `$2.97 (3 × $0.99)`), storefront, account,
    /// install, status and finished flag.
    func transactionRow(_ stored: StoredTransaction) -> MustacheValue {
        let t = stored.transaction
        let price = Storefront.named(t.storefront).flatMap { storefront -> String? in
            let unit = service.catalog.product(withID: t.productID).map { storefront.chargedPrice($0.price) }
            guard let total = t.price ?? unit.map({ $0 * Decimal(t.purchasedQuantity) }) else { return nil }
            let shown = storefront.displayPrice(total)
            guard t.purchasedQuantity > 1, let unit else { return shown }
            return "\(shown) (\(t.purchasedQuantity) × \(storefront.displayPrice(unit)))"
        }
        let at = UTCTimestamp(t.purchaseDate)
        return [
            "transactionID": .string(String(t.id)), "at": .string(at.isoWithMilliseconds), "atShort": .string(at.short),
            "atDate": .string(at.datePart), "atTime": .string(at.timePart),
            "productID": .string(t.productID), "productParts": ViewModels.breakable(t.productID), "price": .string(price ?? "—"), "storefront": .string(t.storefront),
            "accountID": .string(stored.accountID), "accountParts": ViewModels.breakable(stored.accountID), "accountPath": .string(ViewModels.urlComponent(stored.accountID)),
            "installID": .string(stored.installID), "installShort": .string(ViewModels.shortID(stored.installID)),
            "status": .string(TransactionFacts.status(stored)), "isRevoked": .bool(t.isRevoked), "isExternal": .bool(stored.isExternal),
            "isFinished": .bool(stored.isFinished),
        ]
    }
}
