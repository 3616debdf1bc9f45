import Foundation

/// A loaded StoreKit configuration: every product of the file, the tips among them in tier order,
/// and the file's default storefront and locale.
///
/// Built only whole: ``load(contentsOf:)`` / ``init(data:fileName:)`` either return a complete catalog or
/// throw a ``CatalogError``. Tips are the consumables, offered in ``tierOrder(_:)``; prices are formatted by
/// ``Storefront/displayPrice(_:)``.
public struct Catalog: Sendable, Equatable {
    /// The file's `identifier`; `nil` when absent (format 1.0 files omit it).
    public var identifier: String?
    /// The file's `version`, e.g. 3.0.
    public var formatVersion: CatalogFormatVersion
    /// The storefront a new install starts in: the file's `settings._storefront`, else ``Storefront/usa``
    /// (Tests/TipJarTests/Fixtures/storekit/README.md).
    public var defaultStorefront: Storefront
    /// The file's `settings._locale` as written (e.g. `"en_US"`, `"pt_BR"`), or `nil`; the third step of the
    /// name fallback.
    public var fileLocale: String?
    /// Everything the file's `settings` asks of the store, with a note per key (applied or ignored, and why).
    public var fileSettings: StoreKitFileSettings
    /// Every product in file order (``CatalogProduct/fileIndex``): tips, non-consumables,
    /// non-renewing and auto-renewable subscriptions.
    public private(set) var products: [CatalogProduct]
    /// The consumable products of the `products` array, in the order they are offered (see ``tierOrder(_:)``).
    /// Empty for a catalog with no consumables; the tip jar then shows its "unavailable" state.
    public private(set) var tips: [CatalogProduct]
    /// Every product that is not a tip, in file order; listed as "not a tip" and never offered.
    public private(set) var nonTips: [CatalogProduct]
    /// One warning per product whose price some storefront's currency cannot express (``chargedPriceWarnings(of:)``),
    /// computed once, for `check-storekit`, `serve` and `/catalog`.
    public private(set) var chargedPriceWarnings: [String]
    /// Which rule ``tips`` follow: ``TipTier/Order/tierOrder`` when the tips name every tier exactly once,
    /// else ``TipTier/Order/ascendingPrice`` (see ``tierOrder(_:)``). Decided once, with ``tips``: every tile's name
    /// asks for it (``tileName(of:locale:)``), so working it out on each call made a listing of n tips cost n².
    public private(set) var tipOrder: TipTier.Order
    /// Each product ID's index in ``products`` (the first product with the ID), so a look-up by ID does not walk the
    /// catalog: the ledger and the history look up every transaction's product.
    private(set) var indexByID: [String: Int]

    /// Creates a catalog from already-validated products (for tests and simulations); ``tips`` and
    /// ``nonTips`` are derived. Product IDs are assumed unique; the first product with an ID wins in
    /// ``product(withID:)``.
    /// - Parameters:
    ///   - identifier: the file's identifier, if any.
    ///   - formatVersion: the file format version.
    ///   - defaultStorefront: the storefront new installs start in.
    ///   - fileLocale: the file's `_locale`, if any.
    ///   - fileSettings: the file's `settings`, decoded; none by default.
    ///   - products: every product; sorted by ``CatalogProduct/fileIndex`` on the way in.
    public init(
        identifier: String? = nil,
        formatVersion: CatalogFormatVersion = CatalogFormatVersion(major: 3, minor: 0),
        defaultStorefront: Storefront = .usa,
        fileLocale: String? = nil,
        fileSettings: StoreKitFileSettings = StoreKitFileSettings(),
        products: [CatalogProduct]
    ) {
        self.fileSettings = fileSettings
        self.identifier = identifier
        self.formatVersion = formatVersion
        self.defaultStorefront = defaultStorefront
        self.fileLocale = fileLocale
        let ordered = products.sorted { $0.fileIndex < $1.fileIndex }
        self.products = ordered
        let tips = ordered.filter(\.isTip)
        self.tipOrder = Self.order(of: tips)
        self.tips = Self.tierOrder(tips)
        self.nonTips = ordered.filter { !$0.isTip }
        self.chargedPriceWarnings = Self.chargedPriceWarnings(of: ordered)
        self.indexByID = Dictionary(ordered.enumerated().map { ($0.element.productID, $0.offset) }, uniquingKeysWith: { first, _ in first })
    }

    /// Puts tips in the order the tip jar offers them. When the tips' IDs name all three tiers unambiguously —
    /// each ``TipTier`` matched (``TipTier/matching(productID:)``) by exactly one tip, as in the shipped
    /// catalog — those three come first, coffee < snack < lunch, then any other tips. Otherwise (a tier named
    /// twice or not at all, e.g. IDs ending `.Coffee`, `.SomeTip`, `.FancyDrink`, `.TacoDinner`) every tip is
    /// ordered by ascending price, so a partial name match never puts a dearer tip first. Ties, and the tips
    /// after the three tiers, go by ascending price, then file order.
    /// - Parameter products: products in any order.
    /// - Returns: the same products, sorted.
    public static func tierOrder(_ products: [CatalogProduct]) -> [CatalogProduct] {
        let tiers = products.map { TipTier.matching(productID: $0.productID) }
        let namesEveryTier = order(of: tiers) == .tierOrder
        // Each product's tier is read once, not in every comparison (a product ID is split to find it).
        let keyed = zip(products, tiers).map { product, tier in
            (product: product, key: namesEveryTier ? tier?.rank ?? TipTier.allCases.count : TipTier.allCases.count)
        }
        return keyed.sorted { a, b in
            if a.key != b.key { return a.key < b.key }
            if a.product.price != b.product.price { return a.product.price < b.product.price }
            return a.product.fileIndex < b.product.fileIndex
        }.map(\.product)
    }

