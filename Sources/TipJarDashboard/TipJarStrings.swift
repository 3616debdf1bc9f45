import TipJar

/// The tip jar screen's words in each `AppLocale`: the app's own strings, shown on
/// `/installs/{id}` in the install's language (the pt-BR wording follows seed 000).
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
    let restoredSome: String
    /// "3 of 5 hearts": the accessible name of the hearts row.
    let heartsLabel: @Sendable (Int) -> String

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
        restoredSome: "Restore finished: %d unfinished purchase(s) delivered.",
        heartsLabel: { "\($0) of 5 hearts" }
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
        restoredSome: "Restauração concluída: %d compra(s) não finalizada(s) entregue(s).",
        heartsLabel: { "\($0) de 5 corações" }
    )
}
