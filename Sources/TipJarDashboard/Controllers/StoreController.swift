import Foundation
import HTTPServer
import TipJar

/// The store: `/store` and its settings forms, the Ask to Buy queue (approve, decline), the interrupted purchases
/// (resolve), the refund requests from the app (approve, decline), refunds, purchases outside the app, and the reset to the file's settings with its confirmation page.
/// Every action works without JavaScript and answers 303 to `/store?flash=…#section` (``StoreFlash``). Clearing and
/// deleting transactions, also offered on `/store`, are ``TransactionsController``'s (they change the store's
/// transactions, not its settings); scenario runs are ``ScenariosController``'s.
struct StoreController: DashboardController {
    let service: TipJarService
    /// Rendered pages by request and data version; see ``PageCache``.
    let pageCache: PageCache
    let renderer: PageRenderer
    /// The scenario files offered for download on `/store`, read once from `Public/scenarios/`.
    let scenarioDownloads: [ScenarioDownload]
    /// The install a purchase outside the app goes to, and the list `/store` offers.
    let installPicker: InstallPicker

    func register(in router: inout Router<DashboardContext>) {
        router.get("/store") { request, context in
            try await pageCache.formPage(request, context) { try await storePage(request, context, csrfToken: $0) }
        }
        router.post("/store") { request, context in
            let group = try StoreFormGroup(form: context.form)
            try await service.updateStore(try group?.settings(fromForm: context.form, current: service.settings) ?? Self.settings(fromForm: context.form))
            return .redirect(to: StoreFlash(kind: group?.savedFlash ?? .saved).location)
        }
        // The path's ID is the Ask to Buy request's, not a transaction's; the flash names the transaction approval issued.
        router.post("/store/pending/:tid/approve") { request, context in
            let approved = try await service.approve(requestID: try context.transactionID())
            let issued = approved.transaction
            return try await delivered(.approved, transactionID: issued.transaction.id, delivery: approved.delivery, installID: issued.installID)
        }
        router.post("/store/pending/:tid/decline") { request, context in
            let id = try context.transactionID()
            let declined = try await service.decline(requestID: id)
            return .redirect(to: StoreFlash(kind: .declined, transactionID: id, install: ViewModels.shortID(declined.installID)).location)
        }
        // The path's ID is the interrupted purchase's own; resolving issues a new transaction, which the flash names.
        router.post("/store/interrupted/:tid/resolve") { request, context in
            let resolved = try await service.resolveIssue(transactionID: try context.transactionID())
            let issued = resolved.transaction
            return try await delivered(.resolved, transactionID: issued.transaction.id, delivery: resolved.delivery, installID: issued.installID)
        }
        router.post("/store/transactions/:tid/refund") { request, context in
            let form = context.form
            let reason = form["reason"].flatMap(Transaction.RevocationReason.init(rawValue:)) ?? .other
            guard let type = Transaction.RevocationType(rawValue: form["revocationType"] ?? "REFUND_FULL") else {
                throw RequestError(message: "revocationType must be REFUND_FULL or REFUND_PRORATED.")
            }
            let share = (form["revocationPercentage"] ?? "").trimmingCharacters(in: .whitespaces)
            guard share.isEmpty || Int(share) != nil else {
                throw RequestError(message: "revocationPercentage must be a whole number of milliunits from 0 to 100000.")
            }
            let id = try context.transactionID()
            let delivery = try await service.refund(
                transactionID: id, reason: reason, type: type, percentage: type == .fullRefund ? nil : Int(share))
            return try await delivered(.refunded, transactionID: id, delivery: delivery)
        }
        // The path's ID is the transaction the app asked to refund (one request per transaction).
        router.post("/store/refund-requests/:tid/approve") { request, context in
            let id = try context.transactionID()
            let approved = try await service.approveRefundRequest(transactionID: id)
            return try await delivered(.refundApproved, transactionID: id, delivery: approved.delivery, installID: approved.request.installID)
        }
        router.post("/store/refund-requests/:tid/decline") { request, context in
            let id = try context.transactionID()
            let declined = try await service.declineRefundRequest(transactionID: id)
            return .redirect(to: StoreFlash(kind: .refundDeclined, transactionID: id, install: ViewModels.shortID(declined.installID)).location)
        }
        router.post("/store/external-purchases") { request, context in
            let form = context.form
            let installID = try await installPicker.pickInstall(form["installID"] ?? "")
            let (stored, delivery) = try await service.externalPurchase(productID: form["productID"] ?? "", installID: installID)
            return try await delivered(.external, transactionID: stored.transaction.id, delivery: delivery, installID: installID)
        }
        router.get("/confirm/store-reset") { request, context in
            try await renderer.confirmPage(
                context, title: "Reset to the file's settings?",
                message:
                    "Every store setting goes back to a healthy store with what \(renderer.catalogName) sets (SKTestSession.resetToDefaultState()). Transactions and installs are kept.",
                action: "/store/reset", button: "Reset the settings", cancel: "/store")
        }
        router.post("/store/reset") { request, context in
            try await service.resetStore()
            return .redirect(to: StoreFlash(kind: .reset).location)
        }
    }

    func storePage(_ request: HTTPRequest, _ context: DashboardContext, csrfToken: String) async throws -> HTTPResponse {
        let settings = service.settings
        var mismatch: (asked: [String], held: [String])?
        if settings.catalog == .mismatch { mismatch = (service.catalog.tips.map(\.productID), service.storeProductIDs) }
        let page = StorePageModel(
            chrome: renderer.chrome(context, nav: "store", csrfToken: csrfToken), settings: settings, fileSettings: service.catalog.fileSettings,
            flash: StoreFlash(query: request.queryValue), scenarios: scenarioDownloads, mismatch: mismatch,
            pending: try await service.records.pendingTransactions(), interrupted: try await service.interruptedTransactions(),
            refundRequests: try await service.records.refundRequests(),
            transactions: try await service.records.recentTransactions(limit: 50), productIDs: service.catalog.products.map(\.productID),
            installChoices: try await installPicker.installChoices(), sheetTimeoutMinutes: Int(service.purchaseSheetTimeout / 60))
        return try renderer.html("pages/store", page: page)
    }

    /// The redirect after a `/store` action the listener delivered (or queued for the install's next launch):
    /// the flash states which, with the outcome and the hearts after it.
    func delivered(_ kind: StoreFlash.Kind, transactionID: UInt64, delivery: Delivery?, installID: String? = nil) async throws -> HTTPResponse {
        var installID = delivery?.installID ?? installID
        if installID == nil { installID = try await service.records.transaction(withID: transactionID)?.installID }
        guard let installID else { return .redirect(to: StoreFlash(kind: kind).location) }
        let hearts = try await service.install(installID).hearts
        return .redirect(to: StoreFlash.delivered(kind, transactionID: transactionID, installID: installID, delivery: delivery, hearts: hearts).location)
    }

    /// Reads the `/store` form into settings, one field per ``StoreSettings/declarations`` entry (its
    /// ``StoreSetting/formName``): a choice must be one of its values (an optional one may be empty: off), a number
    /// a whole number in its range (empty is 0), a checkbox is ticked when it posts `1`.
    /// - Throws: `RequestError` naming the first bad field.
    static func settings(fromForm form: [String: String]) throws -> StoreSettings {
        try StoreFormGroup.read(form, StoreSettings.declarations, onto: .normal)
    }
}
