import Foundation
import HTTPServer
import TipJar
import TipJarScenario

/// The composition root: the one place that wires the dashboard end to end on an open storage (the simulated
/// store, the tip jar service, the templates, the page cache and live channels, the route controllers and the middlewares).
/// It answers requests in process (``respond(to:)``, no socket: what most tests use), and puts an HTTP server in
/// front of itself for a socket (``server(_:accessLog:)``, or ``server(_:gate:adminToken:accessLog:)`` for a server
/// that listens before the stack is built). `tipjar serve` builds one on the database it was given, `tipjar scenario
/// run` one on a fresh temporary database, and the tests one per test, so all of them run the same code.
public struct DashboardStack: HTTPResponder {
    /// The dashboard: every middleware and route.
    public let dashboard: Dashboard
    /// The tip jar service the dashboard drives; its late deliveries are cancelled at shutdown
    /// (``TipJarService/cancelScheduledDeliveries()``).
    public let service: TipJarService
    /// The storage under the service: the composition root's own (the sender is built over it, and its change log
    /// wakes the sender); everything else reaches what is stored through ``service``.
    let storage: any TipJarStorage
    /// The admin token requests must carry, or `nil`.
    public let adminToken: String?
    /// The App Store Server Notifications sender, when the storage keeps a queue (``runNotifications(log:)``).
    let notificationSender: NotificationSender?
    /// Which notifications URLs are accepted (``setNotificationsURL(_:timeScale:)``).
    let notificationURLPolicy: NotificationURLPolicy
    /// The route controllers, one per area of the dashboard, each built with only what it uses; every route is
    /// registered by exactly one of them.
    let controllers: [any DashboardController]
    /// The router the controllers registered into, in front of the static files.
    let router: Router<DashboardContext>

    /// Builds the stack.
    /// - Parameters:
    ///   - catalog: The loaded catalog.
    ///   - storage: The open storage (`tipjar` opens an `SQLiteTipJarStorage`).
    ///   - configuration: The dashboard's folders, template reloading and admin token.
    ///   - environment: Clock, IDs, waits and log sink.
    ///   - appBundleID: The bundle ID every transaction carries (`Transaction.appBundleID`).
    /// - Throws: Storage errors reading the saved store settings; `MustacheError` for a template
    ///   that does not parse.
    public init(
        catalog: Catalog, storage: any TipJarStorage, configuration: DashboardConfiguration, environment: TipJarEnvironment,
        appBundleID: String = SimulatedStore.defaultAppBundleID
    ) async throws {
        let store = try await SimulatedStore(catalog: catalog, storage: storage, environment: environment, appBundleID: appBundleID)
        let service = TipJarService(store: store, storage: storage, environment: environment)
        let templates = try TemplateSource(directory: configuration.templatesDirectory, reload: configuration.reloadTemplates)
        let pageCache = PageCache(changeLog: storage.changeLog, isEnabled: !configuration.reloadTemplates)
        let liveChannels = LiveChannels(changeLog: storage.changeLog)
        let slot = ResponderSlot()
        let staticFiles = StaticFiles(root: configuration.publicDirectory)
        var router = Router<DashboardContext>(fallback: staticFiles)
        let renderer = PageRenderer(templates: templates, catalogName: configuration.catalogName)
        let screen = InstallScreen(service: service, renderer: renderer)
        let cachePolicy = InstallCachePolicy(service: service)
        let scenarioDownloads = ScenarioDownload.list(in: configuration.publicDirectory)
        var controllers: [any DashboardController] = [
            InstallsController(service: service, pageCache: pageCache, renderer: renderer, screen: screen, cachePolicy: cachePolicy),
            PurchasesController(service: service, renderer: renderer, screen: screen),
            LiveEventsController(service: service, liveChannels: liveChannels, screen: screen),
            StoreController(
                service: service, pageCache: pageCache, renderer: renderer, scenarioDownloads: scenarioDownloads,
                installPicker: InstallPicker(service: service)),
            TransactionsController(service: service, renderer: renderer),
            CatalogController(service: service, pageCache: pageCache, renderer: renderer),
            ScenariosController(
                service: service, renderer: renderer, scenarioDownloads: scenarioDownloads,
                scenarioRuns: ScenarioRuns(transport: InProcessTransport(responder: { slot.current }, bearerToken: configuration.adminToken))),
            APIController(
                service: service, pageCache: pageCache, renderer: renderer,
                apiReference: APIReference.load(in: configuration.publicDirectory), cachePolicy: cachePolicy),
            AppStoreServerAPIController(
                service: service, now: { [environment] in Int64(environment.now().timeIntervalSince1970) }, clock: environment.now),
        ]
        controllers += Self.notificationControllers(
            service: service, environment: environment, renderer: renderer, policy: configuration.notificationURLPolicy)
        for controller in controllers { controller.register(in: &router) }
        let errorPages = ErrorPages(templates: templates, catalogName: configuration.catalogName)
        let chain = Dashboard.chain(
            router: router, pageCache: pageCache, adminToken: configuration.adminToken, errorPages: errorPages,
            appStoreServerAPIGate: controllers.lazy.compactMap { ($0 as? AppStoreServerAPIController)?.gate }.first,
            rendersErrorsAtOnce: !configuration.reloadTemplates, log: environment.log)
        dashboard = Dashboard(chain: chain, pageCache: pageCache, liveChannels: liveChannels)
        slot.set(dashboard)
        self.controllers = controllers
        self.router = router
        self.service = service
        self.storage = storage
        adminToken = configuration.adminToken
        notificationSender = Self.notificationSender(
            service: service, storage: storage, environment: environment, policy: configuration.notificationURLPolicy)
        notificationURLPolicy = configuration.notificationURLPolicy
    }

