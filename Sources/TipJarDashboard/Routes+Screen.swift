import HTTPServer
import TipJar

/// Errors answered to the simulated screen itself: a fragment request (`X-Fragment: 1`) from an
/// install page gets its alert in the install's language, as the app would show it, with the
/// same status `describe(_:)` gives the error everywhere else.
extension Routes {
    /// Runs a fragment handler of the install `installID`; an error becomes the localized alert
    /// fragment (`fragments/error`). Requests that are not fragments keep `handling`'s answers.
    func onScreen(_ request: HTTPRequest, installID: String, _ body: () async throws -> HTTPResponse) async throws -> HTTPResponse {
        guard Self.wantsFragment(request) else { return try await body() }
        do {
            return try await body()
        } catch {
            let (status, _, _) = describe(error)
            if status.code >= 500 {
                log("request failed", ["request.id": request.requestID, "error": String(describing: error), "path": request.path])
            }
            let locale = (try? await service.install(installID))?.locale ?? .en
            let (title, message) = Self.screenAlert(for: error, strings: .of(locale))
            return try html("fragments/error", ["title": .string(title), "message": .string(message),
                                                "ok": .string(TipJarStrings.of(locale).ok)], status: status)
        }
    }

    /// The alert's title and message for an error met on the screen, in the screen's strings.
    static func screenAlert(for error: any Error, strings: TipJarStrings) -> (title: String, message: String) {
        switch error {
        case TipJarError.purchaseInProgress: (strings.purchaseInProgressTitle, strings.purchaseInProgress)
        case TipJarError.unknownProduct: (strings.unknownProductTitle, strings.unknownProduct)
        case TipJarError.noPurchaseSheet: (strings.sheetClosedTitle, strings.sheetClosed)
        default: (strings.errorTitle, strings.errorMessage)
        }
    }
}
