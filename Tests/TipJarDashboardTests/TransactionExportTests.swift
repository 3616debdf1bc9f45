import Foundation
import Testing

@testable import TipJarDashboard

/// `GET /api/transactions?format=csv|json`: every matching transaction (all pages) as a download
/// (RFC 6266), CSV per RFC 4180 with spreadsheet formulas neutralised (OWASP "CSV Injection"), and
/// the download links of `/transactions` (keeping its filters) and `/accounts/{accountID}`.
@Suite("Transactions export")
struct TransactionExportTests {
    static let header =
        "transactionID,originalID,installID,accountID,productID,purchaseDate,purchasedQuantity,storefront,"
        + "environment,ownershipType,reason,revocationDate,revocationReason,status,isFinished,isExternal,orderID,jwsRepresentation,price,currency"

    /// Creates an install on `account` and buys `productID` outside the app on it; answers the install ID.
    static func externalPurchase(_ server: LiveServer, account: String, productID: String) async throws -> String {
        let body = String(decoding: try JSONSerialization.data(withJSONObject: ["accountID": account, "launch": true]), as: UTF8.self)
        let id = try #require(await server.json("POST", "/api/installs", body).object["id"] as? String)
        let product = String(decoding: try JSONSerialization.data(withJSONObject: ["productID": productID]), as: UTF8.self)
        #expect(await server.json("POST", "/api/installs/\(id)/external-purchases", product).status == 201)
        return id
    }

    @Test func hostileAccountsAndProductIDsAreNeutralisedInTheCSV() async throws {
        try await withLiveServer { server in
            let hostile = [
                ("=HYPERLINK(\"evil.example\",\"x\")", "=cmd|' /C calc'!A0"), ("+ana", "+1"), ("-bob", "-1+2"),
                ("@cy", "@SUM(A1)"),
            ]
            for (account, product) in hostile { _ = try await Self.externalPurchase(server, account: account, productID: product) }

            let reply = await server.send("GET", "/api/transactions?format=csv")
            #expect(reply.status == 200)
            #expect(reply["Content-Type"] == "text/csv; charset=utf-8; header=present")
            #expect(reply["Content-Disposition"] == "attachment; filename=\"transactions.csv\"")
            let records = reply.body.components(separatedBy: "\r\n")
            #expect(records.first == Self.header)
            #expect(records.count == 1 + 4 + 1 && records.last == "", "four records, each ended by CRLF")
            #expect(records.contains { $0.contains(",\"'=HYPERLINK(\"\"evil.example\"\",\"\"x\"\")\",'=cmd|' /C calc'!A0,") })
            #expect(records.contains { $0.contains(",'+ana,'+1,") })
            #expect(records.contains { $0.contains(",'-bob,'-1+2,") })
            #expect(records.contains { $0.contains(",'@cy,'@SUM(A1),") })
            for record in records.dropFirst() where !record.isEmpty {
                let fields = record.split(separator: ",", omittingEmptySubsequences: false)
                #expect(!fields.contains { ["=", "+", "-", "@"].contains($0.first) }, "no field starts with a formula: \(record)")
            }
        }
    }

