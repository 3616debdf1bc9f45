import Foundation
import Mustache

/// The `/api` page's content: `Public/api/openapi.json` (OpenAPI 3.1, https://spec.openapis.org/oas/v3.1.0), read
/// once when the dashboard starts, as plain values a template shows without JavaScript: every operation with its
/// parameters, request body fields and example, and answers; then every schema with its fields. The document stays
/// the one source: the page only restates it.
struct APIReference: Sendable, Equatable {
    /// One field of a body or schema, or one parameter.
    struct Field: Sendable, Equatable {
        var name: String
        /// `path`, `query`, or empty for a body field.
        var location: String
        /// The type as a person reads it: `integer 1–200`, `one of: csv, json`, `Install`, `array of Transaction`.
        var type: String
        var isRequired: Bool
        var description: String
    }

    /// One documented answer.
    struct Answer: Sendable, Equatable {
        var status: String
        var description: String
        /// Media type and schema, e.g. `application/json: Install`.
        var bodies: [String]
    }

    /// One operation: a method on a path.
    struct Operation: Sendable, Equatable {
        var method: String
        var path: String
        var anchor: String
        var summary: String
        var description: String
        var parameters: [Field]
        var bodyFields: [Field]
        var isBodyRequired: Bool
        var bodyExample: String?
        var answers: [Answer]
    }

    /// Operations that share a path's first segment after `/api/` (`installs`, `store`, …).
    struct Group: Sendable, Equatable {
        var title: String
        var operations: [Operation]
    }

    /// A named schema of `components.schemas`.
    struct Schema: Sendable, Equatable {
        var name: String
        var description: String
        var type: String
        var fields: [Field]
    }

    var title: String
    var version: String
    var description: String
    var groups: [Group]
    var schemas: [Schema]
    /// Why the document could not be read, or `nil`.
    var problem: String?

    /// The document in `publicDirectory/api/openapi.json`; a missing or malformed one gives an empty reference whose
    /// ``problem`` says why (the page shows it; the static file is served as it is either way).
    static func load(in publicDirectory: URL) -> APIReference {
        let path = publicDirectory.appendingPathComponent("api/openapi.json").path
        guard let data = FileManager.default.contents(atPath: path) else {
            return APIReference(problem: "\(path): cannot read the file")
        }
        do { return try APIReference(document: data) } catch {
            return APIReference(problem: "\(path): \(error)")
        }
    }

    /// An empty reference whose page says `problem`.
    init(problem: String) {
        self.init(title: "JSON API", version: "", description: "", groups: [], schemas: [], problem: problem)
    }

    private init(title: String, version: String, description: String, groups: [Group], schemas: [Schema], problem: String?) {
        self.title = title
        self.version = version
        self.description = description
        self.groups = groups
        self.schemas = schemas
        self.problem = problem
    }

    /// Reads an OpenAPI 3.1 document. Paths are listed by name, methods in the order GET, POST, PUT, PATCH, DELETE.
    /// - Throws: `DecodingError.dataCorrupted` when the document is not a JSON object; Foundation's JSON errors.
    init(document data: Data) throws {
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "the document is not a JSON object"))
        }
        let resolver = SchemaText(components: root["components"] as? [String: Any] ?? [:])
        let info = root["info"] as? [String: Any] ?? [:]
        let paths = root["paths"] as? [String: Any] ?? [:]
        var groups: [String: [Operation]] = [:]
        for path in paths.keys.sorted() {
            guard let item = paths[path] as? [String: Any] else { continue }
            for method in ["get", "post", "put", "patch", "delete"] {
                guard let operation = item[method] as? [String: Any] else { continue }
                // The first two segments: `/api/installs`, `/inApps/v1` (the App Store Server API's).
                let group = "/" + path.split(separator: "/").prefix(2).joined(separator: "/")
                groups[group, default: []].append(resolver.operation(method: method, path: path, operation))
            }
        }
        let components = root["components"] as? [String: Any] ?? [:]
        let schemas = components["schemas"] as? [String: Any] ?? [:]
        self.init(
            title: info["title"] as? String ?? "JSON API", version: info["version"] as? String ?? "",
            description: info["description"] as? String ?? "",
            groups: groups.keys.sorted().map { Group(title: $0, operations: groups[$0] ?? []) },
            schemas: schemas.keys.sorted().compactMap { name in
                (schemas[name] as? [String: Any]).map { resolver.schema(named: name, $0) }
            },
            problem: nil)
    }

    /// A description as the page shows it: runs of text, and `code` between backticks (the document's own
    /// convention, as in CommonMark code spans) as `<code>`; an empty text gives no runs.
    static func runs(_ text: String) -> MustacheValue {
        var runs: [MustacheValue] = []
        for (index, part) in text.split(separator: "`", omittingEmptySubsequences: false).enumerated() where !part.isEmpty {
            runs.append(["text": .string(String(part)), "isCode": .bool(index % 2 == 1)])
        }
        return .array(runs)
    }

    /// The page's values.
    var mustacheValue: MustacheValue {
        let runs = Self.runs
        func field(_ field: Field) -> MustacheValue {
            [
                "name": .string(field.name), "location": .string(field.location), "type": .string(field.type),
                "isRequired": .bool(field.isRequired), "description": runs(field.description),
                "hasDescription": .bool(!field.description.isEmpty),
            ]
        }
        let groups: [MustacheValue] = groups.map { group in
            [
                "title": .string(group.title),
                "operations": .array(
                    group.operations.map { operation in
                        [
                            "method": .string(operation.method), "path": .string(operation.path), "anchor": .string(operation.anchor),
                            "summary": .string(operation.summary), "description": runs(operation.description),
                            "hasDescription": .bool(!operation.description.isEmpty),
                            "parameters": .array(operation.parameters.map(field)), "hasParameters": .bool(!operation.parameters.isEmpty),
                            "bodyFields": .array(operation.bodyFields.map(field)),
                            "hasBody": .bool(!operation.bodyFields.isEmpty || operation.bodyExample != nil),
                            "isBodyRequired": .bool(operation.isBodyRequired),
                            "bodyExample": operation.bodyExample.map(MustacheValue.string) ?? .null,
                            "answers": .array(
                                operation.answers.map { answer in
                                    [
                                        "status": .string(answer.status), "description": runs(answer.description),
                                        "bodies": .array(answer.bodies.map(MustacheValue.string)),
                                    ]
                                }),
                        ]
                    }),
            ]
        }
        let schemas: [MustacheValue] = schemas.map { schema in
            [
                "name": .string(schema.name), "description": runs(schema.description), "type": .string(schema.type),
                "hasDescription": .bool(!schema.description.isEmpty),
                "fields": .array(schema.fields.map(field)), "hasFields": .bool(!schema.fields.isEmpty),
            ]
        }
        return [
            "title": .string(title), "version": .string(version), "description": runs(description),
            "groups": .array(groups), "schemas": .array(schemas), "problem": problem.map(MustacheValue.string) ?? .null,
        ]
    }
}
