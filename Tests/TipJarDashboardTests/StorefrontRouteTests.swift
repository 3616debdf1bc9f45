import Foundation
import TestSupport
import Testing
import TipJar

/// Every storefront through the JSON API and the forms, the storefront change of a running install
/// (`PUT /api/installs/{id}/storefront`, `POST /installs/{id}/storefront`), and `/catalog`'s storefront list
/// and locale fallback marks, over a real socket.
@Suite("Storefront routes and the catalog page")
struct StorefrontRouteTests {
    static let fixtures = LiveServer.repositoryRoot.appendingPathComponent("Tests/TipJarTests/Fixtures/storekit")

    func createInstall(_ server: LiveServer, storefront: String) async -> HTTPReply {
        await server.json("POST", "/api/installs", #"{"locale":"en","storefront":"\#(storefront)","launch":true}"#)
    }

    @Test func theAPICreatesAnInstallInAnyStorefrontAndMovesItWhileItRuns() async throws {
        try await withLiveServer { server in
            let created = await createInstall(server, storefront: "LUX")
            #expect(created.status == 201)
            #expect(created.object["storefront"] as? String == "LUX")
            let id = try #require(created.object["id"] as? String)
            let euros = await server.json("GET", "/api/installs/\(id)/offers")
            #expect((euros.object["offers"] as? [[String: Any]])?.map { $0["displayPrice"] as? String } == ["0,99\u{A0}€", "2,99\u{A0}€", "4,99\u{A0}€"])

            let moved = await server.json("PUT", "/api/installs/\(id)/storefront", #"{"storefront":"GBR"}"#)
            #expect(moved.status == 200)
            #expect(moved.object["storefront"] as? String == "GBR")
            #expect(moved.object["isRunning"] as? Bool == true)
            let pounds = await server.json("GET", "/api/installs/\(id)/offers")
            #expect((pounds.object["offers"] as? [[String: Any]])?.map { $0["displayPrice"] as? String } == ["£0.99", "£2.99", "£4.99"])
            let page = await server.send("GET", "/installs/\(id)")
            #expect(page.body.contains("Storefront.updates: LUX → GBR"), "the install's timeline says so")
        }
    }

    @Test(arguments: [
        (#"{"storefront":"LUQ"}"#, 400, "closest: LUX"), (#"{"storefront":"US"}"#, 400, "closest: USA"),
        (#"{"storefront":7}"#, 400, "wrong type"), (#"{}"#, 400, "Missing field"), ("not json", 400, "not valid JSON"),
        (#"{"storefront":""}"#, 400, "unknown storefront"),
    ])
    func aBadStorefrontBodyIs400AndChangesNothing(_ body: String, _ status: Int, _ message: String) async throws {
        try await withLiveServer { server in
            let id = try #require(await createInstall(server, storefront: "USA").object["id"] as? String)
            let reply = await server.json("PUT", "/api/installs/\(id)/storefront", body)
            #expect(reply.status == status)
            #expect((reply.object["error"] as? String)?.contains(message) == true, "\(reply.body)")
            #expect(await server.json("GET", "/api/installs/\(id)").object["storefront"] as? String == "USA")
        }
    }

    @Test func aStorefrontPutForAnUnknownInstallIs404AndAnUnknownStorefrontAtCreationIs400() async throws {
        try await withLiveServer { server in
            let missing = await server.json("PUT", "/api/installs/no-such-install/storefront", #"{"storefront":"GBR"}"#)
            #expect(missing.status == 404)
            let refused = await createInstall(server, storefront: "RUZ")
            #expect(refused.status == 400)
            #expect((refused.object["error"] as? String)?.contains("closest: RUS") == true)
            let listed = await server.json("GET", "/api/installs").object["installs"] as? [Any]
            #expect(listed?.isEmpty == true)
        }
    }

    @Test func theFormsTakeAnyStorefrontWithoutJavaScript() async throws {
        try await withLiveServer { server in
            let pages = PageTests()
            let session = try await pages.session(server)
            let installs = await server.send("GET", "/installs")
            #expect(installs.body.components(separatedBy: #"<option value=""#).count - 1 >= 175 + 2, "every storefront (and the locales) is offered")
            #expect(installs.body.contains(#"<option value="KAZ">KAZ · Kazakhstan (KZT)</option>"#))
            let id = try await pages.createInstall(server, session, storefront: "KAZ")
            #expect(await server.json("GET", "/api/installs/\(id)").object["storefront"] as? String == "KAZ")

            let moved = await pages.post(server, "/installs/\(id)/storefront", session, form: "storefront=hrv")
            #expect(moved.status == 303)
            #expect(moved["Location"] == "/installs/\(id)?load=now")
            let page = await server.send("GET", "/installs/\(id)?load=now", fields: [("Cookie", session.cookie)])
            #expect(page.body.contains(#"name="storefront" value="HRV""#))
            #expect(page.body.contains("0,99\u{A0}€"))

            let refused = await pages.post(server, "/installs/\(id)/storefront", session, form: "storefront=HRX")
            #expect(refused.status == 400)
            #expect(refused.body.contains("closest: HRV"))
            let badCreate = await pages.post(server, "/installs", session, form: "locale=en&storefront=LUQ")
            #expect(badCreate.status == 400)
            #expect(badCreate.body.contains("closest: LUX"))
            let noToken = await server.send(
                "POST", "/installs/\(id)/storefront",
                fields: [
                    ("Content-Type", "application/x-www-form-urlencoded"), ("Cookie", session.cookie),
                    ("Origin", server.origin), ("Sec-Fetch-Site", "same-origin"),
                ], body: "storefront=GBR")
            #expect(noToken.status == 403)
            #expect(await server.json("GET", "/api/installs/\(id)").object["storefront"] as? String == "HRV")
        }
    }

    @Test func theCatalogPageListsEveryStorefrontAndMarksNamesThatFellBack() async throws {
        let catalog = try Catalog.load(contentsOf: Self.fixtures.appendingPathComponent("v3-storefront-LUX-fr-de.storekit"))
        try await withLiveServer(catalog: catalog) { server in
            let page = await server.send("GET", "/catalog")
            #expect(page.status == 200)
            let storefronts = try #require(page.body.components(separatedBy: #"id="storefronts""#).last)
            #expect(storefronts.components(separatedBy: "<tr><td><code>").count - 1 == 175)
            #expect(storefronts.contains("<code>LUX</code> <span class=\"badge\">default</span>"))
            #expect(page.body.contains(#"<th scope="col">Name (de_DE)</th>"#))
            #expect(page.body.contains(#"Un croissant <span class="badge fallback" title="No name in this locale: shown from fr_FR">from fr_FR</span>"#))
            #expect(page.body.contains("<td>Ein Kaffee</td>"), "a name in its own locale is not marked")
        }
    }
}
