import TipJar

/// The tip jar screen's words in each `AppLocale`: the app's own strings, shown on
/// `/installs/{id}` in the install's language (the pt-BR wording follows the tip-jar app's own).
struct TipJarStrings: Sendable {
    let infoAndCredits: String
    let blurb: String
    let loading: String
    let showTips: String
    let retry: String
    let restore: String
    let unavailableEmpty: String
    let unavailableFailed: String
    let thankYou: String
    let thankYouMax: String
    let pending: String
    let alertTitle: String
    let restoreFailedTitle: String
    let unverified: String
    let restoredNone: String
    /// "Restore finished: 1 unfinished purchase delivered.": the sentence for a count above zero, singular or plural by
    /// the language's CLDR plural rule (``PluralCategory``).
    let restoredSome: @Sendable (Int) -> String
    /// The line that stays under the hearts whenever there is at least one.
    let thanks: String
    /// The alert's button.
    let ok: String
    /// `app.js` shows this when the dashboard does not answer at all.
    let unreachable: String
    /// HTTP 409: a second purchase while one is open (two tabs, a double click).
    let purchaseInProgressTitle: String
    let purchaseInProgress: String
    /// HTTP 422: the tapped product is no longer a tip of the catalog.
    let unknownProductTitle: String
    let unknownProduct: String
    /// HTTP 409: the app holds no `Product` for the tapped tip (its last load failed, was empty, or left it out).
    let productNotLoaded: @Sendable (ProductLoadGap) -> String
    /// Any other error answered to the screen (404, 503, 500).
    let errorTitle: String
    let errorMessage: String
    /// "3 of 5 hearts": the accessible name of the hearts row.
    let heartsLabel: @Sendable (Int) -> String
    /// The purchase sheet: its heading, the kind of item, the account line, its two buttons, and the 409 when
    /// Confirm or Cancel comes after the sheet closed.
    let sheetTitle: String
    let sheetKind: String
    let sheetAccount: String
    let sheetQuantity: String
    let sheetConfirm: String
    let sheetCancel: String
    /// One line on the sheet when the tile's name (the app's, in its language) is not `Product.displayName` (the App
    /// Store's, from the `.storekit` file's `_locale`): "Café" on the tile, "Coffee" on the sheet.
    let sheetNamesDiffer: @Sendable (_ tile: String, _ store: String) -> String
    /// Under the tiles while a purchase (or its sheet) is open on the install, here or in another tab: why the tips
    /// are disabled.
    let purchaseOpenHere: String
    let sheetClosedTitle: String
    let sheetClosed: String
    /// The refund sheet (`Transaction.beginRefundRequest(in:)`): its heading, the reason's label and choices, its two
    /// buttons, the notices for `.success` and `.userCancelled`, and the alert's title when it throws.
    let refundTitle: String
    let refundReason: String
    let refundReasonDeveloperIssue: String
    let refundReasonOther: String
    let refundSubmit: String
    let refundCancel: String
    let refundRequested: String
    let refundCancelled: String
    let refundFailedTitle: String

    static func of(_ locale: AppLocale) -> TipJarStrings {
        switch locale {
        case .en: .english
        case .ptBR: .portuguese
        }
    }

    static let english = TipJarStrings(
        infoAndCredits: "Info and Credits",
        blurb: "All features are free. If the app has been useful, you can leave a tip.",
        loading: "Loading tips…",
        showTips: "Show the tips",
        retry: "Retry",
        restore: "Restore Purchases",
        unavailableEmpty: "No tips are available right now.",
        unavailableFailed: "The tips couldn't be loaded.",
        thankYou: "Thank you for the tip! One more heart.",
        thankYouMax: "Thank you for the tip! The hearts are already full.",
        pending: "Your purchase is waiting for approval. The heart appears once it's approved.",
        alertTitle: "Purchase failed",
        restoreFailedTitle: "Restore failed",
        unverified: "The App Store couldn't verify this purchase, so it wasn't counted.",
        restoredNone: "Restore finished. Tips are consumable, so only purchases the app never finished come back; there were none.",
        restoredSome: { count in
            switch PluralCategory(count, locale: .en) {
            case .one: "Restore finished: \(count) unfinished purchase delivered."
            case .other: "Restore finished: \(count) unfinished purchases delivered."
            }
        },
        thanks: "Thank you for supporting the app!",
        ok: "OK",
        unreachable: "The app couldn't reach the App Store. Check the dashboard is running and try again.",
        purchaseInProgressTitle: "Purchase in progress",
        purchaseInProgress: "A purchase is already open. Wait for it to finish, then try again.",
        unknownProductTitle: "Tip unavailable",
        unknownProduct: "This tip is no longer in the App Store. Retry to see the current tips.",
        productNotLoaded: { gap in
            switch gap {
            case .loadFailed: "The app has not loaded this tip: the last load failed. Retry to load the tips."
            case .empty: "The app has not loaded this tip: the App Store returned no tips. Retry to load them."
            case .notReturned: "The app has not loaded this tip: the App Store did not return it. Retry to load the tips."
            }
        },
        errorTitle: "Something went wrong",
        errorMessage: "The App Store couldn't finish this. Nothing was charged; try again in a moment.",
        heartsLabel: { "\($0) of 5 hearts" },
        sheetTitle: "App Store",
        sheetKind: "In-App Purchase",
        sheetAccount: "Account",
        sheetQuantity: "Quantity",
        sheetConfirm: "Confirm",
        sheetCancel: "Cancel",
        sheetNamesDiffer: { tile, store in "The App Store names it “\(store)”, in the StoreKit file's language; the app says “\(tile)”." },
        purchaseOpenHere: "A purchase is open on this app (maybe in another tab): the tips wait until it closes.",
        sheetClosedTitle: "Purchase closed",
        sheetClosed: "This purchase sheet is no longer open. Tap a tip to try again.",
        refundTitle: "Request a refund",
        refundReason: "Reason",
        refundReasonDeveloperIssue: "The app had a problem",
        refundReasonOther: "Other",
        refundSubmit: "Submit",
        refundCancel: "Cancel",
        refundRequested: "Refund requested; the App Store will decide.",
        refundCancelled: "Refund request cancelled.",
        refundFailedTitle: "Refund request failed"
    )

