import Foundation
import Testing

@testable import TipJar

/// The name fallback order of Tests/TipJarTests/Fixtures/storekit/README.md: the install's locale (`pt-BR` matches `pt_BR`),
/// the same language, the file's `_locale`, `en_US`, the first non-empty localization, `referenceName`,
/// `productID`.
@Suite("Name fallback order")
struct CatalogNameFallbackTests {
    static func catalog(_ localizations: [(String, String)], reference: String = "Reference", fileLocale: String? = nil) -> (Catalog, CatalogProduct) {
        let product = CatalogProduct(
            productID: "x.tip.custom", referenceName: reference, type: .consumable, price: 1,
            localizations: localizations.map { CatalogLocalization(locale: $0.0, displayName: $0.1) }, fileIndex: 0)
        let catalog = Catalog(fileLocale: fileLocale, products: [product])
        return (catalog, product)
    }

    /// (case, localizations, file _locale, referenceName, install locale, expected name).
    static let cases: [(String, [(String, String)], String?, String, String, String)] = [
        ("exact locale, BCP 47 dash matches underscore", [("en_US", "Coffee"), ("pt_BR", "Café")], nil, "R", "pt-BR", "Café"),
        ("exact locale, case-insensitive", [("en_US", "Coffee"), ("pt_BR", "Café")], nil, "R", "PT_br", "Café"),
        ("exact beats same language", [("pt_PT", "Café PT"), ("pt_BR", "Café BR")], nil, "R", "pt-BR", "Café BR"),
        ("same language: pt install gets pt_BR", [("en_US", "Coffee"), ("pt_BR", "Café")], nil, "R", "pt", "Café"),
        ("same language: pt-PT install gets pt_BR", [("en_US", "Coffee"), ("pt_BR", "Café")], nil, "R", "pt-PT", "Café"),
        ("same language: en install gets en_GB", [("de_DE", "Kaffee"), ("en_GB", "Coffee GB")], nil, "R", "en", "Coffee GB"),
        ("file _locale before en_US", [("en_US", "Coffee"), ("de_DE", "Kaffee")], "de_DE", "R", "fr-FR", "Kaffee"),
        ("en_US when nothing else matches", [("de_DE", "Kaffee"), ("en_US", "Coffee")], "it_IT", "R", "fr-FR", "Coffee"),
        ("first non-empty localization", [("de_DE", ""), ("ja", "コーヒー"), ("ko", "커피")], "en_US", "R", "fr", "コーヒー"),
        ("empty exact match is skipped", [("pt_BR", "  "), ("en_US", "Coffee")], nil, "R", "pt-BR", "Coffee"),
        ("referenceName when every name is empty", [("en_US", ""), ("pt_BR", "")], nil, "Small Tip", "pt-BR", "Small Tip"),
        ("referenceName when there are no localizations", [], nil, "Small Tip", "en", "Small Tip"),
        ("productID when referenceName is empty too", [("en_US", "")], nil, "", "en", "x.tip.custom"),
    ]

    @Test("names follow the README fallback order", arguments: cases)
    func fallback(label: String, localizations: [(String, String)], fileLocale: String?, reference: String, locale: String, expected: String) {
        let (catalog, product) = Self.catalog(localizations, reference: reference, fileLocale: fileLocale)
        #expect(catalog.displayName(of: product, locale: locale) == expected, "\(label)")
    }

    @Test("the localization chosen also gives the description")
    func description() throws {
        let catalog = try CatalogFixture.load("v3-three-tiers-pt-BR")
        let coffee = try #require(catalog.product(withID: "app.example.photos.tip.coffee"))
        #expect(catalog.localization(of: coffee, locale: "pt-BR")?.description == "Pague um café para o desenvolvedor")
        #expect(catalog.localization(of: coffee, locale: "en")?.description == "Buy the developer a coffee")
    }
}
