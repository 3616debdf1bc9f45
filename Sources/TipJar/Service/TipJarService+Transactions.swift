import Foundation

extension TipJarService {
    // MARK: Purchase

    /// Taps a tip tile and answers the purchase sheet at once (the JSON API): opens the install's purchase
    /// (refusing a second one), launches the app if it is stopped, shows the sheet unless `skipPurchaseSheet`
    /// is on, then applies `userAction` (ignored with `skipPurchaseSheet`: there is no sheet to cancel).
    /// Confirm calls `Product.purchase(options:)` and hands a successful result to the one handler.
    /// - Parameters:
    ///   - productID: A tip of the catalog.
    ///   - installID: The install.
    ///   - options: `quantity(_:)` and `appAccountToken(_:)`.
    ///   - userAction: What the person taps on the sheet.
    /// - Returns: What the tap came to; a thrown store error is a `.failed` report, not a throw.
    /// - Throws: `TipJarError.installNotFound`, `.unknownProduct` (422), `.purchaseInProgress` (409);
    ///   storage errors.
    public func purchase(
        productID: String, installID: String, options: Product.PurchaseOptions = Product.PurchaseOptions(),
        userAction: PurchaseSheet.UserAction = .confirm
    ) async throws -> PurchaseReport {
        let settings = store.settings  // read once for the whole purchase (the store reads them again after a latency)
        let install = try await beginPurchase(productID: productID, installID: installID, options: options)
        defer { openPurchases.remove(installID) }
        // Only a cancel depends on whether a sheet is shown; a confirm reaches the store either way, so it is not asked
        // (a read on every purchase).
        let showsSheet =
            userAction == .cancel
            ? try await showsPurchaseSheet(productID: productID, install: install, options: options, settings: settings)
            : !settings.skipPurchaseSheet
        // The sheet is shown and answered in the same call, so it needs no display values and no `openSheets` entry.
        if showsSheet, userAction == .cancel {
            event(
                installID, "sheet.cancelled",
                "Purchase sheet closed because the user cancelled (userAction cancel): "
                    + "Product.purchase() returned .userCancelled; nothing charged.")
            var report = PurchaseReport(outcome: .cancelled, hearts: install.hearts)
            report.locale = install.locale
            return report
        }
        if showsSheet { event(installID, "sheet.confirmed", "Purchase sheet: the user confirmed (userAction confirm).") }
        return try await runPurchase(productID: productID, install: install, options: options, settings: settings, confirmedOnSheet: showsSheet)
    }

    /// Opens the install's one purchase: checks the product, refuses a second purchase (an expired sheet
    /// is closed first), and launches the app if it is stopped. The caller closes the purchase. The timeline says
    /// `purchase.open` here, when the app calls `Product.purchase(options:)`, so it comes before the sheet that call
    /// shows (https://developer.apple.com/documentation/storekit/product/purchase(options:)) and before its answer.
    func beginPurchase(productID: String, installID: String, options: Product.PurchaseOptions) async throws -> Install {
        guard catalog.tip(withID: productID) != nil else { throw TipJarError.unknownProduct(productID) }
        expireSheet(installID: installID)
        guard !deletingInstalls.contains(installID) else { throw TipJarError.installBeingDeleted(installID) }
        guard !openPurchases.contains(installID) else { throw TipJarError.purchaseInProgress(installID: installID) }
        openPurchases.insert(installID)
        do {
            var install = try await install(installID)
            if !install.isRunning {
                install.hearts = try await launch(installID: installID).hearts
                install.isRunning = true
                install.legacyHasTipped = false
            }
            try await requireLoaded(productID, installID: installID)
            event(installID, "purchase.open", "purchase open: \(productID)\(Self.describe(options)); every tip button disabled.")
            return install
        } catch {
            openPurchases.remove(installID)
            throw error
        }
    }

