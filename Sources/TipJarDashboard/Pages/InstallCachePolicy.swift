import TipJar

/// Whether an install's page, its tip jar fragment or its offers (`GET /api/installs/{id}/offers`) just rendered may
/// be kept by ``PageCache``: not while a purchase (or its sheet, which closes by itself after a timeout) is open,
/// and not when its load waited for the simulated latency. Held by the installs and JSON API controllers.
struct InstallCachePolicy: Sendable {
    let service: TipJarService

    /// Whether the answer about `installID` may be stored.
    /// - Parameter loads: the answer loaded the offers (and so waited for any simulated catalog latency).
    func isStorable(installID: String, loads: Bool) async -> Bool {
        guard await !service.isPurchaseOpen(installID: installID) else { return false }
        guard loads else { return true }
        let settings = service.settings
        return !(settings.catalog == .slow && settings.latencyMs > 0)
    }

    /// What an answer about `installID` is rendered from (``ChangeRegion/install(_:accountID:)``: the install, its
    /// account and the store), read after it rendered; everything when the install cannot be read (nothing is kept
    /// for a missing install: its answer is not a `200`).
    func region(installID: String) async -> ChangeRegion {
        guard let install = try? await service.records.install(withID: installID) else { return .everything }
        return .install(install.id, accountID: install.accountID)
    }
}