    @Test func theExportHoldsEveryMatchingTransactionAcrossPagesAndKeepsTheFilters() async throws {
        try await withLiveServer { server in
            let id = try await Self.externalPurchase(server, account: "ana", productID: "com.example.tipjar.tip.coffee")
            for _ in 0..<200 {
                _ = await server.json("POST", "/api/installs/\(id)/external-purchases", #"{"productID":"com.example.tipjar.tip.coffee"}"#)
            }
            _ = try await Self.externalPurchase(server, account: "bob", productID: "com.example.tipjar.tip.coffee")

            let csv = await server.send("GET", "/api/transactions?format=csv&accountID=ana&page=7&pageSize=1")
            #expect(csv["Content-Disposition"] == "attachment; filename=\"transactions-ana.csv\"")
            #expect(csv.body.components(separatedBy: "\r\n").count == 1 + 201 + 1, "page and pageSize do not cut a download")
            let json = await server.send("GET", "/api/transactions?format=json&accountID=ana")
            #expect(json["Content-Disposition"] == "attachment; filename=\"transactions-ana.json\"")
            let rows = json.array
            #expect(rows.count == 201)
            #expect(rows.allSatisfy { $0["accountID"] as? String == "ana" })
            let ids = rows.compactMap { $0["transactionID"] as? Int }
            #expect(ids == ids.sorted(by: >), "newest first, as the list is")
            let everything = await server.send("GET", "/api/transactions?format=json")
            #expect(everything.array.count == 202)
            #expect(await server.send("GET", "/api/transactions?format=xml").status == 400)
            #expect(await server.send("GET", "/api/transactions?format=csv&status=refunded").status == 400)
        }
    }

    /// The CSV's price is `Transaction.price`, the amount charged: the catalog's 0.99 is ¥1 in Japan, whose currency the
    /// App Store prices without decimals (https://developer.apple.com/documentation/advancedcommerceapi/prices).
    @Test func theCSVPriceIsTheAmountTheStorefrontChargedOneYenForTheCatalogs099() async throws {
        try await withLiveServer { server in
            let id = try #require(await server.json("POST", "/api/installs", #"{"launch":true,"storefront":"JPN"}"#).object["id"] as? String)
            #expect(await server.json("POST", "/api/installs/\(id)/external-purchases", #"{"productID":"com.example.tipjar.tip.coffee"}"#).status == 201)
            _ = await server.json("POST", "/api/installs/\(id)/purchases", #"{"productID":"com.example.tipjar.tip.coffee"}"#)
            let records = await server.send("GET", "/api/transactions?format=csv").body.components(separatedBy: "\r\n").dropFirst().filter { !$0.isEmpty }
            #expect(records.count == 2, "one bought outside the app, one in it")
            #expect(records.allSatisfy { $0.hasSuffix(",1,JPY") }, "price,currency: \(records)")
        }
    }

    @Test func theTransactionsPageLinksToADownloadOfWhatItFilters() async throws {
        try await withLiveServer { server in
            _ = try await Self.externalPurchase(server, account: "=ana", productID: "com.example.tipjar.tip.coffee")
            _ = try await Self.externalPurchase(server, account: "bob", productID: "com.example.tipjar.tip.coffee")
            let page = await server.send("GET", "/transactions?accountID=%3Dana&status=purchased&page=1&pageSize=10")
            #expect(page.status == 200)
            let href = "/api/transactions?format=csv&amp;accountID=%3Dana&amp;status=purchased"
            #expect(page.body.contains("<a href=\"\(href)\" download>CSV</a>"))
            #expect(page.body.contains("<a href=\"/api/transactions?format=json&amp;accountID=%3Dana&amp;status=purchased\" download>JSON</a>"))
            let download = await server.send("GET", href.replacingOccurrences(of: "&amp;", with: "&"))
            let records = download.body.components(separatedBy: "\r\n")
            #expect(records.count == 3 && records[1].contains(",'=ana,"), "only the filtered account's one transaction")
        }
    }

    @Test func theAccountPageLinksToThatAccountsTransactions() async throws {
        try await withLiveServer { server in
            _ = try await Self.externalPurchase(server, account: "@ana", productID: "com.example.tipjar.tip.coffee")
            _ = try await Self.externalPurchase(server, account: "bob", productID: "com.example.tipjar.tip.coffee")
            let page = await server.send("GET", "/accounts/%40ana")
            #expect(page.status == 200)
            let href = "/api/transactions?format=json&amp;accountID=%40ana"
            #expect(page.body.contains("<a href=\"\(href)\" download>JSON</a>"))
            #expect(page.body.contains("<a href=\"/api/transactions?format=csv&amp;accountID=%40ana\" download>CSV</a>"))
            let download = await server.send("GET", href.replacingOccurrences(of: "&amp;", with: "&"))
            #expect(download.array.map { $0["accountID"] as? String } == ["@ana"])
        }
    }
}
