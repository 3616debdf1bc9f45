import Foundation
import TipJar

/// The `tipjar` commands: `serve`, `check-storekit`, `check-database` and `scenario run`. Usage errors exit 64
/// (`EX_USAGE`, sysexits.h), a bad `.storekit` file or a damaged database exits 1.
enum CommandLineTool {
    static let usage = """
        USAGE: tipjar <command> [options]

        Simulates a StoreKit 2 tip jar end to end and serves its admin dashboard.

        COMMANDS:
          serve             Serve the dashboard (default http://127.0.0.1:8080).
          check-storekit    Load a .storekit file exactly as serve would and list its tips.
          check-database    Check an SQLite database file in full (PRAGMA integrity_check),
                            read-only; exit 1 and list the problems when it is damaged.
          scenario run      Run scenario files (steps with expectations) against a dashboard.

        Run 'tipjar <command> --help' for the options of a command.
        """

    static func run(_ arguments: [String]) async -> Int32 {
        guard let command = arguments.first else {
            printError(usage)
            return 64
        }
        let rest = Array(arguments.dropFirst())
        switch command {
        case "--help", "-h", "help":
            print(usage)
            return 0
        case "serve":
            if rest.contains("--help-markdown") {
                print(ServeCommand.markdownTable)
                return 0
            }
            return await runCommand(rest, usage: ServeCommand.usage) { try await ServeCommand(arguments: $0).run() }
        case "check-storekit":
            return await runCommand(rest, usage: CheckStoreKitCommand.usage) { try CheckStoreKitCommand(arguments: $0).run() }
        case "check-database":
            return await runCommand(rest, usage: CheckDatabaseCommand.usage) { try CheckDatabaseCommand(arguments: $0).run() }
        case "scenario":
            return await runCommand(rest, usage: ScenarioCommand.usage) { try await ScenarioCommand(arguments: $0).run() }
        default:
            printError("error: unknown command '\(Catalog.escapedField(command))'\n\n\(usage)")
            return 64
        }
    }
}

extension CommandLineTool {
    /// Runs one command: `--help` prints its usage; a `UsageError` prints the message and the
    /// usage and exits 64; any other error exits 1.
    static func runCommand(
        _ arguments: [String], usage: String,
        _ body: ([String]) async throws -> Int32
    ) async -> Int32 {
        if arguments.contains("--help") || arguments.contains("-h") {
            print(usage)
            return 0
        }
        do {
            return try await body(arguments)
        } catch let error as UsageError {
            printError("error: \(error.message)\n\n\(usage)")
            return 64
        } catch {
            printError("error: \(error)")
            return 1
        }
    }
}

/// A command line that does not parse.
struct UsageError: Error {
    var message: String
}

/// Reads `--name value` options and positional arguments.
struct ArgumentReader {
    private(set) var options: [String: String] = [:]
    /// Every value of each repeatable option, in command-line order.
    private(set) var repeated: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positional: [String] = []

    /// - Parameters:
    ///   - arguments: The words after the command.
    ///   - valued: Option names that take a value.
    ///   - flags: Option names that take none.
    ///   - repeatable: Option names that take a value and may be given more than once.
    /// - Throws: `UsageError` for an unknown option, a missing value, or an option other than a repeatable one
    ///   given twice (which of the two was meant cannot be known).
    init(_ arguments: [String], valued: Set<String>, flags flagNames: Set<String> = [], repeatable: Set<String> = []) throws {
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            if word.hasPrefix("--") {
                var name = word, value: String?
                if let equals = word.firstIndex(of: "=") {
                    name = String(word[..<equals])
                    value = String(word[word.index(after: equals)...])
                }
                if flagNames.contains(name), value == nil {
                    guard flags.insert(name).inserted else { throw UsageError(message: "\(name) is given twice: give it once") }
                } else if valued.contains(name) || repeatable.contains(name) {
                    if value == nil {
                        index += 1
                        guard index < arguments.count else { throw UsageError(message: "\(name) needs a value") }
                        value = arguments[index]
                    }
                    if repeatable.contains(name) {
                        repeated[name, default: []].append(value!)
                    } else {
                        guard options[name] == nil else { throw UsageError(message: "\(name) is given twice: give it once") }
                        options[name] = value
                    }
                } else {
                    throw UsageError(message: "unknown option '\(Catalog.escapedField(name))'")
                }
            } else {
                positional.append(word)
            }
            index += 1
        }
    }
}

/// Writes `text` and a newline to standard error; a reader that went away loses the line (no trap:
/// `FileHandle.write(_:)` traps on EPIPE, `write(contentsOf:)` throws). Every command prints what came from outside
/// it (a path, a file's words, the server's answers, an argument it quotes) through ``Catalog/escapedField(_:)``, so a
/// control character or a bidirectional control in them is shown as `\u{1B}`, `\r`, `\u{202E}` and never acted on.
func printError(_ text: String) {
    try? FileHandle.standardError.write(contentsOf: Data((text + "\n").utf8))
}
