import Foundation
import HTTPServer
import TipJar

/// The JSON API of refund requests from the app: the app's `Transaction.beginRefundRequest(in:)`
/// (https://developer.apple.com/documentation/storekit/transaction/beginrefundrequest(in:)-4w6kn) and the store's
/// queue of them, approved or declined.
extension APIController {
    /// The app's refund sheet answered as JSON.
    struct RefundRequestBody: Decodable {
        var userAction: String
        var reason: String?
    }

    /// A refund request as the API shows it; `reason` and `decidedAt` are left out when there are none.
    struct RefundRequestRecord: Encodable {
        var transactionID: UInt64
        var installID: String
        var accountID: String
        var productID: String
        var reason: String?
        var requestedAt: String
        var state: String
        var decidedAt: String?

        init(_ request: RefundRequest) {
            transactionID = request.transactionID
            installID = request.installID
            accountID = request.accountID
            productID = request.productID
            reason = request.reason?.rawValue
            requestedAt = ViewModels.isoMilliseconds(request.requestedAt)
            state = request.state.rawValue
            decidedAt = request.decidedAt.map(ViewModels.isoMilliseconds)
        }
    }

    func registerRefundRequests(in router: inout Router<DashboardContext>) {
        // `{"status": "success" | "userCancelled"}`, or what `beginRefundRequest` threw with its name: 409 for a
        // duplicateRequest, 503 for `failed` or an injected StoreKitError (as a restore's StoreKit error).
        router.post("/api/installs/:id/transactions/:tid/refund-request") { request, context in
            let (installID, transactionID) = (try context.installID(), try context.transactionID())
            let body = try JSONBody.decode(RefundRequestBody.self, from: request, fields: ["userAction", "reason"])
            var fields = ["userAction": body.userAction]
            if let reason = body.reason { fields["reason"] = reason }
            let (userAction, reason) = try InstallsController.refundSheetAnswer(fields)
            let install = try await service.install(installID)
            do {
                let status = try await service.beginRefundRequest(
                    transactionID: transactionID, installID: installID, userAction: userAction, reason: reason)
                return JSONBody.response(["status": status.rawValue])
            } catch let error as Transaction.RefundRequestError {
                return JSONBody.response(
                    ["error": error.message(locale: install.locale), "errorName": error.rawValue],
                    status: error == .duplicateRequest ? .conflict : .serviceUnavailable)
            } catch let error as StoreKitError {
                return JSONBody.response(["error": error.message(locale: install.locale), "errorName": error.rawValue], status: .serviceUnavailable)
            }
        }
        router.get("/api/store/refund-requests") { request, context in
            JSONBody.response(try await service.records.refundRequests().map(RefundRequestRecord.init))
        }
        // The path's ID is the transaction the app asked to refund; approval answers it, revoked, with its delivery.
        router.post("/api/store/refund-requests/:tid/approve") { request, context in
            let id = try context.transactionID()
            let approved = try await service.approveRefundRequest(transactionID: id)
            return try await transactionResponse(id, delivery: approved.delivery)
        }
        router.post("/api/store/refund-requests/:tid/decline") { request, context in
            JSONBody.response(RefundRequestRecord(try await service.declineRefundRequest(transactionID: try context.transactionID())))
        }
    }
}
