import Foundation
import HTTPServer
import Synchronization
import TipJarScenario

/// Scenario requests answered by the dashboard in this process: each one is an ``HTTPRequest`` handed to the
/// dashboard's responder, through every middleware and route a request from a socket goes through (the admin
/// token, the JSON content type, the origin checks), with no socket, port or thread in between. `/store`'s Run
/// and `tipjar scenario run` on a fresh dashboard use it; `tipjar scenario run --url` uses ``ScenarioHTTPClient``.
struct InProcessTransport: ScenarioTransport {
    /// Where the requests go: the dashboard, or `nil` once it is gone.
    let responder: @Sendable () -> Dashboard?
    /// Sent as `Authorization: Bearer …` when the dashboard has an admin token.
    let bearerToken: String?

    func send(_ method: String, _ path: String, body: JSONValue?) async throws(ScenarioHTTPClient.Failure) -> ScenarioHTTPClient.Answer {
        try await send(method, path, body: body, authorization: nil)
    }

    func send(
        _ method: String, _ path: String, body: JSONValue?, authorization: String
    ) async throws(ScenarioHTTPClient.Failure) -> ScenarioHTTPClient.Answer {
        try await send(method, path, body: body, authorization: Optional(authorization))
    }

    private func send(
        _ method: String, _ path: String, body: JSONValue?, authorization: String?
    ) async throws(ScenarioHTTPClient.Failure) -> ScenarioHTTPClient.Answer {
        guard let dashboard = responder() else {
            throw ScenarioHTTPClient.Failure(description: "\(method) \(path): the dashboard has shut down")
        }
        var fields: HTTPFields = ["Host": "localhost", "Accept": "application/json"]
        if let authorization {
            fields["Authorization"] = authorization
            if let bearerToken { fields["Cookie"] = "\(AdminTokenCheck.cookieName)=\(bearerToken)" }
        } else if let bearerToken {
            fields["Authorization"] = "Bearer \(bearerToken)"
        }
        let payload = Array((body?.text ?? "").utf8)
        if body != nil { fields["Content-Type"] = ScenarioTransportMedia.contentType(for: method) }
        let request: HTTPRequest
        do {
            request = try HTTPRequest(
                method: method, decoding: path, fields: fields, body: payload, remoteAddress: "in-process",
                requestID: "scenario-\(UUID().uuidString.prefix(8).lowercased())")
        } catch {
            throw ScenarioHTTPClient.Failure(description: "\(method) \(path): \(error)")
        }
        let response = SecurityHeaders.defaults.applied(to: await dashboard.respond(to: request))
        // The JSON API never streams; a stream's chunks are not read (an event stream would never end).
        let bytes = response.body
        return ScenarioHTTPClient.Answer(
            status: response.status.code, json: bytes.isEmpty ? nil : try? JSONValue(parsing: Data(bytes)),
            body: bytes)
    }
}

/// The dashboard's responder, set once it is built and held weakly: the routes that hold an
/// ``InProcessTransport`` belong to the dashboard, so a strong reference would keep it alive for ever.
final class ResponderSlot: Sendable {
    private struct Reference { weak var dashboard: Dashboard? }
    private let reference = Mutex(Reference())

    /// The dashboard, or `nil` before it is set and once it is gone.
    var current: Dashboard? { reference.withLock { $0.dashboard } }

    /// Points the slot at `dashboard`.
    func set(_ dashboard: Dashboard) { reference.withLock { $0.dashboard = dashboard } }
}
