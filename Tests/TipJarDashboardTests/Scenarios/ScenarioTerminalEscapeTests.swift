import Foundation
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

/// `tipjar scenario run` prints what a scenario file and the server say escaped as `check-storekit` escapes it
/// (`Catalog.escapedField`): an OSC title change (ESC ] 0 ; … BEL), an erase of the display (ESC [ 2 J), a carriage
/// return (ECMA-48, https://ecma-international.org/publications-and-standards/standards/ecma-48/) and a right-to-left
/// override (U+202E, https://www.unicode.org/reports/tr9/#Explicit_Directional_Overrides) are shown as text, never acted
/// on, and the JUnit report stays well-formed XML (https://www.w3.org/TR/xml/#charsets) with them escaped the same way.
@Suite("Scenario output escapes terminal controls")
struct ScenarioTerminalEscapeTests {
    static let hostile = "\u{1B}]0;title\u{07}\u{1B}[2J\rfake ok\u{202E}txt.exe"
    static let escaped = #"\u{1B}]0;title\u{7}\u{1B}[2J\rfake ok\u{202E}txt.exe"#
    static let raw: [Unicode.Scalar] = ["\u{1B}", "\u{07}", "\r", "\u{202E}"]

    static func rawControls(in text: String) -> [String] {
        raw.filter { text.unicodeScalars.contains($0) }.map { "U+" + String($0.value, radix: 16, uppercase: true) }
    }

    /// A JSON string literal for `text` (JSONSerialization writes the controls as `\u001b` escapes).
    static func json(_ text: String) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: [text]), as: UTF8.self).dropFirst().dropLast().description
    }

    final class XMLCheck: NSObject, XMLParserDelegate {
        var attributes: [String] = []
        var text = ""
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String]) {
            self.attributes += attributes.values
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }
    }

    @Test func namesTitlesAndServerAnswersFromAScenarioReachTheTerminalEscaped() async throws {
        let h = try Self.json(Self.hostile)
        let file = try ScenarioFiles.write(
            """
            {"name": \(h), "steps": [
              {"step": "createInstall", "install": \(try Self.json("ana" + Self.hostile)), "label": "Ana \\u202Eevil", "launch": true},
              {"step": "purchase", "install": \(try Self.json("ana" + Self.hostile)), "productID": \(h), "expect": {"outcome": "purchased"}}
            ]}
            """, name: "evil\u{1B}[2J.json")
        let report = file.deletingLastPathComponent().appendingPathComponent("report.xml")
        let run = try await CommandLineTests.run(["scenario", "run", file.path, "--junit", report.path], timeout: .seconds(60))
        #expect(run.status == 1, "the purchase of an unknown product fails: \(run.output)\(run.error)")
        #expect(Self.rawControls(in: run.output + run.error).isEmpty, "\(Self.rawControls(in: run.output + run.error))")
        #expect(run.output.contains("scenario \(file.deletingLastPathComponent().path)/evil\\u{1B}[2J.json: \(Self.escaped)"), "\(run.output)")
        #expect(run.output.contains("  ok   1 createInstall ana\(Self.escaped)"), "the install's name, from the file")
        #expect(run.output.contains("  FAIL 2 purchase ana\(Self.escaped) \(Self.escaped)"), "the product ID, from the file")
        #expect(run.output.contains(": 422: status: expected 2xx, got 422 ("), "the server's error body, quoted")
        #expect(run.output.contains("txt.exe is not a tip in the loaded catalog."))

        let xml = try Data(contentsOf: report)
        let text = String(decoding: xml, as: UTF8.self)
        #expect(Self.rawControls(in: text).isEmpty, "\(Self.rawControls(in: text))")
        let check = XMLCheck()
        let parser = XMLParser(data: xml)
        parser.delegate = check
        #expect(parser.parse(), "the report is well-formed XML: \(String(describing: parser.parserError))")
        #expect(check.attributes.contains(Self.escaped), "the suite's name, escaped")
        #expect(check.attributes.contains("2 purchase ana\(Self.escaped) \(Self.escaped)"), "the step's name, escaped")
        #expect(check.text.contains("FAIL 2 purchase ana\(Self.escaped)"))
    }
}
