import Foundation
import HTTPServer
import Mustache
import TipJar

/// Purchases from the install page and the simulated App Store purchase sheet on the pages (``PurchaseSheet``). A
/// tile posts to `/installs/{id}/purchase-sheet`, which opens the purchase and its sheet: with `X-Fragment: 1` the
/// answer is the sheet as a `<dialog>` that `app.js` opens with `showModal()`; without, a 303 to
/// `GET …/purchase-sheet`, a page of its own. Both carry two forms, Confirm and Cancel. With `skipPurchaseSheet` on,
/// the tile posts to `…/purchases` (confirmed at once), and a post to `…/purchase-sheet` is confirmed at once too. The
/// store's side of a purchase (Ask to Buy, interrupted purchases, refunds, purchases outside the app) is
/// ``StoreController``'s; the JSON API's purchases are ``APIController``'s.
struct PurchasesController: DashboardController {
    let service: TipJarService
    let renderer: PageRenderer
    let screen: InstallScreen

    func register(in router: inout Router<DashboardContext>) {
        router.post("/installs/:id/purchases") { request, context in
            let id = try context.installID()
            return try await screen.onScreen(context, installID: id) { try await purchase(context, installID: id) }
        }
        router.post("/installs/:id/purchase-sheet") { request, context in
            let id = try context.installID()
            return try await screen.onScreen(context, installID: id) { try await openSheet(request, context, installID: id) }
        }
        router.get("/installs/:id/purchase-sheet") { request, context in
            let id = try context.installID()
            let install = try await service.install(id)
            guard let sheet = await service.purchaseSheet(installID: id) else {
                return .redirect(to: "/installs/\(id)?load=now\(FormValues.textSizeQuery(context))")
            }
            return try await renderer.withFormSession(context) { token in
                var data = sheetData(request, context, sheet: sheet, install: install, csrfToken: token, inDialog: false)
                data["catalogName"] = .string(renderer.catalogName)
                data["nav"] = ["installs": true]
                return try renderer.html("pages/purchase-sheet", data)
            }
        }
        router.post("/installs/:id/purchase-sheet/confirm") { request, context in
            let id = try context.installID()
            return try await screen.onScreen(context, installID: id) {
                try await purchaseAnswered(context, installID: id, report: try await service.confirmPurchaseSheet(installID: id))
            }
        }
        router.post("/installs/:id/purchase-sheet/cancel") { request, context in
            let id = try context.installID()
            return try await screen.onScreen(context, installID: id) {
                try await purchaseAnswered(context, installID: id, report: try await service.cancelPurchaseSheet(installID: id))
            }
        }
    }

    func purchase(_ context: DashboardContext, installID: String) async throws -> HTTPResponse {
        let productID = context.form["productID"] ?? ""
        return try await purchaseAnswered(
            context, installID: installID,
            report: try await service.purchase(productID: productID, installID: installID))
    }

    /// A tap on a tile: the sheet, or the purchase itself when no sheet is shown (`skipPurchaseSheet`, or the
    /// account's unfinished transaction handed back: ``TipJarService/tap(productID:installID:options:)``).
    func openSheet(_ request: HTTPRequest, _ context: DashboardContext, installID: String) async throws -> HTTPResponse {
        let sheet: PurchaseSheet
        switch try await service.tap(productID: context.form["productID"] ?? "", installID: installID) {
        case .answered(let report): return try await purchaseAnswered(context, installID: installID, report: report)
        case .sheet(let shown): sheet = shown
        }
        guard context.wantsFragment else {
            let size = FormValues.textSizeQuery(context)
            return .redirect(to: "/installs/\(installID)/purchase-sheet" + (size.isEmpty ? "" : "?" + size.dropFirst()))
        }
        let install = try await service.install(installID)
        return try renderer.html("fragments/purchase-sheet", sheetData(request, context, sheet: sheet, install: install, csrfToken: renderer.csrfToken(context)))
    }

    /// The tapped tile's name in the install's language, from the listing its tiles come from.
    func tileName(_ sheet: PurchaseSheet, _ install: Install) -> String? {
        let storefront = Storefront.named(install.storefront) ?? service.catalog.defaultStorefront
        return service.tipOffers(storefront: storefront, locale: install.locale).first { $0.productID == sheet.product.id }?.name
    }

    /// What the sheet's templates need: the sheet, the install, the token and the text size.
    func sheetData(_ request: HTTPRequest, _ context: DashboardContext, sheet: PurchaseSheet, install: Install, csrfToken: String, inDialog: Bool = true) -> TemplateData {
        let size = TextSize(value: context.form["textSize"] ?? request.queryValue("textSize")) ?? .default
        return [
            "sheet": ViewModels.purchaseSheet(sheet, strings: .of(install.locale), inDialog: inDialog, tileName: tileName(sheet, install)),
            "install": ViewModels.install(install),
            "csrfToken": .string(csrfToken),
            "textSize": .string(size.rawValue), "textSizeClasses": .string(size.classes),
        ]
    }

    /// The answer to a purchase that closed (a tile with the sheet skipped, Confirm, Cancel): the live fragments
    /// with the feedback, an emptied sheet slot, or a 303 to the install page.
    func purchaseAnswered(_ context: DashboardContext, installID: String, report: PurchaseReport) async throws -> HTTPResponse {
        let feedback = Feedback.purchase(report, locale: report.locale)
        guard context.wantsFragment else {
            return .redirect(to: "/installs/\(installID)?load=now&\(feedback.query)\(FormValues.textSizeQuery(context))\(FeedbackOnce.marker())")
        }
        var response = try await screen.liveFragments(installID: installID, feedback: feedback, textSize: FormValues.textSize(context))
        response.body += Array("\n".utf8) + (try renderer.templates.renderUTF8("fragments/purchase-sheet", [:]))
        return response
    }
}

extension ViewModels {
    /// The purchase sheet's values: the product's name and price in the storefront's currency, the account, the
    /// quantity when it is not 1, and the sheet's words in the install's language.
    /// - Parameters:
    ///   - inDialog: the sheet is the install page's `<dialog>` (its forms answer fragments), not a page.
    ///   - tileName: the tapped tile's name in the install's language. The sheet shows `Product.displayName`, which
    ///     StoreKit takes from the App Store's localization, not the app's (the `.storekit` file's `_locale` here:
    ///     https://developer.apple.com/documentation/storekit/product/displayname), so when the two differ the
    ///     sheet says why in one line.
    static func purchaseSheet(_ sheet: PurchaseSheet, strings: TipJarStrings, inDialog: Bool = true, tileName: String? = nil) -> MustacheValue {
        var data: TemplateData = [
            "installID": .string(sheet.installID), "productID": .string(sheet.product.id), "name": .string(sheet.product.displayName),
            "displayPrice": .string(sheet.product.displayPrice), "accountID": .string(sheet.accountID),
            "title": .string(strings.sheetTitle), "kind": .string(strings.sheetKind), "accountLabel": .string(strings.sheetAccount),
            "confirm": .string(strings.sheetConfirm), "cancel": .string(strings.sheetCancel), "inDialog": .bool(inDialog),
        ]
        if let tileName, !tileName.isEmpty, tileName != sheet.product.displayName {
            data["namesDiffer"] = .string(strings.sheetNamesDiffer(tileName, sheet.product.displayName))
        } else {
            data["namesDiffer"] = .null
        }
        if sheet.options.quantity != 1 {
            data["quantity"] = ["label": .string(strings.sheetQuantity), "value": .int(sheet.options.quantity)]
        }
        return .object(data)
    }
}
