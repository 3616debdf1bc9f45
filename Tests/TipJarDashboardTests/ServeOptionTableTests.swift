import Foundation
import Testing

/// The option table of `Sources/tipjar/README.md` lists exactly the options of `tipjar serve`: those its help text
/// (`ServeCommand.usage`, what `tipjar serve --help` prints) names and those `ServeCommand` reads
/// (`ArgumentReader`'s `valued:`, `flags:` and `repeatable:` lists), so an option added to the code and not to the
/// document, or the other way round, fails here.
@Suite("tipjar serve options")
struct ServeOptionTableTests {
    static let root = LiveServer.repositoryRoot

    /// `--name` of every row of the first table whose header starts `| option |`: each backticked option of the
    /// row's first cell (`` `--templates DIR`, `--public DIR` `` names two).
    static func documentedOptions(in markdown: String) -> Set<String> {
        var options: Set<String> = []
        var inTable = false
        for line in markdown.components(separatedBy: "\n") {
            if line.hasPrefix("| option |") { inTable = true; continue }
            guard inTable else { continue }
            guard line.hasPrefix("|") else { if !options.isEmpty { break } else { continue } }
            let firstCell = line.dropFirst().prefix { $0 != "|" }
            options.formUnion(matches(#"`(--[a-z][a-z-]*)"#, in: String(firstCell)))
        }
        return options
    }

    /// The options the help text names: each line of `usage` that starts, after its indent, with `--name`.
    static func helpOptions(in source: String) -> Set<String> {
        guard let start = source.range(of: "static let usage = \"\"\""),
            let end = source.range(of: "\"\"\"", range: start.upperBound..<source.endIndex)
        else { return [] }
        return matches(#"(?m)^\s+(?:-h, )?(--[a-z][a-z-]*)"#, in: String(source[start.upperBound..<end.lowerBound]))
            .subtracting(["--help"])
    }

    /// The options `ServeCommand` reads: every string literal in its `ArgumentReader(…)` call.
    static func readOptions(in source: String) -> Set<String> {
        guard let start = source.range(of: "ArgumentReader("),
            let end = source.range(of: "])\n", range: start.upperBound..<source.endIndex)
        else { return [] }
        return matches(#""(--[a-z][a-z-]*)""#, in: String(source[start.upperBound..<end.lowerBound]))
    }

    static func matches(_ pattern: String, in text: String) -> Set<String> {
        let expression = try! NSRegularExpression(pattern: pattern)
        return Set(
            expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).map {
                (text as NSString).substring(with: $0.range(at: 1))
            })
    }

    @Test func theReadmeTableListsEveryOptionTheHelpAndTheCommandKnow() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("Sources/tipjar/README.md"), encoding: .utf8)
        let source = try String(contentsOf: Self.root.appendingPathComponent("Sources/tipjar/ServeCommand.swift"), encoding: .utf8)
        let documented = Self.documentedOptions(in: readme)
        let help = Self.helpOptions(in: source)
        let read = Self.readOptions(in: source)
        #expect(read.count >= 14, "the reader's option lists were found: \(read.sorted())")
        #expect(help.subtracting(documented).isEmpty, "in --help, missing from Sources/tipjar/README.md: \(help.subtracting(documented).sorted())")
        #expect(documented.subtracting(help).isEmpty, "in the README table, missing from --help: \(documented.subtracting(help).sorted())")
        #expect(read.subtracting(documented).isEmpty, "read by ServeCommand, missing from the README table: \(read.subtracting(documented).sorted())")
        #expect(documented.subtracting(read).isEmpty, "in the README table, not read by ServeCommand: \(documented.subtracting(read).sorted())")
    }

    @Test func theHelpTheCommandPrintsNamesTheSameOptions() async throws {
        let source = try String(contentsOf: Self.root.appendingPathComponent("Sources/tipjar/ServeCommand.swift"), encoding: .utf8)
        let help = try await CommandLineTests.run(["serve", "--help"])
        #expect(help.status == 0)
        let printed = Self.matches(#"(?m)^\s+(?:-h, )?(--[a-z][a-z-]*)"#, in: help.output + help.error).subtracting(["--help"])
        #expect(printed == Self.helpOptions(in: source), "tipjar serve --help prints the usage text the source holds")
    }

    @Test(arguments: [
        (
            "| option | default | what it does |\n| --- | --- | --- |\n| `--host ADDRESS` | x | y |\n| `--templates DIR`, `--public DIR` | a | b |\n\nafter",
            ["--host", "--templates", "--public"]
        ),
        (
            "text `--not-an-option`\n| option | default | what it does |\n| --- | --- | --- |\n| `--port N` | 8080 | `--host` in the description |",
            ["--port"]
        ),
    ])
    func aTableRowNamesTheOptionsOfItsFirstCell(_ markdown: String, _ expected: [String]) {
        #expect(Self.documentedOptions(in: markdown) == Set(expected))
    }
}
