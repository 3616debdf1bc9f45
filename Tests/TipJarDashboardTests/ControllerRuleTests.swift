import HTTPServer
import Testing

@testable import TipJarDashboard

/// The dashboard's routes are registered by its controllers (``DashboardController``), which `DashboardStack` builds
/// and registers in one place (Sources/TipJarDashboard/Composition/DashboardStack.swift).
@Suite("Route controllers")
struct ControllerRuleTests {
    /// A route as the router matches it: its method and its pattern with every parameter written `:`, so
    /// `/installs/:id` and `/installs/:installID` are the same route (``Router`` matches segment by segment).
    static func key(_ route: (method: String, pattern: String)) -> String {
        let segments = route.pattern.split(separator: "/", omittingEmptySubsequences: false).map { $0.hasPrefix(":") ? ":" : String($0) }
        return "\(route.method) \(segments.joined(separator: "/"))"
    }

    @Test func everyRouteBelongsToExactlyOneController() async throws {
        let (controllers, table) = try await withLiveServer { server in (server.stack.controllers, server.stack.router.routes) }
        var owners: [String: [String]] = [:]
        for controller in controllers {
            var router = Router<DashboardContext>()
            controller.register(in: &router)
            #expect(!router.routes.isEmpty, "\(type(of: controller)) registers no route")
            for route in router.routes { owners[Self.key(route), default: []].append("\(type(of: controller))") }
        }
        let shared = owners.filter { $0.value.count > 1 }.map { "\($0.key): \($0.value.joined(separator: ", "))" }.sorted()
        #expect(shared.isEmpty, "registered by more than one controller, or twice by one: \(shared)")
        let registered = table.map(Self.key)
        #expect(registered.count == Set(registered).count, "the stack's router holds a route twice")
        let outside = Set(registered).subtracting(owners.keys).sorted()
        #expect(outside.isEmpty, "routes the stack registers outside its controllers: \(outside)")
        let unregistered = Set(owners.keys).subtracting(registered).sorted()
        #expect(unregistered.isEmpty, "controller routes the stack does not register: \(unregistered)")
    }
}
