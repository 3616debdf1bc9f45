import Foundation
import Mustache
import Testing

/// One case of the official Mustache spec, loaded from the JSON files in `Spec/`.
struct SpecCase: Sendable, CustomTestStringConvertible {
    let file: String
    let name: String
    let template: String
    let partials: [String: String]
    let expected: String
    /// The case's `data`, re-serialized so the case stays `Sendable`.
    let dataJSON: Data

    var testDescription: String { "\(file): \(name)" }

    /// The data exactly as `JSONSerialization` returns it (NSNumber booleans, NSNull, …).
    func data() throws -> Any {
        try JSONSerialization.jsonObject(with: dataJSON, options: [.fragmentsAllowed])
    }

    /// Compiles and renders this case.
    func render() throws -> String {
        try MustacheTemplate(source: template, partials: partials).render(data())
    }

    /// Every case of every `Spec/*.json` file, in file order.
    static let all: [SpecCase] = {
        guard let directory = Bundle.module.url(forResource: "Spec", withExtension: nil),
            let files = try? FileManager.default.contentsOfDirectory(atPath: directory.path)
        else {
            return []
        }
        var cases: [SpecCase] = []
        for file in files.sorted() where file.hasSuffix(".json") {
            guard let raw = FileManager.default.contents(atPath: directory.appendingPathComponent(file).path),
                let spec = try? JSONSerialization.jsonObject(with: raw) as? [String: Any],
                let tests = spec["tests"] as? [[String: Any]]
            else { continue }
            for test in tests {
                let data =
                    (try? JSONSerialization.data(
                        withJSONObject: test["data"] ?? NSNull(),
                        options: [.fragmentsAllowed])) ?? Data("null".utf8)
                cases.append(
                    SpecCase(
                        file: String(file.dropLast(5)),
                        name: test["name"] as? String ?? "?",
                        template: test["template"] as? String ?? "",
                        partials: test["partials"] as? [String: String] ?? [:],
                        expected: test["expected"] as? String ?? "",
                        dataJSON: data))
            }
        }
        return cases
    }()
}

@Suite("Mustache spec")
struct SpecTests {
    @Test("spec case", arguments: SpecCase.all)
    func specCase(_ specCase: SpecCase) throws {
        let rendered = try specCase.render()
        #expect(rendered == specCase.expected, "\(specCase.file): \(specCase.name)")
    }

    @Test("all 163 spec cases are loaded and pass")
    func allCasesPass() {
        let cases = SpecCase.all
        #expect(cases.count == 163)
        let failures = cases.filter { (try? $0.render()) != $0.expected }.map(\.testDescription)
        #expect(failures.isEmpty, "failing: \(failures)")
        print("Mustache spec: \(cases.count - failures.count)/\(cases.count) cases pass")
    }
}
