import Foundation

/// The simulated App Store purchase sheet: what `Product.purchase()` shows before it answers — the product's
/// name, its price in the storefront's currency, the Apple Account, Confirm and Cancel
/// (https://developer.apple.com/documentation/storekit/product/purchase(options:)). Cancel makes the purchase
/// return `.userCancelled` (https://developer.apple.com/documentation/storekit/product/purchaseresult/usercancelled).
///
/// The sheet is part of the install's one open purchase: while it is shown, every tip button is disabled and a
/// second purchase is refused. It closes on Confirm, on Cancel, when the app stops or relaunches, or after
/// ``TipJarService/purchaseSheetTimeout`` without an answer (a cancel, so an abandoned sheet never locks the
/// install).
public struct PurchaseSheet: Sendable, Equatable {
    /// What the person taps on the sheet.
    public enum UserAction: String, Sendable, CaseIterable {
        /// Confirm (pay): the purchase continues to the store's outcome.
        case confirm
        /// Cancel: `Product.purchase()` returns `.userCancelled`.
        case cancel
    }

    /// The install it is shown on.
    public var installID: String
    /// The product, resolved for the install's storefront and locale (name, `displayPrice`).
    public var product: Product
    /// The Apple Account that would pay.
    public var accountID: String
    /// The purchase's options (quantity, app account token).
    public var options: Product.PurchaseOptions
    /// When it was shown.
    public var openedAt: Date

    /// Creates a sheet value.
    public init(installID: String, product: Product, accountID: String, options: Product.PurchaseOptions, openedAt: Date) {
        self.installID = installID
        self.product = product
        self.accountID = accountID
        self.options = options
        self.openedAt = openedAt
    }
}

/// What a tap on a tip tile came to: the purchase sheet, or a purchase that needed none and has answered.
public enum TipTap: Sendable {
    /// The sheet is shown; Confirm or Cancel answers it.
    case sheet(PurchaseSheet)
    /// No sheet: `skipPurchaseSheet` is on, or the purchase handed back the account's unfinished transaction.
    case answered(PurchaseReport)
}

extension TipJarService {
    // MARK: The purchase sheet

    /// Taps a tip tile: the purchase sheet, unless no sheet is shown (``showsPurchaseSheet(productID:install:options:settings:)``),
    /// when the purchase runs at once and its report is the answer.
    /// - Throws: what ``openPurchaseSheet(productID:installID:options:)`` and ``purchase(productID:installID:options:userAction:)`` throw.
    public func tap(
        productID: String, installID: String, options: Product.PurchaseOptions = Product.PurchaseOptions()
    ) async throws -> TipTap {
        let settings = store.settings
        if settings.skipPurchaseSheet { return .answered(try await purchase(productID: productID, installID: installID, options: options)) }
        let install = try await beginPurchase(productID: productID, installID: installID, options: options)
        let showsSheet: Bool
        do {
            showsSheet = try await showsPurchaseSheet(productID: productID, install: install, options: options, settings: settings)
        } catch {
            openPurchases.remove(installID)
            throw error
        }
        guard showsSheet else {
            defer { openPurchases.remove(installID) }
            return .answered(try await runPurchase(productID: productID, install: install, options: options, settings: settings))
        }
        return .sheet(try showSheet(productID: productID, install: install, options: options))
    }

    /// Whether `Product.purchase()` shows the App Store sheet for this purchase: not with `skipPurchaseSheet`
    /// (`SKTestSession.disableDialogs`), and not when the purchase hands back the account's unfinished transaction of
    /// the product, which StoreKit Testing was observed to do with no sheet (RevenueCat purchases-ios, https://github.com/RevenueCat/purchases-ios/issues/2086: "the
    /// Apple purchase popup" did not appear, and https://github.com/RevenueCat/purchases-ios/issues/1964: "on the second purchase, we automatically get a
    /// successful callback"; Apple's documents are silent). The second is recorded on the timeline.
    func showsPurchaseSheet(productID: String, install: Install, options: Product.PurchaseOptions, settings: StoreSettings) async throws -> Bool {
        guard !settings.skipPurchaseSheet else { return false }
        guard let unfinished = try await store.returnsUnfinishedTransaction(productID: productID, for: install, options: options, settings: settings)
        else { return true }
        event(
            install.id, "sheet.skipped",
            "No purchase sheet: purchase() hands back the account's unfinished transaction \(unfinished.transaction.id) at once.",
            ["transactionID": "\(unfinished.transaction.id)"])
        return false
    }

