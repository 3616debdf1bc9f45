import Foundation
import Testing
import TipJar

@testable import TipJarDashboard

/// `/catalog` shows the loaded catalog and nothing else that changes while serving (its previews are fixed storefronts
/// and locales), so `PageCache.unchangingPage` renders it once: a purchase, a new install or a store setting does not
/// render it again, whichever session asks, with that session's own token (Sources/README.md, "A page").
extension PageTests {
    @Test func theCatalogPageIsRenderedOnceWhateverChangesAfterIt() async throws {
        try await withLiveServer { server in
            let ana = try await session(server)
            let bia = try await session(server)
            let cache = server.dashboard.pageCache
            let first = await server.send("GET", "/catalog", fields: [("Cookie", ana.cookie)])
            #expect(first.status == 200)
            let id = try await createInstall(server, ana)
            _ = await server.json("POST", "/api/installs/\(id)/purchases", #"{"productID":"com.example.tipjar.tip.coffee"}"#)
            #expect(await server.json("PUT", "/api/store", #"{"catalog":"failing","skipPurchaseSheet":true}"#).status == 200)
            for (who, path) in [(ana, "/catalog"), (bia, "/catalog"), (ana, "/catalog?tab=storefronts")] {
                let hits = cache.hits
                let again = await server.send("GET", path, fields: [("Cookie", who.cookie)])
                #expect(cache.hits == hits + 1, "\(path) was rendered again after a change")
                #expect(again.status == 200 && again.csrfToken == who.token)
                #expect(withoutToken(again) == withoutToken(first))
            }
            let stranger = await server.send("GET", "/catalog")
            #expect(stranger.status == 200 && !stranger.body.contains(ana.token) && !stranger.body.contains(bia.token))
        }
    }

    /// The text of a `<code>` element from just after its start tag, without the `<wbr>`s that let it break.
    static func codeText(_ rest: String) -> String {
        let element = rest.components(separatedBy: "</code>").first ?? ""
        return element.components(separatedBy: "<wbr>").joined()
    }

    @Test func everyTipOfATwoThousandProductCatalogIsOnTheCatalogPageAndItsPreviews() async throws {
        let products = (0..<2_000).map { index in
            CatalogProduct(
                productID: "com.example.tipjar.tip.t\(index)", referenceName: "Tip \(index)", type: .consumable, price: Decimal(index % 50) + 0.99,
                localizations: [CatalogLocalization(locale: "en_US", displayName: "Tip \(index)", description: "")], fileIndex: index)
        }
        try await withLiveServer(catalog: Catalog(products: products)) { server in
            let page = await server.send("GET", "/catalog")
            #expect(page.status == 200)
            // Each tip's row (`<code>ID</code>`, a `<wbr>` after each dot) once, and its tile's name in each of the two
            // previews.
            var codes: [String: Int] = [:]
            for part in page.body.components(separatedBy: "<code>").dropFirst() {
                codes[Self.codeText(part), default: 0] += 1
            }
            var tiles: [String: Int] = [:]
            for part in page.body.components(separatedBy: #"<span class="name">"#).dropFirst() {
                tiles[String(part.prefix { $0 != "<" }), default: 0] += 1
            }
            for product in products {
                #expect(codes[product.productID] == 1, "\(product.productID)")
                #expect(tiles[product.referenceName] == 2, "\(product.productID)")
            }
        }
    }
}
