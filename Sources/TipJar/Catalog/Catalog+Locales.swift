extension Catalog {
    /// Every locale the file's localizations hold, as written (`"en_US"`, `"pt_BR"`, `"ja"`), each once (compared
    /// case-insensitively, `-` and `_` alike), in file order.
    public var fileLocales: [String] {
        var seen: Set<String> = []
        var locales: [String] = []
        for localization in products.flatMap(\.localizations) where seen.insert(Self.normalized(localization.locale)).inserted {
            locales.append(localization.locale)
        }
        return locales
    }

    /// The given locales, then every locale of ``fileLocales`` that is not one of them (`pt_BR` is `pt-BR`;
    /// `en_US` is not `en`), for a table with one name column per locale.
    /// - Parameter first: e.g. `["en", "pt-BR"]`.
    /// - Returns: e.g. `["en", "pt-BR", "en_US", "de_DE"]`.
    public func locales(startingWith first: [String]) -> [String] {
        var locales = first
        for locale in fileLocales where !locales.contains(where: { Self.normalized($0) == Self.normalized(locale) }) {
            locales.append(locale)
        }
        return locales
    }

    /// Whether a requested locale names one the file holds: the same identifier (`pt-BR` = `pt_BR`,
    /// case-insensitive), or the same language when either side has no region (`fr` = `fr_FR`, `ja_JP` = `ja`).
    /// - Parameter locale: e.g. `"fr"`, `"de"`, `"ja_JP"`, `"pt-BR"`.
    /// - Returns: `true` when ``fileLocales`` holds it.
    public func holdsLocale(_ locale: String) -> Bool {
        fileLocales.contains { Self.sameLocale(locale, $0) }
    }

    /// Whether the file holds a name in the language of a requested locale, so ``localization(of:locale:)``
    /// can show a name of that language: ``holdsLocale(_:)``, or a localization of the same language in another
    /// region (`de_CH` takes `de_DE`'s names, as an install in `de_CH` would see them).
    /// - Parameter locale: e.g. `"de_CH"`, `"fr"`, `"pt-BR"`.
    /// - Returns: `true` when some localization of ``fileLocales`` has the locale's language.
    public func holdsLanguage(of locale: String) -> Bool {
        let language = Self.language(of: Self.normalized(locale))
        return fileLocales.contains { Self.language(of: Self.normalized($0)) == language }
    }

    /// Where the name ``displayName(of:locale:)`` shows came from when it is not the requested locale's own:
    /// the localization's locale as written (`"en_US"` for a `pt-BR` install of a file without Portuguese),
    /// `"referenceName"` or `"productID"`; `nil` when the name is the requested locale's own (see
    /// ``holdsLocale(_:)`` for what counts as the same locale).
    /// - Parameters:
    ///   - product: a product of this catalog.
    ///   - locale: the requested locale, e.g. `"pt-BR"`.
    /// - Returns: the source of a fallen-back name, or `nil`.
    public func nameFallback(of product: CatalogProduct, locale: String) -> String? {
        if let localization = localization(of: product, locale: locale) {
            return Self.sameLocale(locale, localization.locale) ? nil : localization.locale
        }
        return Self.nonEmpty(product.referenceName) != nil ? "referenceName" : "productID"
    }

    /// `pt-BR` = `pt_BR`; `fr` = `fr_FR` (a side without a region matches any region of its language).
    static func sameLocale(_ a: String, _ b: String) -> Bool {
        let (x, y) = (normalized(a), normalized(b))
        if x == y { return true }
        guard language(of: x) == language(of: y) else { return false }
        return !x.contains("_") || !y.contains("_")
    }
}
