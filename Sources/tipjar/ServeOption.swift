import Foundation

/// One option of a command, declared once: its name, the placeholder of its value, its default, its help, and how it
/// applies to the command's configuration. The usage text (`--help`), the options table of `Sources/tipjar/README.md`
/// (`--help-markdown`) and the ``ArgumentReader``'s name lists are all made from the list of them, as
/// swift-argument-parser makes its help from each `@Option`'s declaration (https://github.com/apple/swift-argument-parser,
/// `ArgumentHelp`: an abstract for `--help`, a discussion for longer documentation).
struct CommandOption<Command> {
    /// What follows the name on the command line.
    enum Value {
        /// `--name VALUE`, at most once.
        case single(placeholder: String)
        /// `--name VALUE`, as many times as wanted.
        case repeatable(placeholder: String)
        /// `--name` alone, at most once.
        case flag
    }

    /// The default, as `--help` and the README say it.
    enum Default {
        /// A value as it would be typed (`8080`): `(default: 8080)` in `--help`, `` `8080` `` in the README.
        case literal(String)
        /// A value in words (`the package's Templates/`), in both.
        case words(String)
        /// No default: `none` in the README (a flag: `off`), nothing in `--help`.
        case none
    }

    let name: String
    let value: Value
    let defaultValue: Default
    /// What it does, in plain text (`--help` prints it; the README's table starts with it).
    let help: String
    /// What the README adds after the help (Markdown), or `nil`.
    let discussion: String?
    /// Applies the option's value (a flag's: empty) to the configuration.
    /// - Throws: ``UsageError`` naming the option and the values it takes.
    let apply: @Sendable (inout Command, String) throws -> Void

    init(
        _ name: String, _ value: Value, default defaultValue: Default = .none, help: String, discussion: String? = nil,
        apply: @escaping @Sendable (inout Command, String) throws -> Void
    ) {
        self.name = name
        self.value = value
        self.defaultValue = defaultValue
        self.help = help
        self.discussion = discussion
        self.apply = apply
    }

    /// `--name PLACEHOLDER` (a flag: `--name`).
    var label: String {
        switch value {
        case .single(let placeholder), .repeatable(let placeholder): "\(name) \(placeholder)"
        case .flag: name
        }
    }

    /// The help with its default, as `--help` prints it.
    var helpWithDefault: String {
        switch defaultValue {
        case .literal(let text), .words(let text): "\(help.hasSuffix(".") ? String(help.dropLast()) : help) (default: \(text))."
        case .none: help
        }
    }
}

extension CommandOption: Sendable {}

/// Makes the `OPTIONS:` part of a usage text and the README's options table from a list of ``CommandOption``s.
enum CommandOptionText {
    /// The column where help starts, and the width lines are wrapped to.
    static let helpColumn = 26
    static let width = 92

    /// `  --name VALUE            Help, wrapped (default: x).`, one entry per option, then `-h, --help`; a label too
    /// long for its column puts the help on the lines below it.
    static func usage<Command>(_ options: [CommandOption<Command>]) -> String {
        var lines: [String] = []
        for option in options {
            let label = "  " + option.label
            let help = wrap(option.helpWithDefault, width: width - helpColumn)
            if label.count + 2 <= helpColumn {
                lines.append(label.padding(toLength: helpColumn, withPad: " ", startingAt: 0) + help[0])
            } else {
                lines.append(label)
                lines.append(String(repeating: " ", count: helpColumn) + help[0])
            }
            lines += help.dropFirst().map { String(repeating: " ", count: helpColumn) + $0 }
        }
        lines.append("  -h, --help".padding(toLength: helpColumn, withPad: " ", startingAt: 0) + "Show this help.")
        return lines.joined(separator: "\n")
    }

    /// The README's table: `| option | default | what it does |`, one row per option, in the list's order.
    static func markdownTable<Command>(_ options: [CommandOption<Command>]) -> String {
        var lines = ["| option | default | what it does |", "| --- | --- | --- |"]
        for option in options {
            let defaultText: String
            switch option.defaultValue {
            case .literal(let text): defaultText = "`\(text)`"
            case .words(let text): defaultText = text
            case .none:
                if case .flag = option.value { defaultText = "off" } else { defaultText = "none" }
            }
            let what = [option.help, option.discussion].compactMap { $0 }.joined(separator: " ")
            lines.append("| `\(cell(option.label))` | \(cell(defaultText)) | \(cell(what)) |")
        }
        return lines.joined(separator: "\n")
    }

    /// A table cell's text: a `|` written `\|` (GitHub Flavored Markdown tables, https://github.github.com/gfm/#tables-extension-).
    static func cell(_ text: String) -> String { text.replacingOccurrences(of: "|", with: "\\|") }

    /// `text` in lines of at most `width` characters, broken between words (a longer word keeps a line of its own).
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        lines.append(line)
        return lines
    }
}
