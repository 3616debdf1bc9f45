import Foundation

/// One store setting, declared once (``StoreSettings/declarations``): its key, the values it takes, where the
/// `/store` form shows it and with which words, the `.storekit` key that feeds it, and typed access to its field
/// of ``StoreSettings`` through a key path. The JSON body and patch of `GET`/`PUT /api/store`, the `/store` form
/// and its summary, the validation of saved and new settings and the `.storekit` import are all read from it.
public struct StoreSetting: Sendable {
    /// A setting's value as the JSON API, the `/store` form and the `.storekit` file carry it.
    public enum Value: Sendable, Hashable {
        /// A choice's raw value (`"slow"`, `"networkError"`).
        case text(String)
        /// A whole number.
        case number(Int)
        /// A boolean.
        case flag(Bool)
        /// An optional choice that is off: JSON `null`, the form's empty option.
        case off
    }

    /// The values a setting takes.
    public enum Kind: Sendable, Equatable {
        /// One of `values` (raw values, in declaration order); when `optional`, also ``Value/off``.
        case choice(values: [String], optional: Bool)
        /// A whole number in `range`; `unit` names it in the core's message (`milliseconds`).
        case integer(range: ClosedRange<Int>, unit: String?)
        /// `true` or `false`.
        case flag
    }

    /// How the `/store` form shows the setting.
    public enum Control: Sendable, Equatable {
        /// A group of radio buttons (`label` is the group's legend).
        case radios
        /// A `<select>`.
        case select
        /// A checkbox posting `1` when ticked.
        case checkbox
        /// An `<input type="number">`; `slowDefault`, when set, is the value `app.js` fills in when the catalog's
        /// "slow" is chosen while the field is 0 or empty (its `data-slow-default` attribute).
        case number(slowDefault: Int? = nil)
    }

    /// The fieldset of the `/store` form the setting is in (the fieldsets' legends are the template's).
    public enum Group: String, Sendable, CaseIterable {
        /// `Product.products(for:)`.
        case catalog
        /// `Product.purchase()`.
        case purchase
        /// Xcode's failure injection per API.
        case failures
        /// Listener traps.
        case listenerTraps
        /// Purchase traps.
        case purchaseTraps
        /// Restore's traps: what `AppStore.sync()` does wrong.
        case restoreTraps
        /// The purchase sheet.
        case purchaseSheet
        /// The app's Info.plist keys that change what StoreKit returns to it.
        case infoPlist
        /// What `Transaction.updates` delivers where Apple's documents are silent: other devices, refunds at launch.
        case updates
        /// The App Store's environment: what transactions are issued in and the App Store Server API answers as.
        case environment
    }

    /// Which `.storekit` file setting feeds this one (``StoreKitSettingsDecoder`` reads it).
    public enum FileFeed: Sendable, Equatable {
        /// A boolean key of the file's `settings` (`_askToBuyEnabled`), with the report's words for true and false.
        case flag(key: String, whenTrue: String, whenFalse: String)
        /// The `_storeKitErrors` entry for this StoreKit API (`"Load Products"`); for `"Purchase"` also the legacy
        /// `_failTransactionsEnabled` + `_storeKitError`.
        case storeKitErrors(api: String)

        /// The file's key.
        public var key: String {
            switch self {
            case .flag(let key, _, _): key
            case .storeKitErrors: "_storeKitErrors"
            }
        }
    }

    /// Where the setting shows in the "Now" summary of `/store` and `/` (``StoreSettings/summary``).
    public enum Summary: Sendable {
        /// A line of its own: the term and the parts of its description.
        case line(String, @Sendable (StoreSettings) -> [SummaryPart])
        /// A badge on a line several settings share (`Failures`, `Purchase traps`), when the text is not `nil`.
        case badge(line: String, @Sendable (StoreSettings) -> String?)
    }

    /// A piece of a summary description: text, shown in a badge when `badge` names its style.
    public struct SummaryPart: Sendable, Equatable {
        /// The text.
        public var text: String
        /// The badge style (`failing`, a catalog mode), or `nil` for plain text.
        public var badge: String?

        /// Creates a part.
        public init(_ text: String, badge: String? = nil) {
            self.text = text
            self.badge = badge
        }
    }

