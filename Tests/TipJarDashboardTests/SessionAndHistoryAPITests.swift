import Foundation
import Testing
import TipJar

/// Session controls and transaction history over the JSON API, on a real socket and a real SQLite file.
@Suite("Session controls and history: JSON API")
struct SessionAndHistoryAPITests {
    static let coffee = "com.example.tipjar.tip.coffee"

    func install(_ server: LiveServer, account: String, body: String = #""locale":"en","launch":true"#) async throws -> String {
        let reply = await server.json("POST", "/api/installs", #"{"accountID":"\#(account)",\#(body)}"#)
        #expect(reply.status == 201)
        return try #require(reply.object["id"] as? String)
    }

    func buy(_ server: LiveServer, _ id: String, _ product: String = Self.coffee) async throws -> Int {
        let reply = await server.json("POST", "/api/installs/\(id)/purchases", #"{"productID":"\#(product)"}"#)
        return try #require(reply.object["transactionID"] as? Int, "\(reply.body)")
    }

    @Test func resetAnswersTheFilesSettingsAndGetStoreShowsThem() async throws {
        try await withLiveServer(catalog: try LiveServer.fixtureCatalog("settings-load-products-fails")) { server in
            let initial = await server.json("GET", "/api/store")
            #expect((initial.object["failures"] as? [String: Any])?["loadProducts"] as? String == "networkError")
            #expect((initial.object["failures"] as? [String: Any])?["verification"] as? String == "invalidSignature")
            let changed = await server.json("PUT", "/api/store", #"{"failures":{"loadProducts":null},"askToBuyEnabled":true,"latencyMs":300}"#)
            #expect(changed.status == 200)
            #expect(changed.object["askToBuyEnabled"] as? Bool == true)
            let reset = await server.json("POST", "/api/store/reset")
            #expect(reset.status == 200)
            #expect((reset.object["failures"] as? [String: Any])?["loadProducts"] as? String == "networkError")
            #expect(reset.object["askToBuyEnabled"] as? Bool == false)
            #expect(reset.object["latencyMs"] as? Int == 0)
            #expect(await server.json("GET", "/api/store").body == reset.body)
            #expect(await server.json("PUT", "/api/store", #"{"askToBuyEnabled":"yes"}"#).status == 400)
        }
    }

    @Test func newInstallsDefaultToTheFilesLocaleAndAskToBuyMakesThePurchasePending() async throws {
        try await withLiveServer(catalog: try LiveServer.fixtureCatalog("settings-ask-to-buy-pt-BR")) { server in
            let created = await server.json("POST", "/api/installs", "{}")
            #expect(created.object["locale"] as? String == "pt-BR")
            #expect(created.object["storefront"] as? String == "BRA")
            let id = try #require(created.object["id"] as? String)
            let purchase = await server.json("POST", "/api/installs/\(id)/purchases", #"{"productID":"\#(Self.coffee)"}"#)
            #expect(purchase.object["outcome"] as? String == "pending")
            #expect(await server.json("GET", "/api/store/pending").array.count == 1)
        }
    }

    @Test func deletesAnswer204ThenUnknownIDsAnswer404() async throws {
        try await withLiveServer { server in
            let id = try await install(server, account: "ana")
            let first = try await buy(server, id)
            _ = try await buy(server, id, "com.example.tipjar.tip.snack")
            #expect(await server.json("DELETE", "/api/transactions/\(first)").status == 204)
            #expect(await server.json("GET", "/api/transactions/\(first)").status == 404)
            #expect(await server.json("DELETE", "/api/transactions/\(first)").status == 404)
            #expect(await server.json("DELETE", "/api/transactions/not-a-number").status == 404)
            #expect(await server.json("DELETE", "/api/transactions").status == 204)
            #expect((await server.json("GET", "/api/transactions").object["transactions"] as? [Any])?.isEmpty == true)
            #expect(await server.json("GET", "/api/installs/\(id)").object["hearts"] as? Int == 2, "installs keep their hearts")
            #expect(await server.json("DELETE", "/api/installs/\(id)").status == 204)
            #expect(await server.json("GET", "/api/installs/\(id)").status == 404)
            #expect(await server.json("DELETE", "/api/installs/\(id)").status == 404)
        }
    }

    @Test func deleteFromAnotherOriginIsRefusedAndChangesNothing() async throws {
        try await withLiveServer { server in
            let id = try await install(server, account: "ana")
            let transaction = try await buy(server, id)
            for field in [("Origin", "http://localhost:3000"), ("Sec-Fetch-Site", "cross-site"), ("Sec-Fetch-Site", "same-site")] {
                for target in ["/api/transactions", "/api/transactions/\(transaction)", "/api/installs/\(id)"] {
                    let reply = await server.send("DELETE", target, fields: [field])
                    #expect(reply.status == 403, "\(field) \(target)")
                }
            }
            #expect(await server.json("GET", "/api/transactions/\(transaction)").status == 200)
            #expect(await server.json("GET", "/api/installs/\(id)").status == 200)
            // A method no handler takes is answered without acting.
            #expect(await server.send("DELETE", "/store", fields: [("Origin", "http://localhost:3000")]).status == 405)
        }
    }

    @Test func transactionListFiltersNewestFirstAndPages() async throws {
        try await withLiveServer { server in
            let ana = try await install(server, account: "ana")
            let bob = try await install(server, account: "bob")
            let first = try await buy(server, ana)
            let second = try await buy(server, bob)
            let third = try await buy(server, ana, "com.example.tipjar.tip.lunch")
            func ids(_ query: String) async -> ([Int], Bool?) {
                let reply = await server.json("GET", "/api/transactions\(query)")
                #expect(reply.status == 200, "\(query): \(reply.body)")
                let rows = reply.object["transactions"] as? [[String: Any]] ?? []
                return (rows.compactMap { $0["transactionID"] as? Int }, reply.object["hasMore"] as? Bool)
            }
            #expect(await ids("") == ([third, second, first], false))
            #expect(await ids("?accountID=ana&pageSize=1") == ([third], true))
            #expect(await ids("?accountID=ana&pageSize=1&page=2") == ([first], false))
            #expect(await ids("?installID=\(bob)") == ([second], false))
            #expect(await ids("?productID=com.example.tipjar.tip.lunch&status=purchased") == ([third], false))
            #expect(await ids("?status=declined") == ([], false))
        }
    }

    static let badQueries: [(String, String)] = [
        ("/api/transactions?page=0", "page must be a whole number from 1 to 1000000."),
        ("/api/transactions?page=two", "page must be a whole number"),
        ("/api/transactions?pageSize=201", "pageSize must be a whole number from 1 to 200."),
        ("/api/transactions?pageSize=-1", "pageSize must be a whole number"),
        ("/api/transactions?status=refunded", "status must be one of pending, purchased, declined, interrupted."),
        ("/api/transactions?accountID=%01", "accountID must be at most 200 printable characters."),
        ("/api/accounts/ana/transactions?view=everything", "view must be one of all, unfinished, currentEntitlements, latest."),
        ("/api/accounts/ana/transactions?view=latest", "view=latest needs a productID"),
    ]

    @Test(arguments: badQueries)
    func everyBadQueryParameterIsA400NamingIt(_ target: String, _ message: String) async throws {
        try await withLiveServer { server in
            let reply = await server.json("GET", target)
            #expect(reply.status == 400)
            #expect((reply.object["error"] as? String)?.contains(message) == true, "\(reply.body)")
        }
    }

    @Test func accountViewsAnswerAsStoreKitWould() async throws {
        try await withLiveServer(settings: StoreSettings(crashBeforeFinish: true)) { server in
            let id = try await install(server, account: "ana")
            let unfinished = try await buy(server, id)
            let deleted = await server.json("DELETE", "/api/installs/\(id)")
            #expect(deleted.status == 204)
            func view(_ query: String) async -> [Int] {
                let reply = await server.json("GET", "/api/accounts/ana/transactions\(query)")
                #expect(reply.status == 200, "\(reply.body)")
                return (reply.object["transactions"] as? [[String: Any]] ?? []).compactMap { $0["transactionID"] as? Int }
            }
            #expect(await view("") == [unfinished], "view defaults to all")
            #expect(await view("?view=unfinished") == [unfinished], "the deleted app's transaction stays with the account")
            #expect(await view("?view=currentEntitlements") == [])
            #expect(await view("?view=latest&productID=\(Self.coffee)") == [unfinished])
            _ = await server.json("PUT", "/api/store", #"{"crashBeforeFinish":false}"#)
            let reinstall = try await install(server, account: "ana")
            #expect(await server.json("GET", "/api/installs/\(reinstall)").object["hearts"] as? Int == 1, "the reinstall received it at launch")
            #expect(await view("?view=all") == [], "finished now: no longer in Transaction.all")
            #expect(await view("?view=latest&productID=\(Self.coffee)") == [])
        }
    }
}
