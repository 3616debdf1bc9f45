import SQLiteDatabase
import Dispatch
import Foundation
import HTTPServer
import Synchronization
import TipJar
import TipJarDashboard
import TipJarSQLite

#if os(Linux)
import CMalloc
#endif

/// `tipjar serve`: opens the SQLite file (creating it on first start), loads the catalog, and
/// serves the dashboard until SIGINT or SIGTERM, then shuts down gracefully: stop accepting,
/// finish in-flight requests (bounded wait), close the database, exit 0. Its options, their help and the README's table
/// of them are declared once, in ``options`` (`ServeCommand+Options.swift`).
struct ServeCommand {
    var host = "127.0.0.1"
    var port = 8080
    var database = "./tipjar.sqlite3"
    var storekit: String?
    var bundleID = SimulatedStore.defaultAppBundleID
    var durability = DatabaseConfiguration.Durability.full
    var adminToken: String?
    var allowedHosts: [String] = []
    var reloadTemplates = false
    var backgroundCheck = true
    var maxConnectionsPerAddress = HTTPServerConfiguration().maxConnectionsPerAddress
    var maxStreams = HTTPServerConfiguration().maxStreams
    var maxStreamsPerAddress = HTTPServerConfiguration().maxStreamsPerAddress
    var templates = ServeCommand.packageRoot.appendingPathComponent("Templates")
    var publicDirectory = ServeCommand.packageRoot.appendingPathComponent("Public")
    var notificationsURL: String?
    var notificationTimeScale: Int?
    var notificationsAllowLinkLocal = false

    /// The package root, found from this file's path at build time, so `swift run tipjar serve`
    /// finds `Templates/` and `Public/` from any folder.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The whole number of at least 1 given for `option`.
    /// - Throws: ``UsageError`` for anything else.
    static func wholeNumber(_ text: String, option: String) throws -> Int {
        guard let value = Int(text), value >= 1 else { throw UsageError(message: "\(option) must be a whole number of at least 1") }
        return value
    }

