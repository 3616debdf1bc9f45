import Foundation

/// One kind of scenario step: its fields, how each is checked when the file is read, and the
/// requests it sends. The types are data (``all``), so a new API endpoint becomes a step with one
/// entry; the JSON Schema (`Public/scenarios/schema/scenario.schema.json`) lists the same names, and a
/// test holds the two together.
public struct ScenarioStepType: Sendable {
    /// How a step type uses the `install` field.
    public enum InstallUse: Sendable {
        /// No install (store-wide steps).
        case none
        /// Creates the install the name refers to from then on.
        case creates
        /// Acts on an install created above.
        case uses
    }

    /// The `step` value, e.g. `purchase`.
    public let name: String
    /// One sentence for the format's documentation.
    public let summary: String
    /// How the `install` field is used.
    public let install: InstallUse
    /// The step's own fields and how each is checked.
    let fields: [String: FieldRule]
    /// The fields that must be present.
    let required: Set<String>
    /// The fields shown in the step's title, in order.
    let titleFields: [String]
    /// Sends the step's requests and reports what came back.
    let perform: @Sendable (ScenarioStep, ScenarioSession) async throws -> StepAnswer

    /// The names of the step's own fields (besides `step`, `install`, `expect` and `note`).
    public var fieldNames: Set<String> { Set(fields.keys) }

    /// The step type named `name`, else `nil`.
    public static func named(_ name: String) -> ScenarioStepType? { all.first { $0.name == name } }
}

/// How a step field is checked when the file is read.
enum FieldRule: Sendable {
    /// A non-empty string of at most 200 characters.
    case string
    /// Any string of at most 200 characters (labels may be empty).
    case text
    /// One of these strings.
    case choice([String])
    /// A whole number in the range.
    case integer(ClosedRange<Int>)
    /// `true` or `false`.
    case bool
    /// A JSON object, passed through to the API, which checks its members.
    case object
    /// A condition object for `wait` (``ScenarioExpectation/conditionFields``).
    case condition

    func check(_ node: ScenarioNode) throws(ScenarioError) {
        switch self {
        case .string: _ = try node.string()
        case .text: _ = try node.string(nonEmpty: false)
        case .choice(let choices): _ = try node.oneOf(choices)
        case .integer(let range): _ = try node.integer(in: range)
        case .bool: _ = try node.bool()
        case .object: _ = try node.object()
        case .condition:
            let members = try node.object(allowing: ScenarioExpectation.conditionFields)
            guard !members.isEmpty else { throw node.error("a wait needs at least one condition (\(ScenarioExpectation.conditionFields.sorted().joined(separator: ", ")))") }
            _ = try ScenarioExpectation(node: node, names: ScenarioNames(), allowing: ScenarioExpectation.conditionFields)
        }
    }
}

/// What a step's requests came back with.
struct StepAnswer: Sendable {
    /// Every request's status (one unless `tabs` > 1).
    var statuses: [Int]
    /// The first answer's JSON body.
    var body: JSONValue?
    /// The purchase result, for purchase steps.
    var outcome: String?
    /// The alert's error name, when the answer names one.
    var errorName: String?
    /// The transaction the step created (purchase, purchase outside the app), for `as`.
    var transactionID: UInt64?

    init(_ answer: ScenarioHTTPClient.Answer) {
        statuses = [answer.status]
        body = answer.json
        errorName = answer.json?["errorName"]?.stringValue ?? answer.json?["storeKitError"]?.stringValue
        transactionID = answer.json?["transactionID"]?.intValue.map(UInt64.init)
    }

    /// `"200 purchased"`, `"409"`, `"201, 409"`.
    var summary: String {
        var text = statuses.map(String.init).joined(separator: ", ")
        if let outcome { text += " \(outcome)" }
        if let errorName { text += " (\(errorName))" }
        return text
    }
}

/// A step that could not do its work (no pending purchase to approve, an unreachable server).
struct StepFailure: Error, CustomStringConvertible {
    var description: String
}
