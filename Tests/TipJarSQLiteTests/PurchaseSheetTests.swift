import Foundation
import Testing
import TipJar

@testable import SQLiteDatabase
@testable import TipJarSQLite

/// The simulated App Store purchase sheet (`PurchaseSheet`): part of the install's one open purchase, answered by
/// Confirm or Cancel (`Product.PurchaseResult.userCancelled`,
/// https://developer.apple.com/documentation/storekit/product/purchaseresult/usercancelled), closed by Stop,
/// Relaunch or its timeout, and skipped with `skipPurchaseSheet` (`SKTestSession.disableDialogs`).
@Suite("The purchase sheet")
struct PurchaseSheetTests {
    @Test func anOpenSheetIsAnOpenPurchaseThatRefusesASecondOne() async throws {
        let world = try await TestWorld.make()
        let install = try await world.runningInstall(locale: .ptBR, storefront: "BRA")
        let sheet = try await world.service.openPurchaseSheet(productID: TestWorld.coffee, installID: install.id)
        #expect(sheet.product.displayName == "Coffee", "Product.displayName follows the file's _locale (en_US), not the install")
        #expect(sheet.product.displayPrice == "R$\u{A0}0,99")
        #expect(sheet.accountID == install.accountID)
        #expect(await world.service.isPurchaseOpen(installID: install.id))
        await #expect(throws: TipJarError.purchaseInProgress(installID: install.id)) {
            try await world.service.openPurchaseSheet(productID: TestWorld.snack, installID: install.id)
        }
        await #expect(throws: TipJarError.purchaseInProgress(installID: install.id)) {
            try await world.service.purchase(productID: TestWorld.snack, installID: install.id)
        }
        await #expect(throws: TipJarError.purchaseInProgress(installID: install.id)) { try await world.service.deleteInstall(install.id) }
        #expect(try await world.storage.recentTransactions(limit: 10).isEmpty, "nothing is charged while the sheet is open")
    }

    @Test func cancelIsASilentUserCancelledThatFreesTheButtons() async throws {
        let world = try await TestWorld.make()
        let install = try await world.runningInstall()
        _ = try await world.service.openPurchaseSheet(productID: TestWorld.coffee, installID: install.id)
        let report = try await world.service.cancelPurchaseSheet(installID: install.id)
        #expect(report.outcome == .cancelled)
        #expect(report.errorName == nil && report.transactionID == nil)
        #expect(await world.service.isPurchaseOpen(installID: install.id) == false)
        #expect(try await world.storage.recentTransactions(limit: 10).isEmpty)
        let cancelled = world.service.timeline.events(installID: install.id, limit: 10).first { $0.kind == "sheet.cancelled" }
        #expect(cancelled?.detail.contains("the user cancelled") == true)
        await #expect(throws: TipJarError.noPurchaseSheet(installID: install.id)) {
            try await world.service.confirmPurchaseSheet(installID: install.id)
        }
    }

    @Test func confirmContinuesToTheStoresOutcome() async throws {
        let world = try await TestWorld.make(settings: StoreSettings(purchaseOutcome: .pending))
        let install = try await world.runningInstall()
        _ = try await world.service.openPurchaseSheet(productID: TestWorld.lunch, installID: install.id)
        #expect(try await world.service.confirmPurchaseSheet(installID: install.id).outcome == .pending)
        #expect(await world.service.isPurchaseOpen(installID: install.id) == false)
        try await world.setSettings { $0.purchaseOutcome = .success }
        _ = try await world.service.openPurchaseSheet(productID: TestWorld.lunch, installID: install.id)
        let report = try await world.service.confirmPurchaseSheet(installID: install.id)
        #expect(report.outcome == .purchased && report.recordOutcome == .counted)
        #expect(try await world.hearts(install.id) == 1)
    }

    @Test func stopAndRelaunchCloseTheSheetAsACancel() async throws {
        let world = try await TestWorld.make()
        let install = try await world.runningInstall()
        _ = try await world.service.openPurchaseSheet(productID: TestWorld.coffee, installID: install.id)
        _ = try await world.service.stop(installID: install.id)
        #expect(await world.service.isPurchaseOpen(installID: install.id) == false)
        await #expect(throws: TipJarError.noPurchaseSheet(installID: install.id)) {
            try await world.service.confirmPurchaseSheet(installID: install.id)
        }
        _ = try await world.service.openPurchaseSheet(productID: TestWorld.coffee, installID: install.id)
        _ = try await world.service.launch(installID: install.id)
        #expect(await world.service.purchaseSheet(installID: install.id) == nil)
        let reasons = world.service.timeline.events(installID: install.id, limit: 20).filter { $0.kind == "sheet.cancelled" }.map(\.detail)
        #expect(reasons.contains { $0.contains("the app stopped") } && reasons.contains { $0.contains("the app relaunched") })
        #expect(try await world.storage.recentTransactions(limit: 10).isEmpty)
    }

    /// The test clock ticks one second per reading, so a 3-second timeout passes after a few readings.
    @Test func aSheetLeftOpenClosesAfterItsTimeoutSoTheInstallIsNeverLocked() async throws {
        let world = try await TestWorld.make()
        let service = TipJarService(
            store: world.store, storage: world.storage, environment: TestWorld.environment(gate: nil, log: world.logged),
            purchaseSheetTimeout: 3)
        let install = try await service.createInstall(locale: .en, storefront: "USA")
        _ = try await service.launch(installID: install.id)
        _ = try await service.openPurchaseSheet(productID: TestWorld.coffee, installID: install.id)
        #expect(await service.isPurchaseOpen(installID: install.id), "still open right after")
        var readings = 0
        while await service.isPurchaseOpen(installID: install.id) {
            readings += 1
            try #require(readings < 10, "the sheet never timed out")
        }
        let closed = service.timeline.events(installID: install.id, limit: 10).first { $0.kind == "sheet.cancelled" }
        #expect(closed?.detail.contains("left open for 3 seconds") == true)
        #expect(try await service.purchase(productID: TestWorld.coffee, installID: install.id).outcome == .purchased)
    }

    @Test func skipPurchaseSheetConfirmsAtOnceAndThereIsNoSheetToCancel() async throws {
        let world = try await TestWorld.make(settings: StoreSettings(skipPurchaseSheet: true))
        let install = try await world.runningInstall()
        let report = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id, userAction: .cancel)
        #expect(report.outcome == .purchased)
        let kinds = world.service.timeline.events(installID: install.id, limit: 10).map(\.kind)
        #expect(!kinds.contains { $0.hasPrefix("sheet.") })
    }

    @Test func theJSONPathsCancelIsTheSheetsCancel() async throws {
        let world = try await TestWorld.make()
        let install = try await world.runningInstall()
        let report = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id, userAction: .cancel)
        #expect(report.outcome == .cancelled && report.errorName == nil)
        #expect(try await world.storage.recentTransactions(limit: 10).isEmpty)
        #expect(await world.service.isPurchaseOpen(installID: install.id) == false)
        let cancelled = world.service.timeline.events(installID: install.id, limit: 10).first { $0.kind == "sheet.cancelled" }
        #expect(cancelled?.detail.contains("the user cancelled") == true)
    }

    @Test func aPurchaseThatHandsBackTheUnfinishedTransactionShowsNoSheet() async throws {
        let world = try await TestWorld.make(settings: StoreSettings(finishIgnored: true))
        let install = try await world.runningInstall()
        guard case .sheet = try await world.service.tap(productID: TestWorld.coffee, installID: install.id) else {
            Issue.record("the first tap shows the sheet")
            return
        }
        let first = try await world.service.confirmPurchaseSheet(installID: install.id)
        guard case .answered(let again) = try await world.service.tap(productID: TestWorld.coffee, installID: install.id) else {
            Issue.record("a purchase that hands back the unfinished transaction showed a sheet")
            return
        }
        #expect(again.transactionID == first.transactionID, "the same transaction, no new charge")
        #expect(await world.service.purchaseSheet(installID: install.id) == nil)
        #expect(await world.service.isPurchaseOpen(installID: install.id) == false)
        let kinds = world.service.timeline.events(installID: install.id, limit: 20).map(\.kind)
        #expect(kinds.filter { $0 == "sheet.shown" }.count == 1)
        #expect(kinds.contains("sheet.skipped"))
        let cancel = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id, userAction: .cancel)
        #expect(cancel.transactionID == first.transactionID, "no sheet, so nothing to cancel: the JSON path hands it back too")
        guard case .sheet = try await world.service.tap(productID: TestWorld.snack, installID: install.id) else {
            Issue.record("another tip, with nothing unfinished, shows the sheet")
            return
        }
    }
}