    /// Taps a tip tile: opens the install's purchase and shows the purchase sheet.
    /// - Returns: the sheet now shown.
    /// - Throws: `TipJarError.installNotFound`, `.unknownProduct` (422), `.purchaseInProgress` (409, a sheet or a
    ///   purchase is already open); storage errors.
    public func openPurchaseSheet(
        productID: String, installID: String,
        options: Product.PurchaseOptions = Product.PurchaseOptions()
    ) async throws -> PurchaseSheet {
        try showSheet(
            productID: productID, install: try await beginPurchase(productID: productID, installID: installID, options: options),
            options: options)
    }

    /// Shows the sheet for an open purchase (``beginPurchase(productID:installID:options:)`` checked the product).
    /// - Throws: `TipJarError.unknownProduct` (the purchase closed) for a product the catalog does not hold.
    func showSheet(productID: String, install: Install, options: Product.PurchaseOptions) throws -> PurchaseSheet {
        let installID = install.id
        guard let entry = catalog.product(withID: productID) else {
            openPurchases.remove(installID)
            throw TipJarError.unknownProduct(productID)
        }
        let storefront = Storefront.named(install.storefront) ?? catalog.defaultStorefront
        let sheet = PurchaseSheet(
            installID: installID, product: store.product(for: entry, storefront: storefront, locale: install.locale),
            accountID: install.accountID, options: options, openedAt: environment.now())
        openSheets[installID] = sheet
        event(
            installID, "sheet.shown",
            "Purchase sheet shown: \(sheet.product.displayName), \(sheet.product.displayPrice)"
                + "\(Self.describe(options)), account \(install.accountID); every tip button disabled.")
        return sheet
    }

    /// The sheet open on the install, if any (an expired one is closed first).
    public func purchaseSheet(installID: String) -> PurchaseSheet? {
        expireSheet(installID: installID)
        return openSheets[installID]
    }

    /// Confirm on the sheet: the purchase continues to the store's outcome, then closes.
    /// - Throws: `TipJarError.noPurchaseSheet` (409) when no sheet is open (it was answered, timed out, or the
    ///   app stopped); storage errors.
    public func confirmPurchaseSheet(installID: String) async throws -> PurchaseReport {
        expireSheet(installID: installID)
        guard let sheet = openSheets.removeValue(forKey: installID) else { throw TipJarError.noPurchaseSheet(installID: installID) }
        defer { openPurchases.remove(installID) }
        event(installID, "sheet.confirmed", "Purchase sheet: the user confirmed.")
        return try await runPurchase(
            productID: sheet.product.id, install: try await install(installID), options: sheet.options, confirmedOnSheet: true)
    }

    /// Cancel on the sheet: `Product.purchase()` returns `.userCancelled`; no alert, the buttons are usable again.
    /// - Throws: `TipJarError.noPurchaseSheet` (409) when no sheet is open; `.installNotFound`.
    public func cancelPurchaseSheet(installID: String) async throws -> PurchaseReport {
        expireSheet(installID: installID)
        guard openSheets[installID] != nil else { throw TipJarError.noPurchaseSheet(installID: installID) }
        closeSheet(installID: installID, because: "the user cancelled")
        let install = try await install(installID)  // one read for the hearts and the locale
        var report = PurchaseReport(outcome: .cancelled, hearts: install.hearts)
        report.locale = install.locale
        return report
    }

    /// Closes a sheet whose ``purchaseSheetTimeout`` has passed, as a cancel.
    func expireSheet(installID: String) {
        guard let sheet = openSheets[installID],
            environment.now().timeIntervalSince(sheet.openedAt) >= purchaseSheetTimeout
        else { return }
        closeSheet(installID: installID, because: "it was left open for \(Int(purchaseSheetTimeout)) seconds")
    }

    /// Closes the install's open sheet (if any) and its purchase: `.userCancelled`, recorded on the timeline.
    func closeSheet(installID: String, because reason: String) {
        guard openSheets.removeValue(forKey: installID) != nil else { return }
        openPurchases.remove(installID)
        event(installID, "sheet.cancelled", "Purchase sheet closed because \(reason): Product.purchase() returned .userCancelled; nothing charged.")
    }
}
