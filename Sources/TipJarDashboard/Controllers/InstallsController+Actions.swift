import Foundation
import HTTPServer
import TipJar

/// The app's actions on an install, as form posts. Each works without JavaScript (303 to the install page, keeping
/// the text size) and Restore, with `X-Fragment: 1`, answers the fragments `app.js` swaps into place.
extension InstallsController {
    func registerActions(in router: inout Router<DashboardContext>) {
        router.post("/installs") { _, context in try await createInstall(context) }
        router.post("/installs/:id/restore") { request, context in
            let id = try context.installID()
            return try await screen.onScreen(context, installID: id) { try await restore(context, installID: id) }
        }
        router.post("/installs/:id/launch") { request, context in
            let id = try context.installID()
            _ = try await service.stop(installID: id)
            _ = try await service.launch(installID: id)
            // Back to where the action was: the fragment names the App controls' heading (tabindex=-1), so the
            // focus lands there without JavaScript, not on <body>. The relaunched app loads its tips again, so the
            // page answers at once with the loading skeleton: app.js loads the tips in place, and without JavaScript
            // the page's refresh loads them (`?load=now`), back at the same heading.
            return .redirect(to: "/installs/\(id)?relaunched=1\(FormValues.textSizeQuery(context))#actions")
        }
        router.post("/installs/:id/stop") { request, context in
            let id = try context.installID()
            _ = try await service.stop(installID: id)
            return .redirect(to: "/installs/\(id)?load=now\(FormValues.textSizeQuery(context))#actions")
        }
        router.post("/installs/:id/label") { request, context in
            let id = try context.installID()
            _ = try await service.setLabel(context.form["label"] ?? "", installID: id)
            return .redirect(to: "/installs/\(id)?load=now\(FormValues.textSizeQuery(context))")
        }
        router.post("/installs/:id/storefront") { request, context in
            let id = try context.installID()
            _ = try await service.setStorefront(context.form["storefront"] ?? "", installID: id)
            return .redirect(to: "/installs/\(id)?load=now\(FormValues.textSizeQuery(context))")
        }
    }

    func createInstall(_ context: DashboardContext) async throws -> HTTPResponse {
        let form = context.form
        guard let locale = AppLocale(rawValue: form["locale"] ?? "") else {
            throw RequestError(message: "locale must be en or pt-BR.")
        }
        let (legacyHasTipped, launch) = (try FormValues.checkbox(form, "legacyHasTipped"), try FormValues.checkbox(form, "launch"))
        let install = try await service.createInstall(
            locale: locale, storefront: form["storefront"], accountID: form["accountID"],
            label: form["label"] ?? "", legacyHasTipped: legacyHasTipped)
        if launch { _ = try await service.launch(installID: install.id) }
        return .redirect(to: "/installs/\(install.id)")
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
            return try await screen.liveFragments(installID: installID, feedback: feedback, textSize: FormValues.textSize(context))
        }
        return .redirect(to: "/installs/\(installID)?load=now&\(feedback.query)\(FormValues.textSizeQuery(context))\(FeedbackOnce.marker())")
    }
}
