import Foundation
import Testing

@testable import TipJar

/// Writes `.storekit` files of any size in memory, in the shape of `Fixtures/storekit/v3-three-tiers-pt-BR.storekit`:
/// format 3.0, consumables named in `en_US` and `pt_BR`, `_locale` `en_US`, storefront USA.
enum StoreKitFileGenerator {
    /// The product ID of the generated product at `index`: `com.example.tipjar.tip.t00042`.
    static func productID(_ index: Int) -> String { "com.example.tipjar.tip.t" + String(repeating: "0", count: max(0, 5 - "\(index)".count)) + "\(index)" }

    /// The price of the generated product at `index`: `0.99` to `49.99`, repeating.
    static func price(_ index: Int) -> String { "\(index % 50).99" }

    /// One product entry, as Xcode writes it.
    static func product(_ index: Int, id: String? = nil) -> [String: Any] {
        [
            "displayPrice": price(index), "familyShareable": false, "internalID": String(format: "%08X", index),
            "localizations": [
                ["description": "Tip number \(index)", "displayName": "Tip \(index)", "locale": "en_US"],
                ["description": "Gorjeta número \(index)", "displayName": "Gorjeta \(index)", "locale": "pt_BR"],
            ],
            "productID": id ?? productID(index), "referenceName": "Tip \(index)", "type": "Consumable",
        ]
    }

    /// A file of `count` consumables, then `extra` entries at the end of `products`.
    static func consumables(_ count: Int, extra: [[String: Any]] = []) throws -> Data {
        let file: [String: Any] = [
            "identifier": "5CA1EBE7", "nonRenewingSubscriptions": [], "products": (0..<count).map { product($0) } + extra,
            "settings": ["_locale": "en_US", "_storefront": "USA"], "subscriptionGroups": [], "version": ["major": 3, "minor": 0],
        ]
        return try JSONSerialization.data(withJSONObject: file, options: [.prettyPrinted, .sortedKeys])
    }
}

/// A `.storekit` file with thousands of products loads whole, within the 16 MiB cap (`StoreKitFileDecoder.maxFileSize`):
/// every product is there, listed and offered. How long it takes is measured by
/// Tests/Benchmarks/storekit_scale_bench.py, not here.
@Suite("Catalogs with many products")
struct CatalogScaleTests {
    static let count = 10_000

    @Test func everyProductOfATenThousandProductFileLoadsIsListedAndIsOffered() throws {
        let data = try StoreKitFileGenerator.consumables(Self.count)
        #expect(data.count <= StoreKitFileDecoder.maxFileSize)
        let catalog = try Catalog(data: data, fileName: "generated.storekit")
        let ids = (0..<Self.count).map(StoreKitFileGenerator.productID)
        #expect(catalog.products.map(\.productID) == ids, "every product, in file order")
        #expect(catalog.tips.count == Self.count && catalog.nonTips.isEmpty)
        #expect(catalog.tipOrder == .ascendingPrice, "the IDs name no tier")
        #expect(catalog.products.map(\.price) == (0..<Self.count).map { Decimal(string: StoreKitFileGenerator.price($0))! })
        #expect(catalog.emptyDisplayNameWarnings.isEmpty)
        for index in [0, 1, Self.count / 2, Self.count - 1] {
            #expect(catalog.product(withID: ids[index])?.fileIndex == index)
            #expect(catalog.tip(withID: ids[index])?.productID == ids[index])
        }

        // `check-storekit`'s lines: one per tip, ascending price, ties in file order.
        let listing = catalog.tipListing(locale: "en")
        let expected = (0..<Self.count).sorted { (a, b) in a % 50 != b % 50 ? a % 50 < b % 50 : a < b }
        #expect(listing == expected.map { "\(ids[$0])\tTip \($0)\t$\(StoreKitFileGenerator.price($0))" })

        // What the store answers and the tip jar shows, in both app locales.
        let offers = CatalogOffers(catalog: catalog)
        for locale in AppLocale.allCases {
            let answer = offers.listing(storefront: .usa, locale: locale)
            #expect(answer.storeProducts.map(\.id) == ids.reversed())
            #expect(answer.tipOffers.map(\.productID) == expected.map { ids[$0] })
        }
        for entry in catalog.products where entry.fileIndex % 997 == 0 {
            #expect(offers.product(for: entry, storefront: .bra, locale: .ptBR).id == entry.productID)
        }
    }

    @Test func aProductIDUsedAgainAtTheEndOfALargeFileIsRefusedNamingBothPlaces() throws {
        let data = try StoreKitFileGenerator.consumables(Self.count, extra: [StoreKitFileGenerator.product(7)])
        let refusal = CatalogFixture.refusal(data)
        #expect(refusal?.location == "products[\(Self.count)].productID")
        #expect(refusal?.problem.contains("already used at products[7].productID") == true, "\(String(describing: refusal))")
    }
}
