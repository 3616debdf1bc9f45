import Foundation
import HTTPServer
import TipJar

/// `/catalog`: the loaded catalog, its tips in the order the tip jar offers them, names per locale, prices per
/// storefront, and a tile preview per app locale.
struct CatalogController: DashboardController {
    let service: TipJarService
    /// Rendered pages by request and data version; see ``PageCache``.
    let pageCache: PageCache
    let renderer: PageRenderer

    func register(in router: inout Router<DashboardContext>) {
        router.get("/catalog") { request, context in
            // The page reads the catalog and nothing else that can change (its previews are fixed storefronts and
            // locales, the store's settings are not on it), so a purchase or a setting does not render it again.
            try await pageCache.unchangingPage(request, path: "/catalog", csrfToken: renderer.csrfToken(context)) {
                try await catalogPage(context, csrfToken: $0)
            }
        }
    }

    /// The name columns of `/catalog`: the app's locales (`en`, `pt-BR`), then every other locale the file holds.
    static func catalogLocales(_ catalog: Catalog) -> [String] {
        catalog.locales(startingWith: AppLocale.allCases.map(\.identifier))
    }

    /// The storefront columns of `/catalog`: USA and BRA (the storefronts the tip jar is written for), then the
    /// catalog's default.
    static func storefrontChoices(_ catalog: Catalog) -> [(value: String, name: String)] {
        var codes = ["USA", "BRA"]
        if !codes.contains(catalog.defaultStorefront.countryCode) { codes.append(catalog.defaultStorefront.countryCode) }
        return codes.map { ($0, $0) }
    }

    func catalogPage(_ context: DashboardContext, csrfToken: String) async throws -> HTTPResponse {
        let catalog = service.catalog
        let previews = [(AppLocale.en, Storefront.usa), (.ptBR, Storefront.bra)].map { locale, storefront in
            let products = catalog.tips.map { service.product(for: $0, storefront: storefront, locale: locale) }
            return (
                title: "\(locale.rawValue) · \(storefront.countryCode)", lang: locale.rawValue,
                offers: TipJarService.offers(from: products, catalog: catalog, locale: locale)
            )
        }
        let page = CatalogPageModel(
            chrome: renderer.chrome(context, nav: "catalog", csrfToken: csrfToken), catalog: catalog, locales: Self.catalogLocales(catalog),
            storefronts: Self.storefrontChoices(catalog).compactMap { Storefront.named($0.value) }, previews: previews)
        return try renderer.html("pages/catalog", page: page)
    }
}
