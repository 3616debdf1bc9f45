import Foundation
import TipJar

/// One transaction's life on one install, as the steps of its ``SequenceDiagram``: how it began (`purchase()` and
/// the sheet, Ask to Buy, an interrupted purchase, a purchase outside the app or on another install of the
/// account), each delivery to the install's handler (the purchase result, `Transaction.updates`, a launch's
/// redelivery, what Restore's `AppStore.sync()` brought back: verification, record, `finish()`), a refund, and each
/// trap where it struck. Built from domain values only (no I/O), so tests drive it one line at a time.
///
/// Drawn only from what is stored: the store's transaction (its status, revocation and ``StoredTransaction/origin``:
/// whether the sheet was confirmed or an Ask to Buy approval issued it) and the install's ledger rows (path, outcome,
/// finished flag, note). Never from the in-memory ``Timeline``, which forgets: the picture of a transaction is the
/// same tomorrow and after a restart. What the stored facts cannot tell is drawn as such: a delivery left
/// unfinished whose row carries another trap's note is "not finished" (a crash and an ignored `finish()` leave the
/// same row).
///
/// The developer's server gets a lane of its own when the store kept something between it and the App Store about
/// the transaction: each App Store Server Notification queued for it (``ServerNotification``, with every attempt's
/// `sendAttemptResult`, https://developer.apple.com/documentation/appstoreserverapi/sendattemptresult) and the
/// consumption information it sent back (``StoredTransaction/consumptionInfo``). The store keeps no date for the
/// latter, so it is drawn after the last `CONSUMPTION_REQUEST`, which it answers
/// (https://developer.apple.com/documentation/appstoreservernotifications/consumption_request), or last when none
/// was sent.
struct TransactionLife: Sendable {
    /// A ledger row and whether it added a heart (``heartsAdded(ledger:hearts:)``).
    struct Handled: Sendable, Equatable {
        /// The ledger row.
        var delivery: Delivery
        /// Whether the row added a heart.
        var addedHeart: Bool
    }

    typealias Step = SequenceDiagram.Step

    /// The transaction.
    var transactionID: UInt64
    /// The install whose life of the transaction this is.
    var installID: String
    /// The store's record of it, or `nil` once the store forgot it (`SKTestSession.deleteTransaction`).
    var stored: StoredTransaction?
    /// The install's ledger rows for this transaction, oldest first.
    var deliveries: [Handled]
    /// The App Store Server Notifications about the transaction, oldest first, with their attempts.
    var notifications: [ServerNotification] = []

    /// Whether each row of `ledger` (oldest first) added a heart, replaying the rule "one accepted tip adds one heart,
    /// up to five" (README "Domain rules": Recording). The ledger does not keep the hearts each row left, so the replay starts
    /// from the hearts the counted rows leave unexplained (`hearts` minus the counted rows, at least 0: the old
    /// version's migrated heart when there is one); with five hearts and five or more counted rows it assumes no
    /// migrated heart, so the first five counted rows are the ones drawn with a heart.
    static func heartsAdded(ledger: [Delivery], hearts: Int) -> [Bool] {
        let counted = ledger.filter { $0.outcome == .counted }.count
        var running = max(0, hearts - counted)
        return ledger.map { delivery in
            guard delivery.outcome == .counted, running < Install.maximumHearts else { return false }
            running += 1
            return true
        }
    }

    /// The diagram, titled with the transaction and its product.
    var diagram: SequenceDiagram {
        let product = stored?.transaction.productID ?? deliveries.first?.delivery.productID ?? "an unknown product"
        return SequenceDiagram(
            title: "The life of transaction \(transactionID) (\(product)) on install \(ViewModels.shortID(installID))",
            steps: steps)
    }

    /// The steps in the order they happened (ties: the beginning, then store-side events, then deliveries).
    var steps: [Step] {
        var moments: [(at: Date, rank: Int, order: Int, steps: [Step])] = []
        func add(_ at: Date, _ rank: Int, _ steps: [Step]) { moments.append((at, rank, moments.count, steps)) }
        let began = stored?.transaction.purchaseDate ?? deliveries.first?.delivery.at ?? .distantPast
        add(began, 0, beginning())
        if let revoked = stored?.transaction.revocationDate {
            // A refund is the App Store's decision, not a StoreKit trap: a note without the trap mark, in StoreKit's
            // words (`Transaction.revocationDate`; `.revocationReason` in words, short enough for a note's box).
            let reason = stored?.transaction.revocationReason == .developerIssue ? "developer issue" : "other reason"
            add(revoked, 1, [Step(.store, .store, "revoked: \(reason)")])
        }
        // Issued for this install but first delivered by a launch: it waited, unfinished, for the app to run.
        if let stored, stored.installID == installID, !stored.isExternal, deliveries.first?.delivery.path == .launch {
            add(began, 1, [Step(.store, .store, "waits for the next launch")])
        }
        for (index, handled) in deliveries.enumerated() {
            add(handled.delivery.at, 2, delivery(handled, isFirst: index == 0))
        }
        for notification in notifications where notification.type != .test {
            add(notification.createdAt, 3, sent(notification))
        }
        if stored?.consumptionInfo != nil {
            let answered = notifications.last { $0.type == .consumptionRequest }?.createdAt
            add(answered ?? .distantFuture, 4, [Step(.server, .store, "Send Consumption Information")])
        }
        return moments.sorted { ($0.at, $0.rank, $0.order) < ($1.at, $1.rank, $1.order) }.flatMap(\.steps)
    }

