import Foundation
import Testing

@testable import TipJar

/// What a loaded catalog offers, computed once per storefront and locale and kept (`CatalogOffers`): the same names (with
/// their fallback), Foundation-formatted prices, tier order, emoji and tint that resolving each load would give.
@Suite("Offers computed once per storefront and locale")
struct CatalogOffersTests {
    static let catalogs: [String] = [
        "v3-three-tiers-pt-BR", "v4-partial-tier-names", "v3-tips-and-subscriptions", "v4-ja-only-names",
        "v3-yen-integer-prices", "v4-empty-catalog",
    ]

    static func fixture(_ name: String) throws -> Catalog {
        try Catalog.load(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Fixtures/storekit/\(name).storekit"))
    }

    @Test("every storefront and locale holds what a load would resolve", arguments: catalogs)
    func everyListingHoldsWhatALoadWouldResolve(_ name: String) throws {
        let catalog = try Self.fixture(name)
        let offers = CatalogOffers(catalog: catalog)
        #expect(offers.tipIDs == catalog.tips.map(\.productID))
        for storefront in Storefront.all {
            for locale in AppLocale.allCases {
                let listing = offers.listing(storefront: storefront, locale: locale)
                #expect(listing.storeProducts.map(\.id) == catalog.products.reversed().map(\.productID), "store order")
                #expect(listing.storeTips.map(\.id) == catalog.products.reversed().filter(\.isTip).map(\.productID))
                for (product, entry) in zip(listing.storeProducts, catalog.products.reversed()) {
                    #expect(product.displayName == catalog.productDisplayName(of: entry), "StoreKit's name follows the file's _locale")
                    #expect(product.description == catalog.productDescription(of: entry))
                    #expect(product.displayPrice == storefront.displayPrice(entry.price), "\(storefront) \(entry.productID)")
                    #expect(product.price == storefront.chargedPrice(entry.price) && product.type == entry.type)
                }
                #expect(listing.tipOffers.map(\.productID) == catalog.tips.map(\.productID), "tier order")
                for (offer, entry) in zip(listing.tipOffers, catalog.tips) {
                    let tier = catalog.tier(of: entry)
                    #expect(offer.name == catalog.tileName(of: entry, locale: locale))
                    #expect(offer.displayPrice == storefront.displayPrice(entry.price))
                    #expect(offer.emoji == (tier?.emoji ?? "💝") && offer.tint == (tier?.tint ?? TipTier.otherTint) && offer.tier == tier)
                }
            }
        }
    }

    @Test func aStorefrontOutsideTheListIsPricedInItsOwnCurrency() throws {
        let catalog = try Catalog.shipped()
        let offers = CatalogOffers(catalog: catalog)
        // Same country code as a listed storefront, another currency and formatting locale.
        let custom = Storefront(countryCode: "USA", currencyCode: "EUR", localeIdentifier: "de_DE")
        let listing = offers.listing(storefront: custom, locale: .en)
        #expect(listing.tipOffers.map(\.displayPrice) == catalog.tips.map { custom.displayPrice($0.price) })
        #expect(listing.tipOffers.first?.displayPrice.hasSuffix("€") == true)
        #expect(offers.listing(storefront: .usa, locale: .en).tipOffers.first?.displayPrice.hasPrefix("$") == true)
    }

    @Test func aListingIsInTheStoresOrderWithTheStorefrontsCurrencyAndTheLocalesNames() async throws {
        let catalog = try Catalog.shipped()
        let offers = CatalogOffers(catalog: catalog)
        let listing = offers.listing(storefront: .bra, locale: .ptBR)
        #expect(listing.tipOffers.map(\.displayPrice).allSatisfy { $0.hasPrefix("R$\u{A0}") })
        #expect(
            Set(listing.tipOffers.map(\.name)) != Set(offers.listing(storefront: .bra, locale: .en).tipOffers.map(\.name)),
            "pt-BR names differ from en ones in the shipped catalog")
        #expect(
            listing.storeTips.map(\.id) == catalog.products.reversed().filter(\.isTip).map(\.productID)
                && listing.storeTips.map(\.id) != listing.tipOffers.map(\.productID), "the store answers in reversed file order, not tier order")
    }
}
