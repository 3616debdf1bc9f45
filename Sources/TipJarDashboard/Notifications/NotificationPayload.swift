import Foundation
import TipJar

extension APIModels {
    /// A notification as the App Store signs it: the keys of `responseBodyV2DecodedPayload`
    /// (https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2decodedpayload), the
    /// `ResponseBodyV2DecodedPayload` model of Apple's App Store Server Library
    /// (`appstoreserverlibrary/models/ResponseBodyV2DecodedPayload.py`, https://github.com/apple/app-store-server-library-python).
    ///
    /// Written: `notificationType`, `subtype` (only when there is one; Apple names none for the types sent here),
    /// `notificationUUID`, `data`, `version` (`"2.0"`) and `signedDate` (milliseconds). Never written: `summary` (only
    /// for a subscription renewal date extension), `externalPurchaseToken` (External Purchase API), `appData` (Retention
    /// Messaging) — none applies to a tip.
    struct NotificationPayload: Encodable, Equatable {
        var notificationType: String
        var subtype: String?
        var notificationUUID: String
        var data: NotificationData
        var version = "2.0"
        var signedDate: Int64

        /// The payload's JSON, keys sorted, as `JSONEncoder` with `.sortedKeys` writes it (``SortedJSONObject``).
        var json: [UInt8] {
            var object = SortedJSONObject()
            object.add("data", object: data.json)
            object.add("notificationType", notificationType)
            object.add("notificationUUID", notificationUUID)
            object.add("signedDate", signedDate)
            object.add("subtype", subtype)
            object.add("version", version)
            return object.json
        }
    }

    /// The payload's `data` (https://developer.apple.com/documentation/appstoreservernotifications/data): `bundleId`,
    /// `environment`, the transaction as `signedTransactionInfo` (absent for `TEST`, or for a transaction the store
    /// forgot before the notification was first sent), and `consumptionRequestReason` for a `CONSUMPTION_REQUEST`.
    /// Never written: `appAppleId` (the simulated app has no App Store Connect identifier; Apple's library checks it
    /// only in `Production`), `bundleVersion` (the app's version is not simulated), `signedRenewalInfo` and `status`
    /// (subscriptions only).
    struct NotificationData: Encodable, Equatable {
        var bundleId: String
        var environment: String
        var signedTransactionInfo: String?
        var consumptionRequestReason: String?

        /// The member's JSON, keys sorted (``SortedJSONObject``).
        var json: [UInt8] {
            var object = SortedJSONObject()
            object.add("bundleId", bundleId)
            object.add("consumptionRequestReason", consumptionRequestReason)
            object.add("environment", environment)
            object.add("signedTransactionInfo", signedTransactionInfo)
            return object.json
        }
    }

    /// The unsecured JWS (``CompactJWS``) of `notification`, whose UUID is `uuid`: the transaction as it was when the
    /// event happened (its snapshot over `stored`), in the transaction's environment; `TEST` in `environment`.
    static func signedPayload(
        for notification: ServerNotification, uuid: String, stored: StoredTransaction?, bundleID: String, environment: String
    ) -> String {
        var transactionJWS: String?
        var dataEnvironment = environment
        var dataBundleID = bundleID
        if let stored {
            let transaction = notification.snapshot?.applied(to: stored.transaction) ?? stored.transaction
            let payload = JWSTransactionPayload(transaction)
            transactionJWS = payload.jwsRepresentation
            dataEnvironment = payload.environment
            dataBundleID = payload.bundleID ?? bundleID
        }
        let body = NotificationPayload(
            notificationType: notification.type.rawValue, subtype: notification.subtype, notificationUUID: uuid,
            data: NotificationData(
                bundleId: dataBundleID, environment: dataEnvironment, signedTransactionInfo: transactionJWS,
                consumptionRequestReason: notification.consumptionRequestReason),
            signedDate: UTCTimestamp.milliseconds(since1970: notification.createdAt))
        return CompactJWS.unsecured(json: body.json)
    }
}

extension ServerNotification {
    /// A `TEST` notification requested at `date` ("Request a Test Notification",
    /// https://developer.apple.com/documentation/appstoreserverapi/request-a-test-notification), signed at once (it has
    /// no transaction to read later), with a token that is a UUID and the request's time in milliseconds (Apple's token
    /// is opaque).
    static func requestedTest(at date: Date, makeUUID: () -> String, bundleID: String, environment: String) -> ServerNotification {
        let uuid = makeUUID()
        let token = "\(makeUUID())_\(UTCTimestamp.milliseconds(since1970: date))"
        var test = ServerNotification(type: .test, createdAt: date, testToken: token, notificationUUID: uuid)
        test.signedPayload = APIModels.signedPayload(for: test, uuid: uuid, stored: nil, bundleID: bundleID, environment: environment)
        return test
    }
}
