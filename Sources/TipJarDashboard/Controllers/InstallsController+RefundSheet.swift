import Foundation
import HTTPServer
import TipJar

/// The app's refund sheet: `Transaction.beginRefundRequest(in:)`
/// (https://developer.apple.com/documentation/storekit/transaction/beginrefundrequest(in:)-4w6kn) on a transaction the
/// install's ledger counted. A page in the screen's text size without JavaScript, a modal dialog over the install page
/// with it (`X-Fragment: 1`); its answer is the install's feedback line, as a purchase's is.
extension InstallsController {
    func registerRefundSheet(in router: inout Router<DashboardContext>) {
        router.get("/installs/:id/transactions/:tid/refund-sheet") { request, context in
            let (installID, transactionID) = (try context.installID(), try context.transactionID())
            let install = try await service.install(installID)
            guard let stored = try await service.records.transaction(withID: transactionID) else {
                throw TipJarError.transactionNotFound(transactionID)
            }
            return try await renderer.withFormSession(context) { csrfToken in
                let strings = TipJarStrings.of(install.locale)
                var data = renderer.pageData(context, nav: "installs", csrfToken: csrfToken)
                data["sheet"] = [
                    "title": .string(strings.refundTitle), "lang": .string(install.locale.rawValue),
                    "transactionID": .string(String(transactionID)), "productID": .string(stored.transaction.productID),
                    "productParts": ViewModels.breakable(stored.transaction.productID),
                    "action": .string("/installs/\(installID)/transactions/\(transactionID)/refund-request"),
                    "reasonLabel": .string(strings.refundReason), "developerIssue": .string(strings.refundReasonDeveloperIssue),
                    "other": .string(strings.refundReasonOther), "submit": .string(strings.refundSubmit),
                    "cancel": .string(strings.refundCancel),
                ]
                // In the screen's text size (the sheet is the system's, over the app); with `X-Fragment: 1` app.js
                // opens it as a modal dialog over the install page, without JavaScript it is this page.
                let size = TextSize(value: request.queryValue("textSize")) ?? .default
                data["textSize"] = .string(size.rawValue)
                data["textSizeClasses"] = .string(size.classes)
                data["inDialog"] = .bool(context.wantsFragment)
                return try renderer.html(context.wantsFragment ? "fragments/refund-sheet" : "pages/refund-sheet", data)
            }
        }
        router.post("/installs/:id/transactions/:tid/refund-request") { request, context in
            let (installID, transactionID) = (try context.installID(), try context.transactionID())
            let (userAction, reason) = try Self.refundSheetAnswer(context.form)
            let install = try await service.install(installID)
            let feedback: Feedback
            do {
                let status = try await service.beginRefundRequest(
                    transactionID: transactionID, installID: installID, userAction: userAction, reason: reason)
                feedback = Feedback(kind: status == .success ? .refundRequested : .refundCancelled, locale: install.locale)
            } catch let error as Transaction.RefundRequestError {
                feedback = Feedback(kind: .refundFailed, errorName: error.rawValue, locale: install.locale)
            } catch let error as StoreKitError {
                feedback = Feedback(kind: .refundFailed, errorName: error.rawValue, locale: install.locale)
            }
            return .redirect(to: "/installs/\(installID)?\(feedback.query)\(FormValues.textSizeQuery(context))\(FeedbackOnce.marker())")
        }
    }

    /// The sheet's answer from a form or JSON body: `userAction` `submit` or `cancel`, and an optional `reason`
    /// (`developerIssue` or `other`).
    /// - Throws: `RequestError` for another value.
    static func refundSheetAnswer(_ form: [String: String]) throws -> (RefundRequest.UserAction, Transaction.RevocationReason?) {
        guard let userAction = RefundRequest.UserAction(rawValue: form["userAction"] ?? "") else {
            throw RequestError(message: "userAction must be submit or cancel.")
        }
        let reason = form["reason"].flatMap { $0.isEmpty ? nil : $0 }
        guard let reason else { return (userAction, nil) }
        guard let typed = Transaction.RevocationReason(rawValue: reason) else {
            throw RequestError(message: "reason must be developerIssue or other.")
        }
        return (userAction, typed)
    }
}
