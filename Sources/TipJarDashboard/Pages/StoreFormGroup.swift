import TipJar

/// One of the `/store` page's setting forms, each with its own Apply button (`Templates/pages/store.mustache`):
/// the form posts `group=<raw value>`, and only the settings of its fieldsets change; every other setting keeps
/// the value it had, so applying one group never resets another (an unticked checkbox is absent from a form's
/// body, HTML's "constructing the entry list", so a form can only speak for the fields it holds).
enum StoreFormGroup: String, CaseIterable {
    /// "Outages and outcomes": the catalog, the purchase, the purchase sheet, the app's Info.plist and the App Store's
    /// environment.
    case settings
    /// "Failure injection": the error each StoreKit API throws.
    case failures
    /// "Traps": the listener traps (`Transaction.updates`), the purchase traps (`Product.purchase()`), Restore's
    /// (`AppStore.sync()`) and what `Transaction.updates` delivers where Apple is silent.
    case traps

    /// The fieldsets (``StoreSetting/Group``) the form holds.
    var fieldsets: [StoreSetting.Group] {
        switch self {
        case .settings: [.catalog, .purchase, .purchaseSheet, .infoPlist, .environment]
        case .failures: [.failures]
        case .traps: [.listenerTraps, .purchaseTraps, .restoreTraps, .updates]
        }
    }

    /// The flash its Apply answers with, which names the group and returns to it.
    var savedFlash: StoreFlash.Kind {
        switch self {
        case .settings: .savedSettings
        case .failures: .savedFailures
        case .traps: .savedTraps
        }
    }

    /// The group a `/store` form post names in its `group` field; `nil` when it names none (the whole form, as
    /// posted before the page had groups, and as scripts may still post it).
    /// - Throws: `RequestError` (400) for a value that names no group.
    init?(form: [String: String]) throws {
        guard let raw = form["group"] else { return nil }
        guard let group = StoreFormGroup(rawValue: raw) else {
            throw RequestError(message: "group must be one of \(Self.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        self = group
    }

    /// `current` with the settings of this group's fieldsets read from `form`, every other setting unchanged.
    /// - Throws: `RequestError` (400) for a value a declaration does not allow.
    func settings(fromForm form: [String: String], current: StoreSettings) throws -> StoreSettings {
        try Self.read(form, StoreSettings.declarations.filter { fieldsets.contains($0.group) }, onto: current)
    }

    /// `settings` with each of `declarations` read from the form's field ``StoreSetting/formName``: an empty
    /// optional choice is off, an empty number 0, an absent checkbox unticked; a choice that must have a value and
    /// is absent keeps the one it has (a form or script written before the setting existed: the page's radio
    /// buttons always post one). Choosing "slow" with no latency
    /// sets ``StoreSettings/slowDefaultLatencyMs``, since it would look exactly like "normal".
    /// - Throws: `RequestError` (400) for a value a declaration does not allow.
    static func read(_ form: [String: String], _ declarations: [StoreSetting], onto settings: StoreSettings) throws -> StoreSettings {
        var settings = settings
        for declaration in declarations {
            let raw = form[declaration.formName]
            switch declaration.kind {
            case .choice(_, let optional):
                if !optional, raw == nil { continue }
                let value: StoreSetting.Value? = optional && (raw ?? "").isEmpty ? .off : raw.map(StoreSetting.Value.text)
                guard let value, declaration.set(value, in: &settings) else {
                    throw RequestError(message: "\(declaration.formName) has a value that is not allowed.")
                }
            case .integer(let range, _):
                guard let number = Int((raw ?? "").isEmpty ? "0" : raw ?? ""), declaration.set(.number(number), in: &settings) else {
                    throw RequestError(message: "\(declaration.formName) must be a whole number from \(range.lowerBound) to \(range.upperBound).")
                }
            case .flag:
                declaration.set(.flag(raw == "1"), in: &settings)
            }
        }
        if declarations.contains(where: { $0.key == "catalog" }), settings.catalog == .slow, settings.latencyMs == 0 {
            settings.latencyMs = StoreSettings.slowDefaultLatencyMs
        }
        return settings
    }
}
