import Foundation
import HTTPServer
import Mustache
import TipJar

/// Session controls, as StoreKitTest's `SKTestSession` offers them: reset the store to the `.storekit` file's
/// settings, clear or delete transactions, delete an install. JSON endpoints answer at once; the pages ask
/// first on a confirmation page of their own (a plain GET page whose form posts, so it needs no JavaScript).
extension Routes {
    func registerSessionControls(in router: inout Router<DashboardContext>) {
        router.post("/api/store/reset") { request, context in
            JSONBody.response(APIModels.StoreBody(try await service.store.resetToFileSettings()))
        }
        router.delete("/api/transactions") { request, context in
            try await service.store.clearTransactions()
            return HTTPResponse(status: .noContent)
        }
        router.delete("/api/transactions/:tid") { request, context in
            try await service.store.deleteTransaction(id: try context.transactionID())
            return HTTPResponse(status: .noContent)
        }
        router.delete("/api/installs/:id") { request, context in
            try await service.deleteInstall(try context.installID())
            return HTTPResponse(status: .noContent)
        }

        router.get("/confirm/store-reset") { request, context in
            try await confirmPage(
                context, title: "Reset to the file's settings?",
                message:
                    "Every store setting goes back to a healthy store with what \(catalogName) sets (SKTestSession.resetToDefaultState()). Transactions and installs are kept.",
                action: "/store/reset", button: "Reset the settings", cancel: "/store")
        }
        router.get("/confirm/transactions-clear") { request, context in
            try await confirmPage(
                context, title: "Clear every transaction?",
                message:
                    "The store forgets every transaction (SKTestSession.clearTransactions()): pending Ask to Buy purchases, unfinished and refunded ones too. Installs keep their hearts and ledgers, as the app's UserDefaults would.",
                action: "/store/transactions/clear", button: "Clear all transactions", cancel: "/store")
        }
        router.get("/confirm/transactions/:tid/delete") { request, context in
            let id = try context.transactionID()
            guard try await service.records.transaction(withID: id) != nil else { throw TipJarError.transactionNotFound(id) }
            return try await confirmPage(
                context, title: "Delete transaction \(id)?",
                message: "The store forgets this one transaction (SKTestSession.deleteTransaction(identifier:)). The install keeps its hearts and ledger.",
                action: "/store/transactions/\(id)/delete", button: "Delete the transaction", cancel: "/transactions")
        }
        router.get("/confirm/installs/:id/delete") { request, context in
            let install = try await service.install(try context.installID())
            return try await confirmPage(
                context, title: "Delete install \(ViewModels.shortID(install.id))?",
                message:
                    "The app is deleted from the device: its \(install.hearts) heart\(install.hearts == 1 ? "" : "s") and its ledger go. Its account's transactions stay with the store, so a new install on account \(install.accountID) receives the unfinished ones at launch.",
                action: "/installs/\(install.id)/delete", button: "Delete the install", cancel: "/installs/\(install.id)")
        }

        router.post("/store/reset") { request, context in
            try await service.store.resetToFileSettings()
            return .redirect(to: StoreFlash(kind: .reset).location)
        }
        router.post("/store/transactions/clear") { request, context in
            try await service.store.clearTransactions()
            return .redirect(to: StoreFlash(kind: .cleared).location)
        }
        router.post("/store/transactions/:tid/delete") { request, context in
            try await service.store.deleteTransaction(id: try context.transactionID())
            return .redirect(to: "/transactions?flash=deleted")
        }
        router.post("/installs/:id/delete") { request, context in
            try await service.deleteInstall(try context.installID())
            return .redirect(to: "/installs?flash=deleted")
        }
    }

    /// The confirmation step of a destructive action: what will happen, a form that posts it, and a way back.
    func confirmPage(
        _ context: DashboardContext, title: String, message: String, action: String, button: String,
        cancel: String
    ) async throws -> HTTPResponse {
        try await withFormSession(context) { csrfToken in
            var data = pageData(context, nav: "", csrfToken: csrfToken)
            data["confirm"] = [
                "title": .string(title), "message": .string(message), "action": .string(action), "button": .string(button),
                "cancel": .string(cancel),
            ]
            return try html("pages/confirm", data)
        }
    }
}
