import Foundation
import TipJar

/// A scenario file: a named list of steps against the dashboard's JSON API, each with the
/// outcomes it expects (Public/scenarios/README.md; the format is `Public/scenarios/schema/scenario.schema.json`).
public struct Scenario: Sendable {
    /// A short title, shown in the run's output and as the JUnit test suite's name.
    public var name: String
    /// What the scenario rehearses, for people.
    public var description: String?
    /// The steps, run in order.
    public var steps: [ScenarioStep]

    /// The largest scenario file read, in bytes (2 MiB): 10,000 steps (the most a scenario may have) of about 200
    /// bytes, the size of a shipped scenario's steps. Checked before the file is read or parsed, so a file of
    /// a million steps costs nothing to refuse.
    public static let maximumFileSize = 2 << 20

    /// The format version this code reads and writes (`"format"` in the file).
    public static let formatVersion = 1

    /// Creates a scenario.
    public init(name: String, description: String? = nil, steps: [ScenarioStep]) {
        self.name = name
        self.description = description
        self.steps = steps
    }
}

/// One step: what to do (its type and fields), to which install, and what must hold afterwards.
public struct ScenarioStep: Sendable {
    /// The step type, from ``ScenarioStepType/all``.
    public var type: ScenarioStepType
    /// The install's name in this scenario (not its ID: IDs are assigned by the server).
    public var install: String?
    /// The step's own fields (`productID`, `settings`, …), as written.
    public var fields: [String: JSONValue]
    /// What must hold after the step.
    public var expect: ScenarioExpectation
    /// An optional note shown beside the step.
    public var note: String?

    /// Creates a step.
    public init(
        type: ScenarioStepType, install: String? = nil, fields: [String: JSONValue] = [:],
        expect: ScenarioExpectation = ScenarioExpectation(), note: String? = nil
    ) {
        self.type = type
        self.install = install
        self.fields = fields
        self.expect = expect
        self.note = note
    }

    /// `"purchase ana com.example.tipjar.tip.coffee"`: the type, the install and the main field.
    public var title: String {
        var words = [type.name]
        if let install { words.append(install) }
        for key in type.titleFields { if let value = fields[key] { words.append(value.stringValue ?? value.text) } }
        return words.joined(separator: " ")
    }
}

extension Scenario {
    /// The members a scenario file may have at its root.
    static let rootFields: Set<String> = ["$schema", "format", "name", "description", "steps"]

    /// Parses a scenario file, refusing it whole at the first problem.
    /// - Parameters:
    ///   - data: The file's bytes (UTF-8 JSON).
    ///   - file: The name used in errors.
    /// - Throws: `ScenarioError` naming the JSON location (`steps[2].expect.hearts`) or the text
    ///   position of a syntax error (`line 4, column 12`), and the problem.
    public init(data: Data, file: String) throws(ScenarioError) {
        guard data.count <= Self.maximumFileSize else {
            throw ScenarioError(file: file, location: "$", problem: "is \(data.count) bytes; a scenario file is at most \(Self.maximumFileSize) bytes")
        }
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            let (location, problem) = JSONTextPosition.syntaxError(error, in: data)
            throw ScenarioError(file: file, location: location, problem: problem)
        }
        let root = ScenarioNode(value: JSONValue(serialized: parsed), path: "$", file: file)
        let members = try root.object(allowing: Self.rootFields)
        if let format = members["format"] {
            let version = try format.integer(in: 1...1_000)
            guard version == Self.formatVersion else { throw format.error("format \(version) is not supported; this tipjar reads format \(Self.formatVersion)") }
        }
        guard let name = members["name"] else { throw ScenarioError(file: file, location: "name", problem: "missing field \"name\"") }
        guard let steps = members["steps"] else { throw ScenarioError(file: file, location: "steps", problem: "missing field \"steps\"") }
        let stepNodes = try steps.elements()
        guard !stepNodes.isEmpty else { throw steps.error("a scenario needs at least one step") }
        guard stepNodes.count <= 10_000 else { throw steps.error("at most 10,000 steps, found \(stepNodes.count)") }
        var names = ScenarioNames()
        var parsedSteps: [ScenarioStep] = []
        for node in stepNodes { parsedSteps.append(try ScenarioStep(node: node, names: &names)) }
        self.init(
            name: try name.string(), description: try members["description"]?.string(nonEmpty: false, maximumLength: 4_000),
            steps: parsedSteps)
    }

    /// Reads and parses a scenario file.
    /// - Throws: `ScenarioError` for a file that cannot be read or is malformed.
    public static func load(contentsOf path: String) throws(ScenarioError) -> Scenario {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw ScenarioError(file: path, location: "$", problem: "no such file")
        }
        guard !isFolder.boolValue else { throw ScenarioError(file: path, location: "$", problem: "is a folder, not a scenario file") }
        // A device or a pipe (/dev/zero) would never end; a file larger than any scenario is refused unread.
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        guard attributes?[.type] as? FileAttributeType == .typeRegular else {
            throw ScenarioError(file: path, location: "$", problem: "is not a regular file")
        }
        if let size = attributes?[.size] as? Int, size > Self.maximumFileSize {
            throw ScenarioError(file: path, location: "$", problem: "is \(size) bytes; a scenario file is at most \(Self.maximumFileSize) bytes")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ScenarioError(file: path, location: "$", problem: "cannot be read")
        }
        return try Scenario(data: data, file: path)
    }
}

