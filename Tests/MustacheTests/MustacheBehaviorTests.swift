import Foundation
import Testing

@testable import Mustache

@Suite("Errors")
struct ErrorTests {
    private func parseError(_ source: String, partials: [String: String] = [:]) -> MustacheError? {
        do {
            _ = try MustacheTemplate(source: source, partials: partials)
            return nil
        } catch let error as MustacheError {
            return error
        } catch {
            return nil
        }
    }

    @Test func unclosedSectionReportsOpeningTag() throws {
        let error = try #require(parseError("line one\n  {{#items}}\n{{name}}\n"))
        #expect(error.kind == .unclosedSection("items"))
        #expect(error.templateName == "template")
        #expect(error.line == 2)
        #expect(error.column == 3)
        #expect(error.description.contains("template:2:3"))
    }

    @Test func mismatchedClosingTag() throws {
        let error = try #require(parseError("{{#a}}\nx {{#b}}y{{/a}}"))
        #expect(error.kind == .mismatchedClosingTag(expected: "b", found: "a"))
        #expect(error.line == 2)
        #expect(error.column == 10)
    }

    @Test func closingTagWithoutOpening() throws {
        let error = try #require(parseError("ok\n\n   {{/a}}"))
        #expect(error.kind == .mismatchedClosingTag(expected: nil, found: "a"))
        #expect(error.line == 3)
        #expect(error.column == 4)
    }

    @Test func badDelimiter() throws {
        let error = try #require(parseError("é {{=<% =}}"))
        #expect(error.kind == .badDelimiter("<% ="))
        #expect(error.line == 1)
        #expect(error.column == 3)
    }

    @Test func errorInPartialNamesThePartial() throws {
        let error = try #require(parseError("{{>tile}}", partials: ["tile": "a\nb\n{{^x}}"]))
        #expect(error.kind == .unclosedSection("x"))
        #expect(error.templateName == "tile")
        #expect(error.line == 3)
        #expect(error.column == 1)
    }

    @Test func libraryParseErrorHasNameLineColumn() throws {
        #expect {
            _ = try MustacheLibrary(templates: ["ok": "fine", "pages/bad": "\n\n  {{#x}}{{/y}}"])
        } throws: { error in
            guard let error = error as? MustacheError else { return false }
            return error.templateName == "pages/bad" && error.line == 3 && error.column == 9
        }
    }
}

@Suite("Rendering")
struct RenderingTests {
    @Test func escapesAllFiveCharacters() throws {
        let template = try MustacheTemplate(source: "{{s}}|{{{s}}}|{{&s}}", partials: [:])
        #expect(template.render(["s": "&<>\"'"]) == "&amp;&lt;&gt;&quot;&#39;|&<>\"'|&<>\"'")
    }

    @Test func jsonSerializationBooleansAreBooleans() throws {
        let json = #"{"t": true, "f": false, "one": 1, "zero": 0, "pi": 3.5, "n": null}"#
        let data = try JSONSerialization.jsonObject(with: Data(json.utf8))
        let template = try MustacheTemplate(
            source: "{{t}} {{f}} {{one}} {{zero}} {{pi}} [{{n}}] {{#f}}F{{/f}}{{^f}}!F{{/f}}{{#zero}}Z{{/zero}}{{#one}}O{{/one}}",
            partials: [:])
        #expect(template.render(data) == "true false 1 0 3.5 [] !FZO")
        #expect(MustacheValue(data) == ["t": true, "f": false, "one": 1, "zero": 0, "pi": 3.5, "n": nil])
    }

    @Test func nativeSwiftValues() throws {
        let template = try MustacheTemplate(
            source: "{{#items}}{{name}}={{count}};{{/items}}{{#flag}}yes{{/flag}}{{^missing}}none{{/missing}}{{opt}}",
            partials: [:])
        let optional: String? = nil
        let data: [String: Any] = [
            "items": [["name": "a", "count": 1], ["name": "b", "count": 2.5]] as [[String: Any]],
            "flag": true,
            "opt": optional as Any,
        ]
        #expect(template.render(data) == "a=1;b=2.5;yesnone")
        let typed: MustacheValue = ["items": [["name": "c", "count": 3]], "flag": false]
        #expect(template.render(typed) == "c=3;none")
        #expect(template.render(value: typed) == "c=3;none")
    }

