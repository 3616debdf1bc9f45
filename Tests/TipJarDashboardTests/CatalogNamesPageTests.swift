import Foundation
import Testing
import TipJar

/// `/catalog` shows both names a tip has, StoreKit's `Product.displayName` (the file's `_locale`) and the tile's, and
/// warns about an empty `displayName` ("an empty string until you add a localization",
/// https://developer.apple.com/documentation/storekit/product/displayname).
@Suite("Catalog page names")
struct CatalogNamesPageTests {
    @Test func theCatalogPageShowsStoreKitsNameBesideTheTilesAndWarnsAboutAnEmptyOne() async throws {
        try await withLiveServer(catalog: try LiveServer.fixtureCatalog("v4-empty-display-names")) { server in
            let page = await server.send("GET", "/catalog").body
            #expect(page.contains("<th scope=\"col\">Product.displayName (en_US)</th>"))
            #expect(page.contains("<th scope=\"col\">Tile (pt-BR)</th>"))
            #expect(page.contains(#"<span class="badge fallback">empty</span>"#))
            #expect(
                page.contains("church.example.app.tip.small: Product.displayName is &quot;&quot;")
                    || page.contains("church.example.app.tip.small: Product.displayName is &#34;&#34;"), "\(page)")
        }
        try await withLiveServer { server in
            let page = await server.send("GET", "/catalog").body
            #expect(
                page.contains("the tiles show the tip jar&#39;s own tier names") || page.contains("the tiles show the tip jar&#x27;s own tier names")
                    || page.contains("the tiles show the tip jar's own tier names"))
            #expect(page.contains("<td>Coffee</td><td>Coffee</td><td>Café</td>"), "Product.displayName, then the en and pt-BR tiles")
        }
    }
}
