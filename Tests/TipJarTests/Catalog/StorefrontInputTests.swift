import Foundation
import Testing

@testable import TipJar

/// What a person types for a storefront, and what the catalog shows back: every storefront's price has a
/// decimal separator and its currency, common English names find their code, input quoted in a message
/// never carries a raw control character, the catalog says which order rule it follows, and the tint a
/// tier documents is the colour Public/app.css renders.
@Suite("Storefront input and catalog display")
struct StorefrontInputTests {
    /// The price without its digits, separators and spaces: what is left is the currency's symbol or code.
    static func currencyMark(_ price: String) -> String {
        String(
            price.unicodeScalars.filter {
                !CharacterSet.decimalDigits.contains($0) && !CharacterSet.whitespaces.contains($0)
                    && !".,٫\u{202F}-".unicodeScalars.contains($0)
            }.map(Character.init))
    }

    // One test over every storefront rather than 175 cases: each case would be a task of its own on the
    // two-thread cooperative pool, delaying the responders of the suites that serve real sockets meanwhile.
    @Test("0.99 formats with 99 after a decimal separator and the currency's symbol or code, in every storefront")
    func everyStorefrontFormatsASaneDecimal() {
        for storefront in Storefront.all {
            let price = storefront.displayPrice(Decimal(string: "0.99")!)
            #expect(!Self.currencyMark(price).isEmpty, "\(storefront.countryCode): \(price)")
            if storefront.priceDecimalPlaces == 0 {
                // The App Store prices JPY, KRW, … without decimals (Storefront.zeroDecimalCurrencies): 0.99 is charged 1.
                #expect(price == storefront.displayPrice(1), "\(storefront.countryCode): \(price)")
            } else {
                #expect(["0.99", "0,99", "0٫99"].contains { price.contains($0) }, "\(storefront.countryCode): \(price)")
            }
        }
    }

    @Test("Cape Verde prices in US dollars with a comma, in its own region")
    func capeVerde() throws {
        let storefront = try #require(Storefront.named("CPV"))
        #expect(storefront.displayPrice(Decimal(string: "0.99")!) == "0,99\u{A0}US$")
        #expect(storefront.regionCode == "CV")
        #expect(storefront.name == "Cape Verde" || storefront.name == "Cabo Verde")
    }

    @Test(
        "common English names and aliases suggest the right code",
        arguments: [
            ("UK", "GBR"), ("Great Britain", "GBR"), ("England", "GBR"), ("united kingdom", "GBR"), ("Turkey", "TUR"),
            ("Korea", "KOR"), ("South Korea", "KOR"), ("China", "CHN"), ("Czech Republic", "CZE"), ("czechia", "CZE"),
            ("UAE", "ARE"), ("United States of America", "USA"), ("US", "USA"), ("America", "USA"), ("Macau", "MAC"),
            ("Ivory Coast", "CIV"), ("Cote d'Ivoire", "CIV"), ("Côte d’Ivoire", "CIV"), ("Macedonia", "MKD"), ("Russia", "RUS"),
            ("Vietnam", "VNM"), ("Taiwan", "TWN"), ("Hong Kong", "HKG"), ("  hong kong\n", "HKG"), ("türkiye", "TUR"),
            ("TURKIYE", "TUR"), ("St Lucia", "LCA"),
        ])
    func aliases(_ text: String, _ code: String) {
        #expect(Storefront.named(text) == nil)
        #expect(Storefront.closest(to: text) == [code], "\(text)")
        #expect(Storefront.unknownCodeMessage(text).contains("closest: \(code))"))
    }

    @Test("surrounding whitespace and line breaks are ignored alike", arguments: [" lux ", "\tUSA\n", "\nbra\r\n", "\u{A0}JPN"])
    func trimming(_ text: String) throws {
        let storefront = try #require(Storefront.named(text), "\(text.debugDescription)")
        #expect(storefront.countryCode == text.trimmingCharacters(in: .whitespacesAndNewlines).uppercased())
        #expect(Storefront.closest(to: "\tLUQ\n") == ["LUX"])
    }

