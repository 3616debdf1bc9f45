/// An error `Product.purchase()` can throw, by name: every `StoreKitError`
/// (https://developer.apple.com/documentation/storekit/storekiterror) and every `Product.PurchaseError`
/// (https://developer.apple.com/documentation/storekit/product/purchaseerror). No name is in both, so one
/// string names the error; the store settings `purchaseError` and `failures.purchase` hold one. Encoded as that
/// name; an unknown name does not decode.
public struct PurchaseFailure: RawRepresentable, Hashable, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// The error's case name, e.g. `networkError` or `invalidQuantity`.
    public let rawValue: String

    /// The failure named `rawValue`, or `nil` when neither error type has a case of that name.
    public init?(rawValue: String) {
        guard StoreKitError(rawValue: rawValue) != nil || Product.PurchaseError(rawValue: rawValue) != nil else { return nil }
        self.rawValue = rawValue
    }

    /// The `StoreKitError` of the same name.
    public init(_ error: StoreKitError) { rawValue = error.rawValue }

    /// The `Product.PurchaseError` of the same name.
    public init(_ error: Product.PurchaseError) { rawValue = error.rawValue }

    /// Every `StoreKitError`, then every `Product.PurchaseError`, in their declaration order.
    public static let allCases: [PurchaseFailure] =
        StoreKitError.allCases.map(PurchaseFailure.init)
        + Product.PurchaseError.allCases.map(PurchaseFailure.init)

    /// `StoreKitError.networkError`, the default error of a failed purchase.
    public static let networkError = PurchaseFailure(StoreKitError.networkError)
    /// `StoreKitError.userCancelled` (the thrown form; the tip jar treats it as a silent cancel).
    public static let userCancelled = PurchaseFailure(StoreKitError.userCancelled)

    /// The error to throw: a `StoreKitError` or a `Product.PurchaseError`.
    public var error: any Error & LocalizedMessage & Sendable {
        if let error = StoreKitError(rawValue: rawValue) { return error }
        return Product.PurchaseError(rawValue: rawValue) ?? StoreKitError.unknown
    }

    /// `StoreKitError` or `Product.PurchaseError`, for labels on `/store`.
    public var typeName: String { StoreKitError(rawValue: rawValue) != nil ? "StoreKitError" : "Product.PurchaseError" }

    /// The case name.
    public var description: String { rawValue }
}
