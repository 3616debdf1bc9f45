import Foundation
import Testing

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

    /// `router.get("/api/installs/:id")` → `GET /api/installs/{}`, read from the route files.
    static func registeredRoutes() throws -> Set<String> {
        let folder = LiveServer.repositoryRoot.appendingPathComponent("Sources/TipJarDashboard")
        var routes: Set<String> = []
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasPrefix("Routes") {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            let pattern = try NSRegularExpression(pattern: #"router\.(get|post|put|delete|patch)\("(/api/[^"]*)""#)
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let method = (text as NSString).substring(with: match.range(at: 1)).uppercased()
                let path = shape((text as NSString).substring(with: match.range(at: 2)))
                routes.insert("\(method) \(path)")
            }
        }
        return routes
    }

    @Test(arguments: [("/api/accounts/:account/transactions", "/api/accounts/{accountID}/transactions"),
                      ("/api/store/pending/:tid/approve", "/api/store/pending/{transactionID}/approve"),
                      ("/api/installs/:id", "/api/installs/{id}")])
    func aRouteParameterMatchesTheDocumentsWhateverItsName(_ route: String, _ documented: String) {
        #expect(Self.shape(route) == Self.shape(documented))
        #expect(Self.shape(route) != Self.shape("/api/installs"))
    }

    @Test func theDocumentIsServedAndNamesEveryAPIRoute() async throws {
        let reply = try await withLiveServer { server in await server.send("GET", "/api/openapi.json") }
        #expect(reply.status == 200)
        #expect(reply["Content-Type"]?.hasPrefix("application/json") == true)
        let document = reply.object
        #expect(document["openapi"] as? String == "3.1.0")
        let paths = document["paths"] as? [String: [String: Any]] ?? [:]
        var documented: Set<String> = []
        for (path, item) in paths { for method in item.keys { documented.insert("\(method.uppercased()) \(Self.shape(path))") } }
        let registered = try Self.registeredRoutes().union(["GET /api/openapi.json"])
        #expect(registered.count > 15)
        #expect(registered.subtracting(documented).isEmpty, "routes missing from openapi.json: \(registered.subtracting(documented).sorted())")
        #expect(documented.subtracting(registered).isEmpty, "documented but not routed: \(documented.subtracting(registered).sorted())")
    }
}
