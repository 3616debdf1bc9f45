import Foundation

/// What a `.storekit` file's `settings` object asks of the simulated store, and a report line for every key
/// in it: each is either applied or ignored with the reason, never dropped silently.
///
/// The keys are those Xcode writes in the file (the StoreKit configuration editor's Editor menu) and that
/// StoreKitTest's `SKTestSession` exposes as properties
/// (https://developer.apple.com/documentation/storekittest/sktestsession): `_storefront` (`storefront`),
/// `_locale` (`locale`), `_askToBuyEnabled` (`askToBuyEnabled`), `_disableDialogs` (`disableDialogs`),
/// `_failTransactionsEnabled` + `_storeKitError` (`failTransactionsEnabled` + `failureError`), and
/// `_storeKitErrors` (`setSimulatedError(_:forAPI:)`). Decoded by ``StoreKitSettingsDecoder``.
public struct StoreKitFileSettings: Sendable, Equatable {
    /// One line of the report: a key and what became of it.
    public struct Note: Sendable, Equatable {
        /// The key, or a key and an element (`_storeKitErrors[4]`).
        public var key: String
        /// Whether the dashboard applies it.
        public var applied: Bool
        /// For an applied key, its value and effect; for an ignored one, why.
        public var detail: String

        /// Creates a note.
        public init(key: String, applied: Bool, detail: String) {
            self.key = key
            self.applied = applied
            self.detail = detail
        }

        /// `applied setting: <key> (<detail>)` or `ignored setting: <key> (<why>)`, as `tipjar check-storekit`
        /// prints it and `tipjar serve` logs it; key and detail escaped as ``Catalog/escapedField(_:)`` does, so a
        /// hostile key cannot break the line-per-key output.
        public var line: String { "\(applied ? "applied" : "ignored") setting: \(Catalog.escapedField(key)) (\(Catalog.escapedField(detail)))" }
    }

    /// `_storefront`, when the file names one.
    public var storefront: Storefront?
    /// `_locale` as written (`"pt_BR"`), when it is a non-empty string.
    public var locale: String?
    /// `_askToBuyEnabled` (`SKTestSession.askToBuyEnabled`): every purchase waits for approval.
    public var askToBuyEnabled: Bool?
    /// `_disableDialogs` (`SKTestSession.disableDialogs`): applied as the store setting `skipPurchaseSheet`.
    public var disableDialogs: Bool?
    /// The failures the file enables, per API, from `_storeKitErrors` and the legacy
    /// `_failTransactionsEnabled` + `_storeKitError`.
    public var failures: StoreSettings.Failures
    /// One note per key of `settings` (and per element of `_storeKitErrors` that needs one), in key order.
    public var notes: [Note]

    /// No settings: nothing applied, nothing to report.
    public init(storefront: Storefront? = nil, locale: String? = nil, askToBuyEnabled: Bool? = nil,
                disableDialogs: Bool? = nil, failures: StoreSettings.Failures = StoreSettings.Failures(), notes: [Note] = []) {
        self.storefront = storefront
        self.locale = locale
        self.askToBuyEnabled = askToBuyEnabled
        self.disableDialogs = disableDialogs
        self.failures = failures
        self.notes = notes
    }

    /// The locale a new install starts in: `pt-BR` when `_locale` is Portuguese, else `en` (the tip jar is
    /// written in those two; other languages only steer the name fallback).
    public var installLocale: AppLocale {
        guard let locale else { return .en }
        return Catalog.language(of: Catalog.normalized(locale)) == "pt" ? .ptBR : .en
    }

    /// The store settings fields this file sets, by their `GET /api/store` names (`askToBuyEnabled`,
    /// `failures.loadProducts`, …), for marking them on `/store`.
    public var storeFields: [String] {
        var fields: [String] = []
        if askToBuyEnabled != nil { fields.append("askToBuyEnabled") }
        if disableDialogs != nil { fields.append("skipPurchaseSheet") }
        if failures.loadProducts != nil { fields.append("failures.loadProducts") }
        if failures.purchase != nil { fields.append("failures.purchase") }
        if failures.verification != nil { fields.append("failures.verification") }
        if failures.sync != nil { fields.append("failures.sync") }
        return fields
    }

    /// `settings` with what the file sets written over it (`SKTestSession` starts from the file's values).
    /// Fields the file does not set keep their value in `settings`.
    /// - Parameter settings: the settings to start from, e.g. the saved ones, or ``StoreSettings/normal``.
    /// - Returns: the result.
    public func applied(to settings: StoreSettings) -> StoreSettings {
        var result = settings
        if let askToBuyEnabled { result.askToBuyEnabled = askToBuyEnabled }
        if let disableDialogs { result.skipPurchaseSheet = disableDialogs }
        if let error = failures.loadProducts { result.failures.loadProducts = error }
        if let error = failures.purchase { result.failures.purchase = error }
        if let error = failures.verification { result.failures.verification = error }
        if let error = failures.sync { result.failures.sync = error }
        return result
    }

    /// `SKTestSession.resetToDefaultState()`: a healthy store with the file's settings.
    public var defaultStoreSettings: StoreSettings { applied(to: .normal) }
}
