import Foundation
import Testing

@testable import TipJar

/// The amount shown is the amount charged, in every storefront: the App Store "supports either zero or two decimal
/// places for prices, depending on the currency" (https://developer.apple.com/documentation/advancedcommerceapi/prices),
/// and `Transaction.price` is counted in milliunits, "One unit of the currency equals 1000 milliunits"
/// (https://developer.apple.com/documentation/appstoreserverapi/price). Where Apple is silent (what Xcode does with
/// a `.storekit` price its currency cannot express), the simulator charges the price rounded to those places, halves
/// away from zero, and warns (Sources/TipJar/StoreKitFidelity.md).
@Suite("The price a storefront can charge")
struct ChargedPriceTests {
    /// Prices a `.storekit` file may hold: whole, two decimals, a half, below a half, three decimals.
    static let filePrices = ["0.99", "39.99", "0.5", "0.4", "1.995", "4.90", "100", "1234.56"]

    static func catalog(prices: [String]) throws -> Catalog {
        let products = prices.enumerated().map { CatalogFixture.product("tip.p\($0.offset)", price: "\"\($0.element)\"") }
        return try CatalogFixture.parse(CatalogFixture.file(products: "[\(products.joined(separator: ","))]"))
    }

    /// Whether `amount` × 10^`places` is a whole number.
    static func isWhole(_ amount: Decimal, places: Int) -> Bool {
        var scaled = amount * pow(Decimal(10), places)
        var rounded = Decimal()
        NSDecimalRound(&rounded, &scaled, 0, .plain)
        return rounded == scaled
    }

    // One test over every storefront rather than 175 cases (StorefrontInputTests says why).
    @Test func inEveryStorefrontProductPriceIsWholeMilliunitsItsCurrencyCanExpressAndDisplayPriceShowsExactlyIt() throws {
        let catalog = try Self.catalog(prices: Self.filePrices)
        let offers = CatalogOffers(catalog: catalog)
        #expect(Storefront.all.count == 175)
        for storefront in Storefront.all {
            let places = storefront.priceDecimalPlaces
            #expect(places == (Storefront.zeroDecimalCurrencies.contains(storefront.currencyCode) ? 0 : 2))
            for product in offers.listing(storefront: storefront, locale: .en).storeProducts {
                let label = "\(storefront.countryCode) \(storefront.currencyCode) \(product.id) \(product.price)"
                #expect(Self.isWhole(product.price, places: 3), "a whole number of milliunits: \(label)")
                #expect(Self.isWhole(product.price, places: places), "the currency can express it: \(label)")
                let style = Decimal.FormatStyle.Currency(code: storefront.currencyCode, locale: Locale(identifier: storefront.localeIdentifier))
                #expect(product.displayPrice == product.price.formatted(style), "displayPrice formats Product.price: \(label)")
                #expect(try Decimal(product.displayPrice, format: style) == product.price, "read back: \(label) \(product.displayPrice)")
            }
        }
    }

    @Test(
        arguments: [
            ("JPN", "0.99", "1"), ("JPN", "39.99", "40"), ("JPN", "0.5", "1"), ("JPN", "0.4", "0"), ("KOR", "0.99", "1"),
            ("KOR", "39.99", "40"), ("KOR", "0.5", "1"), ("CHL", "0.99", "1"), ("CHL", "39.99", "40"), ("CHL", "0.5", "1"),
            ("VNM", "0.99", "1"), ("VNM", "39.99", "40"), ("VNM", "0.5", "1"), ("USA", "0.99", "0.99"), ("USA", "0.5", "0.5"),
            ("USA", "1.995", "2"), ("USA", "1.994", "1.99"), ("DEU", "39.99", "39.99"),
        ])
    func aPriceIsChargedRoundedToTheAppStoresDecimalPlacesForTheCurrencyHalvesAwayFromZero(code: String, price: String, charged: String) throws {
        let storefront = try #require(Storefront.named(code))
        let catalog = try Self.catalog(prices: [price])
        let product = try #require(CatalogOffers(catalog: catalog).listing(storefront: storefront, locale: .en).storeProducts.first)
        #expect(product.price == Decimal(string: charged)!)
        #expect(product.displayPrice == storefront.displayPrice(Decimal(string: charged)!))
        #expect(storefront.chargedPrice(Decimal(string: price)!) == Decimal(string: charged)!)
    }

    @Test(arguments: [("0.99", "¥1"), ("39.99", "¥40"), ("0.5", "¥1"), ("0.4", "¥0"), ("300", "¥300")])
    func aYenPriceShowsWhatIsCharged(price: String, shown: String) {
        #expect(Storefront.jpn.displayPrice(Decimal(string: price)!) == shown, "Foundation alone shows 0.5 as ¥0 (half-even)")
    }

    @Test func aPriceAStorefrontCannotChargeIsWarnedAboutOncePerProductNamingTheCurrenciesAndWhatIsCharged() throws {
        let catalog = try Self.catalog(prices: ["0.99", "2", "0.4", "1.995", "4.90"])
        let zero = "CLP, COP, DKK, HKD, HUF, IDR, INR, JPY, KRW, KZT, MXN, NGN, NOK, PHP, PKR, RUB, SEK, THB, TWD, TZS, VND"
        let two = Set(Storefront.all.map(\.currencyCode)).subtracting(Storefront.zeroDecimalCurrencies).sorted().joined(separator: ", ")
        #expect(
            catalog.chargedPriceWarnings == [
                "products[0] tip.p0: 0.99 cannot be charged in \(zero) (the App Store prices them without decimals): those storefronts charge 1",
                "products[2] tip.p2: 0.4 cannot be charged in \(zero) (the App Store prices them without decimals): those storefronts charge 0, "
                    + "so it is free there",
                "products[3] tip.p3: 1.995 cannot be charged in \(zero) (the App Store prices them without decimals): those storefronts charge 2; "
                    + "nor in \(two) (the App Store prices them with 2 decimals): those storefronts charge 2.00",
                "products[4] tip.p4: 4.9 cannot be charged in \(zero) (the App Store prices them without decimals): those storefronts charge 5",
            ])
        #expect(Storefront.zeroDecimalCurrencies.isSubset(of: Set(Storefront.all.map(\.currencyCode))), "every listed currency has a storefront")
        #expect(try Self.catalog(prices: ["1", "300"]).chargedPriceWarnings.isEmpty)
    }
}
