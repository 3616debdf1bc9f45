/// An error `Product.purchase()` can throw, by name: every `StoreKitError`
/// (https://developer.apple.com/documentation/storekit/storekiterror) and every `Product.PurchaseError`
/// (https://developer.apple.com/documentation/storekit/product/purchaseerror). No name is in both, so one
/// string names the error; the store settings `purchaseError` and `failures.purchase` hold one.
public enum PurchaseFailure: String, Sendable, CaseIterable, Codable {
    /// `StoreKitError.networkError`.
    case networkError
    /// `StoreKitError.systemError`.
    case systemError
    /// `StoreKitError.userCancelled` (the thrown form; the tip jar treats it as a silent cancel).
    case userCancelled
    /// `StoreKitError.notAvailableInStorefront`.
    case notAvailableInStorefront
    /// `StoreKitError.notEntitled`.
    case notEntitled
    /// `StoreKitError.unknown`.
    case unknown
    /// `StoreKitError.unsupported`.
    case unsupported
    /// `Product.PurchaseError.invalidQuantity`.
    case invalidQuantity
    /// `Product.PurchaseError.productUnavailable`.
    case productUnavailable
    /// `Product.PurchaseError.purchaseNotAllowed`.
    case purchaseNotAllowed
    /// `Product.PurchaseError.ineligibleForOffer`.
    case ineligibleForOffer
    /// `Product.PurchaseError.invalidOfferIdentifier`.
    case invalidOfferIdentifier
    /// `Product.PurchaseError.invalidOfferPrice`.
    case invalidOfferPrice
    /// `Product.PurchaseError.invalidOfferSignature`.
    case invalidOfferSignature
    /// `Product.PurchaseError.missingOfferParameters`.
    case missingOfferParameters

    /// The `StoreKitError` of the same name.
    public init(_ error: StoreKitError) {
        self = PurchaseFailure(rawValue: error.rawValue) ?? .unknown
    }

    /// The error to throw: a `StoreKitError` or a `Product.PurchaseError`.
    public var error: any Error & LocalizedMessage & Sendable {
        if let error = StoreKitError(rawValue: rawValue) { return error }
        return Product.PurchaseError(rawValue: rawValue) ?? StoreKitError.unknown
    }

    /// `StoreKitError` or `Product.PurchaseError`, for labels on `/store`.
    public var typeName: String { StoreKitError(rawValue: rawValue) != nil ? "StoreKitError" : "Product.PurchaseError" }
}
