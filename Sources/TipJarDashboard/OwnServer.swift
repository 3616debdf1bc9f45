import Foundation
import HTTPServer
import Synchronization

/// The HTTP server in front of this dashboard, for the requests the dashboard sends itself (`/store`'s
/// "Run" of a shipped scenario goes through the JSON API like `tipjar scenario run --url`). Held weakly:
/// the server holds the dashboard.
final class OwnServer: Sendable {
    private struct Reference { weak var server: HTTPServer? }
    private let reference = Mutex(Reference())
    private let running = Mutex(false)

    /// Claims the one scenario run at a time (two at once would each put back the other's settings);
    /// `false` when one is running. ``endRun()`` gives it back.
    func beginRun() -> Bool {
        running.withLock { busy in
            if busy { return false }
            busy = true
            return true
        }
    }

    /// Ends the run ``beginRun()`` claimed.
    func endRun() { running.withLock { $0 = false } }

    /// Remembers `server` (``Dashboard/attach(to:)``).
    func attach(_ server: HTTPServer) { reference.withLock { $0.server = server } }

    /// Where a client on this machine reaches the server: its bound address, or the loopback address of
    /// its family for a wildcard bind (`0.0.0.0`, `::`); `nil` before the server is listening.
    var clientAddress: (host: String, port: Int)? {
        guard let server = reference.withLock({ $0.server }), let port = server.port else { return nil }
        switch server.configuration.host {
        case "0.0.0.0", "localhost", "": return ("127.0.0.1", port)
        case "::", "[::]": return ("::1", port)
        case let host: return (host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host, port)
        }
    }
}
