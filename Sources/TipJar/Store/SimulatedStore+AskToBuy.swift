import Foundation

/// Ask to Buy requests and interrupted purchases: what waits in the store for someone outside the app, and the
/// transaction issued when it is settled (Sources/TipJar/README.md, "Ask to Buy requests" and "Interrupted purchases").
extension SimulatedStore {
    // MARK: Ask to Buy

    /// An Ask to Buy request for the product on the install's Apple Account: no transaction is issued until a parent
    /// approves ("If a pending purchase succeeds, StoreKit delivers the resulting Transaction in the transaction
    /// updates", https://developer.apple.com/documentation/storekit/product/purchaseresult/pending). While a request
    /// for the same product on the account waits, a new one is consolidated into it: no second request, its
    /// `requestedAgain` counted and its timer (its "requested at") reset to now, as Apple answers on
    /// https://developer.apple.com/forums/thread/706277 ("Any duplicate Ask to Buy requests are consolidated and only
    /// resets the 24-hour timer. Once approved, only 1 purchase is completed."). A duplicate is a request for the same
    /// product and the same quantity: a request for another quantity asks for another purchase (3 coffees are not the
    /// 1 already asked for), so it waits as a request of its own and its approval charges its own quantity; Apple says
    /// nothing closer. The waiting request keeps its own install and token (Apple is silent on whose are kept).
    /// - Returns: the request, new or consolidated.
    nonisolated(nonsending) func askToBuy(
        productID: String, for install: Install, options: Product.PurchaseOptions
    ) async throws -> StoredTransaction {
        for _ in 0..<3 {
            guard
                let waiting = try await storage.pendingTransactions().first(where: {
                    $0.accountID == install.accountID && $0.transaction.productID == productID
                        && $0.transaction.purchasedQuantity == options.quantity
                })
            else { break }
            var again = waiting
            again.requestedAgain += 1
            again.transaction.purchaseDate = now()
            again.transaction.originalPurchaseDate = again.transaction.purchaseDate
            if try await storage.update(again, from: waiting) { return again }
            // Decided or requested again meanwhile: look again.
        }
        return try await issue(productID: productID, for: install, status: .pending, options: options)
    }

    /// Ask to Buy approved (`SKTestSession.approveAskToBuyTransaction(identifier:)`,
    /// https://developer.apple.com/documentation/storekittest/sktestsession/approveasktobuytransaction(identifier:),
    /// by the request's identifier, not a `Transaction.id`): the transaction is issued now, with a new ID and dated
    /// now, to be delivered through the install's listener; the request stays, `approved`, naming it (one write,
    /// `TipJarStorage.settle(_:as:issuing:)`). Of an approve and a decline (or two approves) of one request, the first
    /// to reach storage wins, the other finds it no longer pending.
    /// - Returns: the transaction issued.
    /// - Throws: `TipJarError.askToBuyRequestNotFound` / `.transactionNotPending` (naming the request's ID).
    public func approve(requestID: UInt64) async throws -> StoredTransaction {
        while true {
            let request = try await pending(requestID)
            var issued = issuedNow(for: request)
            issued.origin = .askToBuyApproval
            if try await storage.settle(request, as: settled(request, .approved, as: issued), issuing: issued) { return issued }
            guard try await storage.transaction(withID: requestID)?.status == .pending else { throw TipJarError.transactionNotPending(requestID) }
            // Only requested again meanwhile: still pending, so approve it as it is now.
        }
    }

    /// Ask to Buy declined (`SKTestSession.declineAskToBuyTransaction(identifier:)`): nothing is ever delivered; the
    /// request stays, declined.
    /// - Throws: `TipJarError.askToBuyRequestNotFound` / `.transactionNotPending`.
    public func decline(requestID: UInt64) async throws -> StoredTransaction {
        while true {
            let request = try await pending(requestID)
            var declined = request
            declined.status = .declined
            if try await storage.update(declined, from: request) { return declined }
            guard try await storage.transaction(withID: requestID)?.status == .pending else { throw TipJarError.transactionNotPending(requestID) }
        }
    }

