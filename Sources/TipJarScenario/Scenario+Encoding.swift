import Foundation

extension Scenario {
    /// The scenario as a file: UTF-8 JSON that ``init(data:file:)`` reads back to the same steps,
    /// one step per line with its members in reading order (`step`, `install`, its fields,
    /// `expect`, `note`).
    public var fileText: String {
        var lines = [
            "{", "  \"$schema\": \"schema/scenario.schema.json\",", "  \"format\": \(Self.formatVersion),",
            "  \"name\": \(JSONValue.string(name).text),",
        ]
        if let description { lines.append("  \"description\": \(JSONValue.string(description).text),") }
        lines.append("  \"steps\": [")
        for (index, step) in steps.enumerated() {
            lines.append("    " + step.fileText + (index == steps.count - 1 ? "" : ","))
        }
        lines += ["  ]", "}", ""]
        return lines.joined(separator: "\n")
    }
}

extension ScenarioStep {
    /// The step as one JSON object, its members in reading order.
    var fileText: String {
        var members = ["\"step\": \(JSONValue.string(type.name).text)"]
        if let install { members.append("\"install\": \(JSONValue.string(install).text)") }
        for key in fields.keys.sorted() { members.append("\(JSONValue.string(key).text): \(fields[key]!.text)") }
        if expect != ScenarioExpectation() { members.append("\"expect\": \(expect.json.text)") }
        if let note { members.append("\"note\": \(JSONValue.string(note).text)") }
        return "{ " + members.joined(separator: ", ") + " }"
    }
}
