import Mustache
import TipJar

/// What every page's layout (`Templates/layout.mustache`) shows: the CSRF token of the page's forms, the catalog's
/// name in the footer, and the active navigation item.
struct PageChrome: Sendable {
    var csrfToken: String
    var catalogName: String
    var nav: String

    /// The layout's keys, for a page to add its own to.
    var data: TemplateData {
        ["csrfToken": .string(csrfToken), "catalogName": .string(catalogName), "nav": .object([nav: .bool(true)])]
    }
}

/// The `/store` page, from domain values only: the settings (summary and form rows from ``StoreSettings/declarations``),
/// the file's settings, the flash of the last action, and the store's lists.
struct StorePageModel: MustacheRenderable {
    var chrome: PageChrome
    var settings: StoreSettings
    var fileSettings: StoreKitFileSettings
    var flash: StoreFlash?
    var scenarios: [ScenarioDownload]
    /// With the catalog in `mismatch` mode: the IDs the app asks for and those the store holds.
    var mismatch: (asked: [String], held: [String])?
    var pending: [StoredTransaction]
    var interrupted: [StoredTransaction]
    /// Refund requests the app sent, newest first (pending ones with Approve and Decline, decided ones with their outcome).
    var refundRequests: [RefundRequest] = []
    var transactions: [StoredTransaction]
    var productIDs: [String]
    /// The install picker's choices (`value`, `name`), or `nil` when there are too many to list.
    var installChoices: [MustacheValue]?
    var sheetTimeoutMinutes: Int

    /// A pending or interrupted purchase's row.
    static func waitingRow(_ stored: StoredTransaction) -> MustacheValue {
        [
            "transactionID": .string(String(stored.transaction.id)), "installID": .string(stored.installID),
            "installShort": .string(ViewModels.shortID(stored.installID)), "productID": .string(stored.transaction.productID),
        ]
    }

    /// An Ask to Buy request's row: its own ID (not a transaction's: it has none until approved), when it was last
    /// requested (its timer) and how many times it was requested again.
    static func requestRow(_ request: StoredTransaction) -> MustacheValue {
        guard case .object(var row) = waitingRow(request) else { return .null }
        row["requestID"] = .string(String(request.transaction.id))
        row["quantity"] = .string(String(request.transaction.purchasedQuantity))
        row["requestedAt"] = .string(ViewModels.isoSeconds(request.transaction.purchaseDate))
        row["requestedAgain"] = .string(String(request.requestedAgain))
        return .object(row)
    }

    /// A refund request's row: its transaction, install, product, reason, when it was received and where it stands.
    static func refundRequestRow(_ request: RefundRequest) -> MustacheValue {
        [
            "transactionID": .string(String(request.transactionID)), "installID": .string(request.installID),
            "installShort": .string(ViewModels.shortID(request.installID)), "productID": .string(request.productID),
            "reason": .string(request.reason?.rawValue ?? "none given"), "requestedAt": .string(ViewModels.isoSeconds(request.requestedAt)),
            "state": .string(request.state.rawValue), "isPending": .bool(request.state == .pending),
        ]
    }

    /// A row of the recent transactions, with what the Refund button needs.
    static func transactionRow(_ stored: StoredTransaction) -> MustacheValue {
        guard case .object(var row) = waitingRow(stored) else { return .null }
        row["status"] = .string(stored.status.rawValue)
        row["isRevoked"] = .bool(stored.transaction.isRevoked)
        row["isExternal"] = .bool(stored.isExternal)
        row["isFinished"] = .bool(stored.isFinished)
        row["canRefund"] = .bool(stored.status == .purchased && !stored.transaction.isRevoked)
        return .object(row)
    }

    var mustacheValue: MustacheValue {
        var data = chrome.data
        data["settings"] = ViewModels.settings(settings)
        if let flash {
            data["flash"] = .string(flash.message)
            data["flashIn"] = [flash.kind.section: true]
        }
        let form = ViewModels.storeForm(settings, file: fileSettings)
        data["form"] = form.form
        data["fromFile"] = form.fromFile
        data["scenarios"] = .array(
            scenarios.map {
                ["href": .string($0.href), "name": .string($0.name), "file": .string($0.file), "runAction": .string($0.runAction)]
            })
        data["hasScenarios"] = .bool(!scenarios.isEmpty)
        if let mismatch {
            data["mismatch"] = true
            data["askedIDs"] = .string(mismatch.asked.joined(separator: ", "))
            data["heldIDs"] = .string(mismatch.held.joined(separator: ", "))
        }
        data["pending"] = .array(pending.map(Self.requestRow))
        data["interrupted"] = .array(interrupted.map(Self.waitingRow))
        data["refundRequests"] = .array(refundRequests.map(Self.refundRequestRow))
        data["hasRefundRequests"] = .bool(!refundRequests.isEmpty)
        data["transactions"] = .array(transactions.map(Self.transactionRow))
        data["productIDs"] = .array(productIDs.map(MustacheValue.string))
        if let installChoices, !installChoices.isEmpty { data["installPicker"] = ["choices": .array(installChoices)] }
        data["fileNotes"] = .array(
            fileSettings.notes.map {
                ["key": .string(Catalog.escapedField($0.key)), "detail": .string(Catalog.escapedField($0.detail)), "applied": .bool($0.applied)]
            })
        data["groups"] = groupsData
        data["scenarioCount"] = .int(scenarios.count)
        data["sheetTimeoutMinutes"] = .int(sheetTimeoutMinutes)
        return .object(data)
    }
}