    @Test("a refused code is quoted with its control characters escaped")
    func controlCharactersAreEscapedInTheMessage() {
        let message = Storefront.unknownCodeMessage("\u{0}\u{1}\u{1B}[31m\u{202E}")
        #expect(message.hasPrefix(#"unknown storefront "\u{0}\u{1}\u{1B}[31m\u{202E}""#))
        #expect(!message.unicodeScalars.contains { $0.properties.generalCategory == .control || $0.value == 0x202E })
        let long = Storefront.unknownCodeMessage(String(repeating: "x", count: 100))
        #expect(long.contains("\"" + String(repeating: "x", count: 40) + "…\""))
    }

    @Test("an ID quoted in a not-found message is escaped")
    func notFoundMessagesEscape() {
        #expect(TipJarError.installNotFound("a\u{0}b").description == #"No install has the ID a\u{0}b."#)
        #expect(TipJarError.unknownProduct("x\u{1B}").description == #"x\u{1B} is not a tip in the loaded catalog."#)
    }

    @Test(
        "line and paragraph separators and bidi controls are escaped in listing fields",
        arguments: [
            0x2028, 0x2029, 0x0085, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069,
        ])
    func separatorsAndBidiControls(_ value: UInt32) throws {
        let scalar = try #require(Unicode.Scalar(value))
        let field = Catalog.escapedField("a\(Character(scalar))b")
        #expect(field == "a\\u{\(String(value, radix: 16, uppercase: true))}b")
        #expect(Catalog.escapedField("é ☕ 🥐") == "é ☕ 🥐")
    }

    @Test("the catalog says which rule orders its tips")
    func tipOrderRule() throws {
        #expect(try Catalog.shipped().tipOrder == .tierOrder)
        let partial = [CatalogFixture.product("t.coffee", price: "\"2\""), CatalogFixture.product("t.other", price: "\"1\"")]
        let catalog = try CatalogFixture.parse(CatalogFixture.file(products: "[\(partial.joined(separator: ","))]"))
        #expect(catalog.tipOrder == .ascendingPrice)
        #expect(catalog.tips.map(\.productID) == ["t.other", "t.coffee"])
    }

    static let stylesheet = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Public/app.css")

    /// The value of a custom property of the stylesheet's `:root`, e.g. `--snack: #975800;`.
    static func cssColour(_ name: String) throws -> String {
        let css = try String(contentsOf: stylesheet, encoding: .utf8)
        let range = try #require(css.range(of: "--\(name):"), "app.css defines --\(name)")
        return css[range.upperBound...].prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces).uppercased()
    }

    /// WCAG 2.2 contrast ratio (https://www.w3.org/TR/WCAG22/#dfn-contrast-ratio) of two `#RRGGBB` colours.
    static func contrast(_ a: String, _ b: String) -> Double {
        func luminance(_ hex: String) -> Double {
            let value: Int = Int(hex.dropFirst(), radix: 16) ?? 0
            func linear(_ shift: Int) -> Double {
                let channel = Double((value >> shift) & 0xFF) / 255
                return channel <= 0.04045 ? channel / 12.92 : pow((channel + 0.055) / 1.055, 2.4)
            }
            let red: Double = 0.2126 * linear(16), green: Double = 0.7152 * linear(8), blue: Double = 0.0722 * linear(0)
            return red + green + blue
        }
        let (x, y) = (luminance(a), luminance(b))
        return (max(x, y) + 0.05) / (min(x, y) + 0.05)
    }

    @Test("each tier's tint is the colour app.css renders, readable on the tile and the page", arguments: TipTier.allCases)
    func tintsAgreeWithTheStylesheet(tier: TipTier) throws {
        #expect(try Self.cssColour(tier.rawValue) == tier.tint.uppercased())
        #expect(try Self.cssColour("other") == TipTier.otherTint.uppercased())
        for background in [try Self.cssColour("card"), try Self.cssColour("bg")] {
            #expect(Self.contrast(tier.tint, background) >= 4.5, "\(tier) on \(background)")
        }
    }
}
