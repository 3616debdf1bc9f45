import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HTTPServer
import TipJar
import TipJarDashboard
import TipJarSQLite

/// The real dashboard on a real socket: `HTTPServer` bound to 127.0.0.1 port 0, a temporary
/// SQLite file, the shipped catalog, and the repository's `Templates/` and `Public/`.
final class LiveServer: Sendable {
    let server: HTTPServer
    let dashboard: Dashboard
    let service: TipJarService
    let port: Int
    let storage: SQLiteTipJarStorage
    let directory: URL

    /// The environment's wait when a test does not hold it at a ``DelayGate``: a simulated latency takes its time.
    static let realTime: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }

    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// A `.storekit` fixture of `Tests/TipJarTests/Fixtures/storekit`, loaded as `serve --storekit` would.
    static func fixtureCatalog(_ name: String) throws -> Catalog {
        try Catalog.load(contentsOf: repositoryRoot.appendingPathComponent("Tests/TipJarTests/Fixtures/storekit/\(name).storekit"))
    }

    /// Starts a server on the shipped catalog, or on `catalog`; `settings` replaces the store's settings
    /// after start-up (left alone when `nil`, so the catalog file's settings stay in force).
    /// `sleep` is the environment's wait (simulated latencies, late deliveries); a test passes a ``DelayGate``'s to
    /// decide when a delay is over.
    init(settings: StoreSettings? = nil, catalog: Catalog? = nil, adminToken: String? = nil,
         database: DatabaseConfiguration = DatabaseConfiguration(groupCommit: true),
         sleep: @escaping @Sendable (Duration) async throws -> Void = LiveServer.realTime) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tipjar-live-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        storage = try SQLiteTipJarStorage(path: directory.appendingPathComponent("tipjar.sqlite3").path, configuration: database)
        let environment = TipJarEnvironment(now: { Date() }, sleep: sleep,
                                            makeInstallID: { UUID().uuidString.lowercased() }, log: { _, _ in })
        let store = try await SimulatedStore(catalog: try catalog ?? Catalog.shipped(), storage: storage, environment: environment)
        if let settings { try await store.update(settings) }
        service = TipJarService(store: store, storage: storage, environment: environment)
        dashboard = try Dashboard(service: service, storage: storage,
                                      configuration: DashboardConfiguration(templatesDirectory: Self.repositoryRoot.appendingPathComponent("Templates"),
                                                                            publicDirectory: Self.repositoryRoot.appendingPathComponent("Public"),
                                                                            adminToken: adminToken),
                                      log: { _, _ in })
        server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, serverResponseFields: SecurityHeaders.fields),
                            responder: dashboard, accessLog: nil)
        dashboard.attach(to: server)
        port = try server.start()
    }

    func stop() async {
        await server.shutdown(timeout: .seconds(2))
        await service.cancelScheduledDeliveries()
        try? storage.queue.close()
    }

    var databasePath: String { directory.appendingPathComponent("tipjar.sqlite3").path }

    var origin: String { "http://127.0.0.1:\(port)" }

    /// One request on a fresh connection (`Connection: close`), over a blocking socket on its own
    /// thread so the server's tasks keep the cooperative pool.
    func send(_ method: String, _ target: String, fields: [(String, String)] = [], body: String = "") async -> HTTPReply {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in fields { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" || method == "PUT" { head += "Content-Length: \(body.utf8.count)\r\n" }
        let raw = head + "\r\n" + body
        return HTTPReply(parsing: await Self.exchange(port: port, raw))
    }

    func json(_ method: String, _ target: String, _ body: String = "") async -> HTTPReply {
        await send(method, target, fields: body.isEmpty ? [] : [("Content-Type", "application/json")], body: body)
    }

    /// Runs blocking or long work on a thread of its own, so the server's tasks keep the
    /// cooperative pool (two threads on a two-core machine).
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: body()) }
        }
    }

    static func exchange(port: Int, _ text: String) async -> [UInt8] {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let (fd, connected) = connectedSocket(port: port)
                var received: [UInt8] = []
                if connected {
                    var bytes = Array(text.utf8)
                    _ = bytes.withUnsafeMutableBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    var buffer = [UInt8](repeating: 0, count: 65_536)
                    while true {
                        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                        if count <= 0 { break }
                        received += buffer[0..<count]
                    }
                }
                close(fd)
                continuation.resume(returning: received)
            }
        }
    }
}

/// Runs `body` with a ``LiveServer`` started with these arguments (``LiveServer/init(settings:catalog:adminToken:database:sleep:)``)
/// and awaits the server's shutdown before it returns, whether `body` returned or threw: a test never leaves a
/// server, its connections or its SQLite file behind for the tests after it.
func withLiveServer<T>(settings: StoreSettings? = nil, catalog: Catalog? = nil, adminToken: String? = nil,
                       database: DatabaseConfiguration = DatabaseConfiguration(groupCommit: true),
                       sleep: @escaping @Sendable (Duration) async throws -> Void = LiveServer.realTime,
                       isolation: isolated (any Actor)? = #isolation,
                       _ body: (LiveServer) async throws -> T) async throws -> T {
    let server = try await LiveServer(settings: settings, catalog: catalog, adminToken: adminToken, database: database,
                                      sleep: sleep)
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

/// A parsed HTTP/1.1 response.
struct HTTPReply {
    var status = 0
    var fields: [(name: String, value: String)] = []
    var body = ""

    init(parsing bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { return }
        let lines = text[..<split.lowerBound].components(separatedBy: "\r\n")
        status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        body = String(text[split.upperBound...])
    }

    subscript(_ name: String) -> String? { fields.first { $0.name.lowercased() == name.lowercased() }?.value }

    var object: [String: Any] { ((try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any]) ?? [:] }
    var array: [[String: Any]] { ((try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [[String: Any]]) ?? [] }

    /// The session cookie `name=value` from `Set-Cookie`.
    var sessionCookie: String? { self["Set-Cookie"]?.split(separator: ";").first.map(String.init) }

    /// The CSRF token of a page (`<meta name="csrf-token" content="…">`).
    var csrfToken: String? {
        guard let range = body.range(of: #"name="csrf-token" content=""#) else { return nil }
        return String(body[range.upperBound...].prefix { $0 != "\"" })
    }

}

extension LiveServer {
    /// A blocking TCP socket connected to 127.0.0.1:`port`, with a 10 s receive timeout; `connected`
    /// is false when `connect` failed (the descriptor is still the caller's to close).
    static func connectedSocket(port: Int) -> (fd: Int32, connected: Bool) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return (fd, result == 0)
    }
}