    /// How the transaction began, before its first delivery.
    func beginning() -> [Step] {
        let purchase = Step(.app, .store, "purchase()")
        let first = deliveries.first?.delivery
        if let stored, stored.isExternal { return [Step(.store, .store, "bought outside the app")] }
        if let stored, stored.installID != installID {
            return [Step(.store, .store, "bought on install \(ViewModels.shortID(stored.installID)), unfinished")]
        }
        switch first?.note {
        case .chargedDespiteError?:
            return [purchase, Step(.store, .app, "throws, yet charges", isTrap: true)]
        case .interruptionResolved?:
            return [purchase, Step(.store, .app, "throws: interrupted", isTrap: true), Step(.store, .store, "issue resolved: new transaction")]
        default:
            break
        }
        if first?.path == .purchase {
            return stored?.origin == .purchaseSheet ? [purchase, Step(.store, .app, "sheet: Confirm")] : [purchase]
        }
        let pending = Step(.store, .app, ".pending (Ask to Buy)")
        switch stored?.status {
        case .interrupted?:
            return [purchase, Step(.store, .app, "throws: interrupted", isTrap: true), Step(.store, .store, "waits for Resolve")]
        case .pending?:
            return [purchase, pending, Step(.store, .store, "waits for a parent")]
        case .declined?:
            return [purchase, pending, Step(.store, .store, "Ask to Buy declined", heart: .notAdded, isTrap: true)]
        case .approved?:
            return [purchase, pending, Step(.store, .store, "Ask to Buy approved: transaction issued")]
        case .resolved?:
            return [purchase, Step(.store, .app, "throws: interrupted", isTrap: true), Step(.store, .store, "issue resolved: new transaction")]
        case .purchased?, nil:
            if stored?.origin == .askToBuyApproval {
                return [purchase, pending, Step(.store, .store, "Ask to Buy approved: transaction issued")]
            }
            return [purchase, Step(.store, .store, first == nil ? "charged; not delivered yet" : "charged; delivered later")]
        }
    }

    /// One notification sent to the developer's server: an arrow from the App Store per attempt, its
    /// `notificationType` on the first and `sendAttemptResult` on each (a failed one dashed, one under way dotted),
    /// a dotted arrow for one not sent yet, and a note when its retries ran out (Apple retries five times,
    /// https://developer.apple.com/documentation/appstoreservernotifications/responding-to-app-store-server-notifications).
    func sent(_ notification: ServerNotification) -> [Step] {
        let type = notification.type.rawValue
        guard !notification.attempts.isEmpty else { return [Step(.store, .server, "\(type): not sent yet", attempt: .underWay)] }
        var steps = notification.attempts.enumerated().map { index, attempt in
            let name = index == 0 ? type : "retry \(index)"
            if !attempt.hasEnded { return Step(.store, .server, "\(name): under way", attempt: .underWay) }
            let result = attempt.result.rawValue
            return Step(.store, .server, "\(name): \(result)", attempt: attempt.result == .success ? nil : .failed)
        }
        if notification.state == .failed { steps.append(Step(.store, .store, "no retry left", attempt: .failed)) }
        return steps
    }

    /// One delivery: how it arrived, the handler's verification and record (with its heart), and `finish()`.
    func delivery(_ handled: Handled, isFirst: Bool) -> [Step] {
        let delivery = handled.delivery
        var steps: [Step] = []
        let handler: SequenceDiagram.Lane = delivery.path == .purchase ? .app : .listener
        switch delivery.path {
        case .purchase:
            if delivery.note == .unfinishedReturned {
                steps += [Step(.app, .store, "purchase()"), Step(.store, .app, "returns the unfinished one", isTrap: true)]
            } else {
                steps.append(Step(.store, .app, ".success"))
            }
        case .listener:
            if delivery.outcome == .revoked {
                steps.append(Step(.store, .listener, "updates: revoked"))
            } else if delivery.note == .reemittedLater {
                steps.append(Step(.store, .listener, "re-emitted later", isTrap: true))
            } else if !isFirst {
                steps.append(Step(.store, .listener, "re-emitted", isTrap: true))
            } else {
                steps.append(Step(.store, .listener, "Transaction.updates"))
            }
        case .launch:
            steps.append(Step(.store, .listener, isFirst ? "at launch" : "launch: redelivered", isTrap: !isFirst))
        case .otherDevice:
            steps.append(Step(.store, .listener, delivery.outcome == .revoked ? "updates: revoked on another device" : "updates: from another device"))
        case .restore:
            steps.append(Step(.app, .store, "AppStore.sync()"))
            let isReplay = delivery.note == .syncReplay
            steps.append(Step(.store, .listener, isReplay ? "sync replays it" : "sync: unfinished", isTrap: isReplay))
        }
        let heart: SequenceDiagram.HeartMark = handled.addedHeart ? .added : .notAdded
        switch delivery.outcome {
        case .counted:
            steps.append(Step(handler, handler, handled.addedHeart ? "verified → counted" : "counted; five hearts already", heart: heart))
        case .duplicate:
            steps.append(Step(handler, handler, "duplicate: not counted", heart: heart))
        case .revoked:
            steps.append(Step(handler, handler, "revoked: nothing added", heart: heart))
        case .unknownProduct:
            steps.append(Step(handler, handler, "not a tip: ignored", heart: heart))
        case .unverified:
            // Not recorded and not finished: it comes back at the next launch (README "Rehearse these StoreKit traps" 3).
            return steps + [Step(handler, handler, "unverified: no finish()", heart: heart, isTrap: true)]
        }
        if delivery.finished {
            steps.append(Step(handler, .store, "finish()"))
        } else if delivery.note == .finishIgnored {
            steps += [Step(handler, .store, "finish()"), Step(.store, .store, "finish() ignored", isTrap: true)]
        } else if delivery.note == nil {
            steps.append(Step(handler, handler, "crash before finish()", isTrap: true))
        } else {
            steps.append(Step(handler, handler, "not finished", isTrap: true))
        }
        return steps
    }
}
