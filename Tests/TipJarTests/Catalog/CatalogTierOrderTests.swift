import Foundation
import Testing

@testable import TipJar

/// Offers are in tier order — coffee, snack, lunch — whatever the file order when the IDs name all three tiers
/// once each; otherwise ascending price, then file order (``Catalog/tierOrder(_:)``).
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

    @Test("all three tiers named once: those first in tier order, then the others by price")
    func everyTierNamedThenOthers() throws {
        let products = [
            CatalogFixture.product("t.extra", price: "\"0.10\""), CatalogFixture.product("t.lunch", price: "\"5\""),
            CatalogFixture.product("t.snack", price: "\"9\""), CatalogFixture.product("t.coffee", price: "\"1\""),
        ]
        let catalog = try CatalogFixture.parse(CatalogFixture.file(products: "[\(products.joined(separator: ","))]"))
        #expect(catalog.tips.map(\.productID) == ["t.coffee", "t.snack", "t.lunch", "t.extra"])
        #expect(catalog.tier(of: catalog.tips[3]) == nil)
    }

    @Test(
        "a tier named partly, twice or not at all: every tip by ascending price",
        arguments: [
            [("t.extra", "0.10"), ("t.lunch", "5"), ("t.coffee", "1")],
            [("a.coffee", "3"), ("b.coffee", "1"), ("t.snack", "2"), ("t.lunch", "0.5")],
        ])
    func priceOrderUnlessEveryTierIsNamedOnce(tips: [(String, String)]) throws {
        let products = tips.map { CatalogFixture.product($0.0, price: "\"\($0.1)\"") }
        let catalog = try CatalogFixture.parse(CatalogFixture.file(products: "[\(products.joined(separator: ","))]"))
        let prices = catalog.tips.map(\.price)
        #expect(prices == prices.sorted())
    }

    @Test("IDs ending .Coffee, .SomeTip, .FancyDrink, .TacoDinner are offered cheapest first")
    func partialTierNamesFixture() throws {
        let catalog = try CatalogFixture.load("v4-partial-tier-names")
        #expect(catalog.tips.map { Storefront.usa.displayPrice($0.price) } == ["$0.99", "$2.99", "$9.99", "$19.99"])
        #expect(
            catalog.tips.map(\.productID).map { $0.split(separator: ".").last.map(String.init) ?? "" }
                == ["SomeTip", "Coffee", "FancyDrink", "TacoDinner"])
    }

    @Test("the shipped catalog keeps coffee, snack, lunch")
    func shippedOrder() throws {
        let catalog = try Catalog.shipped()
        #expect(catalog.tips.map(\.productID) == TipTier.allCases.map(\.productID))
    }

    @Test("v3 file order lunch, coffee, snack is offered coffee, snack, lunch")
    func readmeFile() throws {
        let catalog = try CatalogFixture.load("v3-three-tiers-pt-BR")
        #expect(catalog.products.map { TipTier.matching(productID: $0.productID) } == [.lunch, .coffee, .snack])
        #expect(catalog.tips.map { catalog.tier(of: $0) } == [.coffee, .snack, .lunch])
    }

    @Test("each tier has its emoji, tint and shipped product ID", arguments: TipTier.allCases)
    func tierTable(tier: TipTier) {
        let expected: [TipTier: (String, String)] = [
            .coffee: ("☕", "com.example.tipjar.tip.coffee"), .snack: ("🥐", "com.example.tipjar.tip.snack"), .lunch: ("🍱", "com.example.tipjar.tip.lunch"),
        ]
        #expect(tier.emoji == expected[tier]?.0)
        #expect(tier.productID == expected[tier]?.1)
        #expect(tier.tint.hasPrefix("#") && tier.tint.count == 7)
    }
}
