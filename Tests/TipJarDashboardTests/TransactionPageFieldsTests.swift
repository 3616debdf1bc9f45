import Foundation
import Testing
import TipJar

/// `/transactions/{id}` shows what StoreKit's `Transaction` and its JWS carry, under StoreKit's names
/// (https://developer.apple.com/documentation/storekit/transaction), and a refunded transaction is `revoked` on the page
/// and in the JSON API alike.
@Suite("Transaction page: StoreKit's fields")
struct TransactionPageFieldsTests {
    static let coffee = "com.example.tipjar.tip.coffee"

    @Test func theTransactionPageNamesEveryFieldAsStoreKitDoesWithTheRawPayloadOneClickAway() async throws {
        try await withLiveServer { server in
            let install = try #require(await server.json("POST", "/api/installs", #"{"accountID":"ana","launch":true}"#).object["id"] as? String)
            let bought = await server.json(
                "POST", "/api/installs/\(install)/purchases",
                #"{"productID":"\#(Self.coffee)","appAccountToken":"6f1e7a52-4b8c-4c55-9d8e-2a3b4c5d6e7f"}"#)
            let id = try #require(bought.object["transactionID"] as? Int)
            let page = await server.send("GET", "/transactions/\(id)").body
            for name in [
                "originalID", "purchasedQuantity", "price", "currency", "storefront", "ownershipType", "environment",
                "signedDate", "revocationDate", "revocationReason", "appAccountToken",
            ] {
                #expect(page.contains("<dt><code>\(name)</code></dt>"), "\(name)")
            }
            #expect(page.contains("6f1e7a52-4b8c-4c55-9d8e-2a3b4c5d6e7f"))
            #expect(page.contains(#"<details class="payload" id="payload">"#))
            #expect(page.contains("&quot;inAppOwnershipType&quot; : &quot;PURCHASED&quot;"), "the decoded payload, escaped")
            #expect(page.contains(#"data-copy="jws" hidden>"#), "the copy button waits for JavaScript")
        }
    }

    @Test func aRefundedTransactionIsRevokedWhenAndWhyOnThePageAndInTheAPIsStatus() async throws {
        try await withLiveServer { server in
            let install = try #require(await server.json("POST", "/api/installs", #"{"accountID":"ana","launch":true}"#).object["id"] as? String)
            let bought = await server.json("POST", "/api/installs/\(install)/purchases", #"{"productID":"\#(Self.coffee)"}"#)
            let id = try #require(bought.object["transactionID"] as? Int)
            #expect(await server.json("GET", "/api/transactions/\(id)").object["status"] as? String == "purchased")
            #expect(await server.json("POST", "/api/transactions/\(id)/refund", #"{"reason":"developerIssue"}"#).status == 200)
            #expect(await server.json("GET", "/api/transactions/\(id)").object["status"] as? String == "revoked")
            let page = await server.send("GET", "/transactions/\(id)").body
            #expect(page.contains(#"<dd class="status-revoked">revoked "#))
            #expect(page.contains("reason .developerIssue, a full refund"))
            #expect(!page.contains("refunded</dd>") && !page.contains("· refunded"))
            #expect(!page.contains("(trap).</li>"), "a refund is not a trap")
            #expect(page.contains("<li>App Store: revoked: developer issue.</li>"))
        }
    }
}
