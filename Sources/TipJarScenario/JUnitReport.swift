import Foundation
import TipJar

/// The JUnit XML report CI servers read: `<testsuites>` with one `<testsuite>` per scenario file
/// and one `<testcase>` per step, a failing step carrying `<failure message="…">`, a step after it
/// `<skipped/>`, and a malformed file one `<testcase>` with `<error>`. Text and attribute values
/// are escaped as XML 1.0 requires (section 2.4 "Character Data and Markup", 3.3.3 "Attribute-Value
/// Normalization": `& < > " '` as entities, tab/CR/LF in attributes as character references), and
/// characters XML 1.0 cannot carry at all (section 2.2, "Char": C0 controls but tab/CR/LF, U+FFFE,
/// U+FFFF) are replaced with U+FFFD. Before that, what came from a scenario file or the server (names, paths, titles,
/// messages) is escaped as the text output escapes it (``Catalog/escapedField(_:)``: `\u{1B}`, `\r`, `\u{202E}`), so a
/// CI page or a terminal that shows the report shows those characters as text, and the text matches the run's output.
public struct JUnitReport: Sendable {
    /// The scenarios that ran.
    public var results: [ScenarioResult]
    /// The files refused before running.
    public var malformed: [ScenarioError]

    /// Creates a report.
    public init(results: [ScenarioResult], malformed: [ScenarioError] = []) {
        self.results = results
        self.malformed = malformed
    }

    /// The report as UTF-8 XML text.
    public var xml: String {
        var suites: [String] = []
        for result in results {
            let failures = result.steps.filter { if case .failed = $0.verdict { return true } else { return false } }.count
            let skipped = result.steps.filter { $0.verdict == .skipped }.count
            let time = result.steps.reduce(0) { $0 + $1.seconds }
            var suite =
                "  <testsuite name=\"\(Self.field(result.name))\" file=\"\(Self.field(result.file))\" tests=\"\(result.steps.count)\" "
                + "failures=\"\(failures)\" errors=\"0\" skipped=\"\(skipped)\" time=\"\(Self.seconds(time))\">\n"
            for step in result.steps {
                let name = Self.field("\(step.number) \(step.title)")
                suite += "    <testcase name=\"\(name)\" classname=\"\(Self.field(result.file))\" time=\"\(Self.seconds(step.seconds))\""
                switch step.verdict {
                case .passed: suite += "/>\n"
                case .skipped: suite += ">\n      <skipped message=\"an earlier step failed\"/>\n    </testcase>\n"
                case .failed(let message):
                    suite += ">\n      <failure message=\"\(Self.field(message))\" type=\"expectation\">\(Self.text("\(step.line)\n"))</failure>\n    </testcase>\n"
                }
            }
            suites.append(suite + "  </testsuite>\n")
        }
        for error in malformed {
            suites.append(
                "  <testsuite name=\"\(Self.field(error.file))\" file=\"\(Self.field(error.file))\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0\">\n"
                    + "    <testcase name=\"read the scenario file\" classname=\"\(Self.field(error.file))\" time=\"0\">\n"
                    + "      <error message=\"\(Self.attribute(error.description))\" type=\"malformed\">\(Self.text(error.description))</error>\n"
                    + "    </testcase>\n  </testsuite>\n")
        }
        let tests = results.reduce(0) { $0 + $1.steps.count } + malformed.count
        let failures = results.reduce(0) { $0 + ($1.passed ? 0 : 1) }
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"tipjar scenario run\" tests=\"\(tests)\" "
            + "failures=\"\(failures)\" errors=\"\(malformed.count)\">\n" + suites.joined() + "</testsuites>\n"
    }

    static func seconds(_ value: Double) -> String { String(format: "%.3f", value) }

    /// Escapes character data: `&`, `<`, `>` (the last for `]]>`), and characters XML cannot carry.
    public static func text(_ value: String) -> String { escape(value, inAttribute: false) }

    /// An attribute value that came from a file or the server: ``Catalog/escapedField(_:)``, then ``attribute(_:)``.
    static func field(_ value: String) -> String { attribute(Catalog.escapedField(value)) }

    /// Escapes a double-quoted attribute value, tab/CR/LF included so they survive normalization.
    public static func attribute(_ value: String) -> String { escape(value, inAttribute: true) }

    private static func escape(_ value: String, inAttribute: Bool) -> String {
        var out = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where inAttribute: out += "&quot;"
            case "'" where inAttribute: out += "&apos;"
            case "\t" where inAttribute: out += "&#9;"
            case "\n" where inAttribute: out += "&#10;"
            case "\r": out += "&#13;"
            case "\t", "\n": out.unicodeScalars.append(scalar)
            default:
                let allowed = scalar.value >= 0x20 && scalar.value != 0xFFFE && scalar.value != 0xFFFF
                out.unicodeScalars.append(allowed ? scalar : "\u{FFFD}")
            }
        }
        return out
    }
}
