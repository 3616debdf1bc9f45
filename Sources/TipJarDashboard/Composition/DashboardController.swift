import HTTPServer

/// One area of the dashboard's routes (Hummingbird's controller shape): a value holding only what its handlers use,
/// which adds its routes to the router. ``DashboardStack`` builds every controller with its dependencies and
/// registers them all; each route belongs to exactly one controller.
protocol DashboardController: Sendable {
    /// Adds the controller's routes to `router`.
    func register(in router: inout Router<DashboardContext>)
}
