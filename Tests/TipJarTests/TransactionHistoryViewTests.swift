import Foundation
import Testing
import TipJar

/// The account views StoreKit gives an app (Sources/TipJar/Store/SimulatedStore+History.swift), with the app's
/// `SKIncludeConsumableInAppPurchaseHistory` off (Apple's default) and on
/// (https://developer.apple.com/documentation/bundleresources/information-property-list/skincludeconsumableinapppurchasehistory:
/// "When it's false, StoreKit doesn't return finished consumables (unless refunded or revoked)" from
/// `Transaction.all` and `Transaction.latest(for:)`), and non-renewing subscriptions in `currentEntitlements`
/// (https://developer.apple.com/documentation/storekit/transaction/currententitlements: "the latest transaction for
/// each non-renewing subscription, including finished ones").
@Suite("Transaction history views")
struct TransactionHistoryViewTests {
    static let coffee = "com.example.v5.tip.coffee"
    static let snack = "com.example.v5.tip.snack"
    static let season = "com.example.v5.season"

    static func stored(_ id: UInt64, _ productID: String, finished: Bool, revoked: Bool = false) -> StoredTransaction {
        var transaction = Transaction(id: id, productID: productID, purchaseDate: Date(timeIntervalSince1970: Double(id)), storefront: "USA")
        if revoked {
            transaction.revocationDate = transaction.purchaseDate
            transaction.revocationReason = .other
        }
        var stored = StoredTransaction(transaction: transaction, accountID: "ana", installID: "phone", status: .purchased)
        stored.isFinished = finished
        return stored
    }

    /// Ana's history, newest first: two finished non-renewing subscription periods, an unfinished tip, finished
    /// tips (one snack refunded, the newer one not) and a finished coffee.
    static let history = [
        stored(6, season, finished: true),
        stored(5, coffee, finished: false),
        stored(4, season, finished: true),
        stored(3, snack, finished: true),
        stored(2, coffee, finished: true),
        stored(1, snack, finished: true, revoked: true),
    ]

    func ids(_ view: TransactionHistoryView, _ productID: String? = nil, including: Bool) throws -> [UInt64] {
        let catalog = try Catalog.load(
            contentsOf: try #require(
                Bundle.module.url(
                    forResource: "Fixtures/storekit/v5-nested-offers",
                    withExtension: "storekit")))
        let mine = Self.history.filter { productID == nil || $0.transaction.productID == productID }
        return SimulatedStore.history(mine, view: view, catalog: catalog, includeConsumableInAppPurchaseHistory: including).map(\.transaction.id)
    }

    @Test func withTheKeyFalseTransactionAllAndLatestLeaveOutFinishedConsumablesUnlessRefunded() throws {
        #expect(try ids(.all, including: false) == [6, 5, 4, 1])
        #expect(try ids(.latest, Self.snack, including: false) == [1], "the refunded snack, not the newer finished one")
        #expect(try ids(.latest, Self.coffee, including: false) == [5])
    }

    @Test func withTheKeyTrueFinishedConsumablesAppearInTransactionAllAndLatest() throws {
        #expect(try ids(.all, including: true) == [6, 5, 4, 3, 2, 1])
        #expect(try ids(.latest, Self.snack, including: true) == [3])
        #expect(try ids(.latest, Self.coffee, including: true) == [5])
    }

    @Test(arguments: [false, true])
    func theKeyChangesNeitherUnfinishedNorCurrentEntitlements(including: Bool) throws {
        #expect(try ids(.unfinished, including: including) == [5])
        #expect(
            try ids(.currentEntitlements, including: including) == [6],
            "the latest period of the non-renewing subscription, finished; consumables never")
    }

    @Test func theSettingIsDeclaredOnceOffByDefaultWithApplesName() throws {
        let declaration = try #require(StoreSettings.declaration("includeConsumableInAppPurchaseHistory"))
        #expect(declaration.label == "SKIncludeConsumableInAppPurchaseHistory")
        #expect(declaration.kind == .flag && declaration.defaultValue == .flag(false))
        #expect(StoreSettings.normal.includeConsumableInAppPurchaseHistory == false)
        let saved = try JSONDecoder().decode(StoreSettings.self, from: Data(#"{"catalog":"normal"}"#.utf8))
        #expect(saved.includeConsumableInAppPurchaseHistory == false, "settings saved before the key existed keep Apple's default")
        #expect(StoreSettings.normal.summary.contains { $0.term == "Info.plist" })
    }
}
