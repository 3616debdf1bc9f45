import Foundation

/// One in-app purchase read from a StoreKit configuration file: a tip (consumable) or any other product.
///
/// Values are exactly what the file says; display logic (name fallback, price formatting, tier order)
/// lives on ``Catalog`` and ``Storefront`` (Tests/TipJarTests/Fixtures/storekit/README.md; README "Domain rules": Catalog and Prices).
public struct CatalogProduct: Sendable, Equatable, Hashable {
    /// The App Store product identifier (`productID`), unique within a catalog,
    /// e.g. `"com.example.tipjar.tip.coffee"`.
    public var productID: String
    /// The developer-facing name (`referenceName`); empty when the file omits it.
    public var referenceName: String
    /// The product kind from the file's `type` key.
    public var type: ProductType
    /// The price exactly as written in the file's `displayPrice` (e.g. `"0.99"` → 0.99, `"29"` → 29),
    /// as a plain number with no currency: the storefront decides the currency (README "Domain rules": Prices).
    public var price: Decimal
    /// The product's localizations in file order; may be empty.
    public var localizations: [CatalogLocalization]
    /// Whether Family Sharing is enabled (`familyShareable`; `false` when absent).
    public var familyShareable: Bool
    /// The product's position in the file, counting from 0 over `products`, then
    /// `nonRenewingSubscriptions`, then every `subscriptionGroups[].subscriptions[]`, each in file order.
    /// Used as the last tie-breaker of tier order (Tests/TipJarTests/Fixtures/storekit/README.md).
    public var fileIndex: Int

    /// Creates a product.
    /// - Parameters:
    ///   - productID: the App Store product identifier.
    ///   - referenceName: the developer-facing name.
    ///   - type: the product kind.
    ///   - price: the file's price as an exact decimal, without currency.
    ///   - localizations: localized names and descriptions, in file order.
    ///   - familyShareable: whether Family Sharing is enabled.
    ///   - fileIndex: position in the file (see ``fileIndex``).
    public init(
        productID: String,
        referenceName: String,
        type: ProductType,
        price: Decimal,
        localizations: [CatalogLocalization],
        familyShareable: Bool = false,
        fileIndex: Int
    ) {
        self.productID = productID
        self.referenceName = referenceName
        self.type = type
        self.price = price
        self.localizations = localizations
        self.familyShareable = familyShareable
        self.fileIndex = fileIndex
    }

    /// Whether this product is offered as a tip: only consumables are (README "Domain rules": Catalog).
    public var isTip: Bool { type.isTip }
}
