import Foundation
import HTTPServer
import TipJar
import TipJarSQLite

extension ServeCommand {
    typealias Option = CommandOption<ServeCommand>

    /// Every option of `tipjar serve`, each declared once, in the order `--help` and the README list them.
    static let options: [Option] = [
        Option(
            "--host", .single(placeholder: "ADDRESS"), default: .literal("127.0.0.1"),
            help: "Address to bind. A non-loopback address needs --admin-token.",
            discussion: "The printed URL names a host the `Host` allow-list accepts: `127.0.0.1` for `0.0.0.0`, `[::1]` for `::`."
        ) { command, text in command.host = text },
        Option(
            "--port", .single(placeholder: "N"), default: .literal("8080"), help: "TCP port, 0 for any free port.",
            discussion: "A port in use exits 1 with `error: cannot listen on ADDRESS:PORT: bind failed: …`, and a database file this "
                + "run created is removed again (one that existed before is kept)."
        ) { command, text in
            guard let value = Int(text), (0...65_535).contains(value) else { throw UsageError(message: "--port must be 0...65535") }
            command.port = value
        },
        Option("--database", .single(placeholder: "PATH"), default: .literal("./tipjar.sqlite3"), help: "SQLite file.") { command, text in
            command.database = text
        },
        Option(
            "--storekit", .single(placeholder: "PATH"), default: .words("the shipped TipProducts.storekit"),
            help: "Xcode StoreKit configuration file to load instead of the shipped catalog."
        ) { command, text in command.storekit = text },
        Option(
            "--bundle-id", .single(placeholder: "ID"), default: .literal(SimulatedStore.defaultAppBundleID),
            help: "The app's bundle ID, which every new transaction carries as appBundleID: letters, digits, hyphens and periods.",
            discussion: "That is `CFBundleIdentifier`'s rule. Neither the shipped `.storekit` file nor the seeds name one, so the default "
                + "is the prefix the shipped product IDs (`com.example.tipjar.tip.coffee`, …) share."
        ) { command, text in
            guard isBundleID(text) else {
                throw UsageError(message: "--bundle-id must be letters, digits, hyphens and periods, e.g. com.example.tipjar")
            }
            command.bundleID = text
        },
        Option(
            "--durability", .single(placeholder: "full|normal"), default: .literal("full"),
            help: "full: PRAGMA synchronous=FULL, an acknowledged tip survives power loss. normal: it survives a crash of the "
                + "process, not of the machine; faster.",
            discussion: "See [`Sources/TipJarSQLite/README.md`](../TipJarSQLite/README.md)."
        ) { command, text in
            switch text {
            case "full": command.durability = .full
            case "normal": command.durability = .normal
            default: throw UsageError(message: "--durability must be full or normal")
            }
        },
        Option(
            "--admin-token", .single(placeholder: "TOKEN"),
            help: "Required to bind a non-loopback address: at least 32 hex digits (128 bits). Scripts send Authorization: Bearer "
                + "TOKEN; browsers open the printed ?token= link once.",
            discussion: "The `Bearer` scheme is matched in any case."
        ) { command, text in
            guard text.count >= 32, text.allSatisfy(\.isHexDigit) else {
                throw UsageError(message: "--admin-token must be at least 32 hex digits (128 bits)")
            }
            command.adminToken = text
        },
        Option(
            "--allowed-host", .repeatable(placeholder: "NAME"),
            help: "Also accept NAME (with the bound port) or NAME:PORT in the Host field, e.g. this machine's DNS name; "
                + "repeatable, no wildcards. Other names get 421.",
            discussion: "`*.example` exits 64: name each host; see [`Sources/HTTPServer/README.md`](../HTTPServer/README.md)."
        ) { command, name in
            if name.contains("*") {
                throw UsageError(message: "--allowed-host '\(Catalog.escapedField(name))': wildcards are not supported: name each host")
            }
            guard HTTPServerConfiguration.isValidHost(name) else {
                throw UsageError(message: "--allowed-host '\(Catalog.escapedField(name))' is not a host name, IP address or host:port")
            }
            command.allowedHosts.append(name)
        },
        Option(
            "--max-connections-per-address", .single(placeholder: "N"),
            default: .literal("\(HTTPServerConfiguration().maxConnectionsPerAddress)"),
            help: "Open connections one client address (an IPv4 address or an IPv6 /64) may hold, of "
                + "\(HTTPServerConfiguration().maxConnections) in all; more get 503 with Retry-After: 1."
        ) { command, text in command.maxConnectionsPerAddress = try wholeNumber(text, option: "--max-connections-per-address") },
        Option(
            "--max-streams", .single(placeholder: "N"), default: .literal("\(HTTPServerConfiguration().maxStreams)"),
            help: "Live event streams (GET /installs/{id}/events) open at once; more get 503 with Retry-After: 1."
        ) { command, text in command.maxStreams = try wholeNumber(text, option: "--max-streams") },
        Option(
            "--max-streams-per-address", .single(placeholder: "N"), default: .literal("\(HTTPServerConfiguration().maxStreamsPerAddress)"),
            help: "Live event streams one client address may hold open."
        ) { command, text in command.maxStreamsPerAddress = try wholeNumber(text, option: "--max-streams-per-address") },
        Option(
            "--notifications-url", .single(placeholder: "URL"), default: .words("the saved one (none on a new database)"),
            help: "Post App Store Server Notifications V2 to URL (absolute http or https), saved as the store's notifications URL.",
            discussion: "Also set with `PUT /api/notifications/settings` and on `/notifications`; anything else is refused at start-up."
        ) { command, text in
            // Checked here for its shape; a link-local host is refused at start-up unless --notifications-allow-link-local.
            do {
                command.notificationsURL = try NotificationSettings.checkedURL(text, policy: NotificationURLPolicy(allowsLinkLocal: true))
            } catch TipJarError.invalidValue(_, let reason) {
                throw UsageError(message: "--notifications-url \(reason)")
            }
        },
        Option(
            "--notifications-allow-link-local", .flag,
            help: "Let notifications go to link-local and cloud metadata addresses (169.254.0.0/16, fe80::/10, metadata.google.internal).",
            discussion: "Without it such a URL is refused when it is set, and an address a host name resolves to is refused when a notification "
                + "is sent: a dashboard reachable by others must not become a way to read its own machine's cloud credentials."
        ) { command, _ in command.notificationsAllowLinkLocal = true },
        Option(
            "--notification-time-scale", .single(placeholder: "N"), default: .words("the saved one (1)"),
            help: "Run Apple's notification retry schedule (1, 12, 24, 48, 72 hours after the previous attempt) N times faster, "
                + "1 to 3600000 (3600 makes an hour a second)."
        ) { command, text in
            guard let value = Int(text), NotificationSettings.timeScales.contains(value) else {
                throw UsageError(message: "--notification-time-scale must be a whole number from 1 to 3600000")
            }
            command.notificationTimeScale = value
        },
        Option(
            "--no-background-check", .flag,
            help: "After a clean stop, do not check every page of the database in the background once serving (PRAGMA integrity_check).",
            discussion: "Without it, start-up after a clean stop skips `PRAGMA integrity_check`, and `serve` runs it once serving, in the "
                + "background (at most half of one core); on damage every read and write answers `503` \"Database damaged\" naming "
                + "what it found ([`Sources/TipJarSQLite/README.md`](../TipJarSQLite/README.md))."
        ) { command, _ in command.backgroundCheck = false },
        Option(
            "--reload-templates", .flag, help: "Re-read Templates/ on every request, for template editing (turns the page cache off)."
        ) { command, _ in command.reloadTemplates = true },
        Option("--templates", .single(placeholder: "DIR"), default: .words("the package's Templates/"), help: "Templates folder.") {
            command, text in command.templates = URL(fileURLWithPath: text)
        },
        Option("--public", .single(placeholder: "DIR"), default: .words("the package's Public/"), help: "Static files folder.") {
            command, text in command.publicDirectory = URL(fileURLWithPath: text)
        },
    ]

