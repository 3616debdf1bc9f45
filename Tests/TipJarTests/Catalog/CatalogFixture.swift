import Foundation

@testable import TipJar

/// Loads the `.storekit` fixtures kept in `Fixtures/storekit/`.
enum CatalogFixture {
    /// The URL of `Fixtures/storekit/<name>.storekit` in the test bundle (`name` without extension).
    static func url(_ name: String) -> URL? {
        Bundle.module.url(forResource: "Fixtures/storekit/\(name)", withExtension: "storekit")
    }

    /// The catalog of a fixture, or the refusal it produced.
    static func load(_ name: String) throws -> Catalog {
        guard let url = url(name) else { throw CatalogError(file: name, location: "$", problem: "fixture missing") }
        return try Catalog.load(contentsOf: url)
    }

    /// Parses JSON text written in a test.
    static func parse(_ json: String) throws(CatalogError) -> Catalog {
        try Catalog(data: Data(json.utf8), fileName: "inline.storekit")
    }

    /// The refusal message for JSON text, or `nil` when it loads.
    static func refusal(_ json: String) -> CatalogError? {
        refusal(Data(json.utf8))
    }

    /// The refusal for bytes, or `nil` when they load.
    static func refusal(_ data: Data) -> CatalogError? {
        do { _ = try Catalog(data: data, fileName: "inline.storekit"); return nil } catch { return error }
    }

    /// A minimal valid file around the given `products` array text.
    static func file(products: String, extra: String = "") -> String {
        #"{"version":{"major":3,"minor":0},"products":\#(products)\#(extra)}"#
    }

    /// One product entry with the given JSON texts for `type`, `displayPrice` and `localizations`.
    static func product(_ id: String, price: String = "\"0.99\"", type: String = "\"Consumable\"", localizations: String = "[]") -> String {
        #"{"productID":"\#(id)","type":\#(type),"displayPrice":\#(price),"referenceName":"ref \#(id)","localizations":\#(localizations)}"#
    }
}
