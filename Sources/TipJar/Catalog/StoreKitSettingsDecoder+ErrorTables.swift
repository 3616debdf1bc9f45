import Foundation

/// The tables that turn the numbers a `.storekit` file's `settings` holds into the errors the simulated store
/// throws: `_storeKitErrors`' `current` (`{"type": …, "index": …}`) and the legacy `_storeKitError`.
extension StoreKitSettingsDecoder {
    /// One `current.type` a `_storeKitErrors` entry can hold: a case of StoreKitTest's `SKTestFailures.<API>` enum
    /// (https://developer.apple.com/documentation/storekittest/sktestfailures), whose associated error
    /// `current.index` picks from `names`.
    struct ErrorKind: Equatable {
        /// `current.type`: the `SKTestFailures` case name (`generic`, `purchase`, `verification`).
        var type: String
        /// The Swift type of the errors, for the report (`StoreKitError`).
        var typeName: String
        /// The error names `current.index` indexes, position 0 first.
        var names: [String]

        /// `SKTestFailures.*.generic(StoreKitError)`, indexed by ``StoreKitSettingsDecoder/genericErrors``.
        static let generic = ErrorKind(type: "generic", typeName: "StoreKitError", names: genericErrors.map(\.rawValue))
        /// `SKTestFailures.Purchase.purchase(Product.PurchaseError)`, indexed by ``StoreKitSettingsDecoder/purchaseErrors``.
        static let purchase = ErrorKind(type: "purchase", typeName: "Product.PurchaseError", names: purchaseErrors.map(\.rawValue))
        /// `SKTestFailures.Verification.verification(VerificationError)`, indexed by
        /// ``StoreKitSettingsDecoder/verificationErrors``.
        static let verification = ErrorKind(
            type: "verification", typeName: "VerificationResult.VerificationError",
            names: verificationErrors.map(\.rawValue))
        /// `SKTestFailures.RefundRequest.refundRequest(Transaction.RefundRequestError)`, indexed by
        /// ``StoreKitSettingsDecoder/refundRequestErrors``.
        static let refundRequest = ErrorKind(
            type: "refundRequest", typeName: "Transaction.RefundRequestError", names: refundRequestErrors.map(\.rawValue))
    }

    /// `current.index` for `current.type` `generic` (`SKTestFailures.*.generic(StoreKitError)`): the position in
    /// `StoreKitError`'s declaration order in the StoreKit SDK's Swift interface (`unknown`, `userCancelled`,
    /// `networkError`, `systemError`, `notAvailableInStorefront`, `notEntitled`; iOS 17 SDK
    /// `StoreKit.swiftmodule/arm64-apple-ios.swiftinterface`), then `unsupported` (added in iOS 18.4,
    /// https://developer.apple.com/documentation/storekit/storekiterror). No Apple document states how Xcode
    /// numbers `current.index`; this order is the dashboard's choice (Sources/TipJar/README.md, "The file's settings").
    static let genericErrors: [StoreKitError] = [
        .unknown, .userCancelled, .networkError, .systemError,
        .notAvailableInStorefront, .notEntitled, .unsupported,
    ]

    /// `current.index` for `current.type` `purchase` (`SKTestFailures.Purchase.purchase(Product.PurchaseError)`,
    /// StoreKitTest's Swift interface in the iOS 17 SDK): the position in `Product.PurchaseError`'s declaration
    /// order in the StoreKit SDK's Swift interface — `invalidQuantity`, `productUnavailable`, `purchaseNotAllowed`,
    /// `ineligibleForOffer`, `invalidOfferIdentifier`, `invalidOfferPrice`, `invalidOfferSignature`,
    /// `missingOfferParameters` (https://developer.apple.com/documentation/storekit/product/purchaseerror lists the
    /// same cases alphabetically). A later case (the iOS 26.5 SDK declares `paymentMethodBindingConfigurationRequired`
    /// ninth) is out of range and reported, never simulated. Apple's documentation is silent on how Xcode numbers
    /// `current.index`: this order is the dashboard's choice, like ``genericErrors``.
    static let purchaseErrors: [Product.PurchaseError] = [
        .invalidQuantity, .productUnavailable, .purchaseNotAllowed,
        .ineligibleForOffer, .invalidOfferIdentifier, .invalidOfferPrice,
        .invalidOfferSignature, .missingOfferParameters,
    ]

