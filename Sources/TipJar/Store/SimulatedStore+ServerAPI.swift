import Foundation

extension Transaction {
    /// The order ID a receipt would show for this purchase (the App Store's "Order ID" on the customer's emailed
    /// receipt, which Look Up Order ID takes: https://developer.apple.com/documentation/appstoreserverapi/look-up-order-id).
    /// The simulator sends no receipts, so it derives one that is stable and readable back: `M` and the transaction's
    /// decimal ID (`M42`), one transaction per order, as a tip is bought one at a time. Apple's own order IDs are
    /// opaque; nothing should parse them, and nothing outside ``Transaction/transactionID(orderID:)`` parses these.
    public var orderID: String { "M\(id)" }

    /// The transaction ID an ``orderID`` names, or `nil` for any other text (no `M`, not digits, leading zeros).
    public static func transactionID(orderID: String) -> UInt64? {
        guard orderID.first == "M" else { return nil }
        let digits = orderID.dropFirst()
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let id = UInt64(digits), "M\(id)" == orderID else { return nil }
        return id
    }
}

extension SimulatedStore {
    /// Saves what a server sent through Send Consumption Information
    /// (https://developer.apple.com/documentation/appstoreserverapi/send-consumption-information) for a purchased
    /// transaction: `json`, the checked request body; a later one replaces it.
    /// - Returns: the transaction as saved.
    /// - Throws: `TipJarError.transactionNotFound` when the store keeps no purchased transaction with that ID (an Ask
    ///   to Buy request and an interrupted purchase are none); storage errors.
    @discardableResult
    public func recordConsumption(_ json: String, transactionID: UInt64) async throws -> StoredTransaction {
        guard let stored = try await storage.transaction(withID: transactionID), stored.status == .purchased else {
            throw TipJarError.transactionNotFound(transactionID)
        }
        var changed = stored
        changed.consumptionInfo = json
        return try await move(stored, to: changed, orThrow: .transactionNotFound(transactionID))
    }
}

extension SimulatedStore {
    /// The App Store reverses a refund it granted: "Indicates that the App Store reversed a previously granted refund
    /// due to a dispute that the customer raised" (`REFUND_REVERSED`,
    /// https://developer.apple.com/documentation/appstoreservernotifications/notificationtype). The transaction loses
    /// its revocation (date, reason, type, share) and is signed again now; the `REFUND_REVERSED` notification is queued
    /// in the same write (`TipJarSchema.v14`). Apple does not say what StoreKit delivers to the device then: nothing
    /// reaches the app here, which sees the transaction unrevoked in `Transaction.all` and its next launch.
    /// - Returns: the transaction as saved.
    /// - Throws: `TipJarError.transactionNotFound`, `.notRefunded` (also for the loser of two reversals).
    @discardableResult
    public func reverseRefund(transactionID: UInt64) async throws -> StoredTransaction {
        guard let stored = try await storage.transaction(withID: transactionID), stored.status == .purchased else {
            throw TipJarError.transactionNotFound(transactionID)
        }
        guard stored.transaction.isRevoked else { throw TipJarError.notRefunded(transactionID) }
        var reversed = stored
        reversed.transaction.revocationDate = nil
        reversed.transaction.revocationReason = nil
        reversed.transaction.revocationType = nil
        reversed.transaction.revocationPercentage = nil
        reversed.transaction.signedDate = now()
        return try await move(stored, to: reversed, orThrow: .notRefunded(transactionID))
    }
}

extension SimulatedStore {
    /// A developer's server finishes a transaction (Finish Transaction,
    /// https://developer.apple.com/documentation/appstoreserverapi/finish-transaction: "Notifies the App Store server
    /// that your system has finished processing the customer's transaction"), as the app's `Transaction.finish()`
    /// would: it leaves `Transaction.unfinished`, so no install of the account delivers it at launch and a purchase of
    /// its product no longer answers with it (https://developer.apple.com/documentation/storekit/transaction/unfinished:
    /// "A transaction is unfinished until you call finish()"), and Get Transaction History v1 no longer lists it
    /// unless it is refunded. Finishing a finished transaction changes nothing; Apple does not say what it answers
    /// then, and this answers as for the first call.
    /// - Returns: the transaction as saved, and whether this call finished it.
    /// - Throws: `TipJarError.transactionNotFound` when the store keeps no purchased transaction with that ID.
    public func finishTransaction(transactionID: UInt64) async throws -> (transaction: StoredTransaction, finishedNow: Bool) {
        guard let stored = try await storage.transaction(withID: transactionID), stored.status == .purchased else {
            throw TipJarError.transactionNotFound(transactionID)
        }
        guard !stored.isFinished else { return (stored, false) }
        var finished = stored
        finished.isFinished = true
        do {
            return (try await move(stored, to: finished, orThrow: .transactionNotFound(transactionID)), true)
        } catch TipJarError.transactionNotFound(let id) where id == transactionID {
            // Lost a race: finished (or refunded) meanwhile; read what won.
            guard let now = try await storage.transaction(withID: transactionID), now.status == .purchased else { throw TipJarError.transactionNotFound(transactionID) }
            return (now, false)
        }
    }
}

extension SimulatedStore {
    /// A developer's server sets or replaces a purchase's app account token (Set App Account Token,
    /// https://developer.apple.com/documentation/appstoreserverapi/set-app-account-token: "Sets the app account token
    /// value for a purchase the customer makes outside of your app, or updates its value in an existing
    /// transaction"); the transaction's JWS carries it from then on. Apple's documentation names no product type it
    /// refuses; a consumable's `originalTransactionId` is its own ID. Its `signedDate` is left as it was: Apple does not
    /// say whether the change re-signs the transaction.
    /// - Returns: the transaction as saved.
    /// - Throws: `TipJarError.transactionNotFound` when the store keeps no purchased transaction with that ID.
    public func setAppAccountToken(_ token: UUID, transactionID: UInt64) async throws -> StoredTransaction {
        guard let reads = storage as? any ServerAPIStorage, try await reads.setAppAccountToken(token, transactionID: transactionID),
            let stored = try await storage.transaction(withID: transactionID)
        else { throw TipJarError.transactionNotFound(transactionID) }
        return stored
    }
}
