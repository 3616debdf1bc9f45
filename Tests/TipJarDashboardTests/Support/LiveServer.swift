import Foundation
import HTTPServer
import Synchronization
import TestSupport
import TipJar
import TipJarDashboard
import SQLiteDatabase
import TipJarSQLite

#if canImport(Glibc)
import Glibc
#endif

/// The dashboard as `tipjar serve` builds it (``DashboardStack``, the one composition root) on a temporary SQLite
/// file, the shipped catalog, and the repository's `Templates/` and `Public/`. Requests are answered in process
/// (``Transport/inProcess``, the default: the dashboard's middlewares and routes, no socket), or over a real socket
/// on 127.0.0.1 port 0 (``Transport/live``) for what only a socket shows: the HTTP server's own checks (the `Host`
/// allow-list, framing, limits), event streams, connections.
final class LiveServer: Sendable {
    /// How a test's requests reach the dashboard.
    enum Transport: Sendable {
        /// ``DashboardStack/respond(to:)``: no socket.
        case inProcess
        /// An `HTTPServer` in front of the stack, bound to 127.0.0.1 port 0.
        case live
    }

    let stack: DashboardStack
    /// The socket's server, for ``Transport/live``.
    let server: HTTPServer?
    let storage: SQLiteTipJarStorage
    let directory: URL
    private let boundPort: Int?

    var dashboard: Dashboard { stack.dashboard }
    var service: TipJarService { stack.service }

