/// What the tip jar's UI receives for one tile: text, emoji and price, never the store's `Product`
/// (the EXIF.ER tip-jar essay: "the interface gets TipOffer values with the text and emoji for each tile").
public struct TipOffer: Sendable, Equatable {
    /// The product identifier the tile buys.
    public var productID: String
    /// The tier, when the product matches the catalog's tier table.
    public var tier: TipTier?
    /// Localized product name for the install's locale.
    public var name: String
    /// The tier's emoji (☕, 🥐, 🍱), or a generic heart for products outside the tier table.
    public var emoji: String
    /// The tier's tint, a CSS colour.
    public var tint: String
    /// `Product.displayPrice` for the install's storefront.
    public var displayPrice: String

    /// Creates an offer.
    /// - Parameters:
    ///   - productID: Product identifier.
    ///   - tier: Tier, if any.
    ///   - name: Localized name.
    ///   - emoji: Emoji for the tile.
    ///   - tint: CSS colour for the tile.
    ///   - displayPrice: Formatted price.
    public init(productID: String, tier: TipTier?, name: String, emoji: String, tint: String, displayPrice: String) {
        self.productID = productID
        self.tier = tier
        self.name = name
        self.emoji = emoji
        self.tint = tint
        self.displayPrice = displayPrice
    }
}
