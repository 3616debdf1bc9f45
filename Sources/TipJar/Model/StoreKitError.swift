/// Errors StoreKit throws from its APIs; StoreKit 2's `StoreKitError`.
///
/// Each case carries an alert message in `en` and `pt-BR` (README "Domain rules": Purchase; a thrown store error
/// is shown as a modal alert with the localized message).
public enum StoreKitError: String, Error, Sendable, CaseIterable, Codable, LocalizedMessage {
    /// The network was unreachable or the request timed out.
    case networkError
    /// A system error occurred.
    case systemError
    /// The person cancelled (thrown form; `purchase()` normally returns `.userCancelled`).
    case userCancelled
    /// The product is not available in the account's storefront.
    case notAvailableInStorefront
    /// The app is not entitled to the requested functionality.
    case notEntitled
    /// An unknown error occurred.
    case unknown
    /// The API is not supported on this platform.
    case unsupported

    /// The alert text in `en` and `pt-BR`.
    public func message(locale: AppLocale) -> String {
        switch (self, locale) {
        case (.networkError, .en): "The App Store could not be reached. Check your connection and try again."
        case (.networkError, .ptBR): "Não foi possível acessar a App Store. Verifique sua conexão e tente novamente."
        case (.systemError, .en): "Something went wrong on this device. Try again later."
        case (.systemError, .ptBR): "Algo deu errado neste aparelho. Tente novamente mais tarde."
        case (.userCancelled, .en): "The purchase was cancelled."
        case (.userCancelled, .ptBR): "A compra foi cancelada."
        case (.notAvailableInStorefront, .en): "This tip is not available in your country or region."
        case (.notAvailableInStorefront, .ptBR): "Esta gorjeta não está disponível no seu país ou região."
        case (.notEntitled, .en): "This app is not allowed to do that."
        case (.notEntitled, .ptBR): "Este app não tem permissão para fazer isso."
        case (.unknown, .en): "An unknown error occurred. Try again later."
        case (.unknown, .ptBR): "Ocorreu um erro desconhecido. Tente novamente mais tarde."
        case (.unsupported, .en): "This isn't supported on this device."
        case (.unsupported, .ptBR): "Isso não é compatível com este aparelho."
        }
    }

    /// The alert text when `AppStore.sync()` (Restore Purchases) throws this error, in `en` and `pt-BR`: the same
    /// errors, told about Restore rather than a purchase.
    public func restoreMessage(locale: AppLocale) -> String {
        switch (self, locale) {
        case (.networkError, .en): "Restore couldn't reach the App Store. Check your connection and try again."
        case (.networkError, .ptBR): "A restauração não conseguiu acessar a App Store. Verifique sua conexão e tente novamente."
        case (.systemError, .en): "Restore hit a problem on this device. Try again later."
        case (.systemError, .ptBR): "A restauração encontrou um problema neste aparelho. Tente novamente mais tarde."
        case (.userCancelled, .en): "Restore was cancelled."
        case (.userCancelled, .ptBR): "A restauração foi cancelada."
        case (.notAvailableInStorefront, .en): "Restore isn't available in your country or region."
        case (.notAvailableInStorefront, .ptBR): "A restauração não está disponível no seu país ou região."
        case (.notEntitled, .en): "This app isn't allowed to restore purchases."
        case (.notEntitled, .ptBR): "Este app não tem permissão para restaurar compras."
        case (.unknown, .en): "Restore failed for an unknown reason. Try again later."
        case (.unknown, .ptBR): "A restauração falhou por um motivo desconhecido. Tente novamente mais tarde."
        case (.unsupported, .en): "Restore isn't supported on this device."
        case (.unsupported, .ptBR): "A restauração não é compatível com este aparelho."
        }
    }
}
