import Foundation

/// A product as the simulated store returns it to an install, shaped like StoreKit 2's `Product`:
/// the catalog entry resolved for one storefront and one locale.
///
/// `displayPrice` is the catalog price in the storefront's currency, formatted with Foundation
/// for the storefront's locale (DESIGN.md rule 2).
public struct Product: Sendable, Equatable, Identifiable {
    /// The product identifier, e.g. `com.example.tipjar.tip.coffee`.
    public var id: String
    /// The product type from the `.storekit` file.
    public var type: ProductType
    /// The localized name, chosen by the catalog's fallback order.
    public var displayName: String
    /// The localized description (may be empty).
    public var description: String
    /// The price as written in the catalog, in the storefront's currency units (e.g. `0.99`).
    public var price: Decimal
    /// `price` formatted for the storefront, e.g. `$0.99` or `R$ 0,99`.
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

    /// Errors `Product.purchase()` throws about the request itself; StoreKit's `Product.PurchaseError`
    /// (the cases that apply to a consumable tip).
    public enum PurchaseError: String, Error, Sendable, CaseIterable, LocalizedMessage {
        /// The quantity was out of range.
        case invalidQuantity
        /// The product is not available in the storefront.
        case productUnavailable
        /// The account may not make purchases (parental controls, no payment method).
        case purchaseNotAllowed

        /// The alert text in `en` and `pt-BR`.
        public func message(locale: AppLocale) -> String {
            switch (self, locale) {
            case (.invalidQuantity, .en): "The quantity is not valid."
            case (.invalidQuantity, .ptBR): "A quantidade não é válida."
            case (.productUnavailable, .en): "This tip isn't available right now."
            case (.productUnavailable, .ptBR): "Esta gorjeta não está disponível no momento."
            case (.purchaseNotAllowed, .en): "This account isn't allowed to make purchases."
            case (.purchaseNotAllowed, .ptBR): "Esta conta não tem permissão para fazer compras."
            }
        }
    }
}
