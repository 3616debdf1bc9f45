import HTTPServer
import TipJar

/// Errors answered to the simulated screen itself: a fragment request (`X-Fragment: 1`) from an
/// install page gets its alert in the install's language, as the app would show it, with the
/// same status the error has everywhere else (`Routes.knownError(_:)`).
extension Routes {
    /// Runs a fragment handler of the install `installID`; an error becomes the localized alert
    /// fragment (`fragments/error`), thrown as a ``ScreenAlert``. Requests that are not fragments keep the
    /// chain's answers.
    func onScreen(_ context: DashboardContext, installID: String, _ body: () async throws -> HTTPResponse) async throws -> HTTPResponse {
        guard context.wantsFragment else { return try await body() }
        do {
            return try await body()
        } catch {
            let known = Self.knownError(error)
            let locale = (try? await service.install(installID))?.locale ?? .en
            let strings = TipJarStrings.of(locale)
            let (title, message) = Self.screenAlert(for: error, strings: strings)
            throw ScreenAlert(
                status: known?.status ?? .internalServerError, title: title, message: message, ok: strings.ok,
                isLogged: known?.isLogged ?? true, underlying: error)
        }
    }

    /// The alert's title and message for an error met on the screen, in the screen's strings.
    static func screenAlert(for error: any Error, strings: TipJarStrings) -> (title: String, message: String) {
        switch error {
        case TipJarError.purchaseInProgress: (strings.purchaseInProgressTitle, strings.purchaseInProgress)
        case TipJarError.unknownProduct: (strings.unknownProductTitle, strings.unknownProduct)
        case TipJarError.productNotLoaded(_, let gap): (strings.unknownProductTitle, strings.productNotLoaded(gap))
        case TipJarError.noPurchaseSheet: (strings.sheetClosedTitle, strings.sheetClosed)
        default: (strings.errorTitle, strings.errorMessage)
        }
    }
}

/// An error met on the simulated screen, as the app shows it: the status the error has everywhere else, the
/// alert's words in the install's language. Logged (with the error it stands for) when that error would be.
struct ScreenAlert: HTTPResponseError, CustomStringConvertible {
    let status: HTTPStatus
    let title: String
    let message: String
    /// The alert's button.
    let ok: String
    let isLogged: Bool
    let underlying: any Error

    /// The error it stands for, as the log line names it.
    var description: String { String(describing: underlying) }
}
