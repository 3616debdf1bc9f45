import Foundation

/// A delivery the store makes later than the request that caused it (Public/scenarios/README.md, "Rehearse these StoreKit traps").
enum LateDelivery: Sendable {
    /// `listenerReemits` re-emits of a delivered transaction, `listenerReemitDelayMs` after it.
    case reemits(Transaction, count: Int, installID: String)
    /// The transaction of a purchase that threw although the store charged (`chargedDespiteError`).
    case charged(transactionID: UInt64)
}

extension TipJarService {
    // MARK: Interrupted purchases

    /// The customer resolved an interrupted purchase (`SKTestSession.resolveIssueForTransaction(identifier:)`,
    /// https://developer.apple.com/documentation/storekittest/sktestsession/resolveissuefortransaction(identifier:)):
    /// a new transaction (new ID, dated now) reaches the install through `Transaction.updates`, once
    /// (https://developer.apple.com/documentation/storekit/testing-an-interrupted-purchase); a stopped install receives
    /// it, unfinished, at its next launch.
    /// - Parameter transactionID: the interrupted purchase's own identifier.
    /// - Returns: the new transaction and its ledger row (`nil` when the install is stopped).
    /// - Throws: `TipJarError.transactionNotFound` (404), `.transactionNotInterrupted` (409); storage errors.
    @discardableResult
    public func resolveIssue(transactionID: UInt64) async throws -> (transaction: StoredTransaction, delivery: Delivery?) {
        let issued = try await store.resolveIssue(transactionID: transactionID)
        let id = issued.transaction.id
        event(
            issued.installID, "interrupted.resolved",
            "Interrupted purchase \(transactionID) resolved: new transaction \(id) goes to Transaction.updates.",
            ["interruptedID": "\(transactionID)", "transactionID": "\(id)"])
        return (issued, try await deliverThroughListener(issued, note: .interruptionResolved))
    }

    // MARK: Late deliveries

    /// How many late deliveries wait for their delay right now.
    public var scheduledDeliveryCount: Int { scheduledDeliveries.count }

    /// Cancels every late delivery still waiting for its delay (at shutdown; never waits for them). A charged
    /// transaction stays unfinished in the store, so the next launch delivers it anyway.
    public func cancelScheduledDeliveries() {
        scheduledDeliveries.values.forEach { $0.cancel() }
        scheduledDeliveries.removeAll()
    }

    /// "Charged despite an error": the store's transaction reaches the listener ``StoreSettings/lateDeliveryDelayMs`` after
    /// the failed purchase answered.
    func scheduleChargedDelivery(_ charged: ChargedDespiteError) {
        let id = charged.transaction.transaction.id
        event(
            charged.transaction.installID, "purchase.charged",
            "purchase() threw \(charged.error) although the store charged: transaction \(id) reaches the listener "
                + "in \(StoreSettings.lateDeliveryDelayMs) ms (or at the next launch).")
        schedule(.charged(transactionID: id), afterMs: StoreSettings.lateDeliveryDelayMs)
    }

    /// "Re-emit later": the listener re-emits `transaction` `count` times, `afterMs` after its delivery answered.
    func scheduleReemits(_ transaction: Transaction, count: Int, installID: String, afterMs: Int) {
        event(installID, "listener.reemit.scheduled", "Transaction.updates re-emits transaction \(transaction.id) \(count)× in \(afterMs) ms.")
        schedule(.reemits(transaction, count: count, installID: installID), afterMs: afterMs)
    }

    /// Waits with the environment's `sleep` (so tests control time), then delivers, unless cancelled meanwhile.
    private func schedule(_ delivery: LateDelivery, afterMs: Int) {
        lastScheduleNumber += 1
        let number = lastScheduleNumber
        let sleep = environment.sleep
        scheduledDeliveries[number] = Task {
            let slept: Bool
            do { try await sleep(.milliseconds(afterMs)); slept = !Task.isCancelled } catch { slept = false }
            await self.perform(delivery, number: number, slept: slept)
        }
    }

    private func perform(_ delivery: LateDelivery, number: Int, slept: Bool) async {
        guard scheduledDeliveries.removeValue(forKey: number) != nil, slept else { return }
        do {
            switch delivery {
            case .reemits(let transaction, let count, let installID):
                guard try await install(installID).isRunning else {
                    reemitsWaitingForLaunch[installID, default: []].append((transaction, count))
                    event(installID, "listener.queued", "The re-emits of transaction \(transaction.id) wait for the next launch (app not running).")
                    return
                }
                for _ in 0..<count {
                    try await handle(store.verify(transaction), installID: installID, path: .listener, note: .reemittedLater)
                }
            case .charged(let transactionID):
                // Delivered already (a launch or Restore came first), refunded or deleted: the listener has nothing new.
                guard let stored = try await storage.transaction(withID: transactionID), stored.status == .purchased,
                    !stored.isFinished, !stored.transaction.isRevoked
                else { return }
                try await deliverThroughListener(stored, note: .chargedDespiteError)
            }
        } catch {
            environment.log("a late delivery failed", ["error": "\(error)"])
        }
    }

    /// The delayed re-emits that came due while the app was stopped, delivered by the listener the launch starts.
    func deliverReemitsWaitingForLaunch(installID: String) async throws -> [Delivery] {
        var deliveries: [Delivery] = []
        for (transaction, count) in reemitsWaitingForLaunch.removeValue(forKey: installID) ?? [] {
            for _ in 0..<count {
                deliveries.append(try await handle(store.verify(transaction), installID: installID, path: .listener, note: .reemittedLater))
            }
        }
        return deliveries
    }
}