/// The names a scenario has defined so far, so a step that refers to an install or a transaction
/// before it exists is refused when the file is read, not halfway through the run.
struct ScenarioNames {
    var installs: Set<String> = []
    var transactions: Set<String> = []
}

extension ScenarioStep {
    /// The members every step may have besides its type's own fields.
    static let commonFields: Set<String> = ["step", "install", "expect", "note"]

    init(node: ScenarioNode, names: inout ScenarioNames) throws(ScenarioError) {
        let loose = try node.object()
        guard let kind = loose["step"] else { throw ScenarioError(file: node.file, location: node.path(forKey: "step"), problem: "missing field \"step\"") }
        let typeName = try kind.string()
        guard let type = ScenarioStepType.named(typeName) else {
            throw kind.error("unknown step type \"\(ScenarioNode.shown(typeName))\" (known: \(ScenarioStepType.all.map(\.name).joined(separator: ", ")))")
        }
        let members = try node.object(allowing: Self.commonFields.union(type.fields.keys))
        for field in type.required.sorted() where members[field] == nil {
            throw ScenarioError(file: node.file, location: node.path(forKey: field), problem: "a \(type.name) step needs \"\(field)\"")
        }
        var fields: [String: JSONValue] = [:]
        for (key, rule) in type.fields {
            guard let member = members[key] else { continue }
            try rule.check(member)
            fields[key] = member.value
        }
        var install: String?
        switch (type.install, members["install"]) {
        case (.none, let member?):
            throw member.error("a \(type.name) step does not take an install")
        case (.none, nil):
            break
        case (_, nil):
            throw ScenarioError(file: node.file, location: node.path(forKey: "install"), problem: "a \(type.name) step needs \"install\" (the install's name)")
        case (.creates, let member?):
            let name = try member.string(maximumLength: 100)
            guard !names.installs.contains(name) else { throw member.error("the install \"\(ScenarioNode.shown(name))\" is already created above") }
            names.installs.insert(name)
            install = name
        case (.uses, let member?):
            let name = try member.string(maximumLength: 100)
            guard names.installs.contains(name) else {
                throw member.error("no install named \"\(ScenarioNode.shown(name))\" is created above (a createInstall step names it)")
            }
            install = name
        }
        if let reference = members["transaction"] {
            let name = try reference.string(maximumLength: 100)
            guard names.transactions.contains(name) else { throw reference.error("no transaction named \"\(ScenarioNode.shown(name))\" above (an \"as\" field names one)") }
        }
        if let alias = members["as"] { names.transactions.insert(try alias.string(maximumLength: 100)) }
        let expect = try members["expect"].map { node throws(ScenarioError) in try ScenarioExpectation(node: node, names: names) } ?? ScenarioExpectation()
        if type.install == .none, expect.hearts != nil || expect.running != nil || expect.ledger != nil || expect.offers != nil || expect.pending != nil {
            throw ScenarioError(
                file: node.file, location: node.path(forKey: "expect"),
                problem: "a \(type.name) step has no install: it can expect only status, statuses, outcome and errorName")
        }
        self.init(type: type, install: install, fields: fields, expect: expect, note: try members["note"]?.string(nonEmpty: false, maximumLength: 500))
    }
}
