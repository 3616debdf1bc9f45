/// Errors of the tip jar service that come from the request, not the store. The dashboard maps
/// each to an HTTP status (404, 422, 409, 400).
public enum TipJarError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No install has this ID.
    case installNotFound(String)
    /// The product is not a tip of the loaded catalog.
    case unknownProduct(String)
    /// A purchase is already open for this install (README "Domain rules": Purchase; two tabs, a double click).
    case purchaseInProgress(installID: String)
    /// The install is being deleted (the app is leaving the device), so nothing can be bought from it (409).
    case installBeingDeleted(String)
    /// The app has no `Product` for this product ID to call `purchase()` on: its last `Product.products(for:)`
    /// failed, came back empty, or did not return it (409).
    case productNotLoaded(productID: String, reason: ProductLoadGap)
    /// Confirm or Cancel for a purchase sheet that is no longer open (answered, timed out, or the app stopped).
    case noPurchaseSheet(installID: String)
    /// No transaction has this ID.
    case transactionNotFound(UInt64)
    /// No Ask to Buy request has this ID (a request's ID is not a transaction's).
    case askToBuyRequestNotFound(UInt64)
    /// The Ask to Buy request (by its ID) is not pending, so it cannot be approved or declined (409).
    case transactionNotPending(UInt64)
    /// The transaction is not an interrupted purchase, so there is no issue to resolve (409).
    case transactionNotInterrupted(UInt64)
    /// The transaction was already refunded; a refund happens once.
    case alreadyRefunded(UInt64)
    /// No refund request was received for this transaction.
    case refundRequestNotFound(UInt64)
    /// The transaction is not refunded, so no refund can be reversed.
    case notRefunded(UInt64)
    /// The refund request for this transaction was already decided, so it cannot be approved or declined (409).
    case refundRequestNotPending(UInt64)
    /// A value is outside what the simulator accepts.
    case invalidValue(field: String, reason: String)

    /// A sentence for the person, safe to show: an ID quoted from the request goes through
    /// ``Catalog/shownInput(_:limit:)`` (shortened, control characters escaped as `\u{0}`).
    public var description: String {
        switch self {
        case .installNotFound(let id): "No install has the ID \(Catalog.shownInput(id))."
        case .unknownProduct(let id): "\(Catalog.shownInput(id)) is not a tip in the loaded catalog."
        case .purchaseInProgress: "A purchase is already open for this install. Wait for it to finish."
        case .installBeingDeleted: "This install is being deleted: nothing can be bought from it."
        case .productNotLoaded(_, let reason): "The app has not loaded this product: \(reason.sentence)."
        case .noPurchaseSheet: "No purchase sheet is open for this install: it was answered, timed out or closed when the app stopped."
        case .transactionNotFound(let id): "No transaction has the ID \(id)."
        case .askToBuyRequestNotFound(let id): "No Ask to Buy request has the ID \(id)."
        case .transactionNotPending(let id): "Ask to Buy request \(id) is not waiting for approval."
        case .transactionNotInterrupted(let id): "Transaction \(id) is not an interrupted purchase."
        case .alreadyRefunded(let id): "Transaction \(id) was already refunded."
        case .notRefunded(let id): "Transaction \(id) is not refunded: there is no refund to reverse."
        case .refundRequestNotFound(let id): "No refund request was received for transaction \(id)."
        case .refundRequestNotPending(let id): "The refund request for transaction \(id) was already decided."
        case .invalidValue(let field, let reason): "\(field): \(reason)"
        }
    }
}

/// Why the app holds no `Product` to purchase (``TipJarError/productNotLoaded(productID:reason:)``).
public enum ProductLoadGap: String, Sendable, Equatable {
    /// The last `Product.products(for:)` threw.
    case loadFailed
    /// The last `Product.products(for:)` returned no products.
    case empty
    /// The last `Product.products(for:)` returned other products, not this one.
    case notReturned

    /// The reason in English, without a capital or a period: `the last load failed`.
    public var sentence: String {
        switch self {
        case .loadFailed: "the last load failed"
        case .empty: "the last load returned no products"
        case .notReturned: "the last load did not return it"
        }
    }
}
