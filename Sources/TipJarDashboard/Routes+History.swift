import Foundation
import HTTPServer
import Mustache
import TipJar

/// The store's transaction history: a filtered, paged list (`GET /api/transactions`, `/transactions`) and an
/// account's transactions as StoreKit's views return them (`GET /api/accounts/{accountID}/transactions`,
/// `/accounts/{accountID}`). Every query parameter is checked; a bad one is a 400 naming it.
extension Routes {
    func registerHistory(in router: inout Router<DashboardContext>) {
        router.get("/api/transactions") { request, context in
            let query = try Self.transactionQuery(request)
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
            let view = try Self.choice(request, "view", TransactionHistoryView.self) ?? .all
            let stored = try await service.store.history(accountID: accountID, view: view, productID: try Self.text(request, "productID"))
            struct Body: Encodable { var accountID: String; var view: String; var transactions: [APIModels.TransactionBody] }
            return JSONBody.response(
                Body(
                    accountID: accountID, view: view.rawValue,
                    transactions: stored.map { APIModels.TransactionBody($0, delivery: nil) }))
        }
        router.get("/transactions") { request, context in try await transactionsPage(request, context) }
        router.get("/accounts/:account") { request, context in
            try await accountPage(context, accountID: try context.parameters.require("account"))
        }
    }

    // MARK: Query parameters

    /// `accountID`, `installID`, `productID`, `status`, `page` (1...1,000,000) and `pageSize` (1...200).
    static func transactionQuery(_ request: HTTPRequest) throws -> TransactionQuery {
        TransactionQuery(
            accountID: try text(request, "accountID"), installID: try text(request, "installID"),
            productID: try text(request, "productID"), status: try choice(request, "status", StoredTransaction.Status.self),
            page: try integer(request, "page", default: 1, in: 1...InstallQuery.maximumPage),
            pageSize: try integer(request, "pageSize", default: 50, in: 1...200))
    }

    /// A whole-number query parameter; absent or empty gives `default`.
    /// - Throws: `RequestError` (400) for anything else outside `range`.
    static func integer(_ request: HTTPRequest, _ name: String, default value: Int, in range: ClosedRange<Int>) throws -> Int {
        try optionalInteger(request, name, in: range) ?? value
    }

    /// A whole-number query parameter; absent or empty gives `nil`.
    /// - Throws: `RequestError` (400) for anything else outside `range`.
    static func optionalInteger(_ request: HTTPRequest, _ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let raw = request.queryValue(name), !raw.isEmpty else { return nil }
        guard let number = Int(raw), range.contains(number) else {
            throw RequestError(message: "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound).")
        }
        return number
    }

    /// A query parameter naming one case of `T`; absent or empty gives `nil`.
    /// - Throws: `RequestError` (400) listing the allowed values.
    static func choice<T: RawRepresentable & CaseIterable>(_ request: HTTPRequest, _ name: String, _ type: T.Type) throws -> T? where T.RawValue == String {
        guard let raw = request.queryValue(name), !raw.isEmpty else { return nil }
        guard let value = T(rawValue: raw) else {
            throw RequestError(message: "\(name) must be one of \(T.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        return value
    }

    /// A free-text filter; absent or empty gives `nil`.
    /// - Throws: `RequestError` (400) above 200 characters or with control characters.
    static func text(_ request: HTTPRequest, _ name: String) throws -> String? {
        guard let raw = request.queryValue(name), !raw.isEmpty else { return nil }
        guard raw.count <= 200, !raw.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw RequestError(message: "\(name) must be at most 200 printable characters.")
        }
        return raw
    }

    // MARK: Pages

    func transactionsPage(_ request: HTTPRequest, _ context: DashboardContext) async throws -> HTTPResponse {
        var data = pageData(context, nav: "transactions")
        let query = try Self.transactionQuery(request)
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
        return try html("pages/transactions", data)
    }

    func accountPage(_ context: DashboardContext, accountID: String) async throws -> HTTPResponse {
        var data = pageData(context, nav: "")
        async let installs = service.records.installs(matching: InstallQuery(pageSize: 200, accountID: accountID))
        let stored = try await service.records.transactions(accountID: accountID, limit: 100_000)
        let catalog = service.catalog
        let includesConsumables = service.store.settings.includeConsumableInAppPurchaseHistory
        data["includesFinishedConsumables"] = .bool(includesConsumables)
        data["accountID"] = .string(accountID)
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
        return try html("pages/account", data)
    }

    /// One row of a transactions table: date, product, price in the transaction's storefront (`Transaction.price`,
    /// the total for a quantity above 1, with the unit price beside it: `$2.97 (3 × $0.99)`), storefront, account,
    /// install, status and finished flag.
    func transactionRow(_ stored: StoredTransaction) -> MustacheValue {
        let t = stored.transaction
        let price = Storefront.named(t.storefront).flatMap { storefront -> String? in
            let unit = service.catalog.product(withID: t.productID)?.price
            guard let total = t.price ?? unit.map({ $0 * Decimal(t.purchasedQuantity) }) else { return nil }
            let shown = storefront.displayPrice(total)
            guard t.purchasedQuantity > 1, let unit else { return shown }
            return "\(shown) (\(t.purchasedQuantity) × \(storefront.displayPrice(unit)))"
        }
        let at = UTCTimestamp(t.purchaseDate)
        return [
            "transactionID": .string(String(t.id)), "at": .string(at.isoWithMilliseconds), "atShort": .string(at.short),
            "productID": .string(t.productID), "price": .string(price ?? "—"), "storefront": .string(t.storefront),
            "accountID": .string(stored.accountID), "accountPath": .string(ViewModels.urlComponent(stored.accountID)),
            "installID": .string(stored.installID), "installShort": .string(ViewModels.shortID(stored.installID)),
            "status": .string(stored.status.rawValue), "isRevoked": .bool(t.isRevoked), "isExternal": .bool(stored.isExternal),
            "isFinished": .bool(stored.isFinished),
        ]
    }
}
