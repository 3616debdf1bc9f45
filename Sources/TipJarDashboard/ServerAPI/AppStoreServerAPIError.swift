import Foundation
import HTTPServer

/// An App Store Server API error answer: Apple's `ErrorResponse` body, `{"errorCode": …, "errorMessage": …}`, with
/// Apple's codes (https://developer.apple.com/documentation/appstoreserverapi/error-codes; the numbers are those of the
/// `APIError` enum of Apple's App Store Server Library, `appstoreserverlibrary/api_client.py`,
/// https://github.com/apple/app-store-server-library-python). Sent as `Content-Type: application/json` exactly, with
/// no parameter: the library reads an error's code only from that media type.
struct AppStoreServerAPIError: Error, Equatable {
    var status: HTTPStatus
    /// Apple's code; `nil` for an answer Apple names no code for (the admin token's 401, an unknown path's 404, a 415),
    /// whose body then holds `errorMessage` alone.
    var code: Int?
    var message: String

    /// `GeneralBadRequestError` (4000000).
    static func generalBadRequest(_ message: String) -> Self { Self(status: .badRequest, code: 4_000_000, message: message) }
    /// `InvalidRequestRevisionError` (4000005).
    static let invalidRevision = Self(status: .badRequest, code: 4_000_005, message: "Invalid request revision.")
    /// `InvalidTransactionIdError` (4000006).
    static let invalidTransactionID = Self(status: .badRequest, code: 4_000_006, message: "Invalid transaction id.")
    /// `StartDateAfterEndDateError` (4000013).
    static let startDateAfterEndDate = Self(status: .badRequest, code: 4_000_013, message: "Invalid request. The end date precedes the start date or the dates are the same.")
    /// `InvalidStartDateError` (4000015).
    static let invalidStartDate = Self(status: .badRequest, code: 4_000_015, message: "Invalid request. The start date is not a timestamp value in milliseconds.")
    /// `InvalidEndDateError` (4000016).
    static let invalidEndDate = Self(status: .badRequest, code: 4_000_016, message: "Invalid request. The end date is not a timestamp value in milliseconds.")
    /// `InvalidSortError` (4000021).
    static let invalidSort = Self(status: .badRequest, code: 4_000_021, message: "Invalid request. The sort parameter is invalid: ASCENDING or DESCENDING.")
    /// `InvalidProductTypeError` (4000022).
    static let invalidProductType = Self(
        status: .badRequest, code: 4_000_022, message: "Invalid request. The product type parameter is invalid: AUTO_RENEWABLE, NON_RENEWABLE, CONSUMABLE or NON_CONSUMABLE.")
    /// `InvalidProductIdError` (4000023).
    static let invalidProductID = Self(status: .badRequest, code: 4_000_023, message: "Invalid request. The product id parameter is invalid.")
    /// `InvalidInAppOwnershipTypeError` (4000026).
    static let invalidInAppOwnershipType = Self(
        status: .badRequest, code: 4_000_026, message: "Invalid request. The in-app ownership type parameter is invalid: FAMILY_SHARED or PURCHASED.")
    /// `InvalidRevokedError` (4000030).
    static let invalidRevoked = Self(status: .badRequest, code: 4_000_030, message: "Invalid request. The revoked parameter is invalid: true or false.")
    /// `InvalidTransactionNotConsumableError` (4000043): Send Consumption Information v1 takes consumables only.
    static let notConsumable = Self(status: .badRequest, code: 4_000_043, message: "Invalid request. The transaction id parameter must represent a consumable in-app purchase.")
    /// `AppTransactionIdNotSupportedError` (4000048): "the endpoint doesn't support an app transaction ID"
    /// (https://developer.apple.com/documentation/appstoreserverapi/apptransactionidnotsupportederror).
    static let appTransactionIDNotSupported = Self(
        status: .badRequest, code: 4_000_048, message: "Invalid request. This endpoint takes a transactionId, not an appTransactionId.")
    /// `InvalidAppAccountTokenUUIDError` (4000183): "the app account token value is not a valid UUID"
    /// (https://developer.apple.com/documentation/appstoreserverapi/invalidappaccounttokenuuiderror).
    static let invalidAppAccountTokenUUID = Self(
        status: .badRequest, code: 4_000_183, message: "Invalid request. appAccountToken must be a UUID.")
    /// `StartDateTooFarInPastError` (4000012).
    static let startDateTooFarInPast = Self(status: .badRequest, code: 4_000_012, message: "Invalid request. The start date is earlier than the allowed start date.")
    /// `InvalidPaginationTokenError` (4000014).
    static let invalidPaginationToken = Self(status: .badRequest, code: 4_000_014, message: "Invalid request. The pagination token is invalid.")
    /// `InvalidNotificationTypeError` (4000018).
    static let invalidNotificationType = Self(status: .badRequest, code: 4_000_018, message: "Invalid request. The notification type or subtype is invalid.")
    /// `MultipleFiltersSuppliedError` (4000019): "Include either the transactionId or the notificationType in your query, but not both."
    static let multipleFiltersSupplied = Self(status: .badRequest, code: 4_000_019, message: "Invalid request. Too many filters: use either transactionId or notificationType.")
    /// `InvalidTestNotificationTokenError` (4000020).
    static let invalidTestNotificationToken = Self(status: .badRequest, code: 4_000_020, message: "Invalid request. The test notification token is invalid.")
    /// `ServerNotificationURLNotFoundError` (4040007): no notifications URL is set.
    static let notificationURLNotFound = Self(status: .notFound, code: 4_040_007, message: "No App Store Server Notifications URL is set for this app in this environment.")
    /// `TestNotificationNotFoundError` (4040008).
    static let testNotificationNotFound = Self(status: .notFound, code: 4_040_008, message: "Test notification not found.")
    /// `TransactionIdNotFoundError` (4040010).
    static let transactionIDNotFound = Self(status: .notFound, code: 4_040_010, message: "Transaction id not found.")

