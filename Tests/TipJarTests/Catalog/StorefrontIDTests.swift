import Foundation
import Testing

@testable import TipJar

/// `Storefront.id`: Apple's storefront identifier, StoreKit's `Storefront.id` and the JWS payload's `storefrontId`
/// (https://developer.apple.com/documentation/appstoreserverapi/storefrontid), for every storefront of
/// `Storefront.all` (Sources/TipJar/Catalog/Storefront+IDs.swift).
@Suite("Storefront IDs")
struct StorefrontIDTests {
    @Test(
        "a storefront's ID is Apple's",
        arguments: [
            ("USA", "143441"), ("BRA", "143503"), ("GBR", "143444"), ("JPN", "143462"), ("DEU", "143443"),
            ("FRA", "143442"), ("CAN", "143455"), ("XKS", "143624"),
        ])
    func aStorefrontsIDIsApples(code: String, id: String) throws {
        #expect(try #require(Storefront.named(code)).id == id)
    }

    @Test func everyStorefrontHasItsOwnSixDigitID() {
        let ids = Storefront.all.compactMap(\.id)
        #expect(ids.count == Storefront.all.count, "no storefront lacks an ID")
        #expect(Set(ids).count == ids.count, "no two storefronts share one")
        #expect(ids.allSatisfy { $0.count == 6 && $0.allSatisfy(\.isASCII) && Int($0) != nil })
        #expect(Set(Storefront.ids.keys) == Set(Storefront.all.map(\.countryCode)), "the table holds exactly the storefronts")
    }

    @Test func aTransactionCarriesItsStorefrontsIDBesideTheCountryCode() {
        let transaction = Transaction(id: 1, productID: "p", purchaseDate: Date(timeIntervalSince1970: 0), storefront: "GBR")
        #expect(transaction.storefront == "GBR")
        #expect(transaction.storefrontID == "143444")
        #expect(Storefront(countryCode: "ZZZ", currencyCode: "USD", localeIdentifier: "en_US").id == nil)
    }
}
