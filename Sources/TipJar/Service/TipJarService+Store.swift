import Foundation

extension TipJarService {
    /// Changes the simulated store's settings (``SimulatedStore/update(_:)``) and notes the change
    /// on the timeline as a store-wide `store.settings` event whose attributes hold the settings
    /// before and after as JSON (`previous`, `settings`), so a recorded scenario can replay them.
    /// - Throws: `TipJarError.invalidValue` for a value out of range; storage errors.
    public func updateStore(_ settings: StoreSettings) async throws {
        let previous = store.settings
        try await store.update(settings)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = { (value: StoreSettings) in (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}" }
        event(nil, "store.settings", "Store settings changed.", ["previous": text(previous), "settings": text(settings)])
    }
}
