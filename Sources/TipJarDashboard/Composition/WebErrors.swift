import HTTPServer
import TipJar

/// How the web layer reads the errors it meets: the storage's by what a person can do about them, every other one
/// by the status it knows, or left to ``MiddlewareChain`` (`nil`: one 500 with the request ID).
enum WebErrors {
    /// The storage's errors, by what a person can do about them: 503, nothing was changed
    /// (``StorageUnavailable/problem``), with what the storage found when it says more
    /// (``StorageUnavailable/detail(of:)``: a damaged file, what its check found). A moved database file is not
    /// logged again (`DatabaseConfiguration.onFault` logged it once, when the writer found it), nor an error with a
    /// detail (the storage logged it once, when it found it). Every other error is left to the chain (`nil`: a 500
    /// with the request ID).
    static func storageFailure(_ error: any Error) -> (any HTTPResponseError)? {
        guard let unavailable = StorageUnavailable.of(error) else { return nil }
        let (status, title, message) = unavailable.problem
        if let detail = StorageUnavailable.detail(of: error) {
            return HTTPError(status, title: title, message: "\(detail) Nothing was changed.", isLogged: false)
        }
        return HTTPError(status, title: title, message: message, isLogged: !unavailable.isFileMoved)
    }

    /// The answer an error gets, as ``MiddlewareChain`` gives it: its own, the storage's, or `nil` for a 500.
    static func knownError(_ error: any Error) -> (any HTTPResponseError)? {
        (error as? any HTTPResponseError) ?? storageFailure(error)
    }
}

/// The web's reading of the core's errors: a missing install or transaction is 404, an unknown product
/// 422, a state that forbids the action 409, a bad value 400 (RFC 9110 §15.5).
extension TipJarError: HTTPResponseError {
    /// The status the error answers with.
    public var status: HTTPStatus {
        switch self {
        case .installNotFound, .transactionNotFound, .askToBuyRequestNotFound, .refundRequestNotFound: .notFound
        case .unknownProduct: .unprocessableContent
        case .purchaseInProgress, .installBeingDeleted, .productNotLoaded, .noPurchaseSheet, .transactionNotPending, .transactionNotInterrupted, .alreadyRefunded, .refundRequestNotPending: .conflict
        case .notRefunded: .conflict
        case .invalidValue: .badRequest
        }
    }

    /// `Not found`, `Unknown product`, `Conflict` or `Bad value`.
    public var title: String {
        switch self {
        case .installNotFound, .transactionNotFound, .askToBuyRequestNotFound, .refundRequestNotFound: "Not found"
        case .unknownProduct: "Unknown product"
        case .purchaseInProgress, .installBeingDeleted, .productNotLoaded, .noPurchaseSheet, .transactionNotPending, .transactionNotInterrupted, .alreadyRefunded, .refundRequestNotPending: "Conflict"
        case .notRefunded: "Conflict"
        case .invalidValue: "Bad value"
        }
    }

    /// The error's description.
    public var message: String { description }
}

/// A malformed request value (form field, JSON body, path parameter) → 400 (or the given status).
struct RequestError: HTTPResponseError, Sendable {
    var status: HTTPStatus = .badRequest
    var message: String
    var title: String { status == .notFound ? "Not found" : "Bad request" }
}