    /// The rule ``tierOrder(_:)`` applies to these products.
    static func order(of products: [CatalogProduct]) -> TipTier.Order {
        order(of: products.map { TipTier.matching(productID: $0.productID) })
    }

    /// The rule for products whose tiers (``TipTier/matching(productID:)``) are these: tier order when each tier is
    /// named exactly once.
    static func order(of tiers: [TipTier?]) -> TipTier.Order {
        var counts: [TipTier: Int] = [:]
        for case let tier? in tiers { counts[tier, default: 0] += 1 }
        return TipTier.allCases.allSatisfy { counts[$0] == 1 } ? .tierOrder : .ascendingPrice
    }

    /// The locale a new install starts in: `pt-BR` when the file's `_locale` is Portuguese (`pt_BR`), else `en`.
    public var defaultLocale: AppLocale {
        StoreKitFileSettings(locale: fileLocale).installLocale
    }

    /// The product with this exact product ID, tip or not.
    /// - Parameter productID: an App Store product identifier.
    /// - Returns: the product, or `nil` when the catalog has none with that ID.
    public func product(withID productID: String) -> CatalogProduct? {
        indexByID[productID].map { products[$0] }
    }

    /// The tip with this exact product ID: a consumable of the catalog, the only kind of product that adds a heart.
    /// - Parameter productID: an App Store product identifier.
    /// - Returns: the tip, or `nil` for a non-consumable, a subscription, or an ID the catalog does not hold.
    public func tip(withID productID: String) -> CatalogProduct? {
        product(withID: productID).flatMap { $0.isTip ? $0 : nil }
    }

    /// The tier of a tip, for its emoji and tint.
    /// - Parameter product: a product of this catalog.
    /// - Returns: the matching ``TipTier`` (see ``TipTier/matching(productID:)``); `nil` for a non-tip or
    ///   a tip whose ID matches no tier.
    public func tier(of product: CatalogProduct) -> TipTier? {
        guard product.isTip else { return nil }
        return TipTier.matching(productID: product.productID)
    }

    /// The name to show for a product in an install's locale, following the fallback order of
    /// Tests/TipJarTests/Fixtures/storekit/README.md: the install's locale (`pt-BR` matches `pt_BR`; case-insensitive), then the same language
    /// (first such localization in file order), then the file's `_locale`, then `en_US`, then the first
    /// localization with a non-empty name, then `referenceName`, then `productID`. Empty or
    /// whitespace-only names are skipped at every step.
    /// - Parameters:
    ///   - product: a product of this catalog.
    ///   - locale: the install's locale, BCP 47 or Foundation style: `"en"`, `"pt-BR"`, `"pt_BR"`.
    /// - Returns: a non-empty name.
    public func displayName(of product: CatalogProduct, locale: String) -> String {
        localization(of: product, locale: locale)?.displayName
            ?? Self.nonEmpty(product.referenceName)
            ?? product.productID
    }

    /// The localization whose name ``displayName(of:locale:)`` shows, or `nil` when every name is empty
    /// (then the name comes from `referenceName` or `productID`). Use it for the matching description.
    /// - Parameters:
    ///   - product: a product of this catalog.
    ///   - locale: the install's locale, e.g. `"pt-BR"`.
    /// - Returns: the chosen localization.
    public func localization(of product: CatalogProduct, locale: String) -> CatalogLocalization? {
        let named = product.localizations.filter { Self.nonEmpty($0.displayName) != nil }
        let wanted = Self.normalized(locale)
        let language = Self.language(of: wanted)
        if let exact = named.first(where: { Self.normalized($0.locale) == wanted }) { return exact }
        if let sameLanguage = named.first(where: { Self.language(of: Self.normalized($0.locale)) == language }) {
            return sameLanguage
        }
        if let fileLocale, let fromFile = named.first(where: { Self.normalized($0.locale) == Self.normalized(fileLocale) }) {
            return fromFile
        }
        if let english = named.first(where: { Self.normalized($0.locale) == "en_us" }) { return english }
        return named.first
    }

    /// `pt-BR`, `pt_BR`, `PT_br` → `pt_br`; surrounding whitespace removed.
    static func normalized(_ locale: String) -> String {
        locale.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "-", with: "_").lowercased()
    }

    /// The language part of a normalized identifier: `pt_br` → `pt`.
    static func language(of normalized: String) -> String {
        String(normalized.split(separator: "_", omittingEmptySubsequences: false).first ?? "")
    }

    /// The string unless it is empty or whitespace-only.
    static func nonEmpty(_ string: String) -> String? {
        string.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : string
    }
}
