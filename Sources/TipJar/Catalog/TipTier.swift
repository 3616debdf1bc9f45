/// The tip jar's tier table: coffee ☕, snack 🥐, lunch 🍱, in the order the tiers are offered — coffee before
/// snack before lunch, never in the order the store returns them — when a catalog's tips name all three
/// (``Catalog/tierOrder(_:)``; otherwise tips are offered by ascending price).
///
/// `allCases` is the tier order. A catalog product belongs to a tier when its ID equals the tier's
/// ``productID`` or its ID's last dot-separated component is the tier's raw value
/// (`app.example.photos.tip.lunch` → ``lunch``); see ``matching(productID:)``. The tier gives a tile its
/// emoji and tint whatever the order.
public enum TipTier: String, CaseIterable, Sendable, Comparable, Codable {
    /// The smallest tip, ☕; shipped as `com.example.tipjar.tip.coffee` (0.99 in TipProducts.storekit).
    case coffee
    /// The middle tip, 🥐; shipped as `com.example.tipjar.tip.snack` (2.99).
    case snack
    /// The largest tip, 🍱; shipped as `com.example.tipjar.tip.lunch` (4.99).
    case lunch

    /// The tier's emoji shown on its tile: ☕, 🥐, 🍱.
    public var emoji: String {
        switch self {
        case .coffee: "☕"
        case .snack: "🥐"
        case .lunch: "🍱"
        }
    }

    /// The tile's tint as a CSS hex color, the colour Public/app.css renders the tier's tiles and badges in
    /// (`--coffee`, `--snack`, `--lunch`; the stylesheet is the one source, TipTierTintTests checks they agree):
    /// coffee brown `#7B4A2A`, snack amber `#975800`, lunch green `#1F6F5C`. Each has a contrast ratio of at least
    /// 4.5:1 with the white tile and the page background `#F6F5F2` (WCAG 2.2 §1.4.3,
    /// https://www.w3.org/TR/WCAG22/#contrast-minimum), so text in the tint stays readable.
    public var tint: String {
        switch self {
        case .coffee: "#7B4A2A"
        case .snack: "#975800"
        case .lunch: "#1F6F5C"
        }
    }

    /// The tint of a tip whose ID names no tier, as Public/app.css renders it (`--other`): violet `#6B3FA0`.
    public static let otherTint = "#6B3FA0"

    /// The order tips are offered in (``Catalog/tipOrder``).
    public enum Order: String, Sendable {
        /// Coffee, snack, lunch: the catalog's tips name each tier exactly once.
        case tierOrder = "tier order"
        /// By ascending price (then file order): the tips do not name every tier exactly once.
        case ascendingPrice = "ascending price"
    }

    /// The product ID of this tier in the shipped catalog, Resources/TipProducts.storekit,
    /// e.g. `"com.example.tipjar.tip.coffee"`.
    public var productID: String { "com.example.tipjar.tip.\(rawValue)" }

    /// The tier's position in tier order: coffee 0, snack 1, lunch 2.
    public var rank: Int { Self.allCases.firstIndex(of: self) ?? 0 }

    /// The tier a product ID belongs to: an exact match with a tier's ``productID``, else its last
    /// dot-separated component compared case-insensitively with the tier names (`x.y.tip.Coffee` → coffee).
    /// - Parameter productID: any product identifier.
    /// - Returns: the tier, or `nil` when the ID matches none (a catalog whose tips do not name each tier
    ///   exactly once is offered by ascending price, ``Catalog/tierOrder(_:)``).
    public static func matching(productID: String) -> TipTier? {
        if let exact = allCases.first(where: { $0.productID == productID }) { return exact }
        let last = productID.split(separator: ".", omittingEmptySubsequences: false).last.map(String.init) ?? ""
        return TipTier(rawValue: last.lowercased())
    }

    /// Orders tiers coffee < snack < lunch.
    public static func < (lhs: TipTier, rhs: TipTier) -> Bool { lhs.rank < rhs.rank }
}
