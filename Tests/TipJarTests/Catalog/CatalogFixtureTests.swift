import Foundation
import Testing

@testable import TipJar

/// Every `v*` fixture against the expectations table of Fixtures/storekit/README.md
/// (names, prices exactly as Foundation formats them, tier order, "not a tip" lines).
@Suite("StoreKit fixtures: the README expectations table")
struct CatalogFixtureTests {
    /// (file, install locale, expected `tipListing` lines with the file's default storefront).
    static let expectations: [(String, String, [String])] = [
        ("v1-single-tip", "en", ["org.example.lantern.tip\tBig Thanks\t$99.99"]),
        ("v1.1-legacy-error-key", "en", ["com.example.helper.consumable.tip\tGenerous tip\t$29.00"]),
        (
            "v3-three-tiers-pt-BR", "pt-BR",
            [
                "app.example.photos.tip.coffee\tCafé\tR$\u{A0}4,90",
                "app.example.photos.tip.snack\tLanche\tR$\u{A0}6,90",
                "app.example.photos.tip.lunch\tAlmoço completo\tR$\u{A0}9,90",
            ]
        ),
        (
            "v3-three-tiers-pt-BR", "en",
            [
                "app.example.photos.tip.coffee\tCoffee\tR$\u{A0}4,90",
                "app.example.photos.tip.snack\tSnack\tR$\u{A0}6,90",
                "app.example.photos.tip.lunch\tLunch\tR$\u{A0}9,90",
            ]
        ),
        (
            "v3-tips-and-subscriptions", "en",
            [
                "io.example.config.tip.a\tSmall tip\t$0.99",
                "io.example.config.tip.b\tMedium tip\t$1.99",
                "io.example.config.tip.c\tLarge tip\t$4.99",
                "not a tip: io.example.config.unlock (NonConsumable)",
                "not a tip: io.example.config.monthly.small (RecurringSubscription)",
                "not a tip: io.example.config.monthly.large (RecurringSubscription)",
            ]
        ),
        (
            "v3-yen-integer-prices", "en",
            [
                "jp.example.cards.tip.s\t小さな応援\t¥100",
                "jp.example.cards.tip.m\t応援\t¥200",
                "jp.example.cards.tip.l\t大きな応援\t¥500",
            ]
        ),
        (
            "v4-ja-only-names", "pt-BR",
            [
                "jp.example.quiz.tip1\tコーヒー\t$0.99",
                "jp.example.quiz.tip2\tおやつ\t$2.99",
                "jp.example.quiz.tip3\tランチ\t$6.99",
            ]
        ),
        (
            "v4-empty-display-names", "en",
            [
                // Product.displayName is "" until a localization names it (Apple): a blank name, never referenceName.
                "church.example.app.tip.small\t\t$0.99",
                "church.example.app.tip.medium\t\t$2.99",
                "church.example.app.tip.large\t\t$4.99",
            ]
        ),
        (
            "v4-compact-no-newline", "en",
            [
                "tip.small\tSmall tip — thanks!\t$1.99",
                "tip.medium\tMedium tip\t$4.99",
                "tip.large\tLarge tip\t$9.99",
            ]
        ),
        // StoreKit names a product in the file's _locale (en_US when absent), not the install's language.
        (
            "v4-compact-no-newline", "de-DE",
            [
                "tip.small\tSmall tip — thanks!\t$1.99",
                "tip.medium\tMedium tip\t$4.99",
                "tip.large\tLarge tip\t$9.99",
            ]
        ),
        (
            "v3-storefront-LUX-fr-de", "de",
            [
                "lu.example.pourboire.cafe\tUn café\t1,99\u{A0}€",
                "lu.example.pourboire.croissant\tUn croissant\t3,99\u{A0}€",
                "lu.example.pourboire.repas\tUn repas\t7,99\u{A0}€",
            ]
        ),
        (
            "v4-partial-tier-names", "en",
            [
                "com.example.cafeapp.SomeTip\tSome tip\t$0.99",
                "com.example.cafeapp.Coffee\tCoffee\t$2.99",
                "com.example.cafeapp.FancyDrink\tFancy drink\t$9.99",
                "com.example.cafeapp.TacoDinner\tTaco dinner\t$19.99",
            ]
        ),
        ("v4-empty-catalog", "en", []),
        (
            "v5-nested-offers", "en",
            [
                "com.example.v5.tip.coffee\tCoffee\t$1.69",
                "com.example.v5.tip.snack\tSnack\t$3.49",
                "not a tip: com.example.v5.season (NonRenewingSubscription)",
                "not a tip: com.example.v5.pro (RecurringSubscription)",
            ]
        ),
    ]

