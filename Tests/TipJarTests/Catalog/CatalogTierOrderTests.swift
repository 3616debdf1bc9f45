import Foundation
import Testing
@testable import TipJar

/// Offers are always in tier order — coffee, snack, lunch — whatever the file order (DESIGN.md rule 1);
/// without tier IDs, ascending price then file order (shared/storekit/README.md).
@Suite("Tier order")
struct CatalogTierOrderTests {
    static let permutations: [[String]] = [
        ["coffee", "snack", "lunch"], ["coffee", "lunch", "snack"], ["snack", "coffee", "lunch"],
        ["snack", "lunch", "coffee"], ["lunch", "coffee", "snack"], ["lunch", "snack", "coffee"],
    ]

    @Test("tiers come out coffee, snack, lunch whatever the file order", arguments: permutations)
    func anyFileOrder(order: [String]) throws {
        // Prices deliberately inverted so that price order would be wrong.
        let price = ["coffee": "\"9.99\"", "snack": "\"5\"", "lunch": "\"0.99\""]
        let products = order.map { CatalogFixture.product("com.example.app.tip.\($0)", price: price[$0]!) }
        let catalog = try CatalogFixture.parse(CatalogFixture.file(products: "[\(products.joined(separator: ","))]"))
        #expect(catalog.tips.map { catalog.tier(of: $0) } == [.coffee, .snack, .lunch])
        #expect(catalog.products.map(\.productID) == order.map { "com.example.app.tip.\($0)" })
    }

    @Test("the shipped tier IDs match exactly; other IDs by their last component")
    func matching() {
        #expect(TipTier.matching(productID: "com.example.tipjar.tip.snack") == .snack)
        #expect(TipTier.matching(productID: "app.example.photos.tip.Lunch") == .lunch)
        #expect(TipTier.matching(productID: "coffee") == .coffee)
        #expect(TipTier.matching(productID: "com.example.coffee.tip") == nil)
        #expect(TipTier.matching(productID: "tip.small") == nil)
    }

    @Test("without tier IDs: ascending price, then file order")
    func priceThenFileOrder() throws {
        let products = [
            CatalogFixture.product("t.b", price: "\"2\""), CatalogFixture.product("t.a", price: "\"1.50\""),
            CatalogFixture.product("t.c", price: "2"), CatalogFixture.product("t.d", price: "\"0.5\""),
        ]
        let catalog = try CatalogFixture.parse(CatalogFixture.file(products: "[\(products.joined(separator: ","))]"))
        #expect(catalog.tips.map(\.productID) == ["t.d", "t.a", "t.b", "t.c"])
    }

    @Test("tier-matched tips come before unmatched ones")
    func mixed() throws {
        let products = [CatalogFixture.product("t.extra", price: "\"0.10\""), CatalogFixture.product("t.lunch", price: "\"5\""), CatalogFixture.product("t.coffee", price: "\"1\"")]
        let catalog = try CatalogFixture.parse(CatalogFixture.file(products: "[\(products.joined(separator: ","))]"))
        #expect(catalog.tips.map(\.productID) == ["t.coffee", "t.lunch", "t.extra"])
        #expect(catalog.tier(of: catalog.tips[2]) == nil)
    }

    @Test("v3 file order lunch, coffee, snack is offered coffee, snack, lunch")
    func readmeFile() throws {
        let catalog = try CatalogFixture.load("v3-three-tiers-pt-BR")
        #expect(catalog.products.map { TipTier.matching(productID: $0.productID) } == [.lunch, .coffee, .snack])
        #expect(catalog.tips.map { catalog.tier(of: $0) } == [.coffee, .snack, .lunch])
    }

    @Test("each tier has its emoji, tint and shipped product ID", arguments: TipTier.allCases)
    func tierTable(tier: TipTier) {
        let expected: [TipTier: (String, String)] = [.coffee: ("☕", "com.example.tipjar.tip.coffee"), .snack: ("🥐", "com.example.tipjar.tip.snack"), .lunch: ("🍱", "com.example.tipjar.tip.lunch")]
        #expect(tier.emoji == expected[tier]?.0)
        #expect(tier.productID == expected[tier]?.1)
        #expect(tier.tint.hasPrefix("#") && tier.tint.count == 7)
    }
}
