import Foundation
import Testing
import TipJarScenario

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Malformed and hostile scenario files are refused whole, before any step runs, naming the JSON
/// location; the runner's bounds and the JUnit report's escaping hold.
@Suite("scenario format")
struct ScenarioFormatTests {
    static let malformed: [(text: String, location: String, problem: String)] = [
        (#"{"name":"x","steps":[{"step":"store",]}"#, "line 1, column 38", "invalid JSON"),
        (#"{"name":"x","steps":[{"step":"store"}"#, "end of file", "ends early"),
        ("", "end of file", "empty"),
        (#"[1, 2]"#, "$", "expected an object, found an array"),
        (#"{"steps":[{"step":"store"}]}"#, "name", "missing field \"name\""),
        (#"{"name":"x"}"#, "steps", "missing field \"steps\""),
        (#"{"name":"x","steps":[]}"#, "steps", "at least one step"),
        (#"{"name":"x","steps":{}}"#, "steps", "expected an array, found an object"),
        (#"{"name":"x","format":2,"steps":[{"step":"store"}]}"#, "format", "format 2 is not supported"),
        (#"{"name":"x","colour":"red","steps":[{"step":"store"}]}"#, "colour", "unknown field \"colour\""),
        (#"{"name":"x","steps":[{"install":"a"}]}"#, "steps[0].step", "missing field \"step\""),
        (#"{"name":"x","steps":[{"step":"fly"}]}"#, "steps[0].step", "unknown step type \"fly\""),
        (#"{"name":"x","steps":[{"step":7}]}"#, "steps[0].step", "expected a string, found the number 7"),
        (#"{"name":"x","steps":[{"step":"store","hearts":1}]}"#, "steps[0].hearts", "unknown field \"hearts\""),
        (#"{"name":"x","steps":[{"step":"store","install":"a"}]}"#, "steps[0].install", "does not take an install"),
        (#"{"name":"x","steps":[{"step":"store","expect":{"hearts":1}}]}"#, "steps[0].expect", "has no install"),
        (#"{"name":"x","steps":[{"step":"store","settings":[1]}]}"#, "steps[0].settings", "expected an object, found an array"),
        (#"{"name":"x","steps":[{"step":"purchase","install":"a","productID":"p"}]}"#, "steps[0].install", "no install named \"a\""),
        (#"{"name":"x","steps":[{"step":"createInstall","install":"a"},{"step":"createInstall","install":"a"}]}"#, "steps[1].install", "already created"),
        (#"{"name":"x","steps":[{"step":"createInstall","install":"a"},{"step":"purchase","install":"a"}]}"#, "steps[1].productID", "needs \"productID\""),
        (#"{"name":"x","steps":[{"step":"createInstall","install":"a"},{"step":"purchase","install":"a","productID":5}]}"#, "steps[1].productID", "expected a string"),
        (#"{"name":"x","steps":[{"step":"createInstall","install":"a"},{"step":"purchase","install":"a","productID":"p","tabs":9}]}"#, "steps[1].tabs", "from 1 to 5"),
        (
            #"{"name":"x","steps":[{"step":"createInstall","install":"a"},{"step":"purchase","install":"a","productID":"p","userAction":"maybe"}]}"#, "steps[1].userAction",
            "one of confirm, cancel"
        ),
        (#"{"name":"x","steps":[{"step":"createInstall","install":"a","expect":{"hearts":"two"}}]}"#, "steps[0].expect.hearts", "found the string \"two\""),
        (#"{"name":"x","steps":[{"step":"createInstall","install":"a","expect":{"hearts":6}}]}"#, "steps[0].expect.hearts", "from 0 to 5"),
        (#"{"name":"x","steps":[{"step":"createInstall","install":"a","expect":{"hearts":1.5}}]}"#, "steps[0].expect.hearts", "found the number 1.5"),
        (#"{"name":"x","steps":[{"step":"createInstall","install":"a","expect":{"running":1}}]}"#, "steps[0].expect.running", "true or false"),
        (#"{"name":"x","steps":[{"step":"createInstall","install":"a","expect":{"ledger":[{"outcome":"great"}]}}]}"#, "steps[0].expect.ledger[0].outcome", "one of counted"),
        (
            #"{"name":"x","steps":[{"step":"createInstall","install":"a","expect":{"ledger":[{"transaction":"t"}]}}]}"#, "steps[0].expect.ledger[0].transaction",
            "no transaction named \"t\""
        ),
        (#"{"name":"x","steps":[{"step":"createInstall","install":"a"},{"step":"refund","install":"a","transaction":"t"}]}"#, "steps[1].transaction", "no transaction named \"t\""),
        (#"{"name":"x","steps":[{"step":"createInstall","install":"a"},{"step":"wait","install":"a"}]}"#, "steps[1].until", "needs \"until\""),
        (#"{"name":"x","steps":[{"step":"createInstall","install":"a"},{"step":"wait","install":"a","until":{}}]}"#, "steps[1].until", "at least one condition"),
        (#"{"name":"x","steps":[{"step":"createInstall","install":"a"},{"step":"wait","install":"a","until":{"status":200}}]}"#, "steps[1].until.status", "unknown field"),
        (
            #"{"name":"x","steps":[{"step":"createInstall","install":"a"},{"step":"wait","install":"a","until":{"hearts":1},"timeoutMs":0}]}"#, "steps[1].timeoutMs",
            "from 1 to 600000"
        ),
    ]

    @Test(arguments: malformed.indices)
    func aMalformedFileIsRefusedWithItsJSONLocation(_ index: Int) throws {
        let (text, location, problem) = Self.malformed[index]
        #expect(throws: ScenarioError.self) { try Scenario(data: Data(text.utf8), file: "bad.json") }
        do {
            _ = try Scenario(data: Data(text.utf8), file: "bad.json")
        } catch {
            #expect(error.location.hasPrefix(location), "\(text): \(error)")
            #expect(error.problem.contains(problem), "\(text): \(error)")
        }
    }

    @Test func theCommandExits64OnAMalformedFileNamingItsLocationAndRunsNothing() async throws {
        let good = ShippedScenarioTests.folder.appendingPathComponent("trap-01-purchase-and-listener-report-the-same-transaction.json").path
        let bad = try ScenarioFiles.write(#"{"name":"x","steps":[{"step":"createInstall","install":"a","expect":{"hearts":"two"}}]}"#)
        let run = try await CommandLineTests.run(["scenario", "run", good, bad.path])
        #expect(run.status == 64)
        #expect(run.error.contains("\(bad.path): steps[0].expect.hearts: expected a whole number from 0 to 5, found the string \"two\""))
        #expect(!run.output.contains("ok   1"), "nothing runs when a file is malformed")
    }

    @Test(arguments: [
        ["scenario"], ["scenario", "walk", "x.json"], ["scenario", "run"], ["scenario", "run", "x.json", "--url", "https://example.com"],
        ["scenario", "run", "x.json", "--junit"], ["scenario", "run", "x.json", "--frobnicate"],
    ])
    func usageErrorsExit64(_ arguments: [String]) async throws {
        let run = try await CommandLineTests.run(arguments)
        #expect(run.status == 64)
        #expect(run.error.contains("error:"))
    }

    @Test(arguments: [("/nonexistent/scenario.json", "no such file"), ("/tmp", "is a folder"), ("/dev/zero", "is not a regular file")])
    func aPathThatIsNotAScenarioFileExits64(_ path: String, _ problem: String) async throws {
        let run = try await CommandLineTests.run(["scenario", "run", path])
        #expect(run.status == 64)
        #expect(run.error.contains("\(path): $: \(problem)"))
    }

    @Test func aFileLargerThanAnyScenarioIsRefusedUnread() throws {
        let file = try ScenarioFiles.write(String(repeating: " ", count: Scenario.maximumFileSize + 1))
        #expect(
            throws: ScenarioError(file: file.path, location: "$", problem: "is \(Scenario.maximumFileSize + 1) bytes; a scenario file is at most \(Scenario.maximumFileSize) bytes")
        ) {
            try Scenario.load(contentsOf: file.path)
        }
    }

    @Test func aFileOfNineHundredThousandStepsIsRefusedByItsSizeBeforeParsing() throws {
        let steps = Array(repeating: #"{"step":"stop","install":"a"}"#, count: 900_000).joined(separator: ",")
        let text = #"{"name":"huge","steps":[{"step":"createInstall","install":"a"},"# + steps + "]}"
        let file = try ScenarioFiles.write(text)
        #expect(throws: ScenarioError(file: file.path, location: "$", problem: "is \(text.utf8.count) bytes; a scenario file is at most 2097152 bytes")) {
            try Scenario.load(contentsOf: file.path)
        }
        #expect(throws: ScenarioError(file: "inline", location: "$", problem: "is \(text.utf8.count) bytes; a scenario file is at most 2097152 bytes")) {
            try Scenario(data: Data(text.utf8), file: "inline")
        }
    }

    @Test func aWaitThatNeverHoldsStopsAtItsBound() async throws {
        let text =
            #"{"name":"never","steps":[{"step":"createInstall","install":"a"},{"step":"wait","install":"a","until":{"hearts":3},"timeoutMs":200},{"step":"stop","install":"a"}]}"#
        let result = try await ShippedScenarioTests.run(try Scenario(data: Data(text.utf8), file: "never.json"))
        #expect(result.steps.map(\.verdict) == [.passed, .failed("waited 200 ms and the condition never held: hearts: expected 3, got 0"), .skipped])
    }

    @Test func aWaitEndsAsSoonAsItsConditionHolds() async throws {
        let text =
            #"{"name":"held","steps":[{"step":"createInstall","install":"a","launch":true},{"step":"wait","install":"a","until":{"running":true,"hearts":0,"pending":0,"offers":"ready"},"timeoutMs":60000}]}"#
        let result = try await ShippedScenarioTests.run(try Scenario(data: Data(text.utf8), file: "held.json"))
        #expect(result.passed, "\(result.firstFailure?.line ?? "")")
    }

    @Test func aStepThatCannotDoItsWorkFailsSayingWhy() async throws {
        let text = #"{"name":"x","steps":[{"step":"createInstall","install":"a"},{"step":"approve","install":"a"}]}"#
        let result = try await ShippedScenarioTests.run(try Scenario(data: Data(text.utf8), file: "x.json"))
        #expect(result.steps.last?.verdict == .failed("no Ask to Buy purchase of a is waiting"))
    }

    @Test func anUnexpectedStatusFailsWithTheServersMessage() async throws {
        let text = #"{"name":"x","steps":[{"step":"createInstall","install":"a"},{"step":"purchase","install":"a","productID":"com.example.nope"}]}"#
        let result = try await ShippedScenarioTests.run(try Scenario(data: Data(text.utf8), file: "x.json"))
        guard case .failed(let message)? = result.steps.last?.verdict else { Issue.record("the purchase of an unknown product passed"); return }
        #expect(message.hasPrefix("status: expected 2xx, got 422"))
    }

    @Test func aStorefrontStepChangesTheInstallsStorefrontAndTheNextOffersCurrency() async throws {
        let text =
            #"{"name":"x","steps":[{"step":"createInstall","install":"a","storefront":"USA"},{"step":"storefront","install":"a","storefront":"BRA","expect":{"status":200}},{"step":"storefront","install":"a","storefront":"XYZ","expect":{"status":400}}]}"#
        let scenario = try Scenario(data: Data(text.utf8), file: "x.json")
        #expect(scenario.steps[1].fields["storefront"] == .string("BRA"))
        // PUT /api/installs/{id}/storefront answers the install (200), an unknown code 400; the step reports what came back.
        let result = try await ShippedScenarioTests.run(scenario)
        #expect(result.steps.map(\.verdict) == [.passed, .passed, .passed])
    }

    @Test func theSchemaNamesExactlyTheStepTypesAndTheirFields() throws {
        let data = try Data(contentsOf: ShippedScenarioTests.folder.appendingPathComponent("schema/scenario.schema.json"))
        let schema = try JSONValue(parsing: data)
        let definitions = schema["$defs"]
        let names = (definitions?["step"]?["oneOf"]?.arrayValue ?? []).compactMap { $0["$ref"]?.stringValue?.components(separatedBy: "/").last }
        #expect(names == ScenarioStepType.all.map(\.name))
        for type in ScenarioStepType.all {
            guard case .object(let properties)? = definitions?[type.name]?["properties"] else { Issue.record("no schema for \(type.name)"); continue }
            let common: Set<String> = type.install == .none ? ["step", "expect", "note"] : ["step", "install", "expect", "note"]
            #expect(Set(properties.keys) == common.union(type.fieldNames), "\(type.name)")
        }
    }

    @Test func theJUnitReportEscapesHostileTextAndParses() throws {
        let hostile = "<script>&\"'\u{1}\r\n]]>"
        let step = ScenarioStepResult(number: 1, title: hostile, verdict: .failed("hearts: \(hostile)"), detail: hostile, seconds: 0.5)
        let report = JUnitReport(
            results: [ScenarioResult(file: hostile, name: hostile, steps: [step])],
            malformed: [ScenarioError(file: hostile, location: "$", problem: hostile)])
        let xml = report.xml
        #expect(!xml.contains("<script>"))
        #expect(!xml.contains("\u{1}"))
        final class Collector: NSObject, XMLParserDelegate {
            var attributes: [[String: String]] = []
            func parser(
                _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String]
            ) { self.attributes.append(attributes) }
        }
        let parser = XMLParser(data: Data(xml.utf8))
        let collector = Collector()
        parser.delegate = collector
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        let failure = collector.attributes.first { $0["type"] == "expectation" }
        // Escaped as the run's output is (Catalog.escapedField), then as XML: markup characters round-trip, controls are text.
        #expect(failure?["message"] == #"hearts: <script>&"'\u{1}\r\n]]>"#)
    }
}