    /// The admin token's 401 under `/inApps/`: the `Authorization` field holds the App Store Server API's JWT, so the
    /// token goes in the cookie ``AdminTokenCheck`` also reads.
    static let adminTokenMessage =
        "This dashboard needs its admin token: send it as the \(AdminTokenCheck.cookieName) cookie (Authorization holds the App Store Server API's JWT)."

    /// A field of a consumption request body that is missing or has the wrong type or value: Apple's code for that field.
    static func invalidField(_ code: Int, _ field: String, _ expected: String) -> Self {
        Self(status: .badRequest, code: code, message: "Invalid request. \(field) is missing or invalid: \(expected).")
    }

    /// A request body with members Apple's request type does not define: `GeneralBadRequestError` naming them (Apple
    /// documents no code of its own for them).
    static func unknownFields(_ names: [String], of type: String) -> Self {
        let shown = names.sorted().prefix(5).map { "\"\($0.prefix(40))\"" }.joined(separator: ", ")
        let more = names.count > 5 ? " and \(names.count - 5) more" : ""
        return generalBadRequest("Invalid request. \(type) has no member \(shown)\(more).")
    }

    /// The answer: the status and Apple's body.
    var response: HTTPResponse {
        struct Body: Encodable {
            var errorCode: Int?
            var errorMessage: String
        }
        let data = (try? JSONEncoder().encode(Body(errorCode: code, errorMessage: message))) ?? Data()
        return .json(data: data, status: status)
    }

    /// The code Apple gives an error answer of `status` that no route chose (the middlewares', the router's): 4000000
    /// for a 400, 5000000 (`GeneralInternalError`) for a 500, 5000001 (`GeneralInternalRetryableError`) for a 503;
    /// none otherwise.
    static func code(forStatus status: HTTPStatus) -> Int? {
        switch status.code {
        case 400: 4_000_000
        case 500: 5_000_000
        case 503: 5_000_001
        default: nil
        }
    }
}
