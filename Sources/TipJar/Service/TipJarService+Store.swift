import Foundation

extension TipJarService {
    /// Changes the simulated store's settings (``SimulatedStore/update(_:)``) and notes the change
    /// on the timeline as a store-wide `store.settings` event whose attributes hold the settings
    /// before and after as JSON (`previous`, `settings`), so a recorded scenario can replay them.
    /// - Throws: `TipJarError.invalidValue` for a value out of range; storage errors.
    public func updateStore(_ settings: StoreSettings) async throws {
        _ = try await changeStore { _ in settings }
    }

    /// Changes the simulated store's settings with `makeNew`, given the settings in force when the change has its
    /// turn (``SimulatedStore/change(_:)``: one change at a time, so two patches to different fields both last), and
    /// notes it on the timeline as ``updateStore(_:)`` does.
    /// - Returns: the settings now in force.
    /// - Throws: what `makeNew` throws (nothing changes then); `TipJarError.invalidValue`; storage errors.
    public func changeStore(_ makeNew: @Sendable (StoreSettings) throws -> StoreSettings) async throws -> StoreSettings {
        let (previous, settings) = try await store.change(makeNew)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = { (value: StoreSettings) in (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}" }
        event(nil, "store.settings", "Store settings changed.", ["previous": text(previous), "settings": text(settings)])
        return settings
    }
}
