import Foundation
import Testing

/// `tipjar serve`'s options are declared once (`Sources/tipjar/ServeCommand+Options.swift`); `--help` and the table of
/// `Sources/tipjar/README.md` are both made from that list, so the README's table is exactly what
/// `tipjar serve --help-markdown` prints, and `--help` names the same options.
@Suite("tipjar serve options")
struct ServeOptionTableTests {
    static let root = LiveServer.repositoryRoot

    /// The lines of the first table whose header starts `| option |`.
    static func table(in markdown: String) -> [String] {
        let lines = markdown.components(separatedBy: "\n")
        guard let start = lines.firstIndex(where: { $0.hasPrefix("| option |") }) else { return [] }
        return Array(lines[start...].prefix { $0.hasPrefix("|") })
    }

    /// `--name` of every row of a table: the first backticked option of the row's first cell.
    static func options(inTable rows: [String]) -> [String] {
        rows.dropFirst(2).compactMap { row in
            let cell = row.dropFirst().prefix { $0 != "|" }
            guard let start = cell.range(of: "`--") else { return nil }
            return String(cell[cell.index(after: start.lowerBound)...].prefix { $0 == "-" || $0.isLetter })
        }
    }

    @Test func theReadmeTableIsWhatServeHelpMarkdownPrints() async throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("Sources/tipjar/README.md"), encoding: .utf8)
        let printed = try await CommandLineTests.run(["serve", "--help-markdown"])
        #expect(printed.status == 0)
        let generated = Self.table(in: printed.output)
        #expect(generated.count >= 17, "a header, a rule and a row per option: \(generated.count) lines")
        #expect(
            Self.table(in: readme) == generated,
            "Sources/tipjar/README.md's table differs from `tipjar serve --help-markdown`: paste its output into the README")
    }

    @Test func theHelpNamesEveryOptionOfTheTableInItsOrder() async throws {
        let table = Self.table(in: try await CommandLineTests.run(["serve", "--help-markdown"]).output)
        let help = try await CommandLineTests.run(["serve", "--help"])
        #expect(help.status == 0)
        let named = help.output.components(separatedBy: "\n").compactMap { line -> String? in
            let trimmed = line.drop { $0 == " " }
            guard line.hasPrefix("  --"), trimmed.hasPrefix("--") else { return nil }
            return String(trimmed.prefix { $0 == "-" || $0.isLetter })
        }
        #expect(named == Self.options(inTable: table) + ["--help-markdown"])
    }

    @Test(arguments: [
        (
            "| option | default | what it does |\n| --- | --- | --- |\n| `--host ADDRESS` | x | y |\n| `--reload-templates` | a | b |\n\nafter",
            ["--host", "--reload-templates"]
        ),
        (
            "text `--not-an-option`\n| option | default | what it does |\n| --- | --- | --- |\n| `--port N` | 8080 | `--host` in the description |",
            ["--port"]
        ),
    ])
    func aTableRowNamesTheOptionOfItsFirstCell(_ markdown: String, _ expected: [String]) {
        #expect(Self.options(inTable: Self.table(in: markdown)) == expected)
    }

    /// Each bad command line exits 64 with the option's own message, first on standard error, then the usage.
    @Test(arguments: [
        (["--bogus"], "error: unknown option '--bogus'"),
        (["--reload-templates=yes"], "error: unknown option '--reload-templates'"),
        (["extra"], "error: unexpected argument 'extra'"),
        (["--port"], "error: --port needs a value"),
        (["--templates"], "error: --templates needs a value"),
        (["--allowed-host"], "error: --allowed-host needs a value"),
        (["--port", "1", "--port", "2"], "error: --port is given twice: give it once"),
        (["--no-background-check", "--no-background-check"], "error: --no-background-check is given twice: give it once"),
        (["--port", "70000"], "error: --port must be 0...65535"),
        (["--port", "x"], "error: --port must be 0...65535"),
        (["--durability", "sometimes"], "error: --durability must be full or normal"),
        (["--admin-token", "zz"], "error: --admin-token must be at least 32 hex digits (128 bits)"),
        (["--host", "0.0.0.0"], "error: binding to 0.0.0.0 (not loopback) requires --admin-token"),
        (["--allowed-host", "*.example"], "error: --allowed-host '*.example': wildcards are not supported: name each host"),
        (["--allowed-host", "bad host"], "error: --allowed-host 'bad host' is not a host name, IP address or host:port"),
        (["--max-connections-per-address", "0"], "error: --max-connections-per-address must be a whole number of at least 1"),
        (["--max-streams", "many"], "error: --max-streams must be a whole number of at least 1"),
        (["--max-streams-per-address", "-3"], "error: --max-streams-per-address must be a whole number of at least 1"),
        (["--bundle-id", "com..example"], "error: --bundle-id must be letters, digits, hyphens and periods, e.g. com.example.tipjar"),
    ])
    func aBadServeCommandLineExits64WithTheOptionsMessage(_ arguments: [String], _ message: String) async throws {
        let run = try await CommandLineTests.run(["serve"] + arguments)
        #expect(run.status == 64)
        #expect(run.error.components(separatedBy: "\n").first == message)
        #expect(run.error.contains("USAGE: tipjar serve"))
    }
}