/// The `/catalog` page, from the loaded catalog: its tips with names per locale (and where each name falls back
/// from) and prices per storefront, every storefront with a sample price, the products that are not tips, and a
/// tile preview per (locale, storefront).
struct CatalogPageModel: MustacheRenderable {
    var chrome: PageChrome
    var catalog: Catalog
    /// The name columns (``CatalogController/catalogLocales(_:)``).
    var locales: [String]
    /// The price columns.
    var storefronts: [Storefront]
    /// The tile previews: title, language and the offers as the tip jar shows them.
    var previews: [(title: String, lang: String, offers: [TipOffer])]

    var mustacheValue: MustacheValue {
        var data = chrome.data
        data["identifier"] = catalog.identifier.map(MustacheValue.string) ?? .null
        data["formatVersion"] = .string(catalog.formatVersion.description)
        data["defaultStorefront"] = .string(catalog.defaultStorefront.countryCode)
        data["tipOrder"] = .string(catalog.tipOrder.rawValue)
        data["localeHeaders"] = .array(locales.map(MustacheValue.string))
        data["storeKitLocale"] = .string(catalog.storeKitLocale)
        data["tileLocaleHeaders"] = .array(AppLocale.allCases.map { .string($0.rawValue) })
        data["tilesUseTierNames"] = .bool(catalog.tipOrder == .tierOrder)
        data["nameWarnings"] = .array(catalog.emptyDisplayNameWarnings.map(MustacheValue.string))
        data["hasNameWarnings"] = .bool(!catalog.emptyDisplayNameWarnings.isEmpty)
        data["priceWarnings"] = .array(catalog.chargedPriceWarnings.map(MustacheValue.string))
        data["hasPriceWarnings"] = .bool(!catalog.chargedPriceWarnings.isEmpty)
        data["storefrontHeaders"] = .array(storefronts.map { .string($0.countryCode) })
        data["tips"] = .array(
            catalog.tips.map { entry in
                let tier = catalog.tier(of: entry)
                let storeKitName = catalog.productDisplayName(of: entry)
                return [
                    "productID": .string(entry.productID), "productParts": ViewModels.breakable(entry.productID),
                    "emoji": .string(tier?.emoji ?? "💝"), "tierName": .string(tier?.rawValue ?? "other"),
                    "productDisplayName": .string(storeKitName), "isNameEmpty": .bool(storeKitName.trimmingCharacters(in: .whitespaces).isEmpty),
                    "tileNames": .array(AppLocale.allCases.map { .string(catalog.tileName(of: entry, locale: $0)) }),
                    "names": .array(
                        locales.map { locale in
                            [
                                "name": .string(catalog.displayName(of: entry, locale: locale)),
                                "fallback": catalog.nameFallback(of: entry, locale: locale).map(MustacheValue.string) ?? .null,
                            ]
                        }),
                    "prices": .array(storefronts.map { .string($0.displayPrice(entry.price)) }),
                ]
            })
        let sample = catalog.tips.first
        data["sampleTip"] = sample.map { .string(catalog.displayName(of: $0, locale: AppLocale.en.identifier)) } ?? .null
        data["samplePrice"] = sample.map { .string("\($0.price)") } ?? .null
        data["allStorefronts"] = .array(
            Storefront.all.map { storefront in
                [
                    "code": .string(storefront.countryCode), "name": .string(storefront.name), "currency": .string(storefront.currencyCode),
                    "locale": .string(storefront.localeIdentifier), "price": .string(sample.map { storefront.displayPrice($0.price) } ?? "—"),
                    "isDefault": .bool(storefront == catalog.defaultStorefront),
                ]
            })
        data["nonTips"] = .array(catalog.nonTips.map { ["productID": .string($0.productID), "type": .string($0.type.rawValue)] })
        data["previews"] = .array(
            previews.map { preview in
                ["title": .string(preview.title), "lang": .string(preview.lang), "offers": .array(preview.offers.map { ViewModels.tile($0) })]
            })
        return .object(data)
    }
}