    /// Answers one request in process: the dashboard's middlewares and routes, without the HTTP server's own checks
    /// (framing, limits, the `Host` allow-list), which a socket adds (``server(_:accessLog:)``); the security headers
    /// are added as the server's serializer adds them (``SecurityHeaders/defaults``).
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        SecurityHeaders.defaults.applied(to: await dashboard.respond(to: request))
    }

    /// Requests of a scenario, answered in process (the admin token sent when there is one).
    public var scenarioTransport: any ScenarioTransport {
        InProcessTransport(responder: { [dashboard] in dashboard }, bearerToken: adminToken)
    }

    /// An HTTP server in front of this stack, not yet listening (``server(_:gate:adminToken:accessLog:)`` with the gate
    /// open).
    /// - Parameters:
    ///   - configuration: Address, port and `Host` allow-list.
    ///   - accessLog: Called once per response (on the server's I/O thread, after the answer is written) with the
    ///     entry's secrets redacted (``AccessLogRedaction``, with the admin token), or `nil`.
    public func server(_ configuration: HTTPServerConfiguration, accessLog: (@Sendable (AccessLogEntry) -> Void)? = nil) -> HTTPServer {
        let gate = StartUpGate()
        gate.open(self)
        return Self.server(configuration, gate: gate, adminToken: adminToken, accessLog: accessLog)
    }

    /// The HTTP server in front of `gate`, not yet listening. The whole request path in one place: the server's
    /// own checks (framing, limits, the `Host` allow-list), then `gate` (503 until it opens on a stack), then the
    /// dashboard's middlewares and routes (`Dashboard.chain(router:pageCache:adminToken:errorPages:appStoreServerAPIGate:rendersErrorsAtOnce:log:)`), then the redacted
    /// access log line.
    /// - Parameters:
    ///   - configuration: Address, port and `Host` allow-list; the security headers are added to the server's own answers.
    ///   - gate: The responder.
    ///   - adminToken: The admin token, redacted from the access log.
    ///   - accessLog: Called once per response (see ``server(_:accessLog:)``), or `nil`.
    public static func server(
        _ configuration: HTTPServerConfiguration, gate: StartUpGate, adminToken: String?,
        accessLog: (@Sendable (AccessLogEntry) -> Void)?
    ) -> HTTPServer {
        server(configuration, gate: gate, entries: accessLog.map { redacting($0, adminToken: adminToken) })
    }

    /// The HTTP server in front of `gate`, as the other `server(_:gate:adminToken:accessLog:)` builds it, but
    /// with its access log lines written by `accessLog`. The I/O thread only queues each entry; the log's own thread redacts
    /// it (``AccessLogRedaction``, with the admin token) and formats it (``AccessLogEntry/append(to:)``), in order.
    /// - Parameters:
    ///   - configuration: Address, port and `Host` allow-list.
    ///   - gate: The responder.
    ///   - adminToken: The admin token, redacted from the access log.
    ///   - accessLog: Where the lines go.
    public static func server(
        _ configuration: HTTPServerConfiguration, gate: StartUpGate, adminToken: String?, accessLog: LogWriter
    ) -> HTTPServer {
        server(configuration, gate: gate) { entry in
            accessLog.write(
                formatting: { AccessLogRedaction.redact(entry, adminToken: adminToken).append(to: &$0) },
                estimatedBytes: entry.estimatedLineBytes)
        }
    }

    /// The server, its security headers added by its serializer to every answer, each answer's entry given to `entries` as it is.
    private static func server(
        _ configuration: HTTPServerConfiguration, gate: StartUpGate, entries: (@Sendable (AccessLogEntry) -> Void)?
    ) -> HTTPServer {
        var serverConfiguration = configuration
        serverConfiguration.responseDefaults = SecurityHeaders.defaults
        return HTTPServer(configuration: serverConfiguration, responder: gate, accessLog: entries)
    }

    /// `log`, called with each entry's secrets redacted (``AccessLogRedaction/redact(_:adminToken:)``).
    static func redacting(_ log: @escaping @Sendable (AccessLogEntry) -> Void, adminToken: String?) -> @Sendable (AccessLogEntry) -> Void {
        { entry in log(AccessLogRedaction.redact(entry, adminToken: adminToken)) }
    }
}
