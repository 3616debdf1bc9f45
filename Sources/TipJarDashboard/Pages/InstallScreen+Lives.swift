import Foundation
import HTTPServer
import Mustache
import TipJar

/// Each transaction's life as a sequence diagram (``SequenceDiagram``, ``TransactionLife``): the install page's latest
/// transactions (`fragments/lives`, also in every live update); the page of one transaction, `GET /transactions/{id}`
/// (``TransactionsController``), draws one diagram per install it reached with
/// ``life(of:stored:install:ledger:notifications:id:)``. Both read the transaction's App Store Server Notifications
/// from storage (`service.records.notifications(transactionID:)`), for the server's lane.
extension InstallScreen {
    /// How many of an install's transactions its page draws: the latest by their last step.
    static let livesPerInstallPage = 3

    /// The install page's diagrams: its latest ``livesPerInstallPage`` transactions (from its ledger and the
    /// transactions bought from it that have no ledger row yet, such as a pending Ask to Buy), newest first.
    /// - Parameter ledger: the install's ledger, oldest first, as the page shows it.
    func transactionLives(install: Install, ledger: [Delivery]) async throws -> MustacheValue {
        let bought = try await service.records.transactions(matching: TransactionQuery(installID: install.id, pageSize: Self.livesPerInstallPage)).transactions
        var latest: [UInt64: Date] = [:]
        for stored in bought { latest[stored.transaction.id] = stored.transaction.purchaseDate }
        for delivery in ledger { latest[delivery.transactionID] = max(latest[delivery.transactionID] ?? .distantPast, delivery.at) }
        let chosen = latest.sorted { ($0.value, $0.key) > ($1.value, $1.key) }.prefix(Self.livesPerInstallPage).map(\.key)
        var lives: [MustacheValue] = []
        for transactionID in chosen {
            var stored = bought.first { $0.transaction.id == transactionID }
            if stored == nil { stored = try await service.records.transaction(withID: transactionID) }
            let notifications = try await service.records.notifications(transactionID: transactionID)
            lives.append(
                Self.life(
                    of: transactionID, stored: stored, install: install, ledger: ledger, notifications: notifications,
                    id: "life-\(transactionID)"))
        }
        return .array(lives)
    }

    /// One transaction's diagram on one install, for `partials/transaction-life`.
    /// - Parameters:
    ///   - ledger: the install's whole ledger as read (oldest first), for the heart replay.
    ///   - notifications: the App Store Server Notifications about the transaction, oldest first, with their attempts.
    ///   - id: the diagram's ID prefix, unique on the page.
    static func life(
        of transactionID: UInt64, stored: StoredTransaction?, install: Install, ledger: [Delivery],
        notifications: [ServerNotification] = [], id: String
    ) -> MustacheValue {
        let added = TransactionLife.heartsAdded(ledger: ledger, hearts: install.hearts)
        let handled = zip(ledger, added).filter { $0.0.transactionID == transactionID }
            .map { TransactionLife.Handled(delivery: $0.0, addedHeart: $0.1) }
        let life = TransactionLife(
            transactionID: transactionID, installID: install.id, stored: stored, deliveries: handled,
            notifications: notifications)
        return [
            "transactionID": .string(String(transactionID)), "installID": .string(install.id),
            "installShort": .string(ViewModels.shortID(install.id)), "installLabel": .string(install.label),
            "hasInstallLabel": .bool(!install.label.isEmpty),
            "productID": .string(stored?.transaction.productID ?? handled.first?.delivery.productID ?? ""),
            "isStored": .bool(stored != nil), "diagram": life.diagram.drawing(id: id),
        ]
    }
}
