import Foundation
import Mustache

/// The `/api` page's content: `Public/api/openapi.json` (OpenAPI 3.1, https://spec.openapis.org/oas/v3.1.0), read
/// once when the dashboard starts, as plain values a template shows without JavaScript: the operations by area (the
/// document's `tags`), each with its parameters, request body fields and example, answers and answer examples; then
/// every schema with its fields. The document stays the one source: the page only restates it.
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
        /// Each media type with the type of its schema, e.g. `application/json` and `Install`.
        var bodies: [Body]
    }

    /// A body of a request or an answer in one media type, with the document's example of it, if any.
    struct Body: Sendable, Equatable {
        var mediaType: String
        var type: String
        /// The example as the page shows it: indented JSON with sorted keys, or the text of a text example.
        var example: String?
    }

    /// One operation: a method on a path.
    struct Operation: Sendable, Equatable {
        var method: String
        var path: String
        var anchor: String
        var summary: String
        var description: String
        /// The document's `tags`; the first names the operation's area.
        var tags: [String]
        var parameters: [Field]
        /// The media type of the request body (`application/json`, `application/merge-patch+json`), or `nil`.
        var bodyMediaType: String?
        var bodyFields: [Field]
        var isBodyRequired: Bool
        var bodyExample: String?
        var answers: [Answer]
    }

    /// An area: the operations whose first tag is the same (in the order of the document's `tags`), or, for an
    /// operation without tags, those that share a path's first two segments (`/api/installs`, `/inApps/v1`).
    struct Group: Sendable, Equatable {
        var title: String
        var description: String
        var anchor: String
        var operations: [Operation]
    }

    /// A named schema of `components.schemas`.
    struct Schema: Sendable, Equatable {
        var name: String
        var description: String
        /// The schema's type in words (an enumeration lists its values).
        var type: String
        /// A word or two for its summary line: `object`, `string`, `enumeration`, `one of 2 shapes`.
        var kind: String
        var fields: [Field]
        var example: String?
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

    /// Reads an OpenAPI 3.1 document. Areas come in the order of the document's `tags` (then untagged ones by
    /// path), paths by name within an area, methods in the order GET, POST, PUT, PATCH, DELETE.
    /// - Throws: `DecodingError.dataCorrupted` when the document is not a JSON object; Foundation's JSON errors.
    init(document data: Data) throws {
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "the document is not a JSON object"))
        }
        let resolver = SchemaText(components: root["components"] as? [String: Any] ?? [:])
        let info = root["info"] as? [String: Any] ?? [:]
        let paths = root["paths"] as? [String: Any] ?? [:]
        let tags = (root["tags"] as? [Any] ?? []).compactMap { $0 as? [String: Any] }
        var order = tags.compactMap { $0["name"] as? String }
        var operations: [String: [Operation]] = [:]
        for path in paths.keys.sorted() {
            guard let item = paths[path] as? [String: Any] else { continue }
            for method in ["get", "post", "put", "patch", "delete"] {
                guard let node = item[method] as? [String: Any] else { continue }
                let operation = resolver.operation(method: method, path: path, node)
                // The first two segments: `/api/installs`, `/inApps/v1` (the App Store Server API's).
                let area = operation.tags.first ?? "/" + path.split(separator: "/").prefix(2).joined(separator: "/")
                if !order.contains(area) { order.append(area) }
                operations[area, default: []].append(operation)
            }
        }
        var descriptions: [String: String] = [:]
        for tag in tags {
            if let name = tag["name"] as? String, descriptions[name] == nil { descriptions[name] = tag["description"] as? String ?? "" }
        }
        let components = root["components"] as? [String: Any] ?? [:]
        let schemas = components["schemas"] as? [String: Any] ?? [:]
        self.init(
            title: info["title"] as? String ?? "JSON API", version: info["version"] as? String ?? "",
            description: info["description"] as? String ?? "",
            groups: order.compactMap { area in
                operations[area].map {
                    Group(title: area, description: descriptions[area] ?? "", anchor: "area-" + Self.slug(area), operations: $0)
                }
            },
            schemas: schemas.keys.sorted().compactMap { name in
                (schemas[name] as? [String: Any]).map { resolver.schema(named: name, $0) }
            },
            problem: nil)
    }

    /// A fragment identifier made of a name: letters and digits kept, lower-cased, every other run one `-`.
    static func slug(_ name: String) -> String {
        name.lowercased().split { !($0.isLetter || $0.isNumber) || !$0.isASCII }.joined(separator: "-")
    }
}
