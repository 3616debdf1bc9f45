import Foundation
import Testing

@testable import TipJar

/// The store settings' declarations (Sources/TipJar/Store/StoreSettings+Declarations.swift) in the core: every
/// setting a `.storekit` key feeds is imported from it, saved settings decode field by field, and the declarations
/// are consistent (unique keys and form names, a name for every choice, defaults they allow).
@Suite("Store setting declarations")
struct StoreSettingDeclarationCoreTests {
    /// The shipped catalog's JSON with `settings` replaced.
    static func catalog(settings: [String: Any]) throws -> Catalog {
        let url = try #require(CatalogFixture.url("v3-three-tiers-pt-BR"))
        var file = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        file["settings"] = settings
        return try Catalog(data: try JSONSerialization.data(withJSONObject: file), fileName: "generated.storekit")
    }

    /// For each setting a file feeds: the file's `settings`, and the value it gives that setting.
    static func fileCases(_ declaration: StoreSetting) -> [([String: Any], StoreSetting.Value)] {
        switch declaration.file {
        case .flag(let key, _, _)?:
            return [([key: true], .flag(true)), ([key: false], .flag(false))]
        case .storeKitErrors(let api)?:
            let kinds: [(String, [String])] =
                switch api {
                case "Verification": [("verification", StoreKitSettingsDecoder.verificationErrors.map(\.rawValue))]
                case "Purchase":
                    [
                        ("generic", StoreKitSettingsDecoder.genericErrors.map(\.rawValue)),
                        ("purchase", StoreKitSettingsDecoder.purchaseErrors.map(\.rawValue)),
                    ]
                case "Refund Request Sheet":
                    [
                        ("generic", StoreKitSettingsDecoder.genericErrors.map(\.rawValue)),
                        ("refundRequest", StoreKitSettingsDecoder.refundRequestErrors.map(\.rawValue)),
                    ]
                default: [("generic", StoreKitSettingsDecoder.genericErrors.map(\.rawValue))]
                }
            return kinds.flatMap { type, names in
                names.indices.map { index in
                    (["_storeKitErrors": [["name": api, "enabled": true, "current": ["type": type, "index": index]]]], .text(names[index]))
                }
            }
        case nil:
            return []
        }
    }

    @Test func everySettingAFileFeedsIsImportedAndAppliedAloneFromIt() throws {
        let fed = StoreSettings.declarations.filter { $0.file != nil }
        #expect(
            Set(fed.map(\.key)) == [
                "askToBuyEnabled", "skipPurchaseSheet", "failures.loadProducts", "failures.purchase",
                "failures.verification", "failures.sync", "failures.refundRequest",
            ])
        for declaration in fed {
            for (settings, value) in Self.fileCases(declaration) {
                let file = try Self.catalog(settings: settings).fileSettings
                #expect(file.storeFields == [declaration.key], "\(declaration.key) from \(settings)")
                #expect(file.value(of: declaration) == value, "\(declaration.key) from \(settings)")
                let applied = file.applied(to: .normal)
                #expect(declaration.value(in: applied) == value)
                for other in StoreSettings.declarations where other.key != declaration.key {
                    #expect(other.value(in: applied) == other.defaultValue, "\(other.key) untouched by \(declaration.key)")
                }
                #expect(file.notes.contains { $0.applied && $0.key == declaration.file?.key }, "the report says \(declaration.key) was applied")
            }
        }
    }

    @Test func declarationsHaveUniqueNamesAChoiceNameForEveryValueAndAllowedDefaults() {
        let declarations = StoreSettings.declarations
        #expect(Set(declarations.map(\.key)).count == declarations.count)
        #expect(Set(declarations.map(\.formName)).count == declarations.count)
        for declaration in declarations {
            #expect(declaration.allows(declaration.defaultValue), "\(declaration.key)")
            switch declaration.kind {
            case .choice(let values, let optional):
                #expect(declaration.choiceNames.count == values.count + (optional ? 1 : 0), "\(declaration.key)")
            case .integer(let range, _) where declaration.control == .select:
                #expect(declaration.choiceNames.count == range.count, "\(declaration.key)")
            default:
                #expect(declaration.choiceNames.isEmpty, "\(declaration.key)")
            }
        }
    }

    @Test func savedSettingsDecodeFieldByFieldAndAMissingOrNullFieldTakesItsDefault() throws {
        let old = #"{"catalog":"slow","latencyMs":1500,"failures":{"sync":"networkError"},"listenerReemits":2}"#
        let decoded = try JSONDecoder().decode(StoreSettings.self, from: Data(old.utf8))
        #expect(decoded == StoreSettings(catalog: .slow, latencyMs: 1_500, failures: .init(sync: .networkError), listenerReemits: 2))
        #expect(try JSONDecoder().decode(StoreSettings.self, from: Data(#"{"failures":null,"catalog":null}"#.utf8)) == .normal)
        var every = StoreSettings.normal
        for declaration in StoreSettings.declarations {
            if case .choice(let values, _) = declaration.kind, let last = values.last { declaration.set(.text(last), in: &every) }
            if case .integer(let range, _) = declaration.kind { declaration.set(.number(range.upperBound), in: &every) }
            if case .flag = declaration.kind { declaration.set(.flag(true), in: &every) }
        }
        #expect(every != .normal)
        #expect(try JSONDecoder().decode(StoreSettings.self, from: JSONEncoder().encode(every)) == every, "what is saved reads back")
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(StoreSettings.self, from: Data(#"{"catalog":"sometimes"}"#.utf8)) }
    }

    @Test func aValueOutsideTheDeclarationIsNotWritten() throws {
        var settings = StoreSettings.normal
        let latency = try #require(StoreSettings.declaration("latencyMs"))
        #expect(!latency.set(.number(60_001), in: &settings))
        #expect(!latency.set(.flag(true), in: &settings))
        let sync = try #require(StoreSettings.declaration("failures.sync"))
        #expect(!sync.set(.text("flood"), in: &settings))
        #expect(sync.set(.text("networkError"), in: &settings) && settings.failures.sync == .networkError)
        #expect(sync.set(.off, in: &settings) && settings.failures.sync == nil)
        #expect(!(try #require(StoreSettings.declaration("catalog"))).set(.off, in: &settings), "a required choice is never off")
        #expect(settings == .normal)
    }
}
