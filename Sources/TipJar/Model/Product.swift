import Foundation

/// A product as the simulated store returns it to an install, shaped like StoreKit 2's `Product`:
/// the catalog entry resolved for one storefront and one locale.
///
/// `price` is what the storefront charges for the catalog price (``Storefront/chargedPrice(_:)``: rounded to the
/// decimal places the App Store supports for its currency) and `displayPrice` that amount in the storefront's
/// currency, formatted with Foundation for the storefront's locale (README "Domain rules": Prices).
public struct Product: Sendable, Equatable, Identifiable {
    /// The product identifier, e.g. `com.example.tipjar.tip.coffee`.
    public var id: String
    /// The product type from the `.storekit` file.
    public var type: ProductType
    /// The localized name, chosen by the catalog's fallback order.
    public var displayName: String
    /// The localized description (may be empty).
    public var description: String
    /// The price the storefront charges, in its currency's units: the catalog's `0.99` is `0.99` in USD, `1` in JPY.
    public var price: Decimal
    /// `price` formatted for the storefront, e.g. `$0.99`, `R$ 0,99` or `¥1`.
    public var displayPrice: String

    /// Creates a product value.
    /// - Parameters:
    ///   - id: Product identifier.
    ///   - type: Product type.
    ///   - displayName: Localized name.
    ///   - description: Localized description.
    ///   - price: Price in currency units.
    ///   - displayPrice: Formatted price.
    public init(id: String, type: ProductType, displayName: String, description: String, price: Decimal, displayPrice: String) {
        self.id = id
        self.type = type
        self.displayName = displayName
        self.description = description
        self.price = price
        self.displayPrice = displayPrice
    }
}

extension Product {
    /// What `Product.purchase()` returns when it does not throw; StoreKit's `Product.PurchaseResult`.
    ///
    /// A pending purchase has no transaction until Ask to Buy approves it; the transaction then
    /// arrives through `Transaction.updates`.
    public enum PurchaseResult: Sendable, Equatable {
        /// The store charged the account; the transaction still needs verification.
        case success(VerificationResult<Transaction>)
        /// The person dismissed the payment sheet.
        case userCancelled
        /// Waiting for approval (Ask to Buy, Strong Customer Authentication).
        case pending
    }

    /// Errors `Product.purchase()` throws about the request itself; StoreKit's `Product.PurchaseError`, every case
    /// (https://developer.apple.com/documentation/storekit/product/purchaseerror). The offer errors concern
    /// promotional and win-back offers, which a tip never has; they can still be injected on `/store`, so an app's
    /// handling of them can be rehearsed.
    public enum PurchaseError: String, Error, Sendable, CaseIterable, Codable, LocalizedMessage {
        /// The quantity is outside what the store accepts (1...10 for a consumable).
        case invalidQuantity
        /// The product is not available in the storefront.
        case productUnavailable
        /// The account may not make purchases (parental controls, no payment method).
        case purchaseNotAllowed
        /// The customer isn't eligible for the offer.
        case ineligibleForOffer
        /// The offer identifier isn't valid.
        case invalidOfferIdentifier
        /// The offer's price isn't valid.
        case invalidOfferPrice
        /// The promotional offer's signature isn't valid.
        case invalidOfferSignature
        /// Parameters are missing from the offer.
        case missingOfferParameters

        /// The alert text in `en` and `pt-BR`.
        public func message(locale: AppLocale) -> String {
            switch (self, locale) {
            case (.invalidQuantity, .en): "The quantity is not valid."
            case (.invalidQuantity, .ptBR): "A quantidade não é válida."
            case (.productUnavailable, .en): "This tip isn't available right now."
            case (.productUnavailable, .ptBR): "Esta gorjeta não está disponível no momento."
            case (.purchaseNotAllowed, .en): "This account isn't allowed to make purchases."
            case (.purchaseNotAllowed, .ptBR): "Esta conta não tem permissão para fazer compras."
            case (.ineligibleForOffer, .en): "This account isn't eligible for this offer."
            case (.ineligibleForOffer, .ptBR): "Esta conta não é elegível para esta oferta."
            case (.invalidOfferIdentifier, .en): "This offer isn't valid."
            case (.invalidOfferIdentifier, .ptBR): "Esta oferta não é válida."
            case (.invalidOfferPrice, .en): "The price of this offer isn't valid."
            case (.invalidOfferPrice, .ptBR): "O preço desta oferta não é válido."
            case (.invalidOfferSignature, .en): "This offer couldn't be verified."
            case (.invalidOfferSignature, .ptBR): "Não foi possível verificar esta oferta."
            case (.missingOfferParameters, .en): "This offer is missing information."
            case (.missingOfferParameters, .ptBR): "Faltam informações nesta oferta."
            }
        }
    }

    /// The options of `Product.purchase(options:)` a tip jar can pass
    /// (https://developer.apple.com/documentation/storekit/product/purchaseoption): `quantity(_:)` and
    /// `appAccountToken(_:)`.
    public struct PurchaseOptions: Sendable, Equatable {
        /// `Product.PurchaseOption.quantity(_:)`: the number of items; 1 by default, at most 10
        /// (https://developer.apple.com/documentation/storekit/product/purchaseoption/quantity(_:)). Outside
        /// ``allowedQuantities`` the purchase throws ``PurchaseError/invalidQuantity``.
        public var quantity: Int
        /// `Product.PurchaseOption.appAccountToken(_:)`: a UUID the app links to its own account system; the
        /// transaction carries it back.
        public var appAccountToken: UUID?

        /// The quantities StoreKit accepts for a consumable: "The default value is 1. The maximum value is 10."
        public static let allowedQuantities = 1...10

        /// Creates options; the defaults are what `purchase()` without options means.
        public init(quantity: Int = 1, appAccountToken: UUID? = nil) {
            self.quantity = quantity
            self.appAccountToken = appAccountToken
        }
    }
}
