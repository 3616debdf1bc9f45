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

    @Test func everyOperationIsAClosedSectionOfItsAreaWithItsAnchorAndExamples() async throws {
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
                #expect(page.contains(#"<div class="api-op-body" id="op-\#(id)">"#), "no section for \(id)")
                let summary = operation["summary"] as? String ?? ""
                let head =
                    #"<summary><span class="api-method api-method-\#(method)">\#(method.uppercased())</span> <code class="api-path">\#(path)</code> "#
                    + #"<span class="api-summary">\#(summary.replacingOccurrences(of: "'", with: "&#39;"))</span></summary>"#
                #expect(page.contains(head), "\(method) \(path): its summary line")
                let tag = try #require((operation["tags"] as? [String])?.first, "\(id) has a tag")
                #expect(page.contains(##"<a href="#area-\##(APIReference.slug(tag))">\##(tag)</a>"##), "the contents link \(tag)")
                let body = ((operation["requestBody"] as? [String: Any])?["content"] as? [String: Any])?.values.first as? [String: Any]
                if let example = body?["example"] as? [String: Any] {
                    for key in example.keys { #expect(page.contains("&quot;\(key)&quot; :"), "\(id): the example's \(key)") }
                }
            }
        }
        #expect(operations == 50)
        #expect(!page.contains("<details class=\"api-op\" open"), "every operation starts closed")
        #expect(page.components(separatedBy: "Example answer (").count - 1 >= operations - 5, "answer examples are shown")
        #expect(!page.contains("<script>"), "the page needs no script of its own")
        #expect(page.contains(#"<a href="/api" aria-current="page">JSON API</a>"#), "the footer links the page, marked current")
    }

    /// Stripe's and GitHub's references show, for each operation, a request and an answer example: the document holds
    /// one for every body an operation takes and every success answer with a body (Tests/Schemas/check_examples.py
    /// also validates each against its schema).
    @Test func everyOperationHasARequestExampleForItsBodyAndAnAnswerExampleForItsSuccess() throws {
        let document = try Self.document
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        var missing: [String] = []
        for (path, item) in paths {
            for (method, value) in item {
                guard let operation = value as? [String: Any] else { continue }
                let body = (operation["requestBody"] as? [String: Any])?["content"] as? [String: [String: Any]] ?? [:]
                for (media, content) in body where content["example"] == nil && content["examples"] == nil {
                    missing.append("\(method) \(path) request \(media)")
                }
                for (status, answer) in operation["responses"] as? [String: [String: Any]] ?? [:] where status.hasPrefix("2") {
                    for (media, content) in answer["content"] as? [String: [String: Any]] ?? [:]
                    where content["example"] == nil && content["examples"] == nil {
                        missing.append("\(method) \(path) \(status) \(media)")
                    }
                }
            }
        }
        #expect(missing.isEmpty, "without an example: \(missing.sorted())")
    }

    @Test func operationsAreGroupedByTheirFirstTagInTheOrderOfTheDocumentsTags() throws {
        let document = #"""
            {"openapi": "3.1.0", "info": {"title": "T", "version": "1"},
             "tags": [{"name": "Zebras", "description": "Striped"}, {"name": "Apes"}],
             "paths": {"/a": {"get": {"operationId": "a", "tags": ["Apes"], "responses": {}}},
                       "/z": {"get": {"operationId": "z", "tags": ["Zebras", "Apes"], "responses": {}}},
                       "/api/things/{id}": {"get": {"operationId": "t", "responses": {}}}}}
            """#
        let reference = try APIReference(document: Data(document.utf8))
        #expect(reference.groups.map(\.title) == ["Zebras", "Apes", "/api/things"])
        #expect(reference.groups.map(\.anchor) == ["area-zebras", "area-apes", "area-api-things"])
        #expect(reference.groups.first?.description == "Striped")
        #expect(reference.groups.map { $0.operations.map(\.anchor) } == [["op-z"], ["op-a"], ["op-t"]])
    }

    @Test func aTypeLinksEverySchemaItNamesAndNothingElse() {
        let runs = APIReference.typeRuns("array of Transaction or Installs or null", schemas: ["Transaction", "Install"])
        #expect(
            runs
                == .array([
                    ["text": "array of ", "isLink": false], ["text": "Transaction", "isLink": true],
                    ["text": " or Installs or null", "isLink": false],
                ]))
    }

    @Test func anAnswerShowsTheExampleOfEachMediaTypeAndASchemaItsExample() throws {
        let document = #"""
            {"openapi": "3.1.0", "info": {"title": "T", "version": "1"},
             "paths": {"/things": {"get": {"operationId": "list", "responses": {"200": {"description": "All", "content": {
               "application/json": {"schema": {"type": "array", "items": {"$ref": "#/components/schemas/Thing"}}, "example": [{"name": "a"}]},
               "text/csv": {"schema": {"type": "string"}, "examples": {"one": {"value": "name\na\n"}}}}}}}},
              "/things/{id}": {"patch": {"operationId": "change", "requestBody": {"content": {"application/merge-patch+json": {
                "schema": {"$ref": "#/components/schemas/Thing"}, "example": {"name": null}}}}, "responses": {}}}},
             "components": {"schemas": {"Thing": {"type": "object", "properties": {"name": {"type": "string"}}, "example": {"name": "b"}},
               "Colour": {"enum": ["red", "green"]}}}}
            """#
        let reference = try APIReference(document: Data(document.utf8))
        let operations = reference.groups.flatMap(\.operations)
        let list = try #require(operations.first { $0.anchor == "op-list" })
        #expect(
            list.answers.first?.bodies == [
                .init(mediaType: "application/json", type: "array of Thing", example: "[\n  {\n    \"name\" : \"a\"\n  }\n]"),
                .init(mediaType: "text/csv", type: "string", example: "name\na\n"),
            ])
        let change = try #require(operations.first { $0.anchor == "op-change" })
        #expect(change.bodyMediaType == "application/merge-patch+json")
        #expect(change.bodyExample == "{\n  \"name\" : null\n}")
        #expect(reference.schemas.map(\.kind) == ["enumeration", "object"])
        #expect(reference.schemas.first?.type == "one of: red, green")
        #expect(reference.schemas.last?.example == "{\n  \"name\" : \"b\"\n}")
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
        (##"{"enum": ["A","B","C","D","E","F","G","H","I","J","K","L","M"]}"##, "one of: A, B, C, D, E, F, G, H, I, J, K, L, M"),
    ])
    func aSchemaIsNamedInWordsAPersonReads(_ schema: String, _ words: String) throws {
        let node = try JSONSerialization.jsonObject(with: Data(schema.utf8))
        #expect(APIReference.SchemaText(components: [:]).type(of: node) == words)
    }

    @Test func aPointerIntoASchemaIsSaidAsWhatItPointsTo() throws {
        let components = ["schemas": ["Patch": ["properties": ["catalog": ["enum": ["normal", "slow"]]]]]]
        let node = try JSONSerialization.jsonObject(
            with: Data(##"{"anyOf": [{"$ref": "#/components/schemas/Patch/properties/catalog"}, {"type": "null"}]}"##.utf8))
        #expect(APIReference.SchemaText(components: components).type(of: node) == "one of: normal, slow or null")
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
        #expect(
            operation.answers == [
                .init(status: "201", description: "Made", bodies: [.init(mediaType: "application/json", type: "Thing", example: nil)])
            ])
        #expect(reference.schemas.map(\.name) == ["Thing"])
    }

    @Test func aDocumentThatCannotBeReadIsNamedOnThePage() {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("no-public-\(UUID().uuidString)")
        let reference = APIReference.load(in: folder)
        #expect(reference.groups.isEmpty)
        #expect(reference.problem?.hasSuffix("api/openapi.json: cannot read the file") == true)
    }
}
