import Foundation
import Testing

@testable import TipJar

/// Every `bad-*` fixture and hostile input is refused with file, location and problem — never a crash,
/// never a half-loaded catalog (Tests/TipJarTests/Fixtures/storekit/README.md; README "Domain rules": Bad input and faults).
@Suite("StoreKit refusals: file, JSON location, what is wrong")
struct CatalogRefusalTests {
    /// (file, expected location, words the problem must contain).
    static let badFiles: [(String, String, [String])] = [
        ("bad-truncated", "end of file (line 6, column 46)", ["ends early", "truncated", "(2 objects and 1 array left open)"]),
        ("bad-not-json", "line 1, column 1", ["not a StoreKit configuration file", "not JSON"]),
        ("bad-price-not-a-number", "products[1].displayPrice", ["\"two dollars\"", "not a decimal number"]),
        ("bad-duplicate-product-id", "products[1].productID", ["duplicate productID", "\"com.example.bad.tip.same\"", "products[0].productID"]),
        ("bad-unknown-product-type", "products[0].type", ["unknown product type", "\"Gift\""]),
    ]

    @Test("each bad-* file is refused naming the file, the location and the problem", arguments: badFiles)
    func badFile(name: String, location: String, words: [String]) throws {
        let url = try #require(CatalogFixture.url(name))
        let error = try #require(throws: CatalogError.self) { try Catalog.load(contentsOf: url) }
        #expect(error.file == url.path)
        #expect(error.location == location)
        for word in words { #expect(error.problem.contains(word), "\(error)") }
        #expect(error.description == "\(url.path): \(location): \(error.problem)")
        #expect(error.description.contains("\(name).storekit"))
    }

    /// (label, JSON text, expected location, a word of the problem).
    static let hostileText: [(String, String, String, String)] = [
        ("empty file", "", "end of file", "empty"),
        ("whitespace only", " \n\t ", "end of file", "empty"),
        ("root is an array", "[1]", "$", "not an object"),
        ("root is a string", "\"x\"", "line 1, column 1", "not an object"),
        ("empty object", "{}", "version", "missing key \"version\""),
        ("no products", #"{"version":{"major":3,"minor":0}}"#, "products", "missing key \"products\""),
        ("version 6", #"{"version":{"major":6,"minor":0},"products":[]}"#, "version", "unsupported format version 6.0"),
        ("version 0.9", #"{"version":{"major":0,"minor":9},"products":[]}"#, "version", "unsupported format version 0.9"),
        ("version not an object", #"{"version":3,"products":[]}"#, "version", "expected an object, found the number 3"),
        ("major is a string", #"{"version":{"major":"3"},"products":[]}"#, "version.major", "expected a whole number"),
        ("products not an array", CatalogFixture.file(products: "{}"), "products", "expected an array, found an object"),
        ("product not an object", CatalogFixture.file(products: "[\"x\"]"), "products[0]", "expected an object"),
        (
            "productID not a string", CatalogFixture.file(products: #"[{"productID":5,"type":"Consumable","displayPrice":"1"}]"#), "products[0].productID",
            "expected a string, found the number 5"
        ),
        ("productID missing", CatalogFixture.file(products: #"[{"type":"Consumable","displayPrice":"1"}]"#), "products[0].productID", "missing key"),
        ("productID empty", CatalogFixture.file(products: "[\(CatalogFixture.product(" "))]"), "products[0].productID", "empty"),
        ("type missing", CatalogFixture.file(products: #"[{"productID":"a","displayPrice":"1"}]"#), "products[0].type", "missing key"),
        ("type is null", CatalogFixture.file(products: "[\(CatalogFixture.product("a", type: "null"))]"), "products[0].type", "found null"),
        ("price missing", CatalogFixture.file(products: #"[{"productID":"a","type":"Consumable"}]"#), "products[0].displayPrice", "missing key"),
        ("price is a boolean", CatalogFixture.file(products: "[\(CatalogFixture.product("a", price: "true"))]"), "products[0].displayPrice", "found the boolean true"),
        ("price negative", CatalogFixture.file(products: "[\(CatalogFixture.product("a", price: "\"-1\""))]"), "products[0].displayPrice", "negative"),
        ("price with currency", CatalogFixture.file(products: "[\(CatalogFixture.product("a", price: "\"$0.99\""))]"), "products[0].displayPrice", "not a decimal number"),
        ("price with comma", CatalogFixture.file(products: "[\(CatalogFixture.product("a", price: "\"0,99\""))]"), "products[0].displayPrice", "not a decimal number"),
        ("price empty", CatalogFixture.file(products: "[\(CatalogFixture.product("a", price: "\"\""))]"), "products[0].displayPrice", "not a decimal number"),
        (
            "huge price string", CatalogFixture.file(products: "[\(CatalogFixture.product("a", price: "\"\(String(repeating: "9", count: 400))\""))]"), "products[0].displayPrice",
            "too many digits"
        ),
        (
            "huge price number", CatalogFixture.file(products: "[\(CatalogFixture.product("a", price: String(repeating: "9", count: 40)))]"), "products[0].displayPrice",
            "too many digits"
        ),
        ("price 1e300", CatalogFixture.file(products: "[\(CatalogFixture.product("a", price: "1e300"))]"), "products[0].displayPrice", "not a decimal number"),
        ("localizations not an array", CatalogFixture.file(products: "[\(CatalogFixture.product("a", localizations: "{}"))]"), "products[0].localizations", "expected an array"),
        (
            "localization without locale", CatalogFixture.file(products: "[\(CatalogFixture.product("a", localizations: #"[{"displayName":"x"}]"#))]"),
            "products[0].localizations[0].locale", "missing key"
        ),
        (
            "displayName not a string", CatalogFixture.file(products: "[\(CatalogFixture.product("a", localizations: #"[{"locale":"en_US","displayName":[]}]"#))]"),
            "products[0].localizations[0].displayName", "expected a string, found an array"
        ),
        (
            "familyShareable a string", CatalogFixture.file(products: #"[{"productID":"a","type":"Consumable","displayPrice":"1","familyShareable":"yes"}]"#),
            "products[0].familyShareable", "expected true or false"
        ),
        ("settings not an object", CatalogFixture.file(products: "[]", extra: #","settings":[]"#), "settings", "expected an object"),
        ("unknown storefront", CatalogFixture.file(products: "[]", extra: #","settings":{"_storefront":"XYZ"}"#), "settings._storefront", "unknown storefront \"XYZ\""),
        (
            "subscription in products", CatalogFixture.file(products: "[\(CatalogFixture.product("a", type: "\"RecurringSubscription\""))]"), "products[0].type",
            "does not belong here"
        ),
        (
            "consumable in subscriptions",
            CatalogFixture.file(products: "[]", extra: #","subscriptionGroups":[{"subscriptions":[{"productID":"s","type":"Consumable","displayPrice":"1"}]}]"#),
            "subscriptionGroups[0].subscriptions[0].type", "does not belong here"
        ),
        (
            "subscriptions not an array", CatalogFixture.file(products: "[]", extra: #","subscriptionGroups":[{"subscriptions":1}]"#), "subscriptionGroups[0].subscriptions",
            "expected an array"
        ),
        (
            "duplicate across sections",
            CatalogFixture.file(
                products: "[\(CatalogFixture.product("dup"))]", extra: #","nonRenewingSubscriptions":[{"productID":"dup","type":"NonRenewingSubscription","displayPrice":"1"}]"#),
            "nonRenewingSubscriptions[0].productID", "duplicate productID \"dup\""
        ),
        (
            "duplicate in a subscription group",
            CatalogFixture.file(
                products: "[\(CatalogFixture.product("dup"))]",
                extra: #","subscriptionGroups":[{"subscriptions":[{"productID":"dup","type":"RecurringSubscription","displayPrice":"1"}]}]"#),
            "subscriptionGroups[0].subscriptions[0].productID", "already used at products[0].productID"
        ),
        ("truncated inside a string", "{\n\"version\": \"ab", "end of file (line 2, column 15)", "inside a string"),
        ("bad literal", "{\"é\": x}", "line 1, column 7", "invalid JSON"),
        ("control character in a string", "{\"a\":\"\u{1}\"}", "line 1, column 7", "control character"),
        ("deeply nested garbage", String(repeating: "[", count: 100_000) + "x", "line 1, column 514", "nested too deeply"),
        ("deeply nested objects", String(repeating: "{\"a\":", count: 600), "line 1, column 2562", "nested too deeply"),
        ("trailing garbage", "{\"version\":{\"major\":3},\"products\":[]} x", "line 1, column 39", "invalid JSON"),
        ("huge exponent", "{\"version\":{\"major\":1e400},\"products\":[]}", "line 1, column 21", "too large"),
    ]

    @Test("hostile input is refused with its location", arguments: hostileText.map { HostileCase($0) })
    func hostile(_ testCase: HostileCase) throws {
        let (label, json, location, word) = (testCase.label, testCase.json, testCase.location, testCase.word)
        let error = try #require(CatalogFixture.refusal(json), "\(label) loaded")
        // Messages only, never the (possibly huge) input, in failure output.
        #expect(error.location == location, "\(label): \(error)")
        #expect(error.problem.contains(word), "\(label): \(error)")
        #expect(error.file == "inline.storekit")
    }

    @Test("non-UTF-8 bytes are refused with their position")
    func nonUTF8() throws {
        let bytes: [UInt8] = Array("{\n\"a\":\"".utf8) + [0xFF, 0xFE] + Array("\"}".utf8)
        let error = try #require(CatalogFixture.refusal(Data(bytes)))
        #expect(error.location == "line 2, column 6")
        #expect(error.problem.contains("UTF-8"))
    }

    @Test("random bytes never crash the importer", arguments: 0..<20)
    func randomBytes(seed: Int) {
        var generator = CatalogFuzzGenerator(seed: UInt64(seed))
        let valid = Array(CatalogFixture.file(products: "[\(CatalogFixture.product("a"))]").utf8)
        var bytes = valid
        for _ in 0..<3 { bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next()) }
        let cut = Int(generator.next() % UInt64(bytes.count + 1))
        for candidate in [bytes, Array(bytes.prefix(cut)), Array(valid.prefix(cut))] {
            if let error = CatalogFixture.refusal(Data(candidate)) {
                #expect(!error.location.isEmpty && !error.problem.isEmpty)
            }
        }
    }

    @Test("a missing file is refused, not crashed on")
    func missingFile() throws {
        let url = URL(fileURLWithPath: "/nonexistent/dir/TipProducts.storekit")
        let error = try #require(throws: CatalogError.self) { try Catalog.load(contentsOf: url) }
        #expect(error.file == url.path)
        #expect(error.problem.contains("cannot read"))
    }
}

/// One hostile input; described by its label only, so huge inputs never flood test output.
struct HostileCase: CustomTestStringConvertible, Sendable {
    let label: String, json: String, location: String, word: String
    init(_ row: (String, String, String, String)) { (label, json, location, word) = row }
    var testDescription: String { label }
}

/// A tiny deterministic generator for the fuzz test.
struct CatalogFuzzGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
