import Foundation
import TestSupport
import Testing
import TipJar

/// `POST /api/installs/{id}/purchases` with `userAction`, `quantity` and `appAccountToken`, every purchase error
/// through `PUT /api/store`, Restore's own messages, and Apple's `Transaction` field names on
/// `GET /api/transactions/{id}` (https://developer.apple.com/documentation/storekit/transaction).
@Suite("Purchase flow through the JSON API")
struct PurchaseFlowAPITests {
    static let coffee = "com.example.tipjar.tip.coffee"

    func install(_ server: LiveServer, storefront: String = "USA") async throws -> String {
        let reply = await server.json("POST", "/api/installs", #"{"launch":true,"storefront":"\#(storefront)"}"#)
        return try #require(reply.object["id"] as? String)
    }

    func purchase(_ server: LiveServer, _ id: String, _ extra: String = "") async -> HTTPReply {
        await server.json("POST", "/api/installs/\(id)/purchases", #"{"productID":"\#(Self.coffee)"\#(extra)}"#)
    }

    @Test func aPurchaseWhileTheCatalogFailsIsAConflictNamingTheReasonInTheInstallsLanguage() async throws {
        try await withLiveServer(settings: StoreSettings(catalog: .failing)) { server in
            let id = try await install(server)
            let reply = await purchase(server, id)
            #expect(reply.status == 409)
            #expect(reply.object["error"] as? String == "The app has not loaded this product: the last load failed.")
            let pages = PageTests()
            let session = try await pages.session(server)
            let portuguese = try await pages.createInstall(server, session, locale: "pt-BR", storefront: "BRA")
            let tap = await pages.post(server, "/installs/\(portuguese)/purchases", session, form: "productID=\(Self.coffee)", fragment: true)
            #expect(tap.status == 409)
            #expect(tap.body.contains("O app não carregou esta gorjeta: o último carregamento falhou."), "\(tap.body)")
            let transactions = await server.json("GET", "/api/transactions").object["transactions"] as? [Any]
            #expect(transactions?.isEmpty == true, "nothing charged")
        }
    }

    @Test func userActionCancelIsCancelledAndConfirmIsTheDefault() async throws {
        try await withLiveServer { server in
            let id = try await install(server)
            let cancelled = await purchase(server, id, #","userAction":"cancel""#)
            #expect(cancelled.status == 200)
            #expect(cancelled.object["outcome"] as? String == "cancelled")
            #expect(cancelled.object["error"] == nil && cancelled.object["errorName"] == nil)
            #expect(await purchase(server, id, #","userAction":"confirm""#).object["outcome"] as? String == "purchased")
            #expect(await purchase(server, id).object["outcome"] as? String == "purchased")
            #expect(await server.json("GET", "/api/transactions").object["transactions"].map { ($0 as? [Any])?.count } == 2)
        }
    }

    @Test(arguments: [
        #","userAction":"maybe""#, #","userAction":1"#, #","userAction":null"#, #","quantity":"three""#,
        #","quantity":2.5"#, #","quantity":true"#, #","quantity":1e30"#, #","appAccountToken":"nope""#,
        #","appAccountToken":42"#,
    ])
    func malformedPurchaseOptionsAre400AndChangeNothing(_ extra: String) async throws {
        try await withLiveServer { server in
            let id = try await install(server)
            let reply = await purchase(server, id, extra)
            #expect(reply.status == 400)
            #expect((reply.object["error"] as? String)?.isEmpty == false)
            #expect((await server.json("GET", "/api/transactions").object["transactions"] as? [Any])?.isEmpty == true)
            #expect(await server.json("GET", "/api/installs/\(id)").object["hearts"] as? Int == 0)
            #expect(await purchase(server, id).object["outcome"] as? String == "purchased", "no purchase stays open")
        }
    }

    @Test(arguments: [0, 11])
    func aQuantityOutsideOneToTenFailsWithInvalidQuantity(_ quantity: Int) async throws {
        try await withLiveServer { server in
            let id = try await install(server)
            let reply = await purchase(server, id, #","quantity":\#(quantity)"#)
            #expect(reply.status == 200)
            #expect(reply.object["outcome"] as? String == "failed")
            #expect(reply.object["errorName"] as? String == "invalidQuantity")
            #expect(reply.object["error"] as? String == Product.PurchaseError.invalidQuantity.message(locale: .en))
        }
    }

    @Test func quantityAndTokenReachTheTransactionAndTheLedgerAndThePriceIsTheTotal() async throws {
        try await withLiveServer { server in
            let id = try await install(server)
            let reply = await purchase(server, id, #","quantity":3,"appAccountToken":"6F1C2A7E-3B5D-4C8E-9A0F-1D2E3F4A5B6C""#)
            #expect(reply.object["outcome"] as? String == "purchased")
            #expect(reply.object["hearts"] as? Int == 1, "one transaction, one heart, whatever the quantity")
            let transactionID = try #require(reply.object["transactionID"] as? Int)
            let transaction = await server.json("GET", "/api/transactions/\(transactionID)").object
            #expect(transaction["purchasedQuantity"] as? Int == 3)
            #expect(transaction["price"] as? String == "2.97", "Transaction.price counts the purchasedQuantity")
            #expect(transaction["appAccountToken"] as? String == "6f1c2a7e-3b5d-4c8e-9a0f-1d2e3f4a5b6c")
            let csv = await server.send("GET", "/api/transactions?format=csv").body.components(separatedBy: "\r\n")
            #expect(csv.dropFirst().first?.hasSuffix(",2.97,USD") == true, "\(csv)")
            let page = await server.send("GET", "/transactions").body
            #expect(page.contains("<td>$2.97 (3 × $0.99)</td>"), "the total, with the unit price beside it")
            let ledger = await server.json("GET", "/api/installs/\(id)/ledger").array
            #expect(ledger.first?["purchasedQuantity"] as? Int == 3)
            #expect(ledger.first?["appAccountToken"] as? String == "6f1c2a7e-3b5d-4c8e-9a0f-1d2e3f4a5b6c")
        }
    }

    @Test func aTransactionUsesApplesFieldNames() async throws {
        try await withLiveServer { server in
            let id = try await install(server, storefront: "GBR")
            let transactionID = try #require(await purchase(server, id).object["transactionID"] as? Int)
            let body = await server.json("GET", "/api/transactions/\(transactionID)")
            let transaction = body.object
            #expect(transaction["id"] as? Int == transactionID && transaction["transactionID"] as? Int == transactionID)
            #expect(body.body.contains(#""price":"0.99""#), "an exact decimal string, never a float")
            #expect(transaction["currency"] as? String == "GBP")
            #expect(transaction["productType"] as? String == "Consumable")
            #expect(transaction["appBundleID"] as? String == "com.example.tipjar")
            let purchaseDate = try #require(transaction["purchaseDate"] as? String)
            #expect(transaction["signedDate"] as? String == purchaseDate)
            #expect(transaction["originalPurchaseDate"] as? String == purchaseDate)
            #expect(purchaseDate.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "milliseconds kept: \(purchaseDate)")
            #expect(transaction["environment"] as? String == "Xcode" && transaction["ownershipType"] as? String == "PURCHASED")
            #expect(transaction["reason"] as? String == "PURCHASE")
            #expect(transaction["storefront"] as? String == "GBR" && transaction["storefrontID"] as? String == "143444")
            #expect(transaction["jwsPayload"] is [String: Any], "Apple's JWSTransactionDecodedPayload beside the dashboard's fields")
            for kept in [
                "originalID", "productID", "purchasedQuantity", "storefront", "environment", "ownershipType", "reason", "status",
                "isFinished", "isExternal",
            ] {
                #expect(transaction[kept] != nil, "\(kept) is kept")
            }
        }
    }

    @Test(arguments: PurchaseFailure.allCases.filter { $0 != .userCancelled })
    func everyPurchaseErrorCanBeInjectedAndIsNamedInTheAnswer(_ failure: PurchaseFailure) async throws {
        try await withLiveServer { server in
            let id = try await install(server)
            #expect(await server.json("PUT", "/api/store", #"{"failures":{"purchase":"\#(failure.rawValue)"}}"#).status == 200)
            let injected = await purchase(server, id).object
            #expect(injected["outcome"] as? String == "failed")
            #expect(injected["errorName"] as? String == failure.rawValue)
            #expect(injected["error"] as? String == failure.error.message(locale: .en))
            let outcome = await server.json("PUT", "/api/store", #"{"failures":{"purchase":null},"purchaseOutcome":"failed","purchaseError":"\#(failure.rawValue)"}"#)
            #expect(outcome.object["purchaseError"] as? String == failure.rawValue)
            #expect(await purchase(server, id).object["errorName"] as? String == failure.rawValue)
        }
    }

    @Test func aThrownUserCancelledAnswersCancelledWithoutAnAlertText() async throws {
        try await withLiveServer { server in
            let id = try await install(server)
            _ = await server.json("PUT", "/api/store", #"{"failures":{"purchase":"userCancelled"}}"#)
            let reply = await purchase(server, id).object
            #expect(reply["outcome"] as? String == "cancelled")
            #expect(reply["errorName"] as? String == "userCancelled")
            #expect(reply["error"] == nil)
        }
    }

    @Test func injectionWinsOverTheFailedOutcome() async throws {
        try await withLiveServer { server in
            let id = try await install(server)
            _ = await server.json("PUT", "/api/store", #"{"purchaseOutcome":"failed","purchaseError":"productUnavailable","failures":{"purchase":"networkError"}}"#)
            #expect(await purchase(server, id).object["errorName"] as? String == "networkError")
        }
    }

    @Test func aFailedRestoreSpeaksOfRestore() async throws {
        try await withLiveServer { server in
            let id = try await install(server)
            _ = await server.json("PUT", "/api/store", #"{"failures":{"sync":"userCancelled"}}"#)
            let reply = await server.json("POST", "/api/installs/\(id)/restore")
            #expect(reply.status == 503)
            #expect(reply.object["error"] as? String == "Restore was cancelled.")
            #expect(reply.object["storeKitError"] as? String == "userCancelled")
        }
    }

    @Test func skipPurchaseSheetIsAStoreSetting() async throws {
        try await withLiveServer { server in
            #expect(await server.json("GET", "/api/store").object["skipPurchaseSheet"] as? Bool == false)
            #expect(await server.json("PUT", "/api/store", #"{"skipPurchaseSheet":true}"#).object["skipPurchaseSheet"] as? Bool == true)
            #expect(await server.json("PUT", "/api/store", #"{"skipPurchaseSheet":1}"#).status == 400)
            let id = try await install(server)
            #expect(
                await purchase(server, id, #","userAction":"cancel""#).object["outcome"] as? String == "purchased",
                "no sheet, nothing to cancel")
        }
    }

    /// With the sheet skipped (`skipPurchaseSheet`, Xcode's Disable Dialogs) `userAction: "cancel"` is ignored and the
    /// purchase is charged; `Public/api/openapi.json` and `Public/scenarios/schema/scenario.schema.json` say so where
    /// they describe `userAction`, so a script that sends `cancel` is not surprised by a charge.
    @Test func aCancelWithTheSheetSkippedIsChargedAndBothDocumentsSaySo() async throws {
        try await withLiveServer(settings: StoreSettings(skipPurchaseSheet: true)) { server in
            let id = try await install(server)
            #expect(await purchase(server, id, #","userAction":"cancel""#).object["outcome"] as? String == "purchased")
            let transactions = await server.json("GET", "/api/transactions").object["transactions"] as? [Any]
            #expect(transactions?.count == 1, "charged: one transaction")
        }
        let root = LiveServer.repositoryRoot
        let api = try JSONSerialization.jsonObject(with: Data(contentsOf: root.appendingPathComponent("Public/api/openapi.json"))) as? [String: Any]
        let request = (api?["components"] as? [String: Any])?["schemas"] as? [String: Any]
        let apiText = (((request?["PurchaseRequest"] as? [String: Any])?["properties"] as? [String: Any])?["userAction"] as? [String: Any])?["description"] as? String
        let scenario =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: root.appendingPathComponent("Public/scenarios/schema/scenario.schema.json"))) as? [String: Any]
        let purchaseStep = ((scenario?["$defs"] as? [String: Any])?["purchase"] as? [String: Any])?["properties"] as? [String: Any]
        let scenarioText = (purchaseStep?["userAction"] as? [String: Any])?["description"] as? String
        for text in [apiText, scenarioText] {
            let description = try #require(text)
            #expect(description.contains("skipPurchaseSheet") && description.contains("Disable Dialogs"), "\(description)")
            #expect(description.contains("`cancel`") && description.contains("charged"), "\(description)")
        }
    }
}