    /// The JSON field (`catalog`; a dot nests it: `failures.loadProducts`).
    public let key: String
    /// The `/store` form's field name (`failLoadProducts`).
    public let formName: String
    /// The values it takes.
    public let kind: Kind
    /// How the form shows it.
    public let control: Control
    /// Its fieldset on the form.
    public let group: Group
    /// The form's label (a radio group's legend).
    public let label: String
    /// What it does, shown after the label as `label: help`, or `nil`.
    public let help: String?
    /// The name the form shows for each of ``Kind/choice(values:optional:)``'s values, in order (`off` first for
    /// an optional choice).
    public let choiceNames: [String]
    /// The `.storekit` setting that feeds it, or `nil`.
    public let file: FileFeed?
    /// Its place in the summary, or `nil` when the summary does not show it.
    public let summary: Summary?
    private let read: @Sendable (StoreSettings) -> Value
    private let write: @Sendable (inout StoreSettings, Value) -> Bool
    private let decodeSaved: @Sendable (inout StoreSettings, KeyedDecodingContainer<StoreSettingCodingKey>, StoreSettingCodingKey) throws -> Void

    /// The setting's value in `settings`.
    public func value(in settings: StoreSettings) -> Value { read(settings) }

    /// The value of a healthy store (``StoreSettings/normal``).
    public var defaultValue: Value { read(.normal) }

    /// Writes `value` into `settings`.
    /// - Returns: `false`, leaving `settings` unchanged, when ``kind`` does not allow the value.
    @discardableResult
    public func set(_ value: Value, in settings: inout StoreSettings) -> Bool {
        allows(value) && write(&settings, value)
    }

    /// Copies this setting's value from `source` into `settings`.
    public func copy(from source: StoreSettings, to settings: inout StoreSettings) { _ = write(&settings, read(source)) }

    /// Whether ``kind`` allows `value`.
    public func allows(_ value: Value) -> Bool {
        switch (kind, value) {
        case (.choice(let values, _), .text(let raw)): values.contains(raw)
        case (.choice(_, let optional), .off): optional
        case (.integer(let range, _), .number(let number)): range.contains(number)
        case (.flag, .flag): true
        default: false
        }
    }

    /// The JSON object path of ``key``: `["failures", "loadProducts"]`.
    public var path: [String] { key.split(separator: ".").map(String.init) }

    /// Decodes the field from a saved settings object, keeping the default when it is absent or `null`.
    func decode(into settings: inout StoreSettings, from container: KeyedDecodingContainer<StoreSettingCodingKey>) throws {
        var container = container
        let path = self.path
        for name in path.dropLast() {
            let key = StoreSettingCodingKey(name)
            guard container.contains(key), try !container.decodeNil(forKey: key) else { return }
            container = try container.nestedContainer(keyedBy: StoreSettingCodingKey.self, forKey: key)
        }
        try decodeSaved(&settings, container, StoreSettingCodingKey(path.last ?? key))
    }

    private init(
        key: String, formName: String, kind: Kind, control: Control, group: Group, label: String, help: String?,
        choiceNames: [String], file: FileFeed?, summary: Summary?,
        read: @escaping @Sendable (StoreSettings) -> Value, write: @escaping @Sendable (inout StoreSettings, Value) -> Bool,
        decode: @escaping @Sendable (inout StoreSettings, KeyedDecodingContainer<StoreSettingCodingKey>, StoreSettingCodingKey) throws -> Void
    ) {
        self.key = key
        self.formName = formName
        self.kind = kind
        self.control = control
        self.group = group
        self.label = label
        self.help = help
        self.choiceNames = choiceNames
        self.file = file
        self.summary = summary
        self.read = read
        self.write = write
        self.decodeSaved = decode
    }
}

extension StoreSetting {
    /// A setting holding one case of `E` (an enum whose raw values are the JSON and form values).
    /// - Parameter name: the form's name for a case (default: its raw value).
    public static func choice<E: RawRepresentable & CaseIterable & Codable & Sendable>(
        _ keyPath: WritableKeyPath<StoreSettings, E> & Sendable, key: String, formName: String? = nil, control: Control = .select,
        group: Group, label: String, help: String? = nil, name: @Sendable (E) -> String = { $0.rawValue },
        file: FileFeed? = nil, summary: Summary? = nil
    ) -> StoreSetting where E.RawValue == String {
        StoreSetting(
            key: key, formName: formName ?? key, kind: .choice(values: E.allCases.map(\.rawValue), optional: false),
            control: control, group: group, label: label, help: help, choiceNames: E.allCases.map(name), file: file,
            summary: summary,
            read: { .text($0[keyPath: keyPath].rawValue) },
            write: { settings, value in
                guard case .text(let raw) = value, let typed = E(rawValue: raw) else { return false }
                settings[keyPath: keyPath] = typed
                return true
            },
            decode: { settings, container, key in
                if let value = try container.decodeIfPresent(E.self, forKey: key) { settings[keyPath: keyPath] = value }
            })
    }

