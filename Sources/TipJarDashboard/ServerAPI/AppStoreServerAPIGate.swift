import HTTPServer

/// The App Store Server API area's own middleware, in front of each of its routes (``DashboardArea/appStoreServerAPI``):
/// a bearer JWT of Apple's shape (``AppStoreServerAPIToken``), or the 401 Apple's library expects
/// (``AppStoreServerAPIToken/Refusal/response``), before the handler runs.
struct AppStoreServerAPIGate: RouterMiddleware {
    /// The bundle ID the token's `bid` must name.
    let bundleID: String
    /// The current UNIX time in seconds, for the token's `exp` and `iat`.
    let now: @Sendable () -> Int64

    func handle(
        _ request: HTTPRequest, context: DashboardContext,
        next: (HTTPRequest, DashboardContext) async -> HTTPResponse
    ) async throws -> HTTPResponse {
        do {
            try AppStoreServerAPIToken.check(request.fields["Authorization"], bundleID: bundleID, now: now())
        } catch {
            return error.response
        }
        return await next(request, context)
    }
}

/// Apple's errors are thrown by the area's handlers and answered in Apple's shape by the area's error format
/// (``ErrorPages``, ``DashboardContext/ErrorFormat/appStoreServerAPI``).
extension AppStoreServerAPIError: HTTPResponseError {
    var title: String { "App Store Server API error" }
}
