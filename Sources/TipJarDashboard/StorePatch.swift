import Foundation
import TipJar

/// `PUT /api/store`: a JSON object whose present fields replace the current settings; absent
/// fields keep their value, and `null` inside `failures` turns that failure off (README, API).
enum StorePatch {
    static let fields: Set<String> = ["catalog", "latencyMs", "purchaseOutcome", "purchaseError", "purchaseLatencyMs", "failures",
                                      "crashBeforeFinish", "listenerReemits", "askToBuyEnabled",
                                      "interruptedPurchases", "finishIgnored", "chargedDespiteError", "syncReplaysFinished", "listenerReemitDelayMs",
                                      // The purchase sheet.
                                      "skipPurchaseSheet"]

    /// Applies a patch body to `settings`.
    /// - Throws: `RequestError` (400) naming the first unknown field or bad value.
    static func apply(_ body: [UInt8], to settings: StoreSettings) throws -> StoreSettings {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
            throw RequestError(message: "The message body must be a JSON object.")
        }
        if let unknown = object.keys.sorted().first(where: { !fields.contains($0) }) {
            throw RequestError(message: "Unknown field \"\(unknown)\".")
        }
        var settings = settings
        if let value = object["catalog"] { settings.catalog = try enumValue(value, "catalog") }
        if let value = object["latencyMs"] { settings.latencyMs = try integer(value, "latencyMs", 0...StoreSettings.maximumLatencyMs) }
        if let value = object["purchaseOutcome"] { settings.purchaseOutcome = try enumValue(value, "purchaseOutcome") }
        if let value = object["purchaseError"] { settings.purchaseError = try enumValue(value, "purchaseError") }
        if let value = object["purchaseLatencyMs"] {
            settings.purchaseLatencyMs = try integer(value, "purchaseLatencyMs", 0...StoreSettings.maximumLatencyMs)
        }
        if let value = object["listenerReemits"] { settings.listenerReemits = try integer(value, "listenerReemits", 0...3) }
        if let value = object["crashBeforeFinish"] { settings.crashBeforeFinish = try flag(value, "crashBeforeFinish") }
        if let value = object["askToBuyEnabled"] { settings.askToBuyEnabled = try flag(value, "askToBuyEnabled") }
        if let value = object["interruptedPurchases"] { settings.interruptedPurchases = try flag(value, "interruptedPurchases") }
        if let value = object["finishIgnored"] { settings.finishIgnored = try flag(value, "finishIgnored") }
        if let value = object["chargedDespiteError"] { settings.chargedDespiteError = try flag(value, "chargedDespiteError") }
        if let value = object["syncReplaysFinished"] { settings.syncReplaysFinished = try flag(value, "syncReplaysFinished") }
        if let value = object["listenerReemitDelayMs"] {
            settings.listenerReemitDelayMs = try integer(value, "listenerReemitDelayMs", 0...StoreSettings.maximumLatencyMs)
        }
        // The purchase sheet.
        if let value = object["skipPurchaseSheet"] { settings.skipPurchaseSheet = try flag(value, "skipPurchaseSheet") }
        if let value = object["failures"] {
            guard let failures = value as? [String: Any] else { throw RequestError(message: "failures must be an object.") }
            let names: Set<String> = ["loadProducts", "purchase", "verification", "sync"]
            if let unknown = failures.keys.sorted().first(where: { !names.contains($0) }) {
                throw RequestError(message: "Unknown field \"failures.\(unknown)\".")
            }
            if let value = failures["loadProducts"] { settings.failures.loadProducts = try optionalEnum(value, "failures.loadProducts") }
            if let value = failures["purchase"] { settings.failures.purchase = try optionalEnum(value, "failures.purchase") }
            if let value = failures["verification"] { settings.failures.verification = try optionalEnum(value, "failures.verification") }
            if let value = failures["sync"] { settings.failures.sync = try optionalEnum(value, "failures.sync") }
        }
        return settings
    }

    private static func enumValue<T: RawRepresentable & CaseIterable>(_ value: Any, _ name: String) throws -> T where T.RawValue == String {
        guard let raw = value as? String, let result = T(rawValue: raw) else {
            throw RequestError(message: "\(name) must be one of \(T.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        return result
    }

    private static func optionalEnum<T: RawRepresentable & CaseIterable>(_ value: Any, _ name: String) throws -> T? where T.RawValue == String {
        if value is NSNull { return nil }
        return try enumValue(value, name) as T
    }

    private static func integer(_ value: Any, _ name: String, _ range: ClosedRange<Int>) throws -> Int {
        guard !isBoolean(value), let number = value as? NSNumber, let int = Int(exactly: number.doubleValue), range.contains(int) else {
            throw RequestError(message: "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound).")
        }
        return int
    }

    private static func flag(_ value: Any, _ name: String) throws -> Bool {
        guard let flag = value as? Bool, isBoolean(value) else { throw RequestError(message: "\(name) must be true or false.") }
        return flag
    }

    /// Whether a `JSONSerialization` value is a JSON boolean (not the numbers 0 or 1).
    private static func isBoolean(_ value: Any) -> Bool {
        guard let number = value as? NSNumber else { return false }
        return type(of: number) == type(of: NSNumber(value: true))
    }
}