    /// `tipjar serve --help`.
    static let usage = """
        USAGE: tipjar serve [options]

        Serves the Tip Jar Dashboard. On first start it creates the SQLite file and loads the
        shipped catalog (TipProducts.storekit).

        OPTIONS:
        \(CommandOptionText.usage(options))
          --help-markdown         Print the options as the Markdown table of Sources/tipjar/README.md.
        """

    /// `tipjar serve --help-markdown`: the options table of `Sources/tipjar/README.md`.
    static var markdownTable: String { CommandOptionText.markdownTable(options) }

    /// Reads the command line: every option of ``options`` applied in command-line order, then the rules between
    /// options (a non-loopback `--host` needs `--admin-token`).
    /// - Throws: ``UsageError`` for an unknown option, a missing value, an option given twice (but `--allowed-host`), a
    ///   bad value (the option's own message), an argument that is not an option.
    init(arguments: [String]) throws {
        self.init()
        var singles: Set<String> = []
        var repeatables: Set<String> = []
        var flags: Set<String> = []
        for option in Self.options {
            switch option.value {
            case .single: singles.insert(option.name)
            case .repeatable: repeatables.insert(option.name)
            case .flag: flags.insert(option.name)
            }
        }
        let reader = try ArgumentReader(arguments, valued: singles, flags: flags, repeatable: repeatables)
        guard reader.positional.isEmpty else { throw UsageError(message: "unexpected argument '\(Catalog.escapedField(reader.positional[0]))'") }
        for option in Self.options {
            switch option.value {
            case .single: if let text = reader.options[option.name] { try option.apply(&self, text) }
            case .repeatable: for text in reader.repeated[option.name] ?? [] { try option.apply(&self, text) }
            case .flag: if reader.flags.contains(option.name) { try option.apply(&self, "") }
            }
        }
        if !Self.isLoopback(host), adminToken == nil {
            throw UsageError(message: "binding to \(Catalog.escapedField(host)) (not loopback) requires --admin-token")
        }
    }
}
