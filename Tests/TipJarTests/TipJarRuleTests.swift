import Foundation
import Testing

@testable import TipJar

/// Pure rules of the core, tested without storage (README "Domain rules": Catalog, Prices, Loading, Purchase, Listener and Recording).
@Suite("Core rules")
struct TipJarRuleTests {
    static let purchaseDate = Date(timeIntervalSince1970: 1_757_462_400)

    func transaction(_ id: UInt64 = 1, revoked: Bool = false) -> Transaction {
        var transaction = Transaction(id: id, productID: "com.example.tipjar.tip.coffee", purchaseDate: Self.purchaseDate, storefront: "USA")
        if revoked {
            transaction.revocationDate = Self.purchaseDate
            transaction.revocationReason = .other
        }
        return transaction
    }

    @Test func verifiedKnownUnrevokedTransactionIsProposedAsCounted() {
        #expect(TipJarService.proposedOutcome(for: .verified(transaction()), isTip: true) == .counted)
    }

    @Test func unverifiedTransactionIsProposedAsUnverifiedWhateverElse() {
        #expect(TipJarService.proposedOutcome(for: .unverified(transaction(revoked: true), .revokedCertificate), isTip: false) == .unverified)
    }

    @Test func revokedTransactionIsProposedAsRevokedBeforeUnknownProduct() {
        #expect(TipJarService.proposedOutcome(for: .verified(transaction(revoked: true)), isTip: false) == .revoked)
    }

    @Test func aProductThatIsNotATipIsProposedAsUnknownProduct() {
        #expect(TipJarService.proposedOutcome(for: .verified(transaction()), isTip: false) == .unknownProduct)
    }

    @Test func consumableTransactionLooksLikeStoreKits() {
        let t = transaction(42)
        #expect(t.originalID == 42)
        #expect(t.purchasedQuantity == 1)
        #expect(t.environment == .xcode)
        #expect(t.ownershipType == .purchased)
        #expect(t.reason == .purchase)
        #expect(!t.isRevoked)
    }

    static let storeOrders: [[String]] = [
        ["lunch", "snack", "coffee"], ["snack", "lunch", "coffee"], ["coffee", "lunch", "snack"], ["lunch", "coffee", "snack"],
    ]

    @Test(arguments: storeOrders)
    func offersAreSortedInTierOrderWhateverOrderTheStoreReturns(_ order: [String]) throws {
        let catalog = try Catalog.shipped()
        let products = order.map { name in
            let entry = catalog.product(withID: "com.example.tipjar.tip.\(name)")!
            return Product(
                id: entry.productID, type: entry.type, displayName: name, description: "", price: entry.price,
                displayPrice: Storefront.usa.displayPrice(entry.price))
        }
        let offers = TipJarService.offers(from: products, catalog: catalog, locale: .en)
        #expect(offers.map(\.tier) == [.coffee, .snack, .lunch])
        #expect(offers.map(\.emoji) == ["☕", "🥐", "🍱"])
        #expect(offers.map(\.displayPrice) == ["$0.99", "$2.99", "$4.99"])
    }

    @Test func offersLeaveOutProductsTheStoreDidNotReturn() throws {
        let catalog = try Catalog.shipped()
        let entry = try #require(catalog.product(withID: "com.example.tipjar.tip.snack"))
        let product = Product(id: entry.productID, type: entry.type, displayName: "Snack", description: "", price: entry.price, displayPrice: "$2.99")
        #expect(TipJarService.offers(from: [product], catalog: catalog, locale: .en).map(\.productID) == [entry.productID])
    }

    @Test(arguments: StoreKitError.allCases)
    func everyStoreKitErrorHasAnEnglishAndAPortugueseMessage(_ error: StoreKitError) {
        #expect(!error.message(locale: .en).isEmpty)
        #expect(!error.message(locale: .ptBR).isEmpty)
        #expect(error.message(locale: .en) != error.message(locale: .ptBR))
    }

    @Test(arguments: Product.PurchaseError.allCases)
    func everyPurchaseErrorHasAnEnglishAndAPortugueseMessage(_ error: Product.PurchaseError) {
        #expect(error.message(locale: .en) != error.message(locale: .ptBR))
    }

    @Test func storeSettingsSavedBeforeANewFieldDecodeWithItsDefault() throws {
        let json = #"{"catalog":"failing","latencyMs":5,"purchaseOutcome":"pending","purchaseError":"unknown","failures":{}}"#
        let settings = try JSONDecoder().decode(StoreSettings.self, from: Data(json.utf8))
        #expect(settings.catalog == .failing)
        #expect(settings.purchaseOutcome == .pending)
        #expect(settings.listenerReemits == 0)
        #expect(settings.crashBeforeFinish == false)
    }

    @Test func storeSettingsWithAnUnknownValueAreRefused() {
        let json = #"{"catalog":"sometimes"}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(StoreSettings.self, from: Data(json.utf8)) }
    }
}
