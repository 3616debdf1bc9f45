/// How a scenario's requests reach the dashboard under test: over a socket (``ScenarioHTTPClient``, for
/// `tipjar scenario run --url`) or in process (the dashboard's own responder, for `/store`'s Run and a fresh
/// temporary dashboard), with the same JSON API either way.
public protocol ScenarioTransport: Sendable {
    /// Sends one request and returns its answer.
    /// - Parameters:
    ///   - method: `GET`, `POST`, `PUT`, …
    ///   - path: The request target, e.g. `/api/installs`.
    ///   - body: A JSON body (sent with `Content-Type: application/json`, a PATCH's with
    ///     `application/merge-patch+json`), or `nil`.
    /// - Throws: ``ScenarioHTTPClient/Failure`` when the dashboard cannot be reached or its answer is not HTTP.
    func send(_ method: String, _ path: String, body: JSONValue?) async throws(ScenarioHTTPClient.Failure) -> ScenarioHTTPClient.Answer
    /// The same with `authorization` as the `Authorization` field (the App Store Server API's JWT, `/inApps/…`); an
    /// admin token then goes in the `tipjar_admin` cookie.
    func send(
        _ method: String, _ path: String, body: JSONValue?, authorization: String
    ) async throws(ScenarioHTTPClient.Failure) -> ScenarioHTTPClient.Answer
}

extension ScenarioHTTPClient: ScenarioTransport {}

/// The media type a transport sends a JSON body with: a `PATCH` body is a JSON Merge Patch (RFC 7396 §4,
/// `application/merge-patch+json`), any other `application/json`.
public enum ScenarioTransportMedia {
    /// The `Content-Type` of a JSON body sent with `method`.
    public static func contentType(for method: String) -> String {
        method == "PATCH" ? "application/merge-patch+json" : "application/json"
    }
}
