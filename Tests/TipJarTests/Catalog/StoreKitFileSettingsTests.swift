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
        #expect(file.defaultStoreSettings == StoreSettings(failures: StoreSettings.Failures(sync: .networkError), askToBuyEnabled: true,
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
        // Only the legacy Purchase failure applies; no bad _storeKitErrors entry does.
        #expect(file.failures == StoreSettings.Failures(purchase: .userCancelled))
        let expected: [(String, String)] = [
            ("_askToBuyEnabled", "found the string \"yes\""), ("_disableDialogs", "found the number 1"),
            ("_locale", "found the number 42"), ("_storefront", "found the boolean true"),
            ("_storeKitErrors[0]", "current.index 99 is out of range"), ("_storeKitErrors[1]", "current.type \"purchase\" is not simulated"),
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

    @Test func legacyFailTransactionsEnabledWithAnSKErrorCodeFailsEveryPurchase() throws {
        let catalog = try CatalogFixture.load("settings-legacy-fail-transactions")
        #expect(catalog.fileSettings.failures == StoreSettings.Failures(purchase: PurchaseFailure(StoreKitError.notAvailableInStorefront)))
        #expect(line(catalog, "_storeKitError")?.contains("SKError.Code.storeProductNotAvailable → StoreKitError.notAvailableInStorefront") == true)
        let alone = try CatalogFixture.load("v1.1-legacy-error-key")
        #expect(alone.fileSettings.failures == StoreSettings.Failures())
        #expect(line(alone, "_storeKitError")?.hasPrefix("ignored setting: _storeKitError (0 (unknown) is used only with _failTransactionsEnabled true") == true)
    }

    @Test func aStoreKitErrorsPurchaseEntryWinsOverTheLegacyKeys() throws {
        let json = CatalogFixture.file(products: "[]", extra: #","settings":{"_failTransactionsEnabled":true,"_storeKitError":0,"_storeKitErrors":[{"name":"Purchase","enabled":true,"current":{"type":"generic","index":4}}]}"#)
        let catalog = try CatalogFixture.parse(json)
        #expect(catalog.fileSettings.failures.purchase == PurchaseFailure(StoreKitError.notAvailableInStorefront))
        #expect(line(catalog, "_failTransactionsEnabled")?.contains("the _storeKitErrors Purchase entry sets the Purchase failure and wins") == true)
    }

    static let everyFixture = ["settings-ask-to-buy-pt-BR", "settings-load-products-fails", "settings-hostile-values",
                               "settings-legacy-fail-transactions", "v1-single-tip", "v1.1-legacy-error-key", "v3-three-tiers-pt-BR",
                               "v3-tips-and-subscriptions", "v3-yen-integer-prices", "v4-compact-no-newline", "v4-empty-catalog",
                               "v4-empty-display-names", "v4-ja-only-names", "v5-nested-offers"]

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