    static let portuguese = TipJarStrings(
        infoAndCredits: "Informações e Créditos",
        blurb: "Todos os recursos são gratuitos. Se o app foi útil, você pode deixar uma gorjeta.",
        loading: "Carregando gorjetas…",
        showTips: "Mostrar as gorjetas",
        retry: "Tentar de novo",
        restore: "Restaurar Compras",
        unavailableEmpty: "Nenhuma gorjeta disponível no momento.",
        unavailableFailed: "Não foi possível carregar as gorjetas.",
        thankYou: "Obrigado pela gorjeta! Mais um coração.",
        thankYouMax: "Obrigado pela gorjeta! Os corações já estão completos.",
        pending: "Sua compra está aguardando aprovação. O coração aparece quando ela for aprovada.",
        alertTitle: "A compra falhou",
        restoreFailedTitle: "A restauração falhou",
        unverified: "A App Store não conseguiu verificar esta compra, então ela não foi contada.",
        restoredNone: "Restauração concluída. Gorjetas são consumíveis: só voltam compras que o app não finalizou, e não havia nenhuma.",
        restoredSome: { count in
            switch PluralCategory(count, locale: .ptBR) {
            case .one: "Restauração concluída: \(count) compra não finalizada entregue."
            case .other: "Restauração concluída: \(count) compras não finalizadas entregues."
            }
        },
        thanks: "Obrigado por apoiar o app!",
        ok: "OK",
        unreachable: "O app não conseguiu falar com a App Store. Confira se o painel está rodando e tente de novo.",
        purchaseInProgressTitle: "Compra em andamento",
        purchaseInProgress: "Já há uma compra em andamento. Espere ela terminar e tente de novo.",
        unknownProductTitle: "Gorjeta indisponível",
        unknownProduct: "Esta gorjeta não está mais na App Store. Toque em Tentar de novo para ver as gorjetas atuais.",
        productNotLoaded: { gap in
            switch gap {
            case .loadFailed: "O app não carregou esta gorjeta: o último carregamento falhou. Toque em Tentar de novo para carregar as gorjetas."
            case .empty: "O app não carregou esta gorjeta: a App Store não retornou nenhuma gorjeta. Toque em Tentar de novo para carregá-las."
            case .notReturned: "O app não carregou esta gorjeta: a App Store não a retornou. Toque em Tentar de novo para carregar as gorjetas."
            }
        },
        errorTitle: "Algo deu errado",
        errorMessage: "A App Store não conseguiu concluir. Nada foi cobrado; tente de novo em instantes.",
        heartsLabel: { "\($0) de 5 corações" },
        sheetTitle: "App Store",
        sheetKind: "Compra dentro do app",
        sheetAccount: "Conta",
        sheetQuantity: "Quantidade",
        sheetConfirm: "Confirmar",
        sheetCancel: "Cancelar",
        sheetNamesDiffer: { tile, store in "A App Store o chama de “\(store)”, no idioma do arquivo StoreKit; o app diz “\(tile)”." },
        purchaseOpenHere: "Uma compra está aberta neste app (talvez em outra aba): as gorjetas esperam até ela terminar.",
        sheetClosedTitle: "Compra encerrada",
        sheetClosed: "Esta tela de compra não está mais aberta. Toque em uma gorjeta para tentar de novo.",
        refundTitle: "Pedir reembolso",
        refundReason: "Motivo",
        refundReasonDeveloperIssue: "O app teve um problema",
        refundReasonOther: "Outro",
        refundSubmit: "Enviar",
        refundCancel: "Cancelar",
        refundRequested: "Reembolso pedido; a App Store vai decidir.",
        refundCancelled: "Pedido de reembolso cancelado.",
        refundFailedTitle: "O pedido de reembolso falhou"
    )
}
