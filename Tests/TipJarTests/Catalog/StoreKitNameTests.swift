import Foundation
import Testing

@testable import TipJar

/// Whose language a `Product` speaks, and what an empty name is: `Product.displayName` and `description` come from the
/// file's `_locale` ("the storefront of the device determines the language of the display name, not the preferred
/// language", https://developer.apple.com/documentation/storekit/product/displayname), an empty name stays empty
/// ("The displayName value is an empty string until you add a localization"), and the tip jar's tiles name the three
/// tiers in its own translations, in the install's language.
@Suite("StoreKit's product names")
struct StoreKitNameTests {
    @Test func anEmptyDisplayNameStaysEmptyAndIsWarnedAbout() throws {
        let catalog = try CatalogFixture.load("v4-empty-display-names")
        for locale in AppLocale.allCases {
            let listing = CatalogOffers(catalog: catalog).listing(storefront: .usa, locale: locale)
            #expect(listing.storeTips.map(\.displayName) == ["", "", ""], "never the reference name")
            #expect(listing.tipOffers.map(\.name) == ["", "", ""], "the tile shows what the app would show")
        }
        #expect(catalog.emptyDisplayNameWarnings.count == 3)
        #expect(
            catalog.emptyDisplayNameWarnings.first?.hasPrefix("products[0] church.example.app.tip.small: Product.displayName is \"\"") == true,
            "\(catalog.emptyDisplayNameWarnings)")
        #expect(try Catalog.shipped().emptyDisplayNameWarnings.isEmpty)
    }

    @Test func aProductWithoutLocalizationsHasAnEmptyName() throws {
        let catalog = try CatalogFixture.parse(
            """
            {"identifier":"X","products":[{"displayPrice":"0.99","familyShareable":false,"internalID":"1","localizations":[],
            "productID":"tip.a","referenceName":"A reference","type":"Consumable"}],"settings":{},"version":{"major":4,"minor":0}}
            """)
        let entry = try #require(catalog.tips.first)
        #expect(catalog.productDisplayName(of: entry) == "")
        #expect(catalog.emptyDisplayNameWarnings == ["products[0] tip.a: Product.displayName is \"\" because it has no localization; an app that shows it shows a blank name"])
    }

    @Test func productNamesFollowTheFilesLocaleAndTheTilesFollowTheInstallsLanguage() throws {
        let catalog = try Catalog.shipped()
        let offers = CatalogOffers(catalog: catalog)
        let portuguese = offers.listing(storefront: .bra, locale: .ptBR)
        #expect(portuguese.storeTips.reversed().map(\.displayName) == ["Coffee", "Snack", "Lunch"], "the file's _locale is en_US")
        #expect(portuguese.tipOffers.map(\.name) == ["Café", "Lanche", "Almoço completo"], "the tip jar's own tier names")
        #expect(offers.listing(storefront: .usa, locale: .en).tipOffers.map(\.name) == ["Coffee", "Snack", "Lunch"])
    }

    @Test func tipsThatAreNotTheThreeTiersShowProductDisplayNameInTheFilesLocale() throws {
        let catalog = try CatalogFixture.load("v3-storefront-LUX-fr-de")  // _locale fr_FR
        let german = CatalogOffers(catalog: catalog).listing(storefront: .usa, locale: .ptBR)
        #expect(german.tipOffers.map(\.name) == ["Un café", "Un croissant", "Un repas"])
        #expect(catalog.storeKitLocale == "fr_FR")
    }
}