    /// A setting holding a case of `E` or nothing (off): JSON `null`, the form's first option, named `off`.
    public static func optionalChoice<E: RawRepresentable & CaseIterable & Codable & Sendable>(
        _ keyPath: WritableKeyPath<StoreSettings, E?> & Sendable, key: String, formName: String, group: Group, label: String,
        help: String? = nil, name: @Sendable (E) -> String = { $0.rawValue }, file: FileFeed? = nil,
        summary: Summary? = nil
    ) -> StoreSetting where E.RawValue == String {
        StoreSetting(
            key: key, formName: formName, kind: .choice(values: E.allCases.map(\.rawValue), optional: true),
            control: .select, group: group, label: label, help: help, choiceNames: ["off"] + E.allCases.map(name),
            file: file, summary: summary,
            read: { $0[keyPath: keyPath].map { .text($0.rawValue) } ?? .off },
            write: { settings, value in
                switch value {
                case .off: settings[keyPath: keyPath] = nil
                case .text(let raw):
                    guard let typed = E(rawValue: raw) else { return false }
                    settings[keyPath: keyPath] = typed
                default: return false
                }
                return true
            },
            decode: { settings, container, key in
                if container.contains(key) { settings[keyPath: keyPath] = try container.decodeIfPresent(E.self, forKey: key) }
            })
    }

    /// A setting holding a whole number in `range`.
    public static func integer(
        _ keyPath: WritableKeyPath<StoreSettings, Int> & Sendable, key: String, range: ClosedRange<Int>,
        unit: String? = nil, control: Control = .number(), group: Group, label: String, help: String? = nil,
        name: @Sendable (Int) -> String = { "\($0)" }, summary: Summary? = nil
    ) -> StoreSetting {
        StoreSetting(
            key: key, formName: key, kind: .integer(range: range, unit: unit), control: control, group: group,
            label: label, help: help, choiceNames: control == .select ? range.map(name) : [], file: nil, summary: summary,
            read: { .number($0[keyPath: keyPath]) },
            write: { settings, value in
                guard case .number(let number) = value else { return false }
                settings[keyPath: keyPath] = number
                return true
            },
            decode: { settings, container, key in
                if let value = try container.decodeIfPresent(Int.self, forKey: key) { settings[keyPath: keyPath] = value }
            })
    }

    /// A setting that is on or off, a checkbox on the form.
    public static func flag(
        _ keyPath: WritableKeyPath<StoreSettings, Bool> & Sendable, key: String, group: Group, label: String,
        help: String? = nil, file: FileFeed? = nil, summary: Summary? = nil
    ) -> StoreSetting {
        StoreSetting(
            key: key, formName: key, kind: .flag, control: .checkbox, group: group, label: label, help: help,
            choiceNames: [], file: file, summary: summary,
            read: { .flag($0[keyPath: keyPath]) },
            write: { settings, value in
                guard case .flag(let flag) = value else { return false }
                settings[keyPath: keyPath] = flag
                return true
            },
            decode: { settings, container, key in
                if let value = try container.decodeIfPresent(Bool.self, forKey: key) { settings[keyPath: keyPath] = value }
            })
    }
}

/// A coding key named by a ``StoreSetting/key`` segment.
public struct StoreSettingCodingKey: CodingKey, Sendable {
    /// The name.
    public let stringValue: String
    /// Always `nil`: settings are named, never indexed.
    public var intValue: Int? { nil }

    /// A key named `name`.
    public init(_ name: String) { stringValue = name }
    /// A key named `stringValue`.
    public init?(stringValue: String) { self.stringValue = stringValue }
    /// `nil`: settings are named, never indexed.
    public init?(intValue: Int) { nil }
}
