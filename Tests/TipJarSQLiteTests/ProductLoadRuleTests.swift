import SQLiteDatabase
import Foundation
import Testing
import TipJar

/// No product, no purchase: an app calls `purchase()` on a `Product` that `Product.products(for:)` returned
/// (https://developer.apple.com/documentation/storekit/product/purchase(options:)), so while its last load failed,
/// came back empty or left the product out, it has nothing to buy, and the store charges nothing.
@Suite("No product, no purchase")
struct ProductLoadRuleTests {
    @Test(arguments: [(StoreSettings.CatalogMode.failing, ProductLoadGap.loadFailed), (.empty, .empty), (.mismatch, .empty)])
    func aPurchaseWhileTheLastLoadGaveNoProductIsRefusedAndChargesNothing(_ mode: StoreSettings.CatalogMode, _ gap: ProductLoadGap) async throws {
        let world = try await TestWorld.make(settings: StoreSettings(catalog: mode))
        let install = try await world.runningInstall()
        await #expect(throws: TipJarError.productNotLoaded(productID: TestWorld.coffee, reason: gap)) {
            _ = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        }
        #expect(try await world.storage.transactions(matching: TransactionQuery(pageSize: 10)).transactions.isEmpty)
        #expect(
            TipJarError.productNotLoaded(productID: TestWorld.coffee, reason: .loadFailed).description
                == "The app has not loaded this product: the last load failed.")
    }

    @Test func aProductLoadedBeforeTheCatalogFailedCanStillBeBought() async throws {
        let world = try await TestWorld.make()
        let install = try await world.runningInstall()
        _ = try await world.service.loadOffers(installID: install.id)
        try await world.setSettings { $0.catalog = .failing }
        let report = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        #expect(report.outcome == .purchased, "the app holds the Product from its last load")
        #expect(try await world.service.loadOffers(installID: install.id) == .unavailable(.loadFailed(.networkError)))
        await #expect(throws: TipJarError.productNotLoaded(productID: TestWorld.coffee, reason: .loadFailed)) {
            _ = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        }
    }

    @Test func aRetryThatLoadsTheProductsMakesThemBuyableAgain() async throws {
        let world = try await TestWorld.make(settings: StoreSettings(catalog: .empty))
        let install = try await world.runningInstall()
        #expect(try await world.service.loadOffers(installID: install.id) == .unavailable(.empty))
        try await world.setSettings { $0.catalog = .normal }
        await #expect(throws: TipJarError.productNotLoaded(productID: TestWorld.coffee, reason: .empty), "nothing reloaded yet") {
            _ = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        }
        _ = try await world.service.loadOffers(installID: install.id)  // Retry
        #expect(try await world.service.purchase(productID: TestWorld.coffee, installID: install.id).outcome == .purchased)
    }
}
