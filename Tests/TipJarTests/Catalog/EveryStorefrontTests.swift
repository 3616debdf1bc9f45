import Foundation
import Testing

@testable import TipJar

/// Every App Store storefront is known, with Apple's currency and a Foundation formatting locale; an unknown
/// code is refused with the closest valid ones (Storefront+All.swift cites the sources).
@Suite("Every App Store storefront")
struct EveryStorefrontTests {
    @Test("175 storefronts, unique alpha-3 codes, 43 currencies, as App Store Connect lists them")
    func theWholeList() {
        #expect(Storefront.all.count == 175)
        #expect(Set(Storefront.all.map(\.countryCode)).count == 175)
        #expect(Set(Storefront.all.map(\.currencyCode)).count == 43)
        #expect(Storefront.all.allSatisfy { $0.countryCode.count == 3 && $0.countryCode.allSatisfy(\.isUppercase) })
        #expect(Storefront.all.map(\.countryCode) == Storefront.all.map(\.countryCode).sorted())
    }

    @Test("the storefronts the old 51-entry table refused are known", arguments: ["LUX", "RUS", "HRV", "KAZ", "XKS", "NRU", "ISL", "TZA"])
    func formerlyRefused(code: String) throws {
        let storefront = try #require(Storefront.named(code))
        #expect(storefront.countryCode == code)
        #expect(!storefront.displayPrice(Decimal(string: "1.99")!).isEmpty)
    }

    @Test("currencies follow App Store Connect's financial report regions")
    func currencies() throws {
        let expected = [
            "LUX": "EUR", "RUS": "RUB", "HRV": "EUR", "KAZ": "KZT", "BGR": "EUR", "ARG": "USD", "UKR": "USD",
            "TZA": "TZS", "QAT": "QAR", "SRB": "EUR", "ISL": "USD", "XKS": "EUR", "USA": "USD", "GBR": "GBP",
        ]
        for (code, currency) in expected {
            #expect(Storefront.named(code)?.currencyCode == currency, "\(code)")
        }
    }

    @Test("where a storefront's currency is its region's own, Foundation's Locale agrees", arguments: Storefront.all)
    func foundationAgrees(storefront: Storefront) {
        let locale = Locale(identifier: storefront.localeIdentifier)
        #expect(storefront.regionCode.count == 2, "\(storefront.countryCode): \(storefront.localeIdentifier) names no region")
        #expect(locale.numberingSystem.identifier == "latn", "\(storefront.countryCode) formats with Latin digits")
        if !["USD", "EUR"].contains(storefront.currencyCode) {
            // USD and EUR are Apple's shared currencies; every other one is the region's own.
            #expect(locale.currency?.identifier == storefront.currencyCode, "\(storefront.countryCode)")
        }
        #expect(storefront.name != storefront.countryCode, "Foundation names \(storefront.countryCode)")
    }

    /// What Foundation on Linux (Swift 6.3) formats, no-break spaces included.
    static let prices: [(String, String, String)] = [
        ("LUX", "1.99", "1,99\u{A0}€"), ("RUS", "99", "99,00\u{A0}₽"), ("HRV", "0.99", "0,99\u{A0}€"),
        ("KAZ", "490", "490,00\u{A0}₸"), ("GBR", "0.99", "£0.99"), ("ARG", "0.99", "US$\u{A0}0,99"),
    ]

    @Test("prices in newly known storefronts", arguments: prices)
    func formattedPrice(code: String, price: String, expected: String) throws {
        #expect(try #require(Storefront.named(code)).displayPrice(Decimal(string: price)!) == expected)
    }

    @Test(
        "an unknown code gets the closest valid codes",
        arguments: [
            ("LUQ", ["LUX"]), ("lu", ["LUX"]), ("Luxembourg", ["LUX"]), ("RUZ", ["RUS"]), ("US", ["USA"]), ("XYZ", []),
            ("KZA", ["DZA", "KAZ", "KNA", "TZA"]), ("Russia", ["RUS"]), ("GB", ["GBR"]), ("USAA", ["USA"]), ("AR", ["ARG"]), ("", []),
        ])
    func closestCodes(code: String, expected: [String]) {
        #expect(Storefront.named(code) == nil)
        #expect(Storefront.closest(to: code) == expected)
        let message = Storefront.unknownCodeMessage(code)
        #expect(message.hasPrefix("unknown storefront \"\(code)\""))
        #expect(message.contains(expected.isEmpty ? "such as USA, BRA or JPN)" : "closest: \(expected.joined(separator: ", "))"))
    }

    @Test("a file's _storefront may be any storefront; an unknown one names the closest", arguments: ["LUX", "RUS", "HRV", "KAZ", "kaz"])
    func fileStorefront(code: String) throws {
        let catalog = try CatalogFixture.parse(
            CatalogFixture.file(
                products: "[\(CatalogFixture.product("t.a"))]",
                extra: #","settings":{"_storefront":"\#(code)"}"#))
        #expect(catalog.defaultStorefront.countryCode == code.uppercased())
        let refusal = try #require(CatalogFixture.refusal(CatalogFixture.file(products: "[]", extra: #","settings":{"_storefront":"LUZ"}"#)))
        #expect(refusal.location == "settings._storefront")
        #expect(refusal.problem.contains("closest: LUX"))
    }

    @Test("the Luxembourg fixture: LUX storefront, French names, euros")
    func luxembourgFixture() throws {
        let catalog = try CatalogFixture.load("v3-storefront-LUX-fr-de")
        #expect(catalog.defaultStorefront.countryCode == "LUX")
        #expect(
            catalog.tipListing(locale: "fr") == [
                "lu.example.pourboire.cafe\tUn café\t1,99\u{A0}€",
                "lu.example.pourboire.croissant\tUn croissant\t3,99\u{A0}€",
                "lu.example.pourboire.repas\tUn repas\t7,99\u{A0}€",
            ])
        #expect(
            catalog.tipListing(locale: "en", storefront: Storefront.named("GBR")).map { $0.split(separator: "\t").last.map(String.init) }
                == ["£1.99", "£3.99", "£7.99"])
    }
}
