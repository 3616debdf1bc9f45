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
    /// The store settings the file sets, by ``StoreSetting/key`` in declaration order (``StoreSettings/declarations``
    /// names the `.storekit` key that feeds each one); their values are in ``values``.
    public private(set) var storeFields: [String] = []
    /// The values of ``storeFields``; every other field is at its default.
    public private(set) var values = StoreSettings.normal
    /// One note per key of `settings` (and per element of `_storeKitErrors` that needs one), in key order.
    public var notes: [Note]

    /// No settings: nothing applied, nothing to report.
    public init(
        storefront: Storefront? = nil, locale: String? = nil, askToBuyEnabled: Bool? = nil,
        disableDialogs: Bool? = nil, failures: StoreSettings.Failures = StoreSettings.Failures(), notes: [Note] = []
    ) {
        self.storefront = storefront
        self.locale = locale
        self.notes = notes
        self.askToBuyEnabled = askToBuyEnabled
        self.disableDialogs = disableDialogs
        self.failures = failures
    }

    /// The value the file gives the setting `declaration`, or `nil` when the file does not set it.
    public func value(of declaration: StoreSetting) -> StoreSetting.Value? {
        storeFields.contains(declaration.key) ? declaration.value(in: values) : nil
    }

    /// Records that the file sets `declaration` to `value` (`nil`: it does not set it).
    /// - Returns: `false`, changing nothing, when the declaration does not allow the value.
    @discardableResult
    public mutating func set(_ declaration: StoreSetting, to value: StoreSetting.Value?) -> Bool {
        storeFields.removeAll { $0 == declaration.key }
        guard let value else {
            declaration.copy(from: .normal, to: &values)
            return true
        }
        guard declaration.set(value, in: &values) else { return false }
        let order = StoreSettings.declarations.map(\.key)
        storeFields.append(declaration.key)
        storeFields.sort { (order.firstIndex(of: $0) ?? order.count) < (order.firstIndex(of: $1) ?? order.count) }
        return true
    }

    private func flag(_ key: String) -> Bool? {
        guard let declaration = StoreSettings.declaration(key), case .flag(let flag) = value(of: declaration) else { return nil }
        return flag
    }

    private mutating func setFlag(_ key: String, _ flag: Bool?) {
        guard let declaration = StoreSettings.declaration(key) else { return }
        set(declaration, to: flag.map(StoreSetting.Value.flag))
    }

    /// `_askToBuyEnabled` (`SKTestSession.askToBuyEnabled`): every purchase waits for approval.
    public var askToBuyEnabled: Bool? {
        get { flag("askToBuyEnabled") }
        set { setFlag("askToBuyEnabled", newValue) }
    }

    /// `_disableDialogs` (`SKTestSession.disableDialogs`): applied as the store setting `skipPurchaseSheet`.
    public var disableDialogs: Bool? {
        get { flag("skipPurchaseSheet") }
        set { setFlag("skipPurchaseSheet", newValue) }
    }

    /// The failures the file enables, per API, from `_storeKitErrors` (for Purchase a `StoreKitError` or a
    /// `Product.PurchaseError`, as `SKTestFailures.Purchase` holds either) and the legacy
    /// `_failTransactionsEnabled` + `_storeKitError` (only the codes `SKTestSession.failureError` supports;
    /// ``StoreKitSettingsDecoder/legacyPurchaseFailures``).
    public var failures: StoreSettings.Failures {
        get { values.failures }
        set {
            var changed = values
            changed.failures = newValue
            for declaration in StoreSettings.declarations where declaration.key.hasPrefix("failures.") {
                let value = declaration.value(in: changed)
                set(declaration, to: value == .off ? nil : value)
            }
        }
    }

    /// The locale a new install starts in: `pt-BR` when `_locale` is Portuguese, else `en` (the tip jar is
    /// written in those two; other languages only steer the name fallback).
    public var installLocale: AppLocale {
        guard let locale else { return .en }
        return Catalog.language(of: Catalog.normalized(locale)) == "pt" ? .ptBR : .en
    }

    /// `settings` with what the file sets written over it (`SKTestSession` starts from the file's values).
    /// Fields the file does not set keep their value in `settings`.
    /// - Parameter settings: the settings to start from, e.g. the saved ones, or ``StoreSettings/normal``.
    /// - Returns: the result.
    public func applied(to settings: StoreSettings) -> StoreSettings {
        var result = settings
        for declaration in StoreSettings.declarations where storeFields.contains(declaration.key) {
            declaration.copy(from: values, to: &result)
        }
        return result
    }

    /// `SKTestSession.resetToDefaultState()`: a healthy store with the file's settings.
    public var defaultStoreSettings: StoreSettings { applied(to: .normal) }
}
