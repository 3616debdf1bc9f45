import Foundation
import Testing
import TipJar

@testable import SQLiteDatabase
@testable import TipJarSQLite

/// `Product.purchase(options:)`'s `quantity(_:)` and `appAccountToken(_:)`
/// (https://developer.apple.com/documentation/storekit/product/purchaseoption), the `Transaction` fields a purchase
/// carries (https://developer.apple.com/documentation/storekit/transaction), and which error a purchase throws
/// when several apply.
@Suite("Purchase options, transaction fields and purchase errors")
struct PurchaseOptionsAndErrorsTests {
    static let token = UUID(uuidString: "6F1C2A7E-3B5D-4C8E-9A0F-1D2E3F4A5B6C")!

    /// "The default value is 1. The maximum value is 10."
    @Test(arguments: [0, 11, -1, 1_000])
    func aQuantityOutsideOneToTenThrowsInvalidQuantityAndChargesNothing(_ quantity: Int) async throws {
        let world = try await TestWorld.make()
        let install = try await world.runningInstall()
        let report = try await world.service.purchase(
            productID: TestWorld.coffee, installID: install.id,
            options: Product.PurchaseOptions(quantity: quantity))
        #expect(report.outcome == .failed)
        #expect(report.errorName == "invalidQuantity")
        #expect(try await world.storage.recentTransactions(limit: 10).isEmpty)
        #expect(try await world.hearts(install.id) == 0)
    }

    @Test func quantityAndTokenAreCarriedOnTheTransactionAndTheLedgerAndOneTransactionIsOneHeart() async throws {
        let world = try await TestWorld.make()
        let install = try await world.runningInstall()
        let report = try await world.service.purchase(
            productID: TestWorld.coffee, installID: install.id,
            options: Product.PurchaseOptions(quantity: 10, appAccountToken: Self.token))
        #expect(report.outcome == .purchased)
        #expect(try await world.hearts(install.id) == 1, "the seed counts tips, not units")
        let transactionID = try #require(report.transactionID)
        let stored = try #require(try await world.storage.transaction(withID: transactionID))
        #expect(stored.transaction.purchasedQuantity == 10)
        #expect(stored.transaction.appAccountToken == Self.token)
        let row = try #require(try await world.storage.ledger(installID: install.id, limit: 10).last)
        #expect(row.purchasedQuantity == 10 && row.appAccountToken == Self.token)
    }

    @Test func aTransactionCarriesPriceCurrencyTypeBundleIDAndDatesAcrossARestart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tipjar-fields-\(UUID().uuidString)")
        let world = try await TestWorld.make(directory: directory)
        let install = try await world.runningInstall(storefront: "BRA")
        let id = try #require(try await world.service.purchase(productID: TestWorld.lunch, installID: install.id).transactionID)
        let issued = try #require(try await world.storage.transaction(withID: id)).transaction
        // A refund re-signs the transaction.
        let refunded = try await world.store.refund(transactionID: id, reason: .other)
        #expect(refunded.transaction.signedDate > issued.signedDate)
        let reopened = try await world.reopened()
        let transaction = try #require(try await reopened.storage.transaction(withID: id)).transaction
        #expect(transaction.price == Decimal(string: "4.99"), "the catalog's number, exactly")
        #expect(transaction.price.map { "\($0)" } == "4.99")
        #expect(transaction.currency == "BRL")
        #expect(transaction.productType == .consumable)
        #expect(transaction.appBundleID == SimulatedStore.defaultAppBundleID)
        #expect(transaction.originalPurchaseDate == transaction.purchaseDate)
        #expect(issued.signedDate == issued.purchaseDate)
        #expect(transaction.signedDate == refunded.transaction.signedDate, "the new signedDate is saved")
        #expect(transaction.appAccountToken == nil && transaction.purchasedQuantity == 1)
    }

    @Test func theBundleIDIsTheStoresOwn() async throws {
        let world = try await TestWorld.make()
        let store = try await SimulatedStore(
            catalog: world.store.catalog, storage: world.storage,
            environment: TestWorld.environment(gate: nil, log: world.logged), appBundleID: "org.example.jar")
        let install = try await world.runningInstall()
        let stored = try await store.externalPurchase(productID: TestWorld.snack, for: install)
        #expect(stored.transaction.appBundleID == "org.example.jar")
        #expect(try await world.storage.transaction(withID: stored.transaction.id)?.transaction.appBundleID == "org.example.jar")
    }

    @Test func aThrownUserCancelledIsASilentCancelNotAFailure() async throws {
        let world = try await TestWorld.make(settings: StoreSettings(failures: StoreSettings.Failures(purchase: .userCancelled)))
        let install = try await world.runningInstall()
        let report = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        #expect(report.outcome == .cancelled)
        #expect(report.errorName == "userCancelled", "the JSON API still names what was thrown")
        #expect(await world.service.isPurchaseOpen(installID: install.id) == false)
    }

    /// The precedence rule (Sources/TipJar/README.md, "Which purchase setting wins"): the Purchase failure injection is thrown first.
    @Test func thePurchaseFailureInjectionWinsOverAFailedOutcomeAndOverABadQuantity() async throws {
        let world = try await TestWorld.make(
            settings: StoreSettings(
                purchaseOutcome: .failed, purchaseError: .networkError,
                failures: StoreSettings.Failures(purchase: PurchaseFailure(Product.PurchaseError.purchaseNotAllowed))))
        let install = try await world.runningInstall()
        #expect(try await world.service.purchase(productID: TestWorld.coffee, installID: install.id).errorName == "purchaseNotAllowed")
        let badQuantity = try await world.service.purchase(
            productID: TestWorld.coffee, installID: install.id,
            options: Product.PurchaseOptions(quantity: 0))
        #expect(badQuantity.errorName == "purchaseNotAllowed")
        try await world.setSettings { $0.failures.purchase = nil }
        #expect(
            try await world.service.purchase(productID: TestWorld.coffee, installID: install.id).errorName == "networkError",
            "without the injection the outcome's error is thrown")
    }

    @Test func everyPurchaseFailureNamesOneErrorOfItsType() {
        #expect(PurchaseFailure.allCases.count == StoreKitError.allCases.count + Product.PurchaseError.allCases.count)
        for failure in PurchaseFailure.allCases {
            #expect(String(describing: failure.error) == failure.rawValue)
            #expect(failure.typeName == (StoreKitError(rawValue: failure.rawValue) != nil ? "StoreKitError" : "Product.PurchaseError"))
        }
    }

    @Test(arguments: StoreKitError.allCases)
    func restoreMessagesSpeakOfRestore(_ error: StoreKitError) {
        #expect(error.restoreMessage(locale: .en).contains("Restore") || error.restoreMessage(locale: .en).contains("restore"))
        #expect(error.restoreMessage(locale: .ptBR).lowercased().contains("restaura"))
        #expect(error.restoreMessage(locale: .en) != error.message(locale: .en))
    }
}
