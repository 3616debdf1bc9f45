/// The kind of an in-app purchase in an Xcode StoreKit configuration file.
///
/// The raw values are the exact strings Xcode writes in a product's `type` key. Consumables, non-consumables
/// and (in format 1.0 files) non-renewing subscriptions live in the file's `products` array; non-renewing
/// subscriptions in `nonRenewingSubscriptions`; auto-renewable subscriptions in
/// `subscriptionGroups[].subscriptions[]`.
///
/// Only consumables are tips (README "Domain rules": Catalog; Tests/TipJarTests/Fixtures/storekit/README.md: "tips are the `Consumable`
/// products; everything else is listed on the catalog page as 'not a tip' and never offered").
public enum ProductType: String, Sendable, CaseIterable, Codable {
    /// A consumable product (`"Consumable"`): the only kind offered as a tip.
    case consumable = "Consumable"
    /// A non-consumable product (`"NonConsumable"`): listed as not a tip.
    case nonConsumable = "NonConsumable"
    /// A non-renewing subscription (`"NonRenewingSubscription"`): listed as not a tip.
    case nonRenewingSubscription = "NonRenewingSubscription"
    /// An auto-renewable subscription (`"RecurringSubscription"`): listed as not a tip.
    case autoRenewable = "RecurringSubscription"

    /// Whether products of this type are offered as tips: `true` only for ``consumable``
    /// (README "Domain rules": Catalog).
    public var isTip: Bool { self == .consumable }

    /// StoreKit's `Product.ProductType` raw value (https://developer.apple.com/documentation/storekit/product/producttype),
    /// as `Transaction.productType` reports it: `Consumable`, `Non-Consumable`, `Non-Renewing Subscription`,
    /// `Auto-Renewable Subscription`.
    public var storeKitName: String {
        switch self {
        case .consumable: "Consumable"
        case .nonConsumable: "Non-Consumable"
        case .nonRenewingSubscription: "Non-Renewing Subscription"
        case .autoRenewable: "Auto-Renewable Subscription"
        }
    }
}
