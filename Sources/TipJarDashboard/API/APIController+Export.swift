import Foundation
import HTTPServer
import TipJar

/// The JSON API's downloads: the ledger, the installs list and the transactions as CSV or JSON (`?format=csv|json`,
/// Sources/TipJarDashboard/README.md, "Export"), answered by the list and ledger routes of ``APIController``.
extension APIController {
    /// The export formats; `nil` (no `format`) keeps the plain JSON answer.
    enum ExportFormat: String {
        case csv, json

        /// The request's `format`, or `nil` when it has none.
        /// - Throws: `RequestError` (400) for another value.
        init?(_ request: HTTPRequest) throws {
            guard let text = request.queryValue("format") else { return nil }
            guard let format = ExportFormat(rawValue: text) else { throw RequestError(message: "format must be csv or json.") }
            self = format
        }
    }

    static let ledgerColumns = ["transactionID", "productID", "path", "outcome", "finished", "at"]
    static let installColumns = ["id", "label", "locale", "storefront", "accountID", "hearts", "legacyHasTipped", "isRunning"]
    static let transactionColumns = [
        "transactionID", "originalID", "installID", "accountID", "productID", "purchaseDate",
        "purchasedQuantity", "storefront", "environment", "ownershipType", "reason", "revocationDate",
        "revocationReason", "status", "isFinished", "isExternal", "orderID", "jwsRepresentation", "price", "currency",
    ]

    /// A ledger as a download (`ledger-<install>.csv` / `.json`).
    func ledgerExport(_ rows: [Delivery], installID: String, format: ExportFormat) -> HTTPResponse {
        switch format {
        case .json:
            return JSONBody.response(rows.map(APIModels.DeliveryBody.init)).attachment(named: "ledger-\(installID).json")
        case .csv:
            let table = CSVTable(
                header: Self.ledgerColumns,
                rows: rows.map {
                    [String($0.transactionID), $0.productID, $0.path.rawValue, $0.outcome.rawValue, String($0.finished), ViewModels.isoSeconds($0.at)]
                })
            return .csvAttachment(table, name: "ledger-\(installID).csv")
        }
    }

    /// Every install matching the query's `q` and `hearts` (all pages) as a download.
    func installsExport(search: String, hearts: Int?, format: ExportFormat) async throws -> HTTPResponse {
        var installs: [Install] = []
        var page = 1
        while true {
            let result = try await service.records.installs(matching: InstallQuery(search: search, hearts: hearts, page: page, pageSize: 200))
            installs += result.installs
            guard result.hasMore, page < InstallQuery.maximumPage else { break }
            page += 1
        }
        switch format {
        case .json:
            return JSONBody.response(installs.map(APIModels.InstallBody.init)).attachment(named: "installs.json")
        case .csv:
            let table = CSVTable(
                header: Self.installColumns,
                rows: installs.map {
                    [$0.id, $0.label, $0.locale.rawValue, $0.storefront, $0.accountID, String($0.hearts), String($0.legacyHasTipped), String($0.isRunning)]
                })
            return .csvAttachment(table, name: "installs.csv")
        }
    }

    /// Every transaction matching the query's filters (all pages, newest first; `page` and `pageSize`
    /// are ignored) as a download: `transactions.csv` / `.json`, or `transactions-<account>.…` for one account.
    func transactionsExport(_ query: TransactionQuery, format: ExportFormat) async throws -> HTTPResponse {
        var stored: [StoredTransaction] = []
        var filter = query
        filter.pageSize = 200
        filter.page = 1
        while true {
            let result = try await service.records.transactions(matching: filter)
            stored += result.transactions
            guard result.hasMore, filter.page < InstallQuery.maximumPage else { break }
            filter.page += 1
        }
        let name = query.accountID.map { "transactions-\($0)" } ?? "transactions"
        let bodies = stored.map { APIModels.TransactionBody($0, delivery: nil) }
        switch format {
        case .json:
            return JSONBody.response(bodies).attachment(named: name + ".json")
        case .csv:
            let table = CSVTable(
                header: Self.transactionColumns,
                rows: bodies.map {
                    [
                        String($0.transactionID), String($0.originalID), $0.installID, $0.accountID, $0.productID, $0.purchaseDate,
                        String($0.purchasedQuantity), $0.storefront, $0.environment, $0.ownershipType, $0.reason, $0.revocationDate ?? "",
                        $0.revocationReason.map(String.init) ?? "", $0.status, String($0.isFinished), String($0.isExternal), $0.orderID,
                        $0.jwsRepresentation, $0.price ?? "", $0.currency ?? "",
                    ]
                })
            return .csvAttachment(table, name: name + ".csv")
        }
    }
}
