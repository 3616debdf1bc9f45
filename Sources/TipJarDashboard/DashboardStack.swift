import Foundation
import HTTPServer
import TipJar

/// The dashboard wired end to end on an open database: the simulated store, the tip jar service,
/// the dashboard's routes and the HTTP server, not yet listening. `tipjar serve` builds one on the
/// database it was given, `tipjar scenario run` one on a fresh temporary database, so both run the
/// same code.
public struct DashboardStack: Sendable {
    /// The HTTP server; `start()` binds it and returns the port.
    public let server: HTTPServer
    /// The dashboard behind it.
    public let dashboard: Dashboard
    /// The tip jar service the dashboard drives; its late deliveries are cancelled at shutdown
    /// (``TipJarService/cancelScheduledDeliveries()``).
    public let service: TipJarService

    /// Builds the stack.
    /// - Parameters:
    ///   - catalog: The loaded catalog.
    ///   - storage: The open storage (`tipjar` opens an `SQLiteTipJarStorage`).
    ///   - configuration: The dashboard's folders, template reloading and admin token.
    ///   - server: Address, port and `Host` allow-list.
    ///   - environment: Clock, IDs and log sink.
    ///   - accessLog: Called once per response (on the server's I/O thread, after the answer is written) with the
    ///     entry's secrets redacted (``AccessLogRedaction``, with the admin token), or `nil`.
    ///   - appBundleID: The bundle ID every transaction carries (`Transaction.appBundleID`).
    /// - Throws: Storage errors reading the saved store settings; `MustacheError` for a template
    ///   that does not parse.
    public init(catalog: Catalog, storage: any TipJarStorage, configuration: DashboardConfiguration, server: HTTPServerConfiguration,
                environment: TipJarEnvironment, accessLog: (@Sendable (AccessLogEntry) -> Void)?,
                appBundleID: String = SimulatedStore.defaultAppBundleID) async throws {
        let gate = StartUpGate()
        try await self.init(catalog: catalog, storage: storage, configuration: configuration,
                            on: Self.server(server, gate: gate, adminToken: configuration.adminToken, accessLog: accessLog),
                            behind: gate, environment: environment, appBundleID: appBundleID)
    }

    /// Builds the stack behind a server that may be listening already (``server(_:gate:adminToken:accessLog:)``),
    /// and opens `gate` to the dashboard.
    /// - Parameters: as ``init(catalog:storage:configuration:server:environment:accessLog:appBundleID:)``, with
    ///   `server` the HTTP server whose responder is `gate`.
    /// - Throws: Storage errors reading the saved store settings; `MustacheError` for a template
    ///   that does not parse (the gate then stays closed).
    public init(catalog: Catalog, storage: any TipJarStorage, configuration: DashboardConfiguration, on server: HTTPServer,
                behind gate: StartUpGate, environment: TipJarEnvironment, appBundleID: String = SimulatedStore.defaultAppBundleID) async throws {
        let store = try await SimulatedStore(catalog: catalog, storage: storage, environment: environment, appBundleID: appBundleID)
        let service = TipJarService(store: store, storage: storage, environment: environment)
        self.service = service
        dashboard = try Dashboard(service: service, storage: storage, configuration: configuration, log: environment.log)
        self.server = server
        dashboard.attach(to: server)
        gate.open(dashboard)
    }

    /// The HTTP server in front of `gate`, not yet listening. The whole request path in one place: the server's
    /// own checks (framing, limits, the `Host` allow-list), then `gate` (503 until it opens), then the dashboard's
    /// middlewares and routes (`Dashboard.chain(router:pageCache:adminToken:errorPages:log:)`), then the redacted
    /// access log line.
    /// - Parameters:
    ///   - configuration: Address, port and `Host` allow-list; the security headers are added to the server's own answers.
    ///   - gate: The responder.
    ///   - adminToken: The admin token, redacted from the access log.
    ///   - accessLog: Called once per response (see the stack's initializer), or `nil`.
    public static func server(_ configuration: HTTPServerConfiguration, gate: StartUpGate, adminToken: String?,
                              accessLog: (@Sendable (AccessLogEntry) -> Void)?) -> HTTPServer {
        var serverConfiguration = configuration
        serverConfiguration.serverResponseFields = SecurityHeaders.fields
        return HTTPServer(configuration: serverConfiguration, responder: gate,
                          accessLog: accessLog.map { redacting($0, adminToken: adminToken) })
    }

    /// `log`, called with each entry's secrets redacted (``AccessLogRedaction/redact(_:adminToken:)``).
    static func redacting(_ log: @escaping @Sendable (AccessLogEntry) -> Void, adminToken: String?) -> @Sendable (AccessLogEntry) -> Void {
        { entry in log(AccessLogRedaction.redact(entry, adminToken: adminToken)) }
    }
}
