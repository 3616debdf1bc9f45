import Foundation

/// An App Store storefront: a country, its currency and the locale its prices are formatted for.
///
/// Storefronts are named by ISO 3166-1 alpha-3 country codes, as in a `.storekit` file's
/// `settings._storefront` and StoreKit's `Storefront.countryCode`
/// (https://developer.apple.com/documentation/storekit/storefront/countrycode); ``all`` lists every App Store
/// storefront. Prices are formatted like `Product.displayPrice`: the amount this storefront charges for the catalog's
/// number (``chargedPrice(_:)``) in this storefront's currency, formatted for this storefront's locale by Foundation —
/// never by hand.
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

    /// Looks up a storefront by its ISO 3166-1 alpha-3 country code, case-insensitively, surrounding
    /// whitespace and line breaks ignored (`" lux "`, `"\tUSA\n"`).
    /// - Parameter code: e.g. `"USA"`, `"bra"`, `"LUX"` (the `settings._storefront` value of a `.storekit` file,
    ///   StoreKit's `Storefront.countryCode`).
    /// - Returns: the storefront from ``all``, or `nil` for a code that names no App Store storefront.
    public static func named(_ code: String) -> Storefront? {
        // A code as stored (an install's, a transaction's) is found as it is, without trimming or case folding.
        byCode[code] ?? byCode[code.trimmingCharacters(in: .whitespacesAndNewlines).uppercased()]
    }

    /// ``all`` by country code.
    static let byCode: [String: Storefront] = Dictionary(all.map { ($0.countryCode, $0) }, uniquingKeysWith: { first, _ in first })

    /// The storefronts closest to a code that names none, for "did you mean" messages: the storefront whose
    /// ISO 3166-1 alpha-2 code (`"LU"`), English name (`"Luxembourg"`, `"Cote d'Ivoire"`) or common English
    /// alias (``aliases``: `"UK"`, `"South Korea"`, `"Czech Republic"`) is the text — compared ignoring case,
    /// diacritics, spaces and punctuation (`String.folding(options:locale:)`); else those one edit away
    /// (one letter added, removed, changed, or two neighbours swapped: `"LUQ"`, `"KZA"`), in alphabetical order.
    /// Surrounding whitespace and line breaks are ignored, as ``named(_:)`` ignores them.
    /// - Parameters:
    ///   - code: what was given, e.g. `"LUQ"`, `"lu"`, `"Russia"`, `"Great Britain"`.
    ///   - limit: most codes returned.
    /// - Returns: country codes such as `["LUX"]`; empty when nothing is close.
    public static func closest(to code: String, limit: Int = 5) -> [String] {
        // No storefront's name or alias is longer than this; a longer text is near nothing, and is not compared
        // (the edit distance's cost grows with the text).
        guard code.utf8.count <= maximumNameBytes else { return [] }
        let wanted = code.trimmingCharacters(in: .whitespacesAndNewlines).uppercased()
        guard !wanted.isEmpty else { return [] }
        let key = nameKey(wanted)
        if let alias = aliasKeys[key] { return [alias] }
        let named = all.filter { $0.regionCode == wanted || nameKeys[$0.countryCode] == key }.map(\.countryCode)
        if !named.isEmpty { return Array(named.prefix(limit)) }
        let letters = Array(wanted)
        let near = all.map(\.countryCode).filter { abs(letters.count - $0.count) <= 1 && editDistance(letters, Array($0)) == 1 }
        return Array(near.prefix(limit))
    }

    /// The most UTF-8 bytes a text ``closest(to:limit:)`` compares may have: twice the longest storefront name.
    static let maximumNameBytes = 2 * (all.map(\.name.utf8.count) + aliases.keys.map(\.utf8.count)).max()!

    /// Common English names of storefronts that differ from Foundation's (``name``: `"United Kingdom"`,
    /// `"Türkiye"`, `"Czechia"`, `"Côte d’Ivoire"`, `"Hong Kong SAR China"`), for ``closest(to:limit:)``.
    public static let aliases: [String: String] = [
        "UK": "GBR", "Great Britain": "GBR", "Britain": "GBR", "England": "GBR", "Scotland": "GBR", "Wales": "GBR",
        "Northern Ireland": "GBR", "Turkey": "TUR", "Korea": "KOR", "South Korea": "KOR", "Republic of Korea": "KOR",
        "China": "CHN", "Mainland China": "CHN", "Czech Republic": "CZE", "UAE": "ARE", "Emirates": "ARE",
        "United States of America": "USA", "America": "USA", "Macau": "MAC", "Macao": "MAC", "Ivory Coast": "CIV",
        "Macedonia": "MKD", "Russia": "RUS", "Russian Federation": "RUS", "Vietnam": "VNM", "Viet Nam": "VNM",
        "Taiwan": "TWN", "Hong Kong": "HKG", "Holland": "NLD", "Burma": "MMR", "Swaziland": "SWZ", "Cape Verde": "CPV",
        "Laos": "LAO", "Moldova": "MDA", "Bosnia": "BIH", "Saint Lucia": "LCA", "Saint Kitts and Nevis": "KNA",
        "Saint Vincent and the Grenadines": "VCT", "DR Congo": "COD", "DRC": "COD",
        "Democratic Republic of the Congo": "COD", "Republic of the Congo": "COG",
    ]

    /// Text as ``closest(to:limit:)`` compares names: case and diacritics folded, only letters and digits kept.
    static func nameKey(_ text: String) -> String {
        String(
            text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: Locale(identifier: "en_US"))
                .unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) }.map(Character.init))
    }
    static let aliasKeys = Dictionary(aliases.map { (nameKey($0.key), $0.value) }, uniquingKeysWith: { a, _ in a })
    static let nameKeys = Dictionary(all.map { ($0.countryCode, nameKey($0.name)) }, uniquingKeysWith: { a, _ in a })

    /// Why a code is refused, with the closest valid codes: `unknown storefront "LUQ" (expected the ISO 3166-1
    /// alpha-3 code of an App Store storefront, such as USA, BRA or JPN; closest: LUX, LBY)`.
    /// The code is quoted through ``Catalog/shownInput(_:limit:)``: at most 40 characters and an ellipsis,
    /// control characters escaped (`"\u{0}\u{1B}"`), so the message is safe in a page, a log or a terminal.
    /// - Parameter code: the refused code, as given.
    /// - Returns: one sentence, without a trailing period.
    public static func unknownCodeMessage(_ code: String) -> String {
        let shown = Catalog.shownInput(code, limit: 43)
        let closest = closest(to: code)
        return "unknown storefront \"\(shown)\" (expected the ISO 3166-1 alpha-3 code of an App Store storefront, such as USA, BRA or JPN"
            + (closest.isEmpty ? ")" : "; closest: \(closest.joined(separator: ", ")))")
    }

    /// The optimal string alignment distance between two strings of characters: the fewest insertions,
    /// deletions, substitutions and swaps of two neighbours that turn one into the other.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var d = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                d[i][j] = Swift.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = Swift.min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[a.count][b.count]
    }

    /// The ISO 3166-1 alpha-2 code of the storefront's region, from its formatting locale: `"US"`, `"LU"`, `"XK"`.
    public var regionCode: String { Self.regionCodes[countryCode] ?? Self.regionCode(of: localeIdentifier) }

    /// The country or region's name in English, from Foundation (`Locale.localizedString(forRegionCode:)`):
    /// `"Luxembourg"`, `"United States"`; the country code when Foundation has no name.
    public var name: String { Self.names[countryCode] ?? Self.name(ofRegion: regionCode, fallback: countryCode) }

    static func regionCode(of localeIdentifier: String) -> String { Locale(identifier: localeIdentifier).region?.identifier ?? "" }
    static func name(ofRegion region: String, fallback: String) -> String {
        Locale(identifier: "en_US").localizedString(forRegionCode: region) ?? fallback
    }
    /// ``regionCode`` and ``name`` of every storefront of ``all``, computed once.
    static let regionCodes = Dictionary(all.map { ($0.countryCode, regionCode(of: $0.localeIdentifier)) }, uniquingKeysWith: { a, _ in a })
    static let names = Dictionary(
        all.map { ($0.countryCode, name(ofRegion: regionCode(of: $0.localeIdentifier), fallback: $0.countryCode)) },
        uniquingKeysWith: { a, _ in a })

    /// Formats a catalog price like StoreKit's `Product.displayPrice`: the amount this storefront charges for it
    /// (``chargedPrice(_:)``: the number rounded to the decimal places the App Store supports for the currency), in
    /// this storefront's currency, formatted by Foundation (`Decimal.FormatStyle.Currency`) for this storefront's
    /// locale (in Xcode's StoreKit testing, changing the storefront changes the currency, not the number, but for the
    /// decimals the currency cannot express). The amount shown is the amount charged: Foundation never rounds it.
    ///
    /// Foundation on Linux (Swift 6.3) produces, for 0.99 / 4.90 / 100:
    /// USA `"$0.99"`, BRA `"R$\u{A0}0,99"` / `"R$\u{A0}4,90"` (a no-break space, not U+0020),
    /// JPN `"¥100"` (U+00A5; 0.99 is charged 1 in yen, shown `"¥1"`), DEU `"0,99\u{A0}€"`.
    /// - Parameter price: the catalog price (``CatalogProduct/price``), a plain number without currency, or an amount
    ///   already charged (``chargedPrice(_:)`` leaves it unchanged).
    /// - Returns: the localized currency string.
    public func displayPrice(_ price: Decimal) -> String {
        chargedPrice(price).formatted(.currency(code: currencyCode).locale(Locale(identifier: localeIdentifier)))
    }

    /// The alpha-3 country code, e.g. `"USA"`.
    public var description: String { countryCode }
}
