import Foundation
import TipJar

/// The JSON API's bodies, with exactly the field names of Public/api/openapi.json.
enum APIModels {
    /// An install: `{"id","label","locale","storefront","accountID","hearts","legacyHasTipped","isRunning"}`.
    struct InstallBody: Encodable {
        var id: String
        var label: String
        var locale: String
        var storefront: String
        var accountID: String
        var hearts: Int
        var legacyHasTipped: Bool
        var isRunning: Bool

        init(_ install: Install) {
            id = install.id
            label = install.label
            locale = install.locale.rawValue
            storefront = install.storefront
            accountID = install.accountID
            hearts = install.hearts
            legacyHasTipped = install.legacyHasTipped
            isRunning = install.isRunning
        }
    }

    /// `POST /api/installs` body.
    struct NewInstall: Decodable {
        var locale: AppLocale?
        var storefront: String?
        var legacyHasTipped: Bool?
        var label: String?
        var accountID: String?
        var launch: Bool?

        /// The fields the body may hold; any other is refused (400), as `PUT /api/store` refuses one.
        static let fields: Set<String> = ["locale", "storefront", "legacyHasTipped", "label", "accountID", "launch"]
    }

    /// `{"productID": …}` bodies.
    struct ProductBody: Decodable {
        var productID: String
    }

    /// `POST /api/installs/{id}/purchases` body: `{"productID", "userAction", "quantity", "appAccountToken"}`; only
    /// `productID` is required. `userAction` is `confirm` (default) or `cancel`; `quantity` any whole number (outside
    /// 1...10 the purchase fails with `invalidQuantity`, as StoreKit's does); `appAccountToken` a UUID.
    struct PurchaseRequest: Decodable {
        var productID: String
        var userAction: PurchaseSheet.UserAction
        var options: Product.PurchaseOptions

        enum CodingKeys: String, CodingKey { case productID, userAction, quantity, appAccountToken }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            productID = try container.decode(String.self, forKey: .productID)
            userAction = .confirm
            if container.contains(.userAction) {
                guard let text = try? container.decode(String.self, forKey: .userAction),
                    let action = PurchaseSheet.UserAction(rawValue: text)
                else {
                    throw RequestError(message: "userAction must be \"confirm\" or \"cancel\".")
                }
                userAction = action
            }
            var options = Product.PurchaseOptions()
            if container.contains(.quantity) {
                // Decoded as a `Decimal`, which keeps every digit sent: an `Int` would take `1.0000000000000000001`
                // (read as the nearest `Double`, 1.0) for 1.
                guard let exact = try? container.decode(Decimal.self, forKey: .quantity), abs(exact) <= Decimal(Int32.max),
                    case let quantity = NSDecimalNumber(decimal: exact).intValue, Decimal(quantity) == exact
                else {
                    throw RequestError(message: "quantity must be a whole number (StoreKit accepts 1 to 10).")
                }
                options.quantity = quantity
            }
            if container.contains(.appAccountToken) {
                guard let text = try? container.decode(String.self, forKey: .appAccountToken), let token = Self.uuid(text) else {
                    throw RequestError(message: "appAccountToken must be a UUID, e.g. \"6f1c2a7e-3b5d-4c8e-9a0f-1d2e3f4a5b6c\".")
                }
                options.appAccountToken = token
            }
            self.options = options
        }