    /// No product, no purchase: an app calls `purchase()` on a `Product` that `Product.products(for:)` returned
    /// (https://developer.apple.com/documentation/storekit/product/purchase(options:)), so it has nothing to buy
    /// while its last load failed, came back empty or did not return the product. An install whose tip jar has not
    /// loaded since launch loads it now, as the tip jar view does when it appears.
    /// - Throws: `TipJarError.productNotLoaded`; what ``loadOffers(installID:)`` throws.
    func requireLoaded(_ productID: String, installID: String) async throws {
        let state: TipJarState
        if let last = lastLoads[installID] { state = last } else { state = try await loadOffers(installID: installID) }
        switch state {
        case .ready(let offers) where offers.contains(where: { $0.productID == productID }): return
        case .ready: throw TipJarError.productNotLoaded(productID: productID, reason: .notReturned)
        case .unavailable(.empty), .loading: throw TipJarError.productNotLoaded(productID: productID, reason: .empty)
        case .unavailable(.loadFailed): throw TipJarError.productNotLoaded(productID: productID, reason: .loadFailed)
        }
    }

    /// `Product.purchase(options:)` for an open purchase, and the handler for its result, under the store's
    /// `settings` (read now when `nil`).
    func runPurchase(
        productID: String, install: Install, options: Product.PurchaseOptions,
        settings: StoreSettings? = nil, confirmedOnSheet: Bool = false
    ) async throws -> PurchaseReport {
        var install = install
        let installID = install.id
        var report: PurchaseReport
        do {
            var answer = try await store.purchase(productID: productID, for: install, options: options, settings: settings)
            // Saved with the transaction, so its diagram shows the sheet after a restart too.
            if confirmedOnSheet { answer.issued?.origin = .purchaseSheet }
            switch answer.result {
            case .success(let verification):
                let heartsBefore = install.hearts
                let (delivery, hearts, otherRunningInstallIDs) = try await record(
                    verification, installID: installID, path: .purchase,
                    note: answer.returnsUnfinished ? .unfinishedReturned : nil, issuing: answer.issued,
                    settings: answer.settings)
                install.hearts = hearts
                if try await reemit(verification.unsafePayloadValue, installID: installID, settings: answer.settings) {
                    install = try await self.install(installID)
                }
                if !answer.returnsUnfinished {
                    try await deliverToOtherDevices(
                        verification.unsafePayloadValue, finishedHere: delivery.finished, accountID: install.accountID, except: installID,
                        runningInstallIDs: otherRunningInstallIDs)
                }
                report = PurchaseReport(
                    outcome: verification.verificationError == nil ? .purchased : .unverified,
                    transactionID: verification.unsafePayloadValue.id, recordOutcome: delivery.outcome,
                    hearts: install.hearts, addedHeart: install.hearts > heartsBefore,
                    verificationError: verification.verificationError)
            case .userCancelled:
                report = PurchaseReport(outcome: .cancelled, hearts: install.hearts)
            case .pending:
                report = PurchaseReport(outcome: .pending, hearts: install.hearts)
                if let request = answer.request {
                    let id = request.transaction.id
                    event(
                        installID, request.requestedAgain > 0 ? "purchase.askToBuyAgain" : "purchase.askToBuy",
                        request.requestedAgain > 0
                            ? "Ask to Buy: consolidated into request \(id), still waiting (requested again \(request.requestedAgain)×); no transaction yet."
                            : "Ask to Buy: request \(id) waits for a parent; no transaction yet.",
                        ["requestID": "\(id)"])
                }
            }
        } catch let interrupted as InterruptedPurchase {
            // `purchase()` fails (a thrown userCancelled still reads as a cancel); the store keeps the purchase until resolved.
            let error = interrupted.error.error
            report = PurchaseReport(outcome: interrupted.error == .userCancelled ? .cancelled : .failed, hearts: install.hearts, error: error)
            let id = interrupted.record.transaction.id
            event(
                installID, "purchase.interrupted",
                "Interrupted purchase \(id): purchase() threw; resolving the issue on /store issues a new transaction.",
                ["interruptedID": "\(id)"])
        } catch let charged as ChargedDespiteError {
            // The app sees only the thrown error (a thrown userCancelled still reads as a cancel); the charge arrives later.
            let error = charged.error.error
            report = PurchaseReport(outcome: charged.error == .userCancelled ? .cancelled : .failed, hearts: install.hearts, error: error)
            scheduleChargedDelivery(charged)
        } catch StoreKitError.userCancelled {
            // A thrown userCancelled is a cancel, not a failure: no alert, the buttons are usable again.
            report = PurchaseReport(outcome: .cancelled, hearts: install.hearts, error: StoreKitError.userCancelled)
        } catch let error as StoreKitError {
            report = PurchaseReport(outcome: .failed, hearts: install.hearts, error: error)
        } catch let error as Product.PurchaseError {
            report = PurchaseReport(outcome: .failed, hearts: install.hearts, error: error)
        }
        report.locale = install.locale
        var closed = ["productID": productID, "outcome": report.outcome.rawValue]
        closed["errorName"] = report.errorName
        closed["transactionID"] = report.transactionID.map(String.init)
        event(installID, "purchase.closed", "purchase closed: \(report.outcome.rawValue)\(report.errorName.map { " (\($0))" } ?? "").", closed)
        return report
    }