    /// `CFBundleIdentifier`'s rule: only letters A–Z and a–z, digits, hyphens and periods
    /// (https://developer.apple.com/documentation/bundleresources/information-property-list/cfbundleidentifier);
    /// at most 155 characters, App Store Connect's limit, and no empty dot-separated part.
    static func isBundleID(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 155 && text.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty }
            && text.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == ".") }
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    func run() async throws -> Int32 {
        Self.keepFreedHeapMapped()
        signal(SIGPIPE, SIG_IGN)  // a log reader that goes away is an EPIPE error, not the end of the server
        DescriptorLimit.raiseToHardLimit()  // each connection is a descriptor; the caps fit what is left
        let catalog: Catalog
        do {
            catalog = try storekit.map { try Catalog.load(contentsOf: URL(fileURLWithPath: $0)) } ?? Catalog.shipped()
        } catch let error as CatalogError {
            printError("tipjar: cannot load the catalog: \(error.description)")
            return 1
        }
        // Every key of the file's settings, applied or ignored with the reason, as check-storekit prints them.
        for note in catalog.fileSettings.notes { printError("tipjar: \(note.line)") }
        for warning in catalog.emptyDisplayNameWarnings { printError("tipjar: warning: \(warning)") }
        // A price some storefront's currency cannot express is a fact about a developer's own file, worth a warning at
        // start; the shipped catalog's 0.99, 2.99 and 4.99 (rounded in the zero-decimal currencies, as the App Store
        // prices them) are known and said in the README and by `tipjar check-storekit`, so a first start prints none.
        if storekit != nil {
            for warning in catalog.chargedPriceWarnings { printError("tipjar: warning: \(warning)") }
        }
        let environment = {  // its log never blocks, never traps (LogWriter)
            var live = TipJarEnvironment.live
            live.log = { LogWriter.standardError.write(line: TipJarEnvironment.logLine($0, $1)) }
            return live
        }()
        // A start-up that fails after this point removes the database only when this run created it.
        let databaseExisted = FileManager.default.fileExists(atPath: database)
        let accessLog = LogWriter.standardError
        let gate = StartUpGate(
            reason: "The dashboard is checking its database with PRAGMA integrity_check: it was not closed "
                + "cleanly. Nothing is read or written until the check passes.")
        let server = DashboardStack.server(
            HTTPServerConfiguration(
                host: host, port: port, additionalHosts: allowedHosts,
                maxConnectionsPerAddress: maxConnectionsPerAddress,
                maxStreams: maxStreams, maxStreamsPerAddress: maxStreamsPerAddress),
            gate: gate, adminToken: adminToken, accessLog: accessLog)
        // Handlers first, so a signal that arrives as soon as the port is open is already caught.
        let stopping = StopRequest()
        let signals = Self.installSignalHandlers {
            stopping.isRequested = true
            await server.shutdown(timeout: .seconds(10))
        }
        defer { withExtendedLifetime(signals) {} }
        // SQLite's last connection to close a database checkpoints its write-ahead log into the file and deletes it
        // (https://www.sqlite.org/wal.html#the_wal_file), so a -wal beside the file means it was not closed cleanly:
        // a crash, a kill, a power loss. Only then is every page read (PRAGMA integrity_check); the port is open
        // meanwhile and answers 503 (StartUpGate).
        let closedCleanly = !FileManager.default.fileExists(atPath: database + "-wal")
        var listening = false
        if databaseExisted, !closedCleanly {
            guard let boundPort = try startListening(server) else { return 1 }
            listening = true
            LogWriter.standardError.write(
                line: "tipjar: \(database) was not closed cleanly: checking every page (PRAGMA integrity_check); "
                    + "http://\(HTTPServerConfiguration.urlHost(forBind: host)):\(boundPort)/ answers 503 until it passes")
            switch await Self.checkIntegrity(of: database) {
            case .failure(let message):
                LogWriter.standardError.write(line: message.message)
                await server.shutdown(timeout: .seconds(1))
                _ = LogWriter.standardError.flush()
                return 1
            case .success(let seconds):
                LogWriter.standardError.write(line: "tipjar: \(database) passed PRAGMA integrity_check in \(String(format: "%.1f", seconds)) s")
            }
            if stopping.isRequested {
                LogWriter.standardError.write(line: "tipjar: stopped before the dashboard started")
                _ = LogWriter.standardError.flush()
                return 0
            }
        }
        let storage: SQLiteTipJarStorage
        do {
            var configuration = DatabaseConfiguration(
                durability: durability, groupCommit: true,
                onFault: { fault in
                    environment.log("database writes stopped", ["error": fault.description, "file": fault.path ?? database])
                })
            // Checked just now, or closed cleanly: the file's other checks still run (DatabaseFileGuard).
            configuration.checksIntegrity = false
            storage = try SQLiteTipJarStorage(path: database, configuration: configuration) { identifier in
                LogWriter.standardError.write(line: "tipjar: upgrading \(database) to schema \(identifier)")
            }
        } catch {
            let hint = (error as? DatabaseError)?.isCorrupt == true ? "\n(tipjar check-database \(database) lists every problem)" : ""
            LogWriter.standardError.write(line: "tipjar: cannot open the database \(database): \(error)\(hint)")
            if listening { await server.shutdown(timeout: .seconds(1)) }
            _ = LogWriter.standardError.flush()
            return 1
        }
        do {
            return try await serve(
                catalog: catalog, storage: storage, environment: environment, server: server, gate: gate,
                isListening: listening, stopping: stopping, accessLog: accessLog,
                checksInBackground: backgroundCheck && databaseExisted && closedCleanly)
        } catch {
            if listening { await server.shutdown(timeout: .seconds(1)) }
            try? storage.pool.close()
            if !databaseExisted { Self.removeDatabaseFiles(database) }
            throw error
        }
    }

    /// Binds `server`, or prints why it cannot.
    /// - Returns: the bound port, or `nil` after printing the error.
    private func startListening(_ server: HTTPServer) throws -> Int? {
        do {
            return try server.start()
        } catch {
            let address = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
            throw StartUpError(description: "cannot listen on \(address):\(port): \(error)")
        }
    }

    /// The files SQLite keeps for the database at `path` (https://www.sqlite.org/tempfiles.html): the database,
    /// its write-ahead log and shared-memory index, and a rollback journal — removed after a failed start-up
    /// that created the database, so the next start does not find an empty database it did not ask for.
    static func removeDatabaseFiles(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    private func serve(
        catalog: Catalog, storage: SQLiteTipJarStorage, environment: TipJarEnvironment, server: HTTPServer,
        gate: StartUpGate, isListening: Bool, stopping: StopRequest, accessLog: LogWriter, checksInBackground: Bool
    ) async throws -> Int32 {
        let catalogName = storekit.map { URL(fileURLWithPath: $0).lastPathComponent } ?? Catalog.shippedFileName
        let stack = try await DashboardStack(
            catalog: catalog, storage: storage,
            configuration: DashboardConfiguration(
                templatesDirectory: templates, publicDirectory: publicDirectory,
                reloadTemplates: reloadTemplates, adminToken: adminToken,
                catalogName: catalogName, notificationURLPolicy: NotificationURLPolicy(allowsLinkLocal: notificationsAllowLinkLocal)),
            environment: environment, appBundleID: bundleID)
        if notificationsURL != nil || notificationTimeScale != nil {
            try await stack.setNotificationsURL(notificationsURL, timeScale: notificationTimeScale)
        }
        // The notifications sender runs beside the server in this task group, and stops on shutdown before the database
        // closes: an attempt under way is recorded as it ends (a SIGKILL leaves it on record as started, and the next
        // start closes it as cut and retries it on Apple's schedule: at least once, never lost).
        let served: Int32? = try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await stack.runNotifications(log: { LogWriter.standardError.write(line: $0) }) }
            defer { group.cancelAll() }
            gate.open(stack)
            if stopping.isRequested { return nil }
            let boundPort: Int
            if isListening, let port = server.port {
                boundPort = port
            } else {
                guard let port = try startListening(server) else { return 1 }
                boundPort = port
            }
            if let running = server.runningConfiguration, running.maxConnections < server.configuration.maxConnections {
                LogWriter.standardError.write(
                    line: "tipjar: at most \(running.maxConnections) connections (\(running.maxConnectionsPerAddress) per address), "
                        + "\(running.maxStreams) of them event streams (\(running.maxStreamsPerAddress) per address): "
                        + "the descriptor limit (ulimit -n) is \(DescriptorLimit.current ?? 0)")
            }
            // Every start-up line is out before the banner that scripts wait for.
            _ = accessLog.flush()
            var address = "http://\(HTTPServerConfiguration.urlHost(forBind: host)):\(boundPort)/"
            if let adminToken { address += "?token=\(adminToken)" }
            let banner = "Tip Jar Dashboard serving \(Catalog.escapedField(catalogName)) on \(address) (database \(Catalog.escapedField(database)), durability \(durability))\n"
            try? FileHandle.standardOutput.write(contentsOf: Data(banner.utf8))
            if checksInBackground { startBackgroundCheck(of: storage) }
            await server.waitUntilStopped()
            return 0
        }
        if served == 1 { return 1 }
        // Late deliveries still waiting are dropped, never awaited; a charged transaction stays unfinished for the next launch.
        await stack.service.cancelScheduledDeliveries()
        try? storage.pool.close()
        accessLog.write(line: "tipjar: stopped cleanly")
        accessLog.flush()
        return 0
    }

    /// Raises glibc's `M_TRIM_THRESHOLD` (`mallopt(3)`) to 32 MiB. With the default (128 KiB),
    /// SQLite freeing its page buffers at the end of every write transaction made glibc give the
    /// top of the writer thread's arena back to the kernel (`madvise(MADV_DONTNEED)`, a TLB
    /// shoot-down on every core), and the next transaction fault the same pages in again
    /// (figures: `Tests/Benchmarks/README.md`).
    /// Freed memory now stays mapped for reuse (at most 32 MiB per arena above what is in use).
    static func keepFreedHeapMapped() {
        #if os(Linux)
        _ = mallopt(M_TRIM_THRESHOLD, 32 << 20)
        #endif
    }

    /// SIGINT and SIGTERM start a graceful shutdown instead of killing the process.
    ///
    /// The handlers are installed with `sigaction(2)` before this returns, so a signal that arrives
    /// as soon as the banner is out is never lost: each one writes a byte to a pipe (`write(2)` is
    /// async-signal-safe), and a dispatch read source on the other end starts the shutdown. (A
    /// `DispatchSource` signal source alone registers asynchronously, with the signal ignored
    /// meanwhile, and once in a while lost a SIGINT sent right after start-up.)
    /// - Returns: The read source, which must outlive the wait.
    static func installSignalHandlers(_ shutdown: @escaping @Sendable () async -> Void) -> any DispatchSourceRead {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { fatalError("tipjar: pipe() for the signal handlers failed: errno \(errno)") }
        _ = fcntl(ends[1], F_SETFL, O_NONBLOCK)
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        signalPipeWriteEnd = ends[1]
        for number in [SIGINT, SIGTERM] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { _ in
                var byte: UInt8 = 1
                _ = write(signalPipeWriteEnd, &byte, 1)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(number, &action, nil)
        }
        let readEnd = ends[0]
        let source = DispatchSource.makeReadSource(fileDescriptor: readEnd, queue: .global())
        source.setEventHandler {
            var bytes = [UInt8](repeating: 0, count: 16)
            _ = read(readEnd, &bytes, bytes.count)
            Task { await shutdown() }
        }
        source.resume()
        return source
    }
}

/// A start-up step that failed (printed as `error: <description>`, exit 1).
struct StartUpError: Error, CustomStringConvertible {
    var description: String
}

/// Whether SIGINT or SIGTERM asked `serve` to stop (set by the signal handler, read by start-up).
final class StopRequest: Sendable {
    private let flag = Atomic(false)
    var isRequested: Bool {
        get { flag.load(ordering: .sequentiallyConsistent) }
        set { flag.store(newValue, ordering: .sequentiallyConsistent) }
    }
}

/// Why `serve` refuses the database it was given: the whole line it prints before exiting 1.
struct StartUpRefusal: Error {
    var message: String
}

/// The write end of the pipe the SIGINT/SIGTERM handler writes to; set once, before the handlers
/// are installed, and only read afterwards (from the handler).
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1