        /// `text` as a UUID only when it is exactly the 36 characters of RFC 9562 §4's string form (hex digits and
        /// four hyphens): Foundation's parser reads a C string, so it would stop at a `\u0000` and take what follows
        /// a valid UUID for nothing.
        static func uuid(_ text: String) -> UUID? {
            guard text.utf8.count == 36, text.allSatisfy({ $0.isHexDigit || $0 == "-" }) else { return nil }
            return UUID(uuidString: text)
        }
    }

    /// `POST /api/transactions/{id}/refund` body (optional): `reason` as the case's name (`developerIssue`, `other`) or
    /// as the integer a transaction's JSON shows (`1`, `0`: Apple's `revocationReason`,
    /// https://developer.apple.com/documentation/appstoreserverapi/revocationreason); `revocationType` Apple's
    /// `REFUND_FULL` (the default), `REFUND_PRORATED` or `FAMILY_REVOKE`; `revocationPercentage` in milliunits of a
    /// percent (0...100,000) for a prorated refund.
    struct RefundBody: Decodable {
        var reason: Transaction.RevocationReason?
        var revocationType: Transaction.RevocationType?
        var revocationPercentage: Int?

        enum CodingKeys: String, CodingKey { case reason, revocationType, revocationPercentage }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            if let number = try? container.decodeIfPresent(Int.self, forKey: .reason) {
                guard let reason = Transaction.RevocationReason(storeKitRawValue: number) else {
                    throw RequestError(message: "reason must be developerIssue or other, or Apple's 1 or 0.")
                }
                self.reason = reason
            } else if let name = try? container.decodeIfPresent(String.self, forKey: .reason) {
                guard let reason = Transaction.RevocationReason(rawValue: name) else {
                    throw RequestError(message: "reason must be developerIssue or other, or Apple's 1 or 0.")
                }
                self.reason = reason
            } else if container.contains(.reason), !(try container.decodeNil(forKey: .reason)) {
                throw RequestError(message: "reason must be developerIssue or other, or Apple's 1 or 0.")
            }
            if let name = try? container.decodeIfPresent(String.self, forKey: .revocationType) {
                guard let type = Transaction.RevocationType(rawValue: name) else {
                    throw RequestError(message: "revocationType must be REFUND_FULL, REFUND_PRORATED or FAMILY_REVOKE.")
                }
                revocationType = type
            } else if container.contains(.revocationType), !(try container.decodeNil(forKey: .revocationType)) {
                throw RequestError(message: "revocationType must be REFUND_FULL, REFUND_PRORATED or FAMILY_REVOKE.")
            }
            if container.contains(.revocationPercentage), !(try container.decodeNil(forKey: .revocationPercentage)) {
                guard let share = try? container.decode(Int.self, forKey: .revocationPercentage) else {
                    throw RequestError(message: "revocationPercentage must be a whole number of milliunits from 0 to 100000.")
                }
                revocationPercentage = share
            }
        }
    }

    /// `PUT /api/installs/{id}/label` body.
    struct LabelBody: Decodable {
        var label: String
    }

    /// `PUT /api/installs/{id}/storefront` body: `{"storefront":"GBR"}`, an alpha-3 code of any App Store storefront.
    struct StorefrontBody: Decodable {
        var storefront: String
    }

    /// One offer tile.
    struct OfferBody: Encodable {
        var productID: String
        var name: String
        var emoji: String
        var displayPrice: String
    }

    /// `GET /api/installs/{id}/offers`.
    struct OffersBody: Encodable {
        var state: String
        var offers: [OfferBody]?
        var message: String?
    }

    /// The result of a purchase: `error` is the localized alert text, `errorName` the StoreKit
    /// name of the error (`networkError`, `invalidSignature`, …).
    struct PurchaseBody: Encodable {
        var outcome: String
        var transactionID: UInt64?
        var hearts: Int
        var error: String?
        var errorName: String?
        var recordOutcome: String?

        /// The body written straight into its bytes, the same bytes `JSONEncoder` writes for it
        /// (`SortedJSONObjectTests`): the answer of every purchase, the API's busiest call.
        var object: SortedJSONObject {
            var object = SortedJSONObject(capacity: 128)
            object.add("error", error)
            object.add("errorName", errorName)
            object.add("hearts", hearts)
            object.add("outcome", outcome)
            object.add("recordOutcome", recordOutcome)
            object.add("transactionID", transactionID)
            return object
        }
    }

    /// A ledger row.
    struct DeliveryBody: Encodable {
        var transactionID: UInt64
        var productID: String
        var path: String
        var outcome: String
        var finished: Bool
        var at: String
        /// The store trap behind the row (`DeliveryNote`'s name) and its short reason; both absent on an ordinary row.
        var note: String?
        var reason: String?
        var purchasedQuantity: Int
        var appAccountToken: String?

        init(_ delivery: Delivery) {
            transactionID = delivery.transactionID
            productID = delivery.productID
            path = delivery.path.rawValue
            outcome = delivery.outcome.rawValue
            finished = delivery.finished
            at = ViewModels.isoSeconds(delivery.at)
            note = delivery.note?.rawValue
            reason = delivery.note?.text
            purchasedQuantity = delivery.purchasedQuantity
            appAccountToken = delivery.appAccountToken?.uuidString.lowercased()
        }
    }

    /// An Ask to Buy request (pending or declined): its own ID (`requestID`, not a transaction's: Apple issues no
    /// transaction until approval), what was asked for, when it was last requested (its timer, reset by each
    /// consolidated request) and how many times it was requested again. No transaction fields, no `jwsPayload`.
    struct AskToBuyRequestBody: Encodable {
        var requestID: UInt64
        var installID: String
        var accountID: String
        var productID: String
        var purchasedQuantity: Int
        var appAccountToken: String?
        var requestedAt: String
        var requestedAgain: Int
        var status: String

        init(_ request: StoredTransaction) {
            requestID = request.transaction.id
            installID = request.installID
            accountID = request.accountID
            productID = request.transaction.productID
            purchasedQuantity = request.transaction.purchasedQuantity
            appAccountToken = request.transaction.appAccountToken?.uuidString.lowercased()
            requestedAt = ViewModels.isoMilliseconds(request.transaction.purchaseDate)
            requestedAgain = request.requestedAgain
            status = request.status.rawValue
        }
    }

    /// A transaction with the store's bookkeeping, plus the delivery it caused (if any). The StoreKit fields use
    /// `Transaction`'s names (https://developer.apple.com/documentation/storekit/transaction): `id` (also kept as
    /// `transactionID`), `price` as an exact decimal string, `currency` (ISO 4217), `productType`
    /// (`Product.ProductType`'s raw value), `appBundleID`, `signedDate`, `originalPurchaseDate`, `appAccountToken`;
    /// their values are Apple's raw values (`environment` `Xcode`, `ownershipType` `PURCHASED`, `reason` `PURCHASE`,
    /// `revocationReason` the integer 1 or 0, as StoreKit's `rawValue`s and the JWS payload write them), the dates
    /// ISO 8601 with milliseconds, and `storefrontID` is Apple's storefront identifier beside the country code
    /// `storefront`. `jwsPayload` is the same transaction with the keys and types of Apple's
    /// `JWSTransactionDecodedPayload` (``JWSTransactionPayload``).
    struct TransactionBody: Encodable {
        var id: UInt64
        var transactionID: UInt64
        var originalID: UInt64
        var installID: String
        var accountID: String
        var productID: String
        var purchaseDate: String
        var purchasedQuantity: Int
        var storefront: String
        var storefrontID: String?
        var environment: String
        var ownershipType: String
        var reason: String
        var revocationDate: String?
        var revocationReason: Int?
        var revocationType: String?
        var revocationPercentage: Int?
        var status: String
        var isFinished: Bool
        var isExternal: Bool
        var delivered: Bool
        var outcome: String?
        var price: String?
        var currency: String?
        var productType: String?
        var appBundleID: String?
        var signedDate: String
        var originalPurchaseDate: String
        var appAccountToken: String?
        var jwsPayload: JWSTransactionPayload
        /// `VerificationResult.jwsRepresentation`: ``jwsPayload`` as an unsecured compact JWS (``CompactJWS``).
        var jwsRepresentation: String
        /// The order ID a receipt would show (``Transaction/orderID``), which `GET /inApps/v1/lookup/{orderId}` takes.
        var orderID: String

        init(_ stored: StoredTransaction, delivery: Delivery?) {
            let t = stored.transaction
            id = t.id
            transactionID = t.id
            originalID = t.originalID
            installID = stored.installID
            accountID = stored.accountID
            productID = t.productID
            purchaseDate = ViewModels.isoMilliseconds(t.purchaseDate)
            purchasedQuantity = t.purchasedQuantity
            storefront = t.storefront
            storefrontID = t.storefrontID
            environment = t.environment.rawValue
            ownershipType = t.ownershipType.rawValue
            reason = t.reason.rawValue
            revocationDate = t.revocationDate.map(ViewModels.isoMilliseconds)
            revocationReason = t.revocationReason?.storeKitRawValue
            revocationType = t.revocationType?.rawValue
            revocationPercentage = t.revocationPercentage
            status = TransactionFacts.status(stored)
            isFinished = stored.isFinished || delivery?.finished == true
            isExternal = stored.isExternal
            delivered = delivery != nil
            outcome = delivery?.outcome.rawValue
            price = t.price.map { "\($0)" }
            currency = t.currency
            productType = t.productType?.storeKitName
            appBundleID = t.appBundleID
            signedDate = ViewModels.isoMilliseconds(t.signedDate)
            originalPurchaseDate = ViewModels.isoMilliseconds(t.originalPurchaseDate)
            appAccountToken = t.appAccountToken?.uuidString.lowercased()
            jwsPayload = JWSTransactionPayload(t)
            jwsRepresentation = jwsPayload.jwsRepresentation
            orderID = t.orderID
        }

    }

    /// The store settings, as `GET /api/store` answers and `PUT /api/store` takes them: one field per
    /// ``StoreSettings/declarations`` entry (a dotted key nests, `failures.loadProducts`; an optional choice that is
    /// off is `null`).
    struct StoreBody: Encodable {
        var settings: StoreSettings

        init(_ settings: StoreSettings) { self.settings = settings }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: StoreSettingCodingKey.self)
            for declaration in StoreSettings.declarations(in: nil) {
                try Self.encode(declaration.value(in: settings), as: declaration.key, in: &container)
            }
            for object in StoreSettings.settingObjects {
                var inner = container.nestedContainer(keyedBy: StoreSettingCodingKey.self, forKey: StoreSettingCodingKey(object))
                for declaration in StoreSettings.declarations(in: object) {
                    try Self.encode(declaration.value(in: settings), as: declaration.path[1], in: &inner)
                }
            }
        }

        private static func encode(_ value: StoreSetting.Value, as name: String, in container: inout KeyedEncodingContainer<StoreSettingCodingKey>) throws {
            let key = StoreSettingCodingKey(name)
            switch value {
            case .text(let text): try container.encode(text, forKey: key)
            case .number(let number): try container.encode(number, forKey: key)
            case .flag(let flag): try container.encode(flag, forKey: key)
            case .off: try container.encodeNil(forKey: key)
            }
        }
    }
}