    /// A share in milliunits of a percent as the timeline writes it: `100 %`, `33.333 %`.
    nonisolated static func percent(_ milliunits: Int) -> String {
        let whole = milliunits / 1000, fraction = milliunits % 1000
        guard fraction != 0 else { return "\(whole) %" }
        var digits = String(fraction)
        digits = String(repeating: "0", count: 3 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(whole).\(digits) %"
    }

    /// ` ×3, appAccountToken …` for the timeline, empty for the default options.
    nonisolated static func describe(_ options: Product.PurchaseOptions) -> String {
        (options.quantity == 1 ? "" : " ×\(options.quantity)")
            + (options.appAccountToken.map { ", appAccountToken \($0.uuidString.lowercased())" } ?? "")
    }

    // MARK: The one handler

    /// The transaction handler every path feeds (purchase, listener, launch, restore): check verification,
    /// record, `finish()`. Unverified → not recorded, not finished; revoked → nothing added, finished;
    /// a product that is not one of the catalog's tips (a subscription, a non-consumable, or an ID the catalog
    /// does not hold) → `unknownProduct`, logged, finished, no heart; else counted once per transaction ID.
    /// - Returns: The ledger row as committed (its outcome may be `.duplicate`).
    /// - Throws: storage errors (nothing half-written: the ledger row, hearts and finished flag
    ///   commit together).
    /// With `finishIgnored` the store ignores the `finish()`: the row says `finished` false, with that reason.
    /// - Parameter note: the reason a store trap puts on the row, if any.
    @discardableResult
    public func handle(
        _ verification: VerificationResult<Transaction>, installID: String, path: DeliveryPath,
        note: DeliveryNote? = nil
    ) async throws -> Delivery {
        try await record(verification, installID: installID, path: path, note: note).delivery
    }

    /// The handler's work; also returns the install's hearts as committed. With `issuing` (a purchase's new
    /// transaction, not saved yet), the store's save and this record are one storage operation, in that order
    /// (`TipJarStorage.issue(_:thenRecord:)`), which also answers the account's other running installs (`nil`
    /// without `issuing`). `settings` are the store's as the caller read them (read now when `nil`).
    func record(
        _ verification: VerificationResult<Transaction>, installID: String, path: DeliveryPath,
        note: DeliveryNote? = nil, issuing: StoredTransaction? = nil,
        settings: StoreSettings? = nil
    ) async throws -> (delivery: Delivery, hearts: Int, otherRunningInstallIDs: [String]?) {
        let transaction = verification.unsafePayloadValue
        let proposed = Self.proposedOutcome(for: verification, isTip: catalog.tip(withID: transaction.productID) != nil)
        if proposed == .unknownProduct {
            let kind = catalog.product(withID: transaction.productID).map { "a \($0.type.rawValue), not a tip" } ?? "outside the catalog"
            environment.log(
                "ignored a transaction for a product that is not a tip (\(kind))",
                ["install.id": installID, "transaction.id": "\(transaction.id)", "product.id": transaction.productID])
        }
        let settings = settings ?? store.settings
        let crashes = settings.crashBeforeFinish && proposed != .unverified
        let finishIgnored = settings.finishIgnored && proposed != .unverified && !crashes
        var delivery = Delivery(
            installID: installID, transactionID: transaction.id, productID: transaction.productID, path: path,
            outcome: proposed, finished: proposed != .unverified && !crashes && !finishIgnored, at: environment.now(),
            note: note ?? (finishIgnored ? .finishIgnored : nil))
        let committed: (outcome: RecordOutcome, hearts: Int, otherRunningInstallIDs: [String]?)
        if let issuing {
            let issued = try await storage.issue(issuing, thenRecord: delivery)
            committed = (issued.outcome, issued.hearts, issued.otherRunningInstallIDs)
        } else {
            let recorded = try await storage.record(delivery)
            committed = (recorded.outcome, recorded.hearts, nil)
        }
        delivery.outcome = committed.outcome
        if finishIgnored {
            event(
                installID, "finish.ignored", "finish() was ignored: transaction \(transaction.id) stays unfinished.",
                ["transactionID": "\(transaction.id)"])
        }
        if crashes {
            try await storage.setRunning(false, installID: installID)
            event(
                installID, "crash", "The app crashed before finish(): transaction \(transaction.id) stays unfinished.",
                ["transactionID": "\(transaction.id)"])
        }
        return (delivery, committed.hearts, committed.otherRunningInstallIDs)
    }

    /// The recording rule as a pure function: what the handler proposes before the atomic duplicate check.
    /// Only a verified, unrevoked transaction for one of the catalog's tips (a consumable) can count.
    /// - Parameters:
    ///   - verification: the delivered `VerificationResult`.
    ///   - isTip: whether the transaction's product is one of the catalog's tips (``Catalog/tip(withID:)``).
    public nonisolated static func proposedOutcome(for verification: VerificationResult<Transaction>, isTip: Bool) -> RecordOutcome {
        guard case .verified(let transaction) = verification else { return .unverified }
        if transaction.isRevoked { return .revoked }
        if !isTip { return .unknownProduct }
        return .counted
    }

    // MARK: Listener, launch, restore

    /// Delivers a transaction through the install's `Transaction.updates` listener: at once if the
    /// app runs; otherwise it waits, unfinished, for the next launch.
    /// - Returns: The ledger row, or `nil` when the install is stopped.
    /// - Parameter note: the reason a store trap puts on the ledger row, if any.
    @discardableResult
    public func deliverThroughListener(_ stored: StoredTransaction, note: DeliveryNote? = nil) async throws -> Delivery? {
        guard let install = try await storage.install(withID: stored.installID), install.isRunning else {
            let waits = !stored.isFinished
            event(
                stored.installID, "listener.queued",
                waits
                    ? "Transaction \(stored.transaction.id) waits for the next launch (app not running)."
                    : "Transaction \(stored.transaction.id) is not delivered: the app is not running, and only unfinished transactions reach it at launch.",
                ["transactionID": "\(stored.transaction.id)"])
            try await deliverToOtherDevices(stored.transaction, finishedHere: stored.isFinished, accountID: stored.accountID, except: stored.installID)
            return nil
        }
        let delivery: Delivery
        do {
            delivery = try await handle(store.verify(stored.transaction), installID: install.id, path: .listener, note: note)
        } catch {
            guard try await storage.install(withID: install.id) == nil else { throw error }
            // The app was deleted from the device while the transaction was on its way: it stays with the store,
            // unfinished, for the account's next install (`Transaction.unfinished`).
            event(nil, "listener.installGone", "Transaction \(stored.transaction.id) not delivered: its install was deleted; it stays with the store.")
            return nil
        }
        try await reemit(stored.transaction, installID: install.id)
        try await deliverToOtherDevices(stored.transaction, finishedHere: delivery.finished, accountID: install.accountID, except: install.id)
        return delivery
    }

    /// `Transaction.updates` on the Apple Account's other devices: every other running install of the account
    /// receives `transaction` through its listener, a ledger row of its own with the path ``DeliveryPath/otherDevice``
    /// ("another device"), and counts it as its handler decides (each device keeps its own hearts, so a tip bought on
    /// one device is a heart on every device of the account that runs the tip jar). Apple: `updates` "also emits
    /// transactions that customers complete in your app on another device"
    /// (https://developer.apple.com/documentation/storekit/transaction/updates). A stopped install receives nothing now:
    /// at its launch it gets what `Transaction.unfinished` holds for the account, as every launch does.
    /// Apple says nothing of a consumable the first device already finished: the store setting
    /// ``StoreSettings/finishedConsumablesReachOtherDevices`` (on by default) decides; a refund always reaches them (the
    /// `updates` page's own example handles `revocationDate` there).
    /// - Parameters:
    ///   - transaction: the transaction as the store holds it now (purchased, approved, resolved or revoked).
    ///   - finishedHere: whether the install it was made on (or delivered to) finished it.
    ///   - accountID: its Apple Account.
    ///   - installID: the install it was made on (or delivered to), which is not "another device".
    ///   - runningInstallIDs: the account's other running installs when the caller already has them (a purchase's
    ///     write answers them); read now when `nil`.
    /// - Returns: the other devices' ledger rows.
    @discardableResult
    func deliverToOtherDevices(
        _ transaction: Transaction, finishedHere: Bool, accountID: String, except installID: String,
        runningInstallIDs: [String]? = nil
    ) async throws -> [Delivery] {
        let isFinishedConsumable = finishedHere && !transaction.isRevoked && catalog.product(withID: transaction.productID)?.type == .consumable
        if isFinishedConsumable, !store.settings.finishedConsumablesReachOtherDevices { return [] }
        var deliveries: [Delivery] = []
        let others: [String]
        if let runningInstallIDs {
            others = runningInstallIDs
        } else {
            others = try await storage.runningInstallIDs(accountID: accountID, except: installID)
        }
        for other in others {
            do {
                deliveries.append(try await handle(store.verify(transaction), installID: other, path: .otherDevice))
            } catch {
                // Deleted from its device while the transaction was on its way: nothing to deliver to.
                guard try await storage.install(withID: other) == nil else { throw error }
            }
        }
        return deliveries
    }

    /// Launches the app: the listener starts, the legacy "has tipped" flag migrates to one heart
    /// (once, README "Domain rules": Migration), then the account's unfinished transactions are delivered.
    /// - Throws: `TipJarError.installNotFound`; storage errors.
    public func launch(installID: String) async throws -> DeliveryReport {
        let install = try await install(installID)
        closeSheet(installID: installID, because: "the app relaunched")
        lastLoads[installID] = nil
        try await storage.setRunning(true, installID: installID)
        event(installID, "launch", "Launched; Transaction.updates listener started.")
        let migrated = try await storage.migrateLegacyFlag(installID: installID)
        if migrated {
            event(installID, "migration", "Migrated the old \"has tipped\" flag: one heart if the count was zero; flag removed.")
        }
        var deliveries: [Delivery] = []
        for verification in try await store.unfinished(accountID: install.accountID) {
            deliveries.append(try await handle(verification, installID: installID, path: .launch))
        }
        deliveries += try await deliverReemitsWaitingForLaunch(installID: installID)
        return DeliveryReport(deliveries: deliveries, migratedLegacyFlag: migrated, hearts: try await self.install(installID).hearts)
    }

    /// Stops the app: the listener stops; deliveries wait for the next launch.
    public func stop(installID: String) async throws -> Install {
        _ = try await install(installID)
        closeSheet(installID: installID, because: "the app stopped")
        lastLoads[installID] = nil
        try await storage.setRunning(false, installID: installID)
        event(installID, "stop", "Stopped; the listener receives nothing until the next launch.")
        return try await install(installID)
    }

    /// Restore: `AppStore.sync()`, then the listener routes what came back. For consumables that
    /// is only the account's unfinished transactions (README "Domain rules": Restore).
    /// - Throws: the App Store Sync `StoreKitError` when it is injected (shown as an alert);
    ///   `TipJarError.installNotFound`; storage errors.
    public func restore(installID: String) async throws -> DeliveryReport {
        let install = try await install(installID)
        if !install.isRunning { _ = try await launch(installID: installID) }
        event(installID, "restore", "Restore: AppStore.sync() called.")
        var deliveries: [Delivery] = []
        for (verification, isReplay) in try await store.sync(accountID: install.accountID, installID: installID) {
            deliveries.append(try await handle(verification, installID: installID, path: .restore, note: isReplay ? .syncReplay : nil))
        }
        return DeliveryReport(deliveries: deliveries, hearts: try await self.install(installID).hearts)
    }

    // MARK: Store-side actions that reach the listener

    /// Ask to Buy approved on `/store`, by the request's ID: the transaction is issued now (a new ID) and reaches the
    /// install's listener.
    /// - Returns: the transaction issued and its ledger row (`nil` when the install is stopped).
    @discardableResult
    public func approve(requestID: UInt64) async throws -> (transaction: StoredTransaction, delivery: Delivery?) {
        let issued = try await store.approve(requestID: requestID)
        let id = issued.transaction.id
        event(
            issued.installID, "askToBuy.approved", "Ask to Buy request \(requestID) approved: transaction \(id) issued.",
            ["requestID": "\(requestID)", "transactionID": "\(id)"])
        return (issued, try await deliverThroughListener(issued))
    }

    /// Ask to Buy declined on `/store`, by the request's ID: nothing is ever delivered.
    /// - Returns: The declined request (whose install asked).
    @discardableResult
    public func decline(requestID: UInt64) async throws -> StoredTransaction {
        let request = try await store.decline(requestID: requestID)
        event(
            request.installID, "askToBuy.declined", "Ask to Buy request \(requestID) declined; nothing delivered.",
            ["requestID": "\(requestID)"])
        return request
    }

    /// A refund from the dashboard: the revoked transaction, same ID, reaches the listener.
    /// - Parameters: as ``SimulatedStore/refund(transactionID:reason:type:percentage:)``.
    public func refund(
        transactionID: UInt64, reason: Transaction.RevocationReason = .other, type: Transaction.RevocationType = .fullRefund,
        percentage: Int? = nil
    ) async throws -> Delivery? {
        let stored = try await store.refund(transactionID: transactionID, reason: reason, type: type, percentage: percentage)
        let share = stored.transaction.revocationPercentage.map { ", \(Self.percent($0))" } ?? ""
        event(
            stored.installID, "refund", "Refunded transaction \(transactionID) (\(reason.rawValue), \(type.rawValue)\(share)).",
            ["transactionID": "\(transactionID)", "reason": reason.rawValue, "revocationType": type.rawValue])
        return try await deliverThroughListener(stored)
    }

    /// A purchase made outside the app for an install's account.
    /// - Throws: `TipJarError.invalidValue` for an empty or over-long product ID.
    public func externalPurchase(productID: String, installID: String) async throws -> (StoredTransaction, Delivery?) {
        guard productID.utf8.count <= 400 else {
            throw TipJarError.invalidValue(field: "productID", reason: "must be 1 to 200 printable characters")
        }
        let productID = productID.trimmingCharacters(in: .whitespaces)
        guard !productID.isEmpty, productID.count <= 200,
            !productID.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw TipJarError.invalidValue(field: "productID", reason: "must be 1 to 200 printable characters")
        }
        let stored = try await store.externalPurchase(productID: productID, for: try await install(installID))
        event(
            installID, "external", "Purchased outside the app: transaction \(stored.transaction.id) (\(productID)).",
            ["transactionID": "\(stored.transaction.id)", "productID": productID])
        return (stored, try await deliverThroughListener(stored))
    }

    /// Re-emits a delivered transaction through the listener `listenerReemits` times (`settings`: the store's,
    /// read now when `nil`).
    /// - Returns: Whether anything was re-emitted.
    @discardableResult
    func reemit(_ transaction: Transaction, installID: String, settings: StoreSettings? = nil) async throws -> Bool {
        let settings = settings ?? store.settings
        let count = settings.listenerReemits
        guard count > 0, try await self.install(installID).isRunning else { return false }
        if settings.listenerReemitDelayMs > 0 {
            scheduleReemits(transaction, count: count, installID: installID, afterMs: settings.listenerReemitDelayMs)
            return false
        }
        for _ in 0..<count {
            try await handle(store.verify(transaction), installID: installID, path: .listener)
        }
        return true
    }

    func event(_ installID: String?, _ kind: String, _ detail: String, _ attributes: [String: String] = [:]) {
        timeline.append(InstallEvent(installID: installID, at: environment.now(), kind: kind, detail: detail, attributes: attributes))
    }
}
