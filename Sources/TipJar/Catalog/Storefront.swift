import Foundation

/// An App Store storefront: a country, its currency and the locale its prices are formatted for.
///
/// Storefronts are named by ISO 3166-1 alpha-3 country codes, as in a `.storekit` file's
/// `settings._storefront` and StoreKit's `Storefront.countryCode` (shared/storekit/README.md).
/// Prices are formatted like `Product.displayPrice`: the catalog's number in this storefront's currency,
/// formatted for this storefront's locale by Foundation — never by hand (DESIGN.md rule 2).
public struct Storefront: Sendable, Hashable, Codable, CustomStringConvertible {
    /// ISO 3166-1 alpha-3 country code, upper case, e.g. `"USA"`, `"BRA"`, `"JPN"`.
    public var countryCode: String
    /// ISO 4217 currency code, e.g. `"USD"`, `"BRL"`, `"JPY"`.
    public var currencyCode: String
    /// The Foundation locale identifier prices are formatted for, e.g. `"en_US"`, `"pt_BR"`, `"ja_JP"`.
    public var localeIdentifier: String

    /// Creates a storefront.
    /// - Parameters:
    ///   - countryCode: ISO 3166-1 alpha-3 code (stored upper-cased).
    ///   - currencyCode: ISO 4217 currency code.
    ///   - localeIdentifier: Foundation locale identifier used for price formatting.
    public init(countryCode: String, currencyCode: String, localeIdentifier: String) {
        self.countryCode = countryCode.uppercased()
        self.currencyCode = currencyCode.uppercased()
        self.localeIdentifier = localeIdentifier
    }

    /// United States: USD formatted for `en_US` (`$0.99`). The default when a file has no `_storefront`.
    public static let usa = Storefront(countryCode: "USA", currencyCode: "USD", localeIdentifier: "en_US")
    /// Brazil: BRL formatted for `pt_BR` (`R$ 0,99`, with a no-break space U+00A0 after `R$`).
    public static let bra = Storefront(countryCode: "BRA", currencyCode: "BRL", localeIdentifier: "pt_BR")
    /// Japan: JPY formatted for `ja_JP` (`¥100`; yen has no minor unit, so no decimals are shown).
    public static let jpn = Storefront(countryCode: "JPN", currencyCode: "JPY", localeIdentifier: "ja_JP")
    /// Germany: EUR formatted for `de_DE` (`0,99 €`, with a no-break space before `€`).
    public static let deu = Storefront(countryCode: "DEU", currencyCode: "EUR", localeIdentifier: "de_DE")

    /// The storefronts ``named(_:)`` knows, in alphabetical order of country code.
    public static let all: [Storefront] = [
        ("ARE", "AED", "en_AE"), ("ARG", "ARS", "es_AR"), ("AUS", "AUD", "en_AU"), ("AUT", "EUR", "de_AT"),
        ("BEL", "EUR", "nl_BE"), ("BRA", "BRL", "pt_BR"), ("CAN", "CAD", "en_CA"), ("CHE", "CHF", "de_CH"),
        ("CHL", "CLP", "es_CL"), ("CHN", "CNY", "zh_CN"), ("COL", "COP", "es_CO"), ("CZE", "CZK", "cs_CZ"),
        ("DEU", "EUR", "de_DE"), ("DNK", "DKK", "da_DK"), ("EGY", "EGP", "en_EG"), ("ESP", "EUR", "es_ES"),
        ("FIN", "EUR", "fi_FI"), ("FRA", "EUR", "fr_FR"), ("GBR", "GBP", "en_GB"), ("GRC", "EUR", "el_GR"),
        ("HKG", "HKD", "zh_HK"), ("HUN", "HUF", "hu_HU"), ("IDN", "IDR", "id_ID"), ("IND", "INR", "en_IN"),
        ("IRL", "EUR", "en_IE"), ("ISR", "ILS", "he_IL"), ("ITA", "EUR", "it_IT"), ("JPN", "JPY", "ja_JP"),
        ("KOR", "KRW", "ko_KR"), ("MEX", "MXN", "es_MX"), ("MYS", "MYR", "ms_MY"), ("NGA", "NGN", "en_NG"),
        ("NLD", "EUR", "nl_NL"), ("NOR", "NOK", "nb_NO"), ("NZL", "NZD", "en_NZ"), ("PAK", "PKR", "en_PK"),
        ("PER", "PEN", "es_PE"), ("PHL", "PHP", "en_PH"), ("POL", "PLN", "pl_PL"), ("PRT", "EUR", "pt_PT"),
        ("ROU", "RON", "ro_RO"), ("SAU", "SAR", "en_SA"), ("SGP", "SGD", "en_SG"), ("SWE", "SEK", "sv_SE"),
        ("THA", "THB", "th_TH"), ("TUR", "TRY", "tr_TR"), ("TWN", "TWD", "zh_TW"), ("UKR", "UAH", "uk_UA"),
        ("USA", "USD", "en_US"), ("VNM", "VND", "vi_VN"), ("ZAF", "ZAR", "en_ZA"),
    ].map { Storefront(countryCode: $0.0, currencyCode: $0.1, localeIdentifier: $0.2) }

    /// Looks up a storefront by its ISO 3166-1 alpha-3 country code, case-insensitively.
    /// - Parameter code: e.g. `"USA"`, `"bra"`, `"JPN"` (the `settings._storefront` value of a `.storekit` file).
    /// - Returns: the storefront from ``all``, or `nil` for a code not in the table.
    public static func named(_ code: String) -> Storefront? {
        let wanted = code.trimmingCharacters(in: .whitespaces).uppercased()
        return all.first { $0.countryCode == wanted }
    }

    /// Formats a catalog price like StoreKit's `Product.displayPrice`: the number unchanged, in this
    /// storefront's currency, formatted by Foundation (`Decimal.FormatStyle.Currency`) for this storefront's
    /// locale (DESIGN.md rule 2; shared/storekit/README.md "changing the storefront changes the currency,
    /// not the number").
    ///
    /// Foundation on Linux (Swift 6.3) produces, for 0.99 / 4.90 / 100:
    /// USA `"$0.99"`, BRA `"R$\u{A0}0,99"` / `"R$\u{A0}4,90"` (a no-break space, not U+0020),
    /// JPN `"¥100"` (U+00A5; yen has no minor unit, so 0.99 would show as `"¥1"`), DEU `"0,99\u{A0}€"`.
    /// - Parameter price: the catalog price (``CatalogProduct/price``), a plain number without currency.
    /// - Returns: the localized currency string.
    public func displayPrice(_ price: Decimal) -> String {
        price.formatted(.currency(code: currencyCode).locale(Locale(identifier: localeIdentifier)))
    }

    /// The alpha-3 country code, e.g. `"USA"`.
    public var description: String { countryCode }
}
