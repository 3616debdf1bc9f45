import Foundation
import HTTPServer
import TipJar

/// Form posts. Each works without JavaScript (303 to the page that shows the result) and, with
/// `X-Fragment: 1`, answers the fragments `app.js` swaps into place.
extension Routes {
    func registerActions(in router: inout Router<DashboardContext>) {
        router.post("/installs") { _, context in try await createInstall(context) }
        router.post("/installs/:id/purchases") { request, context in
            let id = try context.installID()
            return try await onScreen(context, installID: id) { try await purchase(context, installID: id) }
        }
        router.post("/installs/:id/restore") { request, context in
            let id = try context.installID()
            return try await onScreen(context, installID: id) { try await restore(context, installID: id) }
        }
        router.post("/installs/:id/launch") { request, context in
            let id = try context.installID()
            _ = try await service.stop(installID: id)
            _ = try await service.launch(installID: id)
            return .redirect(to: "/installs/\(id)?load=now\(Self.textSizeQuery(context))")
        }
        router.post("/installs/:id/stop") { request, context in
            let id = try context.installID()
            _ = try await service.stop(installID: id)
            return .redirect(to: "/installs/\(id)?load=now\(Self.textSizeQuery(context))")
        }
        router.post("/installs/:id/label") { request, context in
            let id = try context.installID()
            _ = try await service.setLabel(context.form["label"] ?? "", installID: id)
            return .redirect(to: "/installs/\(id)?load=now\(Self.textSizeQuery(context))")
        }
        router.post("/installs/:id/storefront") { request, context in
            let id = try context.installID()
            _ = try await service.setStorefront(context.form["storefront"] ?? "", installID: id)
            return .redirect(to: "/installs/\(id)?load=now\(Self.textSizeQuery(context))")
        }
        router.post("/store") { request, context in
            let group = try StoreFormGroup(form: context.form)
            try await service.updateStore(try group?.settings(fromForm: context.form, current: service.store.settings) ?? Self.settings(fromForm: context.form))
            return .redirect(to: StoreFlash(kind: group?.savedFlash ?? .saved).location)
        }
        router.post("/store/pending/:tid/approve") { request, context in
            let id = try context.transactionID()
            let delivery = try await service.approve(transactionID: id)
            return try await delivered(.approved, transactionID: id, delivery: delivery)
        }
        router.post("/store/pending/:tid/decline") { request, context in
            let id = try context.transactionID()
            let stored = try await service.decline(transactionID: id)
            return .redirect(to: StoreFlash(kind: .declined, transactionID: id, install: ViewModels.shortID(stored.installID)).location)
        }
        router.post("/store/interrupted/:tid/resolve") { request, context in
            let id = try context.transactionID()
            let delivery = try await service.resolveIssue(transactionID: id)
            return try await delivered(.resolved, transactionID: id, delivery: delivery)
        }
        router.post("/store/transactions/:tid/refund") { request, context in
            let reason = context.form["reason"].flatMap(Transaction.RevocationReason.init(rawValue:)) ?? .other
            let id = try context.transactionID()
            let delivery = try await service.refund(transactionID: id, reason: reason)
            return try await delivered(.refunded, transactionID: id, delivery: delivery)
        }
        router.post("/store/external-purchases") { request, context in
            let form = context.form
            let installID = try await pickInstall(form["installID"] ?? "")
            let (stored, delivery) = try await service.externalPurchase(productID: form["productID"] ?? "", installID: installID)
            return try await delivered(.external, transactionID: stored.transaction.id, delivery: delivery, installID: installID)
        }
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

    func createInstall(_ context: DashboardContext) async throws -> HTTPResponse {
        let form = context.form
        guard let locale = AppLocale(rawValue: form["locale"] ?? "") else {
            throw RequestError(message: "locale must be en or pt-BR.")
        }
        let (legacyHasTipped, launch) = (try Self.checkbox(form, "legacyHasTipped"), try Self.checkbox(form, "launch"))
        let install = try await service.createInstall(
            locale: locale, storefront: form["storefront"], accountID: form["accountID"],
            label: form["label"] ?? "", legacyHasTipped: legacyHasTipped)
        if launch { _ = try await service.launch(installID: install.id) }
        return .redirect(to: "/installs/\(install.id)")
    }

    func purchase(_ context: DashboardContext, installID: String) async throws -> HTTPResponse {
        let productID = context.form["productID"] ?? ""
        return try await purchaseAnswered(
            context, installID: installID,
            report: try await service.purchase(productID: productID, installID: installID))
    }

    func restore(_ context: DashboardContext, installID: String) async throws -> HTTPResponse {
        let install = try await service.install(installID)
        var feedback: Feedback
        do {
            let report = try await service.restore(installID: installID)
            feedback = Feedback(kind: .restored, count: report.deliveries.count, locale: install.locale)
        } catch let error as StoreKitError {
            feedback = Feedback(kind: .restoreFailed, errorName: error.rawValue, locale: install.locale)
        }
        if context.wantsFragment {
            return try await liveFragments(install: try await service.install(installID), feedback: feedback)
        }
        return .redirect(to: "/installs/\(installID)?load=now&\(feedback.query)\(Self.textSizeQuery(context))\(FeedbackOnce.marker())")
    }

    /// `&textSize=…` when the form carried a known text size other than the default (Large), so a no-JavaScript
    /// user keeps it across the redirect (``TextSize``: an earlier name is passed on as today's).
    static func textSizeQuery(_ context: DashboardContext) -> String {
        guard let size = TextSize(value: context.form["textSize"]), size != .default else { return "" }
        return "&textSize=\(size.rawValue)"
    }

    /// A checkbox of a form: a checked box sends its `value` (`on` when it has none,
    /// https://html.spec.whatwg.org/#constructing-the-form-data-set), an unchecked one nothing. `on`, `true`
    /// and `1` are checked (ASCII case ignored), an absent field is unchecked, anything else is refused.
    /// - Throws: `RequestError` (400) naming the field.
    static func checkbox(_ form: [String: String], _ name: String) throws -> Bool {
        guard let raw = form[name] else { return false }
        guard ["on", "true", "1"].contains(raw.lowercased()) else {
            throw RequestError(message: "\(name) must be on, true or 1 when checked, and absent when not.")
        }
        return true
    }

    /// Reads the `/store` form into settings, one field per ``StoreSettings/declarations`` entry (its
    /// ``StoreSetting/formName``): a choice must be one of its values (an optional one may be empty: off), a number
    /// a whole number in its range (empty is 0), a checkbox is ticked when it posts `1`.
    /// - Throws: `RequestError` naming the first bad field.
    static func settings(fromForm form: [String: String]) throws -> StoreSettings {
        try StoreFormGroup.read(form, StoreSettings.declarations, onto: .normal)
    }
}
