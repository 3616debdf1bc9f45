import Foundation
import Testing

@testable import TipJar

/// The `.storekit` file's "Refund Request Sheet" `_storeKitErrors` entry feeds `failures.refundRequest`:
/// `SKTestFailures.RefundRequest` has `generic(StoreKitError)` and `refundRequest(Transaction.RefundRequestError)`
/// (https://developer.apple.com/documentation/storekittest/sktestfailures/refundrequest).
@Suite("The file's Refund Request Sheet failure")
struct RefundRequestSheetFileTests {
    static func entry(_ current: String) throws -> Catalog {
        try CatalogFixture.parse(
            CatalogFixture.file(
                products: "[]", extra: #","settings":{"_storeKitErrors":[{"name":"Refund Request Sheet","enabled":true,"current":\#(current)}]}"#))
    }

    func line(_ catalog: Catalog, _ key: String) -> String? {
        catalog.fileSettings.notes.first { $0.key == key }?.line
    }

    @Test func aRefundRequestSheetEntryOfTypeGenericSetsTheStoreKitErrorAtItsIndex() throws {
        let catalog = try Self.entry(#"{"type":"generic","index":2}"#)
        #expect(catalog.fileSettings.failures == StoreSettings.Failures(refundRequest: RefundRequestFailure(StoreKitError.networkError)))
        #expect(catalog.fileSettings.storeFields == ["failures.refundRequest"])
    }

    @Test("a refundRequest index names Transaction.RefundRequestError in declaration order", arguments: 0..<2)
    func aRefundRequestIndexNamesTheRefundRequestErrorInDeclarationOrder(_ index: Int) throws {
        let catalog = try Self.entry(#"{"type":"refundRequest","index":\#(index)}"#)
        let error: Transaction.RefundRequestError = index == 0 ? .duplicateRequest : .failed
        #expect(catalog.fileSettings.failures == StoreSettings.Failures(refundRequest: RefundRequestFailure(error)))
        #expect(StoreKitSettingsDecoder.refundRequestErrors == [.duplicateRequest, .failed])
    }

    @Test func aRefundRequestSheetEntryIsNoLongerReportedAsAnAPIATipJarNeverCalls() throws {
        let catalog = try Self.entry(#"{"type":"refundRequest","index":1}"#)
        #expect(line(catalog, "_storeKitErrors[0]") == nil, "applied, not reported as an API a tip jar never calls")
        #expect(line(catalog, "_storeKitErrors")?.contains("Refund Request Sheet: Transaction.RefundRequestError.failed (refundRequest index 1)") == true)
        let out = try Self.entry(#"{"type":"refundRequest","index":2}"#)
        #expect(out.fileSettings.failures == StoreSettings.Failures())
    }
}