    /// `current.index` for `current.type` `verification` (`SKTestFailures.Verification.verification(_:)`): the
    /// order Apple's documentation lists `VerificationResult.VerificationError`'s cases in
    /// (https://developer.apple.com/documentation/storekit/verificationresult/verificationerror). A choice,
    /// like ``genericErrors``.
    static let verificationErrors: [VerificationError] = VerificationError.allCases

    /// `current.index` for `current.type` `refundRequest` (`SKTestFailures.RefundRequest.refundRequest(_:)`,
    /// https://developer.apple.com/documentation/storekittest/sktestfailures/refundrequest): the declaration order of
    /// `Transaction.RefundRequestError` (https://developer.apple.com/documentation/storekit/transaction/refundrequesterror),
    /// 0 `duplicateRequest`, 1 `failed`. Apple is silent on how Xcode numbers `current.index`: a choice, like
    /// ``genericErrors``.
    static let refundRequestErrors: [Transaction.RefundRequestError] = Transaction.RefundRequestError.allCases

    /// `SKError.Code` names by raw value, 0...20 (`SKError.h` of the iOS SDK;
    /// https://developer.apple.com/documentation/storekit/skerror/code): what the legacy `_storeKitError`
    /// holds, as `SKTestSession.failureError` does.
    static let skErrorCodes = [
        "unknown", "clientInvalid", "paymentCancelled", "paymentInvalid", "paymentNotAllowed",
        "storeProductNotAvailable", "cloudServicePermissionDenied", "cloudServiceNetworkConnectionFailed",
        "cloudServiceRevoked", "privacyAcknowledgementRequired", "unauthorizedRequestData",
        "invalidOfferIdentifier", "invalidSignature", "missingOfferParams", "invalidOfferPrice",
        "overlayCancelled", "overlayInvalidConfiguration", "overlayTimeout", "ineligibleForOffer",
        "unsupportedPlatform", "overlayPresentedInBackgroundScene",
    ]

    /// The `SKError.Code`s `SKTestSession.failureError` supports, and what a StoreKit 2 purchase throws for each.
    ///
    /// The codes are exactly those Apple's documentation lists as supported
    /// (https://developer.apple.com/documentation/storekittest/sktestsession/failureerror): 0 `unknown`,
    /// 11 `invalidOfferIdentifier`, 12 `invalidSignature`, 13 `missingOfferParams`, 14 `invalidOfferPrice`; every
    /// other code is reported as unsupported and fails nothing. Apple documents the failure for StoreKit 1 only
    /// (a `SKPaymentTransaction` in the `failed` state with that code,
    /// https://developer.apple.com/documentation/storekittest/sktestsession/failtransactionsenabled) and is
    /// silent on what `Product.purchase()` throws, so each mapping is the dashboard's choice: the StoreKit 2 error
    /// of the same meaning and (nearly) the same name — `StoreKitError.unknown`, `Product.PurchaseError`
    /// `.invalidOfferIdentifier`, `.invalidOfferSignature`, `.missingOfferParameters`, `.invalidOfferPrice`.
    static let legacyPurchaseFailures: [Int: PurchaseFailure] = [
        0: PurchaseFailure(StoreKitError.unknown),
        11: PurchaseFailure(Product.PurchaseError.invalidOfferIdentifier),
        12: PurchaseFailure(Product.PurchaseError.invalidOfferSignature),
        13: PurchaseFailure(Product.PurchaseError.missingOfferParameters),
        14: PurchaseFailure(Product.PurchaseError.invalidOfferPrice),
    ]

    /// `N (name)` for an `SKError.Code` raw value, as the report shows it.
    static func shownSKErrorCode(_ code: Int) -> String {
        skErrorCodes.indices.contains(code) ? "\(code) (\(skErrorCodes[code]))" : "\(code)"
    }
}