    /// The environment's wait when a test does not hold it at a `DelayGate`: a simulated latency takes its time.
    static let realTime: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }

    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// A `.storekit` fixture of `Tests/TipJarTests/Fixtures/storekit`, loaded as `serve --storekit` would.
    static func fixtureCatalog(_ name: String) throws -> Catalog {
        try Catalog.load(contentsOf: repositoryRoot.appendingPathComponent("Tests/TipJarTests/Fixtures/storekit/\(name).storekit"))
    }

    /// The durability tests use unless they are about durability: `synchronous=NORMAL` survives the crash of a
    /// process (<https://www.sqlite.org/pragma.html#pragma_synchronous>), which is all a test can cause.
    static let testDatabase = DatabaseConfiguration(durability: .normal, groupCommit: true)

    /// Builds the dashboard on the shipped catalog, or on `catalog`; `settings` replaces the store's settings
    /// after start-up (left alone when `nil`, so the catalog file's settings stay in force).
    /// `sleep` is the environment's wait (simulated latencies, late deliveries); a test passes a ``DelayGate``'s to
    /// decide when a delay is over. `directory` is the folder of `tipjar.sqlite3` (a new one unless given: a test
    /// that reopens a file a server left passes that server's ``directory``).
    init(
        transport: Transport = .inProcess, settings: StoreSettings? = nil, catalog: Catalog? = nil, adminToken: String? = nil,
        database: DatabaseConfiguration = LiveServer.testDatabase,
        sleep: @escaping @Sendable (Duration) async throws -> Void = LiveServer.realTime, directory: URL? = nil
    ) async throws {
        self.directory = directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("tipjar-live-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
        storage = try SQLiteTipJarStorage(path: self.directory.appendingPathComponent("tipjar.sqlite3").path, configuration: database)
        let environment = TipJarEnvironment(
            now: { Date() }, sleep: sleep,
            makeInstallID: { UUID().uuidString.lowercased() }, log: { _, _ in })
        stack = try await DashboardStack(
            catalog: try catalog ?? Catalog.shipped(), storage: storage,
            configuration: DashboardConfiguration(
                templatesDirectory: Self.repositoryRoot.appendingPathComponent("Templates"),
                publicDirectory: Self.repositoryRoot.appendingPathComponent("Public"),
                adminToken: adminToken),
            environment: environment)
        if let settings { try await stack.service.updateStore(settings) }
        switch transport {
        case .inProcess:
            server = nil
            boundPort = nil
        case .live:
            let server = stack.server(.asServed())
            self.server = server
            boundPort = try server.start()
        }
    }

    func stop() async {
        await server?.shutdown(timeout: .seconds(2))
        await service.cancelScheduledDeliveries()
        try? storage.pool.close()
    }

    var databasePath: String { directory.appendingPathComponent("tipjar.sqlite3").path }

    /// The socket's port; only a ``Transport/live`` server has one.
    var port: Int {
        guard let boundPort else { preconditionFailure("this test reads the port: start it with transport: .live") }
        return boundPort
    }

    /// The authority requests carry in `Host` (in process, the one a socket on port 8080 would see).
    var authority: String { "127.0.0.1:\(boundPort ?? 8080)" }

    var origin: String { "http://\(authority)" }

    /// One request on a fresh connection (`Connection: close`), over a blocking socket on its own thread so the
    /// server's tasks keep the cooperative pool; or, in process, the same request handed to the stack (a `HEAD`
    /// answer loses its body, as the server sends it).
    func send(_ method: String, _ target: String, fields: [(String, String)] = [], body: String = "") async -> HTTPReply {
        guard let boundPort else {
            var headers: HTTPFields = ["Host": authority]
            for (name, value) in fields { headers.append(name: name, value: value) }
            guard
                let request = try? HTTPRequest(
                    method: method, decoding: target, fields: headers, body: Array(body.utf8),
                    remoteAddress: "127.0.0.1", requestID: "test-\(UUID().uuidString.prefix(8))")
            else {
                return HTTPReply(HTTPResponse.status(.badRequest), method: method)  // as the server's parser answers it
            }
            return HTTPReply(await stack.respond(to: request), method: method)
        }
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(boundPort)\r\nConnection: close\r\n"
        for (name, value) in fields { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" || method == "PUT" { head += "Content-Length: \(body.utf8.count)\r\n" }
        let raw = head + "\r\n" + body
        return await TestClient.reply(port: boundPort, raw)
    }

    func json(_ method: String, _ target: String, _ body: String = "") async -> HTTPReply {
        await send(method, target, fields: body.isEmpty ? [] : [("Content-Type", "application/json")], body: body)
    }

    /// The install screen's live fragments (`GET /installs/{id}/live`), as the page's poll fetches them.
    func liveScreen(_ installID: String) async -> String {
        await send("GET", "/installs/\(installID)/live", fields: [("X-Fragment", "1")]).body
    }
}

/// Runs `body` with a ``LiveServer`` started with these arguments (``LiveServer/init(transport:settings:catalog:adminToken:database:sleep:)``)
/// and awaits the server's shutdown before it returns, whether `body` returned or threw: a test never leaves a
/// server, its connections or its SQLite file behind for the tests after it.
func withLiveServer<T>(
    transport: LiveServer.Transport = .inProcess, settings: StoreSettings? = nil, catalog: Catalog? = nil,
    adminToken: String? = nil, database: DatabaseConfiguration = LiveServer.testDatabase,
    sleep: @escaping @Sendable (Duration) async throws -> Void = LiveServer.realTime,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (LiveServer) async throws -> T
) async throws -> T {
    try await TestSlots.dashboards.holding {
        let server = try await LiveServer(
            transport: transport, settings: settings, catalog: catalog, adminToken: adminToken,
            database: database, sleep: sleep)
        let result: T
        do {
            result = try await body(server)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
        return result
    }
}

extension HTTPReply {
    /// An answer the stack gave in process: its status, fields (with the `Content-Length` the server would send)
    /// and body (none for `HEAD`).
    init(_ response: HTTPResponse, method: String) {
        var fields = response.fields.map { (name: $0.name, value: $0.value) }
        if response.stream == nil, !fields.contains(where: { $0.name.lowercased() == "content-length" }) {
            fields.append((name: "Content-Length", value: String(response.body.count)))
        }
        self.init(
            status: response.status.code, fields: fields,
            body: method == "HEAD" ? "" : String(decoding: response.body, as: UTF8.self))
    }
}

/// How many dashboards the tests run at once. Swift Testing starts every test at once on the cooperative pool
/// (two threads on a two-core machine); a dashboard answering in process keeps a pool thread busy for the whole of
/// its request, so without a bound a test on a socket waits behind hundreds of them and its server seems not to
/// answer. Four at a time keep both threads busy and every queue short.
final class TestSlots: Sendable {
    /// The slots of the dashboards ``withLiveServer(transport:settings:catalog:adminToken:database:sleep:isolation:_:)`` builds.
    static let dashboards = TestSlots(width: 4)

    private let state: Mutex<(free: Int, waiting: [CheckedContinuation<Void, Never>])>

    init(width: Int) { state = Mutex((width, [])) }

    /// Whether the current task holds a slot already (a test that builds a second dashboard inside the first
    /// must not wait for a slot it could be holding itself).
    @TaskLocal static var isHolding = false

    /// Runs `body` holding a slot (or the one the task holds already), and gives it back however `body` ends.
    func holding<T>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T) async throws -> T {
        if Self.isHolding { return try await body() }
        await acquire()
        defer { release() }
        return try await Self.$isHolding.withValue(true) { try await body() }
    }

    /// Takes a slot, waiting (in order of arrival) for one to be given back when all are taken.
    private func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLock { state in
                if state.free > 0 {
                    state.free -= 1
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if granted { continuation.resume() }
        }
    }

    /// Gives a slot back, to the longest waiter if there is one.
    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiting.isEmpty {
                state.free += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
