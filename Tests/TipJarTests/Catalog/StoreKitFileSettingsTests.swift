import Foundation
import Testing

@testable import TipJar

/// Every key of a `.storekit` file's `settings` is applied or reported with the reason, never dropped
/// silently; wrongly typed values are reported, and the file still loads.
@Suite("The .storekit file's settings")
struct StoreKitFileSettingsTests {
    func line(_ catalog: Catalog, _ key: String) -> String? {
        catalog.fileSettings.notes.first { $0.key == key }?.line
    }

    @Test func askToBuyLocaleAndStorefrontAreAppliedAsTheDefaultsOfNewInstalls() throws {
        let catalog = try CatalogFixture.load("settings-ask-to-buy-pt-BR")
        let file = catalog.fileSettings
        #expect(file.askToBuyEnabled == true)
        #expect(catalog.defaultLocale == .ptBR)
        #expect(catalog.defaultStorefront.countryCode == "BRA")
        #expect(file.failures.sync == .networkError)
        #expect(
            file.defaultStoreSettings
                == StoreSettings(
                    failures: StoreSettings.Failures(sync: .networkError), askToBuyEnabled: true,
                    skipPurchaseSheet: true))
        #expect(line(catalog, "_askToBuyEnabled")?.hasPrefix("applied setting: _askToBuyEnabled (true") == true)
        #expect(line(catalog, "_locale")?.contains("new installs start in pt-BR") == true)
        #expect(line(catalog, "_storefront")?.hasPrefix("applied setting: _storefront (BRA") == true)
    }

    /// `_disableDialogs` is `SKTestSession.disableDialogs`
    /// (https://developer.apple.com/documentation/storekittest/sktestsession/disabledialogs): the store's `skipPurchaseSheet`.
    @Test func disableDialogsIsAppliedAsSkipPurchaseSheet() throws {
        let catalog = try CatalogFixture.load("settings-ask-to-buy-pt-BR")
        #expect(catalog.fileSettings.disableDialogs == true)
        let note = try #require(line(catalog, "_disableDialogs"))
        #expect(note.hasPrefix("applied setting: _disableDialogs (true: skipPurchaseSheet on"))
        #expect(catalog.fileSettings.applied(to: .normal).skipPurchaseSheet)
        #expect(catalog.fileSettings.storeFields.contains("skipPurchaseSheet"))
        var off = catalog.fileSettings
        off.disableDialogs = false
        #expect(off.applied(to: StoreSettings(skipPurchaseSheet: true)).skipPurchaseSheet == false, "false in the file wins too")
        #expect(StoreKitFileSettings().applied(to: StoreSettings(skipPurchaseSheet: true)).skipPurchaseSheet, "absent keeps the saved value")
    }

    @Test func timeRateAndBillingSettingsAreIgnoredBecauseTheyMeanNothingForConsumables() throws {
        let catalog = try CatalogFixture.load("settings-ask-to-buy-pt-BR")
        for key in ["_timeRate", "_billingGracePeriodEnabled", "_billingIssuesEnabled"] {
            let note = try #require(line(catalog, key), "\(key)")
            #expect(note.hasPrefix("ignored setting: \(key) ("))
            #expect(note.contains("mean") && note.contains("nothing for consumables"), "\(note)")
        }
        #expect(line(catalog, "_developerTeamID")?.contains("App Store Connect sync metadata") == true)
    }

    @Test func storeKitErrorsEnableTheFailurePerAPIWithCurrentIndexInDeclarationOrder() throws {
        let catalog = try CatalogFixture.load("settings-load-products-fails")
        #expect(catalog.fileSettings.failures == StoreSettings.Failures(loadProducts: .networkError, verification: .invalidSignature))
        #expect(catalog.fileSettings.storeFields == ["failures.loadProducts", "failures.verification"])
        let note = try #require(line(catalog, "_storeKitErrors"))
        #expect(note.contains("Load Products: networkError (index 2)"))
        #expect(note.contains("Verification: invalidSignature (index 3)"))
        #expect(note.contains("this dashboard's choice, see README"), "the warning says the mapping is a choice")
    }

    @Test func everyGenericIndexNamesOneStoreKitErrorAndEveryVerificationIndexOneVerificationError() {
        #expect(Set(StoreKitSettingsDecoder.genericErrors) == Set(StoreKitError.allCases))
        #expect(StoreKitSettingsDecoder.genericErrors.count == StoreKitError.allCases.count)
        #expect(Set(StoreKitSettingsDecoder.verificationErrors) == Set(VerificationError.allCases))
        #expect(StoreKitSettingsDecoder.genericErrors.prefix(3) == [.unknown, .userCancelled, .networkError])
    }

    @Test func wronglyTypedValuesUnknownAPINamesAndOutOfRangeIndexesAreReportedAndApplyNothing() throws {
        let catalog = try CatalogFixture.load("settings-hostile-values")
        let file = catalog.fileSettings
        #expect(catalog.tips.count == 3, "the file still loads whole")
        #expect(file.askToBuyEnabled == nil && file.disableDialogs == nil && file.locale == nil && file.storefront == nil)
        #expect(catalog.defaultStorefront == .usa && catalog.defaultLocale == .en)
        // Only the Purchase entry applies; no bad entry does, nor the legacy code failureError does not support.
        #expect(file.failures == StoreSettings.Failures(purchase: PurchaseFailure(Product.PurchaseError.invalidQuantity)))
        let expected: [(String, String)] = [
            ("_askToBuyEnabled", "found the string \"yes\""), ("_disableDialogs", "found the number 1"),
            ("_locale", "found the number 42"), ("_storefront", "found the boolean true"),
            ("_storeKitErrors[0]", "current.index 99 is out of range"),
            ("_storeKitError", "2 (paymentCancelled): SKTestSession.failureError does not support it"),
            ("_failTransactionsEnabled", "the _storeKitErrors Purchase entry sets the Purchase failure and wins"),
            ("_storeKitErrors[2]", "no current error"), ("_storeKitErrors[3]", "found the string \"true\""),
            ("_storeKitErrors[4]", "unknown API name \"Load Product\""), ("_storeKitErrors[5]", "expected an object"),
            ("_storeKitErrors[6]", "a second App Store Sync entry"), ("_storeKitErrors[7]", "a tip jar never calls this API"),
            ("_storeKitErrors[8]", "no API name"), ("applicationName", "not a setting this dashboard knows"),
        ]
        for (key, words) in expected {
            let note = try #require(line(catalog, key), "\(key)")
            #expect(note.hasPrefix("ignored setting: \(key) ("), "\(note)")
            #expect(note.contains(words), "\(note)")
        }
    }

    @Test func legacyFailTransactionsEnabledWithACodeFailureErrorDoesNotSupportFailsNothingAndSaysSo() throws {
        let catalog = try CatalogFixture.load("settings-legacy-fail-transactions")
        #expect(catalog.fileSettings.failures == StoreSettings.Failures())
        #expect(line(catalog, "_storeKitError") == "ignored setting: _storeKitError (5 (storeProductNotAvailable): SKTestSession.failureError does not support it)")
        #expect(line(catalog, "_failTransactionsEnabled")?.hasPrefix("ignored setting: _failTransactionsEnabled (true, but _storeKitError is not a code") == true)
        let alone = try CatalogFixture.load("v1.1-legacy-error-key")
        #expect(alone.fileSettings.failures == StoreSettings.Failures())
        #expect(line(alone, "_storeKitError")?.hasPrefix("ignored setting: _storeKitError (0 (unknown) is used only with _failTransactionsEnabled true") == true)
    }

    /// `SKTestSession.failureError` supports 0, 11, 12, 13 and 14
    /// (https://developer.apple.com/documentation/storekittest/sktestsession/failureerror); each fails every purchase
    /// with the StoreKit 2 error of the same meaning (a choice the note says), every other code is reported.
    @Test("only the SKError codes failureError supports fail purchases", arguments: 0...21)
    func onlyTheSKErrorCodesFailureErrorSupportsFailPurchases(_ code: Int) throws {
        let json = CatalogFixture.file(products: "[]", extra: #","settings":{"_failTransactionsEnabled":true,"_storeKitError":\#(code)}"#)
        let catalog = try CatalogFixture.parse(json)
        let supported: [Int: PurchaseFailure] = [
            0: PurchaseFailure(StoreKitError.unknown),
            11: PurchaseFailure(Product.PurchaseError.invalidOfferIdentifier),
            12: PurchaseFailure(Product.PurchaseError.invalidOfferSignature),
            13: PurchaseFailure(Product.PurchaseError.missingOfferParameters),
            14: PurchaseFailure(Product.PurchaseError.invalidOfferPrice),
        ]
        let note = try #require(line(catalog, "_storeKitError"))
        if let failure = supported[code] {
            #expect(catalog.fileSettings.failures == StoreSettings.Failures(purchase: failure))
            #expect(
                note.hasPrefix("applied setting: _storeKitError (\(code) = SKError.Code.\(StoreKitSettingsDecoder.skErrorCodes[code]) → \(failure.typeName).\(failure.rawValue) ("))
            #expect(note.contains("this dashboard's choice"), "the mapping says it is a choice")
            #expect(line(catalog, "_failTransactionsEnabled") == "applied setting: _failTransactionsEnabled (true: every purchase throws \(failure.typeName).\(failure.rawValue))")
        } else if code < StoreKitSettingsDecoder.skErrorCodes.count {
            #expect(catalog.fileSettings.failures == StoreSettings.Failures())
            #expect(note == "ignored setting: _storeKitError (\(code) (\(StoreKitSettingsDecoder.skErrorCodes[code])): SKTestSession.failureError does not support it)")
            #expect(line(catalog, "_failTransactionsEnabled")?.hasPrefix("ignored setting: _failTransactionsEnabled (true, but") == true)
        } else {
            #expect(catalog.fileSettings.failures == StoreSettings.Failures())
            #expect(note == "ignored setting: _storeKitError (the number 21 is not an SKError.Code (0 to 20))")
        }
    }

    @Test func aPurchaseEntryOfTypePurchaseThrowsTheProductPurchaseErrorAtItsIndex() throws {
        let catalog = try CatalogFixture.load("settings-purchase-errors")
        let file = catalog.fileSettings
        #expect(file.failures == StoreSettings.Failures(purchase: PurchaseFailure(Product.PurchaseError.invalidOfferSignature)))
        #expect(file.storeFields == ["failures.purchase"])
        let note = try #require(line(catalog, "_storeKitErrors"))
        #expect(note.contains("Purchase: Product.PurchaseError.invalidOfferSignature (purchase index 6)"), "\(note)")
        #expect(note.contains("this dashboard's choice, see README"))
        #expect(
            line(catalog, "_storeKitErrors[3]")?.contains("App Store Sync: current.type \"purchase\" is not simulated (expected \"generic\")") == true,
            "App Store Sync has no purchase case in SKTestFailures")
        #expect(line(catalog, "_failTransactionsEnabled")?.contains("the _storeKitErrors Purchase entry sets the Purchase failure and wins") == true)
        #expect(line(catalog, "_storeKitError") == "ignored setting: _storeKitError (12 (invalidSignature) is not used: the _storeKitErrors Purchase entry wins)")
    }

    static func purchaseEntry(_ current: String) throws -> Catalog {
        try CatalogFixture.parse(CatalogFixture.file(products: "[]", extra: #","settings":{"_storeKitErrors":[{"name":"Purchase","enabled":true,"current":\#(current)}]}"#))
    }

    @Test("every purchase index names one Product.PurchaseError, in declaration order", arguments: 0..<8)
    func everyPurchaseIndexNamesOneProductPurchaseError(_ index: Int) throws {
        let catalog = try Self.purchaseEntry(#"{"type":"purchase","index":\#(index)}"#)
        let error = Product.PurchaseError.allCases[index]
        #expect(catalog.fileSettings.failures == StoreSettings.Failures(purchase: PurchaseFailure(error)))
        #expect(line(catalog, "_storeKitErrors")?.contains("Purchase: Product.PurchaseError.\(error.rawValue) (purchase index \(index))") == true)
        #expect(StoreKitSettingsDecoder.purchaseErrors == Product.PurchaseError.allCases)
        #expect(StoreKitSettingsDecoder.purchaseErrors.first == .invalidQuantity && StoreKitSettingsDecoder.purchaseErrors.last == .missingOfferParameters)
    }

    @Test func aPurchaseEntryWithAnUnknownIndexOrShapeIsReportedAndAppliesNothing() throws {
        let cases: [(String, String)] = [
            (#"{"type":"purchase","index":8}"#, "current.index 8 is out of range for purchase (Product.PurchaseError: 0 to 7)"),
            (#"{"type":"purchase","index":-1}"#, "current.index -1 is out of range for purchase"),
            (#"{"type":"generic","index":7}"#, "current.index 7 is out of range for generic (StoreKitError: 0 to 6)"),
            (#"{"type":"verification","index":0}"#, "current.type \"verification\" is not simulated (expected \"generic\" or \"purchase\")"),
            (#"{"type":"purchase","index":0,"error":"invalidQuantity"}"#, "current holds \"error\" beside type and index"),
            (#"{"type":"purchase"}"#, "current must be {\"type\": string, \"index\": whole number}"),
        ]
        for (current, words) in cases {
            let catalog = try Self.purchaseEntry(current)
            #expect(catalog.fileSettings.failures == StoreSettings.Failures(), "\(current)")
            let note = try #require(line(catalog, "_storeKitErrors[0]"), "\(current)")
            #expect(note.hasPrefix("ignored setting: _storeKitErrors[0] (Purchase: "), "\(note)")
            #expect(note.contains(words), "\(note)")
        }
    }

    @Test func aStoreKitErrorsPurchaseEntryWinsOverTheLegacyKeys() throws {
        let json = CatalogFixture.file(
            products: "[]",
            extra:
                #","settings":{"_failTransactionsEnabled":true,"_storeKitError":0,"_storeKitErrors":[{"name":"Purchase","enabled":true,"current":{"type":"generic","index":4}}]}"#)
        let catalog = try CatalogFixture.parse(json)
        #expect(catalog.fileSettings.failures.purchase == PurchaseFailure(StoreKitError.notAvailableInStorefront))
        #expect(line(catalog, "_failTransactionsEnabled")?.contains("the _storeKitErrors Purchase entry sets the Purchase failure and wins") == true)
    }

    static let everyFixture = [
        "settings-ask-to-buy-pt-BR", "settings-load-products-fails", "settings-hostile-values", "settings-purchase-errors",
        "settings-legacy-fail-transactions", "v1-single-tip", "v1.1-legacy-error-key", "v3-three-tiers-pt-BR",
        "v3-tips-and-subscriptions", "v3-yen-integer-prices", "v4-compact-no-newline", "v4-empty-catalog",
        "v4-empty-display-names", "v4-ja-only-names", "v5-nested-offers",
    ]

    @Test("every key under settings gets a line, in every fixture", arguments: everyFixture)
    func everyKeyIsAppliedOrReported(_ name: String) throws {
        let catalog = try CatalogFixture.load(name)
        let url = try #require(CatalogFixture.url(name))
        let root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let keys = Set((root["settings"] as? [String: Any] ?? [:]).keys)
        let noted = Set(catalog.fileSettings.notes.map { $0.key.split(separator: "[").first.map(String.init) ?? $0.key })
        #expect(keys == noted, "\(name): keys without a line: \(keys.subtracting(noted)); lines for no key: \(noted.subtracting(keys))")
        #expect(catalog.fileSettings.notes.allSatisfy { $0.line.hasPrefix("applied setting: ") || $0.line.hasPrefix("ignored setting: ") })
    }
}
