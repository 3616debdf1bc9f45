import Foundation
import TipJar

extension APIModels {
    /// An app download as the App Store signs it: the keys and JSON types of `JWSAppTransactionDecodedPayload`
    /// (https://developer.apple.com/documentation/appstoreserverapi/jwsapptransactiondecodedpayload), the
    /// `signedAppTransactionInfo` of Get App Transaction Info, which Apple's library decodes with
    /// `SignedDataVerifier.verify_and_decode_app_transaction` (it checks `bundleId` and `receiptType`).
    ///
    /// The simulator has no app binary and no download: the fields about them are written as placeholders, said
    /// here. `appAppleId` is absent (Apple omits it outside `Production`: "Apple Store Connect generates … for apps in
    /// production"; the library checks it in `Production` only); `applicationVersion` and `originalApplicationVersion`
    /// are `1.0` (no version is known); `originalPurchaseDate` is when the Apple Account first appears in the store (its
    /// first install or purchase); `receiptCreationDate` is when this answer was signed; `originalPlatform` is `iOS`.
    /// Never written: `versionExternalIdentifier` (0 outside `Production` per Apple, so left out), `preorderDate` (no
    /// pre-order), `deviceVerification` and `deviceVerificationNonce` (no device to verify).
    struct JWSAppTransactionPayload: Encodable, Equatable {
        /// `receiptType`: the environment (https://developer.apple.com/documentation/appstoreserverapi/environment).
        var receiptType: String
        /// `bundleId` (https://developer.apple.com/documentation/appstoreserverapi/bundleid).
        var bundleId: String
        /// `applicationVersion`: the app version the signature was made for.
        var applicationVersion: String
        /// `originalApplicationVersion`: the app version the account first downloaded.
        var originalApplicationVersion: String
        /// `originalPurchaseDate`, UNIX time in milliseconds: when the account first had the app.
        var originalPurchaseDate: Int64
        /// `receiptCreationDate`, milliseconds: when the App Store signed this.
        var receiptCreationDate: Int64
        /// `appTransactionId` (https://developer.apple.com/documentation/appstoreserverapi/apptransactionid), the
        /// value every transaction of the account in the app carries (``Transaction/appTransactionID(accountID:appBundleID:)``).
        var appTransactionId: String
        /// `originalPlatform`: `iOS`, `macOS`, `tvOS` or `visionOS`
        /// (https://developer.apple.com/documentation/storekit/appstore/platform).
        var originalPlatform: String

        /// The app download of `accountID` in `bundleID`, in `environment`, signed `now`.
        init(accountID: String, bundleID: String, environment: Transaction.Environment, firstSeen: Date, now: Date) {
            receiptType = environment.rawValue
            bundleId = bundleID
            applicationVersion = "1.0"
            originalApplicationVersion = "1.0"
            originalPurchaseDate = UTCTimestamp.milliseconds(since1970: firstSeen)
            receiptCreationDate = UTCTimestamp.milliseconds(since1970: now)
            appTransactionId = Transaction.appTransactionID(accountID: accountID, appBundleID: bundleID) ?? ""
            originalPlatform = "iOS"
        }
    }
}
