import Foundation
import Testing

@testable import TipJar

/// The shipped `TipProducts.storekit` (README "Domain rules": Catalog): an Xcode 3.0 file with coffee, snack and lunch,
/// named in en_US and pt_BR, storefront USA, loaded from the TipJar bundle.
@Suite("Shipped catalog")
struct ShippedCatalogTests {
    @Test("loads from Bundle.module with three tiers in order")
    func loads() throws {
        let catalog = try Catalog.shipped()
        #expect(catalog.formatVersion == CatalogFormatVersion(major: 3, minor: 0))
        #expect(catalog.defaultStorefront == .usa)
        #expect(catalog.fileLocale == "en_US")
        #expect(catalog.nonTips.isEmpty)
        #expect(catalog.tips.map(\.productID) == TipTier.allCases.map(\.productID))
        #expect(catalog.tips.map { catalog.tier(of: $0) } == TipTier.allCases)
    }

    @Test("tip listing in English, USA and Portuguese, Brazil")
    func listings() throws {
        let catalog = try Catalog.shipped()
        #expect(
            catalog.tipListing(locale: "en") == [
                "com.example.tipjar.tip.coffee\tCoffee\t$0.99",
                "com.example.tipjar.tip.snack\tSnack\t$2.99",
                "com.example.tipjar.tip.lunch\tLunch\t$4.99",
            ])
        #expect(
            catalog.tipListing(locale: "pt-BR", storefront: .bra) == [
                "com.example.tipjar.tip.coffee\tCafé\tR$\u{A0}0,99",
                "com.example.tipjar.tip.snack\tLanche\tR$\u{A0}2,99",
                "com.example.tipjar.tip.lunch\tAlmoço completo\tR$\u{A0}4,99",
            ])
    }

    @Test("every tip has a non-empty en_US and pt_BR name and description")
    func localized() throws {
        let catalog = try Catalog.shipped()
        for tip in catalog.tips {
            #expect(Set(tip.localizations.map(\.locale)) == ["en_US", "pt_BR"])
            #expect(tip.localizations.allSatisfy { !$0.displayName.isEmpty && !$0.description.isEmpty })
        }
    }
}
