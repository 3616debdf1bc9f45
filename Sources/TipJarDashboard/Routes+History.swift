import Foundation
import HTTPServer
import TipJar

/// The store's transaction history: a filtered, paged list (`GET /api/transactions`, `/transactions`) and an
/// account's transactions as StoreKit's views return them (`GET /api/accounts/{accountID}/transactions`,
/// `/accounts/{accountID}`). Every query parameter is checked; a bad one is a 400 naming it.
extension Routes {
    func registerHistory(in router: inout Router<DashboardContext>) {
        router.get("/api/transactions") { request, context in
            let query = try Self.transactionQuery(request)
            if let format = try ExportFormat(request) { return try await transactionsExport(query, format: format) }
            let page = try await storage.transactions(matching: query)
            struct Page: Encodable { var transactions: [APIModels.TransactionBody]; var hasMore: Bool }
            return JSONBody.response(Page(transactions: page.transactions.map { APIModels.TransactionBody($0, delivery: nil) },
                                          hasMore: page.hasMore))
        }
        router.get("/api/accounts/:account/transactions") { request, context in
            let accountID = try context.parameters.require("account")
            let view = try Self.choice(request, "view", TransactionHistoryView.self) ?? .all
            let stored = try await service.store.history(accountID: accountID, view: view, productID: try Self.text(request, "productID"))
            struct Body: Encodable { var accountID: String; var view: String; var transactions: [APIModels.TransactionBody] }
            return JSONBody.response(Body(accountID: accountID, view: view.rawValue,
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
        TransactionQuery(accountID: try text(request, "accountID"), installID: try text(request, "installID"),
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
        let result = try await storage.transactions(matching: query)
        data["transactions"] = result.transactions.map(transactionRow)
        data["filters"] = ["accountID": query.accountID ?? "", "installID": query.installID ?? "", "productID": query.productID ?? "",
                           "page": query.page, "pageSize": query.pageSize]
        data["statuses"] = ViewModels.choices([("", "any")] + StoredTransaction.Status.allCases.map { ($0.rawValue, $0.rawValue) },
                                              selected: query.status?.rawValue ?? "")
        data["productIDs"] = service.catalog.products.map(\.productID)
        data["flash"] = request.queryValue("flash") == "deleted" ? "Deleted: the store forgot the transaction." : nil
        var filters: [(String, String)] = []
        for (name, value) in [("accountID", query.accountID), ("installID", query.installID), ("productID", query.productID),
                              ("status", query.status?.rawValue)] {
            if let value { filters.append((name, value)) }
        }
        func link(_ path: String, _ items: [(String, String)]) -> String {
            path + "?" + items.map { "\($0.0)=\(ViewModels.urlComponent($0.1))" }.joined(separator: "&")
        }
        func page(_ number: Int) -> String {
            link("/transactions", [("page", "\(number)")] + (query.pageSize != 50 ? [("pageSize", "\(query.pageSize)")] : []) + filters)
        }
        if query.page > 1 { data["previousPage"] = page(query.page - 1) }
        if result.hasMore { data["nextPage"] = page(query.page + 1) }
        data["csvExport"] = link("/api/transactions", [("format", "csv")] + filters)
        data["jsonExport"] = link("/api/transactions", [("format", "json")] + filters)
        return try html("pages/transactions", data)
    }

    func accountPage(_ context: DashboardContext, accountID: String) async throws -> HTTPResponse {
        var data = pageData(context, nav: "")
        async let installs = storage.installs(matching: InstallQuery(pageSize: 200, accountID: accountID))
        let stored = try await storage.transactions(accountID: accountID, limit: 100_000)
        let catalog = service.catalog
        data["accountID"] = accountID
        data["accountPath"] = ViewModels.urlComponent(accountID)
        data["installs"] = try await installs.installs.map(ViewModels.install)
        func rows(_ view: TransactionHistoryView) -> [[String: Any]] {
            SimulatedStore.history(stored, view: view, catalog: catalog).map(transactionRow)
        }
        data["all"] = rows(.all)
        data["unfinished"] = rows(.unfinished)
        data["currentEntitlements"] = rows(.currentEntitlements)
        var productIDs = catalog.products.map(\.productID)
        for entry in stored where !productIDs.contains(entry.transaction.productID) { productIDs.append(entry.transaction.productID) }
        data["latest"] = productIDs.compactMap { productID -> [String: Any]? in
            let mine = stored.filter { $0.transaction.productID == productID }
            guard !mine.isEmpty else { return nil }
            let latest = SimulatedStore.history(mine, view: .latest, catalog: catalog).first
            return ["productID": productID, "transaction": latest.map(transactionRow) ?? [:], "none": latest == nil]
        }
        data["transactionCount"] = stored.count
        return try html("pages/account", data)
    }

    /// One row of a transactions table: date, product, price in the transaction's storefront, storefront,
    /// account, install, status and finished flag.
    func transactionRow(_ stored: StoredTransaction) -> [String: Any] {
        let t = stored.transaction
        let price = service.catalog.product(withID: t.productID).flatMap { product in
            Storefront.named(t.storefront).map { $0.displayPrice(product.price) }
        }
        let at = UTCTimestamp(t.purchaseDate)
        return ["transactionID": String(t.id), "at": at.isoWithMilliseconds, "atShort": at.short, "productID": t.productID,
                "price": price ?? "—", "storefront": t.storefront, "accountID": stored.accountID,
                "accountPath": ViewModels.urlComponent(stored.accountID), "installID": stored.installID,
                "installShort": ViewModels.shortID(stored.installID), "status": stored.status.rawValue,
                "isRevoked": t.isRevoked, "isExternal": stored.isExternal, "isFinished": stored.isFinished]
    }
}
