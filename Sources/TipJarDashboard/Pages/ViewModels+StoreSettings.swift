import Mustache
import TipJar

/// The store settings on `/store` and `/`, read from ``StoreSettings/declarations``: the "Now" summary
/// (`partials/store-summary`) and the form's rows (`partials/store-setting`), one per declaration.
extension ViewModels {
    /// `settings.summary` for `partials/store-summary`: `[{term, parts: [{text, badge}]}]`, only the lines that differ
    /// from the same line of the declarations' defaults (`StoreSettings()`), so "Now" names every value off its
    /// default and stays short on a phone; `allDefault` / `othersDefault` say that the rest is at its default.
    static func settings(_ settings: StoreSettings) -> MustacheValue {
        let defaults = StoreSettings().summary
        func text(_ parts: [StoreSetting.SummaryPart]) -> String { parts.map(\.text).joined() }
        let changed = settings.summary.filter { line in
            defaults.first { $0.term == line.term }.map { text($0.parts) != text(line.parts) } ?? true
        }
        return [
            "summary": .array(
                changed.map { line in
                    [
                        "term": .text(line.term),
                        "parts": .array(line.parts.map { ["text": .text($0.text), "badge": $0.badge.map(MustacheValue.string) ?? .null] }),
                    ]
                }),
            "allDefault": .bool(changed.isEmpty),
            "othersDefault": .bool(!changed.isEmpty && changed.count < settings.summary.count),
        ]
    }

    /// The form's rows by fieldset (`form.catalog`, `form.purchase`, …, ``StoreSetting/Group``'s raw values), and
    /// `fromFile.anyFailure`: whether a failure the `.storekit` file sets is still in force.
    static func storeForm(_ settings: StoreSettings, file: StoreKitFileSettings) -> (form: MustacheValue, fromFile: MustacheValue) {
        var groups: TemplateData = [:]
        var anyFailure = false
        for group in StoreSetting.Group.allCases {
            let declarations = StoreSettings.declarations.filter { $0.group == group }
            groups[group.rawValue] = .array(
                declarations.map { declaration in
                    let value = declaration.value(in: settings)
                    let fromFile = file.value(of: declaration).map { $0 == value } ?? false
                    if fromFile, case .storeKitErrors? = declaration.file { anyFailure = true }
                    return settingRow(declaration, value: value, fromFile: fromFile)
                })
        }
        return (.object(groups), ["anyFailure": .bool(anyFailure)])
    }

    /// A select's choices named `Type.case` (`StoreKitError.networkError`, `Product.PurchaseError.invalidQuantity`) as
    /// `<optgroup>`s named after each type, each option its case alone, so a closed select shows its whole value in a
    /// form column (https://html.spec.whatwg.org/multipage/form-elements.html#the-optgroup-element); the choices before
    /// the first typed one (`off`) stay ungrouped, first. `nil` when fewer than two types are named.
    static func optionGroups(_ named: [(value: String, name: String)], selected: String) -> (leading: MustacheValue, groups: MustacheValue)? {
        var groups: [(label: String, choices: [(value: String, name: String)])] = []
        var leading: [(value: String, name: String)] = []
        for choice in named {
            guard let dot = choice.name.lastIndex(of: ".") else {
                guard groups.isEmpty else { return nil }
                leading.append(choice)
                continue
            }
            let (type, name) = (String(choice.name[..<dot]), String(choice.name[choice.name.index(after: dot)...]))
            if groups.last?.label == type {
                groups[groups.count - 1].choices.append((choice.value, name))
            } else {
                groups.append((type, [(choice.value, name)]))
            }
        }
        guard groups.count > 1 else { return nil }
        let optgroups = groups.map { group -> MustacheValue in
            ["label": .string(group.label), "choices": choices(group.choices, selected: selected)]
        }
        return (choices(leading, selected: selected), .array(optgroups))
    }

    /// One row: `field` (the form name), `caption` (`label: help`), `fromFile`, one of `radios`/`select`/`checkbox`/
    /// `number` true, and `choices`, `checked` or `value`/`min`/`max`/`slowDefault`. Every key is present, so a
    /// row never reads a key of the page around it.
    static func settingRow(_ declaration: StoreSetting, value: StoreSetting.Value, fromFile: Bool) -> MustacheValue {
        var row: TemplateData = [
            "field": .string(declaration.formName),
            "caption": .text(declaration.label + (declaration.help.map { ": " + $0 } ?? "")),
            "fromFile": .bool(fromFile),
            "radios": .bool(declaration.control == .radios), "select": .bool(declaration.control == .select),
            "checkbox": .bool(declaration.control == .checkbox), "number": false,
            "choices": [], "optionGroups": [], "checked": false, "value": .null, "min": .null, "max": .null, "slowDefault": .null,
        ]
        switch (declaration.kind, value) {
        case (.choice(let values, let optional), _):
            let raw: String = if case .text(let text) = value { text } else { "" }
            let options = (optional ? [""] : []) + values
            let named = Array(zip(options, declaration.choiceNames)).map { (value: $0.0, name: $0.1) }
            if declaration.control == .select, let (leading, groups) = optionGroups(named, selected: raw) {
                row["choices"] = leading
                row["optionGroups"] = groups
            } else {
                row["choices"] = choices(named, selected: raw)
            }
        case (.integer(let range, _), .number(let number)):
            if declaration.control == .select {
                row["choices"] = choices(
                    Array(zip(range.map { "\($0)" }, declaration.choiceNames)).map { (value: $0.0, name: $0.1) },
                    selected: "\(number)")
            } else if case .number(let slowDefault) = declaration.control {
                row["number"] = true
                row["value"] = .int(number)
                row["min"] = .int(range.lowerBound)
                row["max"] = .int(range.upperBound)
                row["slowDefault"] = slowDefault.map(MustacheValue.int) ?? .null
            }
        case (.flag, .flag(let flag)):
            row["checked"] = .bool(flag)
        default:
            break
        }
        return .object(row)
    }
}
