import Foundation

extension Storefront {
    /// The ISO 4217 codes of the currencies the App Store prices with no decimal places; every other currency takes
    /// two. Apple, Advanced Commerce API, "Prices" (https://developer.apple.com/documentation/advancedcommerceapi/prices):
    /// "The App Store supports either zero or two decimal places for prices, depending on the currency.", with this
    /// list of zero-decimal currencies. It is stricter than ISO 4217's minor units (which give DKK, HKD, INR, MXN, NOK,
    /// SEK and others two): Apple's table wins. Every one of them is the currency of some storefront of ``all``.
    public static let zeroDecimalCurrencies: Set<String> = [
        "CLP", "COP", "DKK", "HKD", "HUF", "IDR", "INR", "JPY", "KRW", "KZT", "MXN", "NGN", "NOK", "PHP", "PKR", "RUB",
        "SEK", "THB", "TWD", "TZS", "VND",
    ]

    /// The decimal places the App Store supports for a currency's prices: 0 for ``zeroDecimalCurrencies``, else 2.
    /// - Parameter currencyCode: an ISO 4217 code, upper case, e.g. `"JPY"`, `"USD"`.
    public static func priceDecimalPlaces(currencyCode: String) -> Int {
        zeroDecimalCurrencies.contains(currencyCode) ? 0 : 2
    }

    /// The decimal places the App Store supports for this storefront's currency (``priceDecimalPlaces(currencyCode:)``).
    public var priceDecimalPlaces: Int { Self.priceDecimalPlaces(currencyCode: currencyCode) }

    /// The amount this storefront charges for a catalog price: the price rounded to ``priceDecimalPlaces``, halves away
    /// from zero. In JPY, KRW, CLP or VND 0.99 → 1, 39.99 → 40, 0.5 → 1 and 0.4 → 0 (free); in USD 0.99 stays 0.99
    /// and 0.995 → 1.00. Apple does not say what Xcode does with a `.storekit` price its currency cannot express; the
    /// simulator charges this amount, and `Product.price`, `Product.displayPrice` (``displayPrice(_:)``),
    /// `Transaction.price` and the JWS `price` all follow it (StoreKitFidelity.md). Foundation's currency
    /// formatting alone would round halves to even (0.5 → `"¥0"`) while the file's number was recorded.
    /// - Parameter price: the catalog price (``CatalogProduct/price``), or an amount already charged (unchanged).
    /// - Returns: an amount the storefront's currency can express.
    public func chargedPrice(_ price: Decimal) -> Decimal {
        Self.chargedPrice(price, currencyCode: currencyCode)
    }

    /// ``chargedPrice(_:)`` for a currency.
    static func chargedPrice(_ price: Decimal, currencyCode: String) -> Decimal {
        var exact = price
        var rounded = Decimal()
        NSDecimalRound(&rounded, &exact, priceDecimalPlaces(currencyCode: currencyCode), .plain)
        return rounded
    }

    /// The currencies of ``all``, each once, in alphabetical order.
    static let currencies: [String] = Set(all.map(\.currencyCode)).sorted()
}

extension Catalog {
    /// One warning per product whose price some storefront cannot charge as written (``Storefront/chargedPrice(_:)``),
    /// naming the currencies and what those storefronts charge, for `check-storekit`, `serve`'s start-up lines and
    /// `/catalog`: `products[0] com.example.tip.coffee: 0.99 cannot be charged in CLP, COP, …, VND (the App Store
    /// prices them without decimals): those storefronts charge 1`.
    /// - Parameter products: every product, in file order.
    /// - Returns: the warnings, in file order; empty when every price can be charged everywhere.
    static func chargedPriceWarnings(of products: [CatalogProduct]) -> [String] {
        let byPlaces = Dictionary(grouping: Storefront.currencies, by: Storefront.priceDecimalPlaces(currencyCode:))
        return products.enumerated().compactMap { index, product in
            let clauses = byPlaces.keys.sorted().compactMap { places -> String? in
                let currencies = byPlaces[places] ?? []
                guard let currency = currencies.first else { return nil }
                let charged = Storefront.chargedPrice(product.price, currencyCode: currency)
                guard charged != product.price else { return nil }
                let how = places == 0 ? "the App Store prices them without decimals" : "the App Store prices them with \(places) decimals"
                let free = charged == 0 ? ", so it is free there" : ""
                return "in \(currencies.joined(separator: ", ")) (\(how)): those storefronts charge \(Self.plain(charged, places: places))\(free)"
            }
            guard !clauses.isEmpty else { return nil }
            return "products[\(index)] \(Self.escapedField(product.productID)): \(product.price) cannot be charged "
                + clauses.joined(separator: "; nor ")
        }
    }

    /// An amount with exactly `places` decimals and no grouping, e.g. `1`, `1.00`.
    private static func plain(_ amount: Decimal, places: Int) -> String {
        amount.formatted(.number.precision(.fractionLength(places)).grouping(.never).locale(Locale(identifier: "en_US_POSIX")))
    }
}
