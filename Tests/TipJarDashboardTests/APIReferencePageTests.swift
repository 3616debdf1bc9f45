import Foundation
import Mustache
import Testing

@testable import TipJarDashboard

/// `GET /api`: the JSON API for people, rendered on the server from `Public/api/openapi.json` (OpenAPI 3.1), so the
/// page and the contract cannot disagree, and nothing on it needs JavaScript.
@Suite("The /api page")
struct APIReferencePageTests {
    static var document: [String: Any] {
        get throws {
            let data = try Data(contentsOf: LiveServer.repositoryRoot.appendingPathComponent("Public/api/openapi.json"))
            return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        }
    }

    @Test func everyOperationOfTheDocumentIsOnThePageWithItsAnchorAndExample() async throws {
        let reply = try await withLiveServer { server in await server.send("GET", "/api", fields: [("Accept", "text/html")]) }
        #expect(reply.status == 200)
        #expect(reply["Content-Type"]?.hasPrefix("text/html") == true)
        let page = reply.body
        let paths = try #require(try Self.document["paths"] as? [String: [String: Any]])
        var operations = 0
        for (path, item) in paths {
            for (method, value) in item {
                guard let operation = value as? [String: Any], let id = operation["operationId"] as? String else { continue }
                operations += 1
                #expect(page.contains(#"<article class="api-op" id="op-\#(id)">"#), "no section for \(id)")
                #expect(page.contains(##"<a href="#op-\##(id)">"##), "no contents link to \(id)")
                #expect(page.contains(#"<span class="api-method">\#(method.uppercased())</span> \#(path)</code>"#), "\(method) \(path)")
                let body = ((operation["requestBody"] as? [String: Any])?["content"] as? [String: Any])?["application/json"] as? [String: Any]
                if let example = body?["example"] as? [String: Any] {
                    for key in example.keys { #expect(page.contains("&quot;\(key)&quot; :"), "\(id): the example's \(key)") }
                }
            }
        }
        #expect(operations == 45)
        #expect(!page.contains("<script>"), "the page needs no script of its own")
        #expect(page.contains(#"<a href="/api" aria-current="page">JSON API</a>"#), "the footer links the page, marked current")
    }

    @Test func everyPageLinksTheAPIReference() async throws {
        let reply = try await withLiveServer { server in await server.send("GET", "/catalog", fields: [("Accept", "text/html")]) }
        #expect(reply.body.contains(#"<a href="/api">JSON API</a>"#))
    }

    @Test(arguments: [
        (##"{"$ref": "#/components/schemas/Install"}"##, "Install"),
        (##"{"type": "array", "items": {"$ref": "#/components/schemas/Transaction"}}"##, "array of Transaction"),
        (##"{"type": "integer", "minimum": 1, "maximum": 200}"##, "integer 1–200"),
        (##"{"type": "string", "maxLength": 200}"##, "string ≤ 200 characters"),
        (##"{"type": "string", "format": "uuid"}"##, "string (uuid)"),
        (##"{"enum": ["csv", "json", null]}"##, "one of: csv, json, null"),
        (##"{"type": ["boolean", "null"]}"##, "boolean or null"),
        (##"{"anyOf": [{"$ref": "#/components/schemas/Label"}, {"type": "null"}]}"##, "Label or null"),
        (##"{"enum": ["A","B","C","D","E","F","G","H","I","J","K","L","M"]}"##, "one of 13 values"),
    ])
    func aSchemaIsNamedInWordsAPersonReads(_ schema: String, _ words: String) throws {
        let node = try JSONSerialization.jsonObject(with: Data(schema.utf8))
        #expect(APIReference.SchemaText(components: [:]).type(of: node) == words)
    }

    @Test func codeBetweenBackticksIsShownAsCodeAndNothingElseIs() {
        let runs = APIReference.runs("`all` is `Transaction.all`, <b>not</b> HTML")
        #expect(
            runs
                == .array([
                    ["text": "all", "isCode": true], ["text": " is ", "isCode": false],
                    ["text": "Transaction.all", "isCode": true], ["text": ", <b>not</b> HTML", "isCode": false],
                ]))
        #expect(APIReference.runs("") == .array([]))
    }

    @Test func requiredFieldsComeFirstWithTheirDescriptions() throws {
        let document = #"""
            {"openapi": "3.1.0", "info": {"title": "T", "version": "1"},
             "paths": {"/api/things/{id}": {"post": {"operationId": "make", "summary": "Make",
               "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "integer", "minimum": 1}}],
               "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"},
                 "example": {"name": "a"}}}},
               "responses": {"201": {"description": "Made", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}}}}}}},
             "components": {"schemas": {"Thing": {"type": "object", "required": ["name"],
               "properties": {"age": {"type": "integer"}, "name": {"type": "string", "description": "Its `name`"}}}}}}
            """#
        let reference = try APIReference(document: Data(document.utf8))
        let operation = try #require(reference.groups.first?.operations.first)
        #expect(reference.groups.map(\.title) == ["/api/things"])
        #expect(operation.anchor == "op-make")
        #expect(operation.parameters == [.init(name: "id", location: "path", type: "integer ≥ 1", isRequired: true, description: "")])
        #expect(operation.bodyFields.map(\.name) == ["name", "age"])
        #expect(operation.bodyFields.first?.description == "Its `name`")
        #expect(operation.bodyExample == "{\n  \"name\" : \"a\"\n}")
        #expect(operation.answers == [.init(status: "201", description: "Made", bodies: ["application/json: Thing"])])
        #expect(reference.schemas.map(\.name) == ["Thing"])
    }

    @Test func aDocumentThatCannotBeReadIsNamedOnThePage() {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("no-public-\(UUID().uuidString)")
        let reference = APIReference.load(in: folder)
        #expect(reference.groups.isEmpty)
        #expect(reference.problem?.hasSuffix("api/openapi.json: cannot read the file") == true)
    }
}
