extension Catalog {
    /// The locale StoreKit Testing shows `Product.displayName` and `description` in: the configuration file's
    /// default localization (`_locale`; Xcode writes `en_US` when none is chosen). Not the install's language: Apple,
    /// "the storefront of the device determines the language of the display name, not the preferred language"
    /// (https://developer.apple.com/documentation/storekit/product/displayname).
    public var storeKitLocale: String { fileLocale ?? "en_US" }

    /// The localization `Product.displayName` and `description` come from: the one of ``storeKitLocale`` (`pt-BR`
    /// matches `pt_BR`), else one of its language, else, where Apple's documents are silent, the file's first
    /// localization of the product. Empty names are not skipped: a localization with an empty name is still the
    /// one StoreKit shows. `nil` when the product has no localization.
    /// - Parameter product: a product of this catalog.
    public func storeKitLocalization(of product: CatalogProduct) -> CatalogLocalization? {
        let wanted = Self.normalized(storeKitLocale)
        let language = Self.language(of: wanted)
        return product.localizations.first { Self.normalized($0.locale) == wanted }
            ?? product.localizations.first { Self.language(of: Self.normalized($0.locale)) == language }
            ?? product.localizations.first
    }

    /// `Product.displayName` as StoreKit gives it: the name of ``storeKitLocalization(of:)``, empty when that name is
    /// empty or the product has no localization. Apple: "The displayName value is an empty string until you add a
    /// localization" (https://developer.apple.com/documentation/storekit/product/displayname). Never a reference
    /// name or another language's name: an app that shows it shows a blank button, as it would on a device.
    /// - Parameter product: a product of this catalog.
    public func productDisplayName(of product: CatalogProduct) -> String {
        storeKitLocalization(of: product)?.displayName ?? ""
    }

    /// `Product.description`, from the same localization as ``productDisplayName(of:)``; empty when there is none.
    /// - Parameter product: a product of this catalog.
    public func productDescription(of product: CatalogProduct) -> String {
        storeKitLocalization(of: product)?.description ?? ""
    }

    /// The name on a tip's tile in an install's language. The tip jar names the three tiers itself, in its own
    /// translations ("translated names in TipTier", the EXIF.ER tip-jar essay): when the catalog's tips are the three
    /// tiers (``tipOrder`` is tier order), a tier's tile shows ``TipTier/appName(in:)``; any other tip shows
    /// ``productDisplayName(of:)``, which may be empty.
    /// - Parameters:
    ///   - product: a tip of this catalog.
    ///   - locale: the install's language.
    public func tileName(of product: CatalogProduct, locale: AppLocale) -> String {
        if tipOrder == .tierOrder, let tier = tier(of: product) { return tier.appName(in: locale) }
        return productDisplayName(of: product)
    }

    /// One warning per product whose `Product.displayName` is empty (``productDisplayName(of:)``), for
    /// `check-storekit`, `serve`'s start-up lines and `/catalog`:
    /// `products[2] com.example.tip.large: Product.displayName is "" in en_US (…)`.
    public var emptyDisplayNameWarnings: [String] {
        products.enumerated().compactMap { index, product in
            guard productDisplayName(of: product).trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
            let locale = storeKitLocalization(of: product)?.locale ?? storeKitLocale
            let why = product.localizations.isEmpty ? "it has no localization" : "its \(locale) displayName is empty"
            return "products[\(index)] \(Self.escapedField(product.productID)): Product.displayName is \"\" because \(why); "
                + "an app that shows it shows a blank name"
        }
    }
}

extension TipTier {
    /// The tier's name in the tip jar's own translations, as the app shows it on the tile (not `Product.displayName`):
    /// Coffee / Café, Snack / Lanche, Lunch / Almoço completo. The shipped TipProducts.storekit carries the same names.
    /// - Parameter locale: the install's language.
    public func appName(in locale: AppLocale) -> String {
        switch (self, locale) {
        case (.coffee, .en): "Coffee"
        case (.coffee, .ptBR): "Café"
        case (.snack, .en): "Snack"
        case (.snack, .ptBR): "Lanche"
        case (.lunch, .en): "Lunch"
        case (.lunch, .ptBR): "Almoço completo"
        }
    }
}