    @Test func missingPartialRendersEmpty() throws {
        let template = try MustacheTemplate(source: "[{{>nope}}]{{>nope}}", partials: [:])
        #expect(template.render([String: Any]()) == "[]")
    }

    @Test func standalonePartialIndentsEveryLine() throws {
        let template = try MustacheTemplate(source: "<ul>\n  {{>item}}\n</ul>\n", partials: ["item": "<li>\n  {{x}}\n</li>\n"])
        #expect(template.render(["x": "a\nb"]) == "<ul>\n  <li>\n    a\nb\n  </li>\n</ul>\n")
    }
}

@Suite("Library")
struct LibraryTests {
    @Test func loadsDirectoryRecursively() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("mustache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("pages"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("partials"), withIntermediateDirectories: true)
        try "<title>{{$title}}Tip Jar{{/title}}</title>\n{{$body}}{{/body}}\n"
            .write(to: root.appendingPathComponent("layout.mustache"), atomically: true, encoding: .utf8)
        try "{{<layout}}{{$title}}Install{{/title}}{{$body}}{{#tiles}}{{>partials/tile}}{{/tiles}}{{/body}}{{/layout}}"
            .write(to: root.appendingPathComponent("pages/install.mustache"), atomically: true, encoding: .utf8)
        try "[{{name}}]".write(to: root.appendingPathComponent("partials/tile.mustache"), atomically: true, encoding: .utf8)
        try "ignored".write(to: root.appendingPathComponent("notes.txt"), atomically: true, encoding: .utf8)

        let library = try MustacheLibrary(directory: root)
        #expect(library.templateNames == ["layout", "pages/install", "partials/tile"])
        let html = try library.render("pages/install", ["tiles": [["name": "a"], ["name": "b"]]])
        #expect(html == "<title>Install</title>\n[a][b]\n")
        #expect(throws: MustacheError.self) { try library.render("pages/absent", [:] as [String: Any]) }
    }

    @Test func parsesEachTemplateOnce() throws {
        let counter = ParseCounter()
        try ParseInstrumentation.$counter.withValue(counter) {
            let library = try MustacheLibrary(templates: [
                "page": "{{<layout}}{{$body}}{{#rows}}{{>row}}{{/rows}}{{/body}}{{/layout}}",
                "layout": "<main>{{$body}}{{/body}}</main>",
                "row": "<tr>{{.}}</tr>",
            ])
            #expect(counter.count == 3)
            for _ in 0..<50 {
                #expect(try library.render("page", ["rows": [1, 2]]) == "<main><tr>1</tr><tr>2</tr></main>")
            }
            #expect(counter.count == 3)
        }
    }

    @Test func libraryIsSendableAcrossTasks() async throws {
        let library = try MustacheLibrary(templates: ["t": "{{n}}"])
        let results = await withTaskGroup(of: String.self) { group in
            for i in 0..<8 { group.addTask { (try? library.render("t", ["n": i])) ?? "" } }
            var all: [String] = []
            for await r in group { all.append(r) }
            return all.sorted()
        }
        #expect(results == (0..<8).map(String.init).sorted())
    }
}

/// The typed values the dashboard's view models are made of: a ``MustacheRenderable`` renders as its value, and
/// ``MustacheValue/text(_:)`` is escaped for element content (`'` kept, everything else as `.string`).
@Suite("Typed values")
struct TypedValueTests {
    struct Row: MustacheRenderable {
        var name: String
        var count: Int
        var mustacheValue: MustacheValue { ["name": .string(name), "count": .int(count)] }
    }

    @Test func aRenderableRendersAsItsValueWhetherGivenTypedOrInsideAny() throws {
        let template = try MustacheTemplate(source: "{{#rows}}{{name}}={{count}};{{/rows}}")
        let rows = [Row(name: "a", count: 1), Row(name: "b", count: 2)]
        #expect(template.render(value: ["rows": .array(rows.map(\.mustacheValue))]) == "a=1;b=2;")
        #expect(template.render(["rows": rows] as [String: Any]) == "a=1;b=2;")
    }

    @Test func textKeepsTheApostropheAndEscapesTheRest() throws {
        let template = try MustacheTemplate(source: "{{value}}|{{{value}}}")
        #expect(template.render(value: ["value": .text(#"Xcode's <b>"&"#)]) == #"Xcode's &lt;b&gt;&quot;&amp;|Xcode's <b>"&"#)
        #expect(template.render(value: ["value": .string("Xcode's")]) == "Xcode&#39;s|Xcode's")
    }
}
