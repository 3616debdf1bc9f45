import Foundation
import Testing

@testable import TipJar

/// Any locale a file holds can name its tips; a name that fell back from another locale says so; the
/// tab-separated listing escapes tabs and line breaks inside a field.
@Suite("Catalog locales and the tab-separated listing")
struct CatalogLocaleTests {
    @Test("fileLocales lists each locale once, in file order")
    func fileLocales() throws {
        #expect(try CatalogFixture.load("v3-storefront-LUX-fr-de").fileLocales == ["fr_FR", "de_DE", "en_US"])
        #expect(try CatalogFixture.load("v4-compact-no-newline").fileLocales == ["en_US", "de_DE"])
        #expect(try CatalogFixture.load("v4-empty-catalog").fileLocales.isEmpty)
    }

    @Test(
        "a locale is held by its identifier or, without a region, by its language",
        arguments: [
            ("fr", true), ("fr_FR", true), ("fr-FR", true), ("FR_fr", true), ("de", true), ("en", true),
            ("fr_CA", false), ("ja", false), ("pt-BR", false), ("", false),
        ])
    func holds(locale: String, held: Bool) throws {
        #expect(try CatalogFixture.load("v3-storefront-LUX-fr-de").holdsLocale(locale) == held)
    }

    @Test("a name that fell back from another locale names where it came from")
    func fallbackSource() throws {
        let catalog = try CatalogFixture.load("v3-storefront-LUX-fr-de")
        let croissant = try #require(catalog.product(withID: "lu.example.pourboire.croissant"))
        let cafe = try #require(catalog.product(withID: "lu.example.pourboire.cafe"))
        #expect(catalog.nameFallback(of: cafe, locale: "de") == nil)
        #expect(catalog.displayName(of: croissant, locale: "de") == "Un croissant", "no German: the file's _locale, fr_FR")
        #expect(catalog.nameFallback(of: croissant, locale: "de") == "fr_FR")
        #expect(catalog.nameFallback(of: croissant, locale: "pt-BR") == "fr_FR")
        #expect(catalog.nameFallback(of: croissant, locale: "en") == nil, "en is held as en_US")
        let empty = try #require(CatalogFixture.load("v4-empty-display-names").tips.first)
        #expect(try CatalogFixture.load("v4-empty-display-names").nameFallback(of: empty, locale: "en") == "referenceName")
        #expect(try CatalogFixture.load("v3-storefront-LUX-fr-de").locales(startingWith: ["en", "pt-BR"]) == ["en", "pt-BR", "fr_FR", "de_DE", "en_US"])
    }

    @Test("a tab, line feed, carriage return or backslash in a name never breaks a listing line")
    func escapedListing() throws {
        let listing = try CatalogFixture.load("v4-names-with-tab-and-newline").tipListing(locale: "en")
        #expect(
            listing == [
                #"com.example.tabs.tip.small"# + "\t" + #"Small\ttip"# + "\t$0.99",
                #"com.example.tabs.tip.medium"# + "\t" + #"Medium tip\nwith a second line"# + "\t$2.99",
                #"com.example.tabs.tip.large"# + "\t" + #"Large \\ tip\r"# + "\t$4.99",
            ])
        #expect(listing.allSatisfy { $0.split(separator: "\t", omittingEmptySubsequences: false).count == 3 })
        #expect(listing.allSatisfy { !$0.contains("\n") && !$0.contains("\r") })
    }

    @Test(
        "escapedField",
        arguments: [
            ("plain", "plain"), ("a\tb", #"a\tb"#), ("a\nb\r", #"a\nb\r"#), (#"C:\x"#, #"C:\\x"#),
            ("bell\u{7}", #"bell\u{7}"#), ("nul\u{0}", #"nul\u{0}"#), ("next\u{85}", #"next\u{85}"#),
            ("Café — ☕", "Café — ☕"),
        ])
    func escapedField(raw: String, escaped: String) {
        #expect(Catalog.escapedField(raw) == escaped)
    }
}