    private func pending(_ id: UInt64) async throws -> StoredTransaction {
        guard let stored = try await storage.transaction(withID: id), stored.isAskToBuyRequest else { throw TipJarError.askToBuyRequestNotFound(id) }
        guard stored.status == .pending else { throw TipJarError.transactionNotPending(id) }
        return stored
    }

    // MARK: Interrupted purchases

    /// `SKTestSession.resolveIssueForTransaction(identifier:)`
    /// (https://developer.apple.com/documentation/storekittest/sktestsession/resolveissuefortransaction(identifier:)):
    /// the customer resolved the issue that interrupted the purchase. "Testing an interrupted purchase"
    /// (https://developer.apple.com/documentation/storekit/testing-an-interrupted-purchase) has a new purchased
    /// transaction arrive then for the same product and quantity, so a new transaction is issued (new ID, dated now)
    /// and the interrupted record keeps its own identifier, `resolved`, naming it, in the same write
    /// (`TipJarStorage.settle(_:as:issuing:)`). Of two resolves of one purchase, one wins; the other finds it no longer
    /// interrupted.
    /// - Returns: the new transaction, to be delivered through the install's listener.
    /// - Throws: `TipJarError.transactionNotFound`; `.transactionNotInterrupted`; storage errors.
    public func resolveIssue(transactionID: UInt64) async throws -> StoredTransaction {
        guard let stored = try await storage.transaction(withID: transactionID) else { throw TipJarError.transactionNotFound(transactionID) }
        guard stored.status == .interrupted else { throw TipJarError.transactionNotInterrupted(transactionID) }
        let issued = issuedNow(for: stored)
        guard try await storage.settle(stored, as: settled(stored, .resolved, as: issued), issuing: issued) else {
            throw TipJarError.transactionNotInterrupted(transactionID)
        }
        return issued
    }

    /// `record` settled (`.approved` or `.resolved`), naming the transaction `issued` for it.
    private func settled(_ record: StoredTransaction, _ status: StoredTransaction.Status, as issued: StoredTransaction) -> StoredTransaction {
        var settled = record
        settled.status = status
        settled.settledAs = issued.transaction.id
        return settled
    }

    /// The interrupted purchases waiting for their issue to be resolved, oldest first.
    public func interruptedTransactions() async throws -> [StoredTransaction] {
        try await storage.transactions(matching: TransactionQuery(status: .interrupted, pageSize: 200)).transactions.reversed()
    }

    /// The purchased transaction that settles a request or an interrupted purchase: the same product, account,
    /// install, quantity, token, price and storefront, under a new ID, dated now (`purchaseDate`,
    /// `originalPurchaseDate`, `signedDate`), unfinished.
    private func issuedNow(for waiting: StoredTransaction) -> StoredTransaction {
        var issued = waiting
        issued.transaction.id = nextTransactionID()
        issued.transaction.originalID = issued.transaction.id
        issued.transaction.purchaseDate = now()
        issued.transaction.originalPurchaseDate = issued.transaction.purchaseDate
        issued.transaction.signedDate = issued.transaction.purchaseDate
        issued.status = .purchased
        issued.isFinished = false
        issued.requestedAgain = 0
        issued.settledAs = nil
        issued.origin = nil
        return issued
    }
}

/// An interrupted purchase (`StoreSettings/interruptedPurchases`): `Product.purchase()` throws ``error`` (the
/// `purchaseError` setting), and the store keeps ``record`` until the issue is resolved, which issues a new transaction.
public struct InterruptedPurchase: Error, Sendable {
    /// The error the app sees (a `StoreKitError` or a `Product.PurchaseError`).
    public var error: PurchaseFailure
    /// The interrupted purchase the store keeps (status `.interrupted`), by its own identifier.
    public var record: StoredTransaction
}
