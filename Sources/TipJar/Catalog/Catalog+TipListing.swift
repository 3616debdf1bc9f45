extension Catalog {
    /// A plain-text summary of the catalog as an install would see it, for `tipjar check-storekit` and tests:
    /// one line `<productID>\t<name>\t<displayPrice>` per tip in the order they are offered
    /// (``tierOrder(_:)``), then one line `not a tip: <productID> (<type>)` per other product in file order,
    /// `<type>` being the file's raw `type` string (e.g. `NonConsumable`, `RecurringSubscription`).
    ///
    /// Every field goes through ``escapedField(_:)``, so a tab or line break inside a name or ID can never split
    /// a line or add a column. Names are the tiles' (``tileName(of:locale:)``: the tip jar's own tier names in `locale`'s
    /// language, Portuguese or else English, or `Product.displayName`, which follows the file's `_locale` and may be
    /// empty); prices ``Storefront/displayPrice(_:)``.
    /// - Parameters:
    ///   - locale: the locale names are shown in, e.g. `"en"`, `"pt-BR"`, `"fr"`, `"ja_JP"`.
    ///   - storefront: the install's storefront; `nil` means ``defaultStorefront`` (the file's `_storefront`,
    ///     else USA).
    /// - Returns: the lines, without trailing newlines; empty for an empty catalog.
    public func tipListing(locale: String, storefront: Storefront? = nil) -> [String] {
        let store = storefront ?? defaultStorefront
        let appLocale: AppLocale = Self.language(of: Self.normalized(locale)) == "pt" ? .ptBR : .en
        let tipLines = tips.map {
            [$0.productID, tileName(of: $0, locale: appLocale), store.displayPrice($0.price)].map(Self.escapedField).joined(separator: "\t")
        }
        let otherLines = nonTips.map { "not a tip: \(Self.escapedField($0.productID)) (\($0.type.rawValue))" }
        return tipLines + otherLines
    }

    /// One field of ``tipListing(locale:storefront:)``, escaped the way tab-separated text usually is: a
    /// backslash becomes `\\`, a tab `\t`, a line feed `\n`, a carriage return `\r`, and any other control
    /// character (Unicode general category Cc, e.g. U+0000, U+001B, U+0085) `\u{XX}` with its hex code point, and so
    /// are the line and paragraph separators U+2028 and U+2029 (which break lines in editors and JavaScript,
    /// https://www.unicode.org/reports/tr14/) and the bidirectional embedding, override and isolate controls
    /// U+202A–U+202E and U+2066–U+2069 (which reorder the text around them on screen,
    /// https://www.unicode.org/reports/tr9/#Explicit_Directional_Embeddings and CVE-2021-42574 "Trojan Source").
    /// Everything else, non-ASCII included, is unchanged. Undo it by reading `\` and the character after it.
    /// - Parameter field: a product ID, name or price.
    /// - Returns: the field without tabs, line breaks or other control characters.
    public static func escapedField(_ field: String) -> String {
        var out = ""
        out.reserveCapacity(field.utf8.count)
        for scalar in field.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            default:
                if scalar.properties.generalCategory == .control || Self.escapedFormatScalars.contains(scalar.value) {
                    out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// Input quoted in a message (a refusal, a log line, a page): shortened to `limit` characters with an
    /// ellipsis, so hostile input cannot flood the message, and escaped as ``escapedField(_:)`` escapes
    /// (`\u{0}`, `\u{1B}`, `\n`, `\u{202E}`), so a control character never reaches a page, a log or a terminal raw.
    /// - Parameters:
    ///   - text: the quoted input.
    ///   - limit: longer text keeps its first `limit - 3` characters and an ellipsis.
    /// - Returns: the shortened, escaped text.
    public static func shownInput(_ text: String, limit: Int = 60) -> String {
        escapedField(text.count <= limit ? text : String(text.prefix(limit - 3)) + "…")
    }

    /// The separators and bidirectional controls ``escapedField(_:)`` writes as `\u{XXXX}`.
    static let escapedFormatScalars: Set<UInt32> = Set([0x2028, 0x2029] + Array(0x202A...0x202E) + Array(0x2066...0x2069))
}
