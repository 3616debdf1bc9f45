import Foundation
import Testing

@testable import TipJarSQLite

/// The `price` column keeps a transaction's price as its exact decimal text, never a float
/// (`TipJarSchema.v5`), however many prices the texts kept in memory have seen.
@Suite("Price column")
struct PriceColumnTests {
    @Test func aPriceIsWrittenAsTheDecimalTextThatReadsBackToIt() {
        let prices = ["0.99", "1.5", "0", "1000000.01", "0.001", "12345678901234567890.12", "-3.25"].map { Decimal(string: $0)! }
        for price in prices {
            let first = SQLiteTipJarStorage.priceText(price)
            #expect(first == price.description)
            #expect(Decimal(string: first) == price, "\(first)")
            #expect(SQLiteTipJarStorage.priceText(price) == first, "the kept text is the same")
        }
    }

    @Test func moreDistinctPricesThanAreKeptStillEachGetTheirOwnText() {
        for cents in 0..<600 {
            let price = Decimal(cents) / 100
            #expect(SQLiteTipJarStorage.priceText(price) == price.description)
        }
        #expect(SQLiteTipJarStorage.priceText(Decimal(string: "0.99")!) == "0.99")
    }
}
