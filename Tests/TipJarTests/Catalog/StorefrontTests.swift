import Foundation
import Testing

@testable import TipJar

/// Prices like `Product.displayPrice`: the file's number in the storefront's currency, formatted by Foundation
/// for the storefront's locale (README "Domain rules": Prices). Strings below are what Foundation on Linux produces;
/// BRL and EUR use a no-break space (U+00A0).
@Suite("Storefronts and display prices")
struct StorefrontTests {
    static let prices: [(String, String, String)] = [
        ("USA", "0.99", "$0.99"), ("USA", "29", "$29.00"), ("USA", "4.9", "$4.90"),
        ("BRA", "0.99", "R$\u{A0}0,99"), ("BRA", "9.90", "R$\u{A0}9,90"), ("BRA", "1234.5", "R$\u{A0}1.234,50"),
        ("JPN", "100", "¥100"), ("JPN", "500", "¥500"), ("JPN", "1100", "¥1,100"),
        ("DEU", "0.99", "0,99\u{A0}€"), ("GBR", "0.99", "£0.99"),
    ]

    @Test("displayPrice is Foundation's currency format for the storefront", arguments: prices)
    func displayPrice(code: String, price: String, expected: String) throws {
        let storefront = try #require(Storefront.named(code))
        #expect(storefront.displayPrice(Decimal(string: price)!) == expected)
    }

    @Test("named(_:) knows the common alpha-3 codes, case-insensitively")
    func named() {
        #expect(Storefront.named("usa") == .usa)
        #expect(Storefront.named("BRA") == .bra)
        #expect(Storefront.named("JPN")?.currencyCode == "JPY")
        #expect(Storefront.named("DEU") == .deu)
        #expect(Storefront.named("US") == nil)
        #expect(Storefront.named("XYZ") == nil)
        #expect(Set(Storefront.all.map(\.countryCode)).count == Storefront.all.count)
        #expect(Storefront.all.allSatisfy { $0.countryCode.count == 3 && $0.currencyCode.count == 3 })
    }

    @Test("every known storefront formats a price without crashing", arguments: Storefront.all)
    func everyStorefront(storefront: Storefront) {
        #expect(!storefront.displayPrice(Decimal(string: "4.99")!).isEmpty)
    }
}
