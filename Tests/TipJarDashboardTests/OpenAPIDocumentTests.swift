import Foundation
import Testing
import TipJar

@testable import TipJarDashboard

/// `/api/openapi.json` is served, and names every JSON route the code registers with its method
/// (the responses are held to the document by Tests/Schemas/check_openapi.py in CI).
@Suite("OpenAPI document")
struct OpenAPIDocumentTests {
    /// A path with every parameter written `{}`: the code's `:account` and the document's
    /// `{accountID}` name the same segment (the document's names are held to its `parameters` by
    /// openapi-spec-validator in Tests/Schemas/check_openapi.py).
    static func shape(_ path: String) -> String {
        path.replacingOccurrences(of: #"(:[A-Za-z_][A-Za-z0-9_]*|\{[^/}]+\})"#, with: "{}", options: .regularExpression)
    }

    /// Every `/api` and `/inApps` route the running stack's router holds, as `GET /api/installs/{}`.
    static func registeredRoutes(_ routes: [(method: String, pattern: String)]) -> Set<String> {
        Set(
            routes.filter { $0.pattern.hasPrefix("/api/") || $0.pattern.hasPrefix("/inApps/") }
                .map { "\($0.method) \(shape($0.pattern))" })
    }

    @Test(arguments: [
        ("/api/accounts/:account/transactions", "/api/accounts/{accountID}/transactions"),
        ("/api/store/pending/:tid/approve", "/api/store/pending/{transactionID}/approve"),
        ("/api/installs/:id", "/api/installs/{id}"),
    ])
    func aRouteParameterMatchesTheDocumentsWhateverItsName(_ route: String, _ documented: String) {
        #expect(Self.shape(route) == Self.shape(documented))
        #expect(Self.shape(route) != Self.shape("/api/installs"))
    }

    @Test func theDocumentIsServedAndNamesEveryAPIRoute() async throws {
        let (reply, routes) = try await withLiveServer { server in (await server.send("GET", "/api/openapi.json"), server.stack.router.routes) }
        #expect(reply.status == 200)
        #expect(reply["Content-Type"]?.hasPrefix("application/json") == true)
        let document = reply.object
        #expect(document["openapi"] as? String == "3.1.0")
        let paths = document["paths"] as? [String: [String: Any]] ?? [:]
        var documented: Set<String> = []
        for (path, item) in paths { for method in item.keys { documented.insert("\(method.uppercased()) \(Self.shape(path))") } }
        let registered = Self.registeredRoutes(routes).union(["GET /api/openapi.json"])
        #expect(registered.count > 15)
        #expect(registered.subtracting(documented).isEmpty, "routes missing from openapi.json: \(registered.subtracting(documented).sorted())")
        #expect(documented.subtracting(registered).isEmpty, "documented but not routed: \(documented.subtracting(registered).sorted())")
    }

    /// The schema a `StoreSettings.declarations` entry implies, written as ``shape(_:)`` writes the document's: an
    /// enum of its values (and `null` when optional), an integer with its bounds, or a boolean.
    static func schema(of declaration: StoreSetting) -> [String: String] {
        switch declaration.kind {
        case .choice(let values, let optional): ["enum": (values + (optional ? ["null"] : [])).joined(separator: ",")]
        case .integer(let range, _): ["type": "integer", "minimum": "\(range.lowerBound)", "maximum": "\(range.upperBound)"]
        case .flag: ["type": "boolean"]
        }
    }

    /// What the document says of a property, without its prose (`description`): each keyword's value as text, an
    /// enum's members joined by commas (`null` for JSON null).
    static func shape(_ property: Any?) -> [String: String] {
        var shape: [String: String] = [:]
        for (key, value) in property as? [String: Any] ?? [:] where key != "description" {
            switch value {
            case let list as [Any]: shape[key] = list.map { ($0 as? String) ?? ($0 is NSNull ? "null" : "\($0)") }.joined(separator: ",")
            case let text as String: shape[key] = text
            case let number as NSNumber: shape[key] = "\(number.intValue)"
            default: shape[key] = "\(value)"
            }
        }
        return shape
    }

    /// `StoreSettings` (the `GET /api/store` answer) and `StorePatch` (the `PUT` body) list exactly the declared
    /// settings with their declared values, so a setting added to the declarations and not to the document (or the
    /// other way round) fails here.
    @Test(arguments: ["StoreSettings", "StorePatch"])
    func theDocumentsStoreSchemaIsTheDeclarationList(_ name: String) throws {
        let data = try Data(contentsOf: LiveServer.repositoryRoot.appendingPathComponent("Public/api/openapi.json"))
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        func resolved(_ schema: Any?) -> [String: Any] {
            guard let schema = schema as? [String: Any] else { return [:] }
            guard let reference = schema["$ref"] as? String else { return schema }
            return schemas[String(reference.split(separator: "/").last ?? "")] as? [String: Any] ?? [:]
        }
        let store = resolved(schemas[name])
        let properties = store["properties"] as? [String: Any] ?? [:]
        let topLevel = StoreSettings.declarations(in: nil).map(\.key) + StoreSettings.settingObjects
        #expect(Set(properties.keys) == Set(topLevel), "\(name) properties")
        #expect(store["additionalProperties"] as? Bool == false)
        if name == "StoreSettings" { #expect(Set(store["required"] as? [String] ?? []) == Set(topLevel), "every field is answered") }
        for declaration in StoreSettings.declarations(in: nil) {
            #expect(Self.shape(properties[declaration.key]) == Self.schema(of: declaration), "\(name).\(declaration.key)")
        }
        for object in StoreSettings.settingObjects {
            let nested = resolved(properties[object])
            let members = nested["properties"] as? [String: Any] ?? [:]
            let declared = StoreSettings.declarations(in: object)
            #expect(Set(members.keys) == Set(declared.map { $0.path[1] }), "\(name).\(object) properties")
            for declaration in declared {
                #expect(Self.shape(members[declaration.path[1]]) == Self.schema(of: declaration), "\(name).\(declaration.key)")
            }
        }
    }
}
