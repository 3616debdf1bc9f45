import HTTPServer
import Mustache

extension Routes {
    /// `GET /api`: the JSON API for people, rendered on the server from `Public/api/openapi.json` (read once at start,
    /// ``APIReference``), so it needs no JavaScript; the document itself stays at `/api/openapi.json`.
    func registerAPIDocs(in router: inout Router<DashboardContext>) {
        router.get("/api") { _, context in
            var data = pageData(context, nav: "api")
            if case .object(let reference) = apiReference.mustacheValue { data.merge(reference) { _, new in new } }
            return try html("pages/api", data)
        }
    }
}