    @Test("every v* file loads and lists the README's tips", arguments: expectations)
    func listing(file: String, locale: String, expected: [String]) throws {
        let catalog = try CatalogFixture.load(file)
        #expect(catalog.tipListing(locale: locale) == expected)
    }

    /// (file, format version, default storefront, `_locale`, identifier, tip count, product count).
    static let headers: [(String, String, String, String?, String?, Int, Int)] = [
        ("v1-single-tip", "1.0", "USA", nil, nil, 1, 1),
        ("v1.1-legacy-error-key", "1.1", "USA", nil, "0C0FFEE0", 1, 1),
        ("v3-three-tiers-pt-BR", "3.0", "BRA", "pt_BR", "5E0B1C7A", 3, 3),
        ("v3-tips-and-subscriptions", "3.0", "USA", "en_US", "MIX00001", 3, 6),
        ("v3-yen-integer-prices", "3.0", "JPN", "en_US", "JPN00001", 3, 3),
        ("v4-ja-only-names", "4.0", "USA", "en_US", "A0B1C2D3", 3, 3),
        ("v4-empty-display-names", "4.0", "USA", "en_US", "FF00AA11", 3, 3),
        ("v4-compact-no-newline", "4.0", "USA", nil, "keyvault-config", 3, 3),
        ("v3-storefront-LUX-fr-de", "3.0", "LUX", "fr_FR", "4C1D9A7E", 3, 3),
        ("v4-partial-tier-names", "4.0", "USA", "en_US", "9B27C3D0", 4, 4),
        ("v4-names-with-tab-and-newline", "4.0", "USA", "en_US", "1E2F3A4B", 3, 3),
        ("v4-empty-catalog", "4.0", "USA", "en_US", "EMPTY000", 0, 0),
        ("v5-nested-offers", "5.0", "USA", "en_US", "V5V5V5V5", 2, 4),
    ]

    @Test("the file's header: version, _storefront (else USA), _locale, identifier", arguments: headers)
    func header(file: String, version: String, storefront: String, locale: String?, identifier: String?, tips: Int, products: Int) throws {
        let catalog = try CatalogFixture.load(file)
        #expect(catalog.formatVersion.description == version)
        #expect(catalog.defaultStorefront.countryCode == storefront)
        #expect(catalog.fileLocale == locale)
        #expect(catalog.identifier == identifier)
        #expect(catalog.tips.count == tips)
        #expect(catalog.products.count == products)
        #expect(catalog.nonTips.count == products - tips)
        #expect(catalog.tips.allSatisfy { $0.type == .consumable })
    }

    @Test("prices are the file's number, exactly")
    func exactPrices() throws {
        let legacy = try CatalogFixture.load("v1.1-legacy-error-key")
        #expect(legacy.tips.map(\.price) == [Decimal(29)])
        let brazil = try CatalogFixture.load("v3-three-tiers-pt-BR")
        #expect(brazil.tips.map(\.price) == ["4.9", "6.9", "9.9"].map { Decimal(string: $0)! })
    }

    @Test("changing the storefront changes the currency, not the number")
    func storefrontOverride() throws {
        let catalog = try CatalogFixture.load("v3-three-tiers-pt-BR")
        #expect(catalog.tipListing(locale: "en", storefront: .usa).first == "app.example.photos.tip.coffee\tCoffee\t$4.90")
        // The tip jar names its tiers itself, in English for a language it has no translation of; yen has no minor
        // unit, so 4.90 shows as ¥5.
        #expect(catalog.tipListing(locale: "ja", storefront: .jpn).first == "app.example.photos.tip.coffee\tCoffee\t¥5")
    }

    @Test("subscriptions and non-consumables are listed, never offered")
    func subscriptionsAreNotTips() throws {
        let catalog = try CatalogFixture.load("v5-nested-offers")
        #expect(catalog.nonTips.map(\.type) == [.nonRenewingSubscription, .autoRenewable])
        #expect(catalog.product(withID: "com.example.v5.pro")?.price == Decimal(string: "11.88"))
        #expect(catalog.product(withID: "com.example.v5.pro").map { catalog.tier(of: $0) } == .some(nil))
        #expect(catalog.products.map(\.fileIndex) == [0, 1, 2, 3])
    }
}
