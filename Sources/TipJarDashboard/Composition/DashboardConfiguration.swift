import Foundation

/// Where the dashboard finds its files and how it guards itself.
public struct DashboardConfiguration: Sendable {
    /// The `Templates/` folder (Mustache pages, partials and fragments).
    public var templatesDirectory: URL
    /// The `Public/` folder served as static files (CSS, JS, images).
    public var publicDirectory: URL
    /// Re-read templates on every request, for people editing them (`--reload-templates`).
    public var reloadTemplates: Bool
    /// The admin token required when the server binds a non-loopback address (`--admin-token`),
    /// or `nil` on loopback.
    public var adminToken: String?
    /// The catalog's file name, shown in the footer and on `/catalog`.
    public var catalogName: String

    /// Creates a configuration.
    public init(
        templatesDirectory: URL, publicDirectory: URL, reloadTemplates: Bool = false, adminToken: String? = nil,
        catalogName: String = "TipProducts.storekit"
    ) {
        self.templatesDirectory = templatesDirectory
        self.publicDirectory = publicDirectory
        self.reloadTemplates = reloadTemplates
        self.adminToken = adminToken
        self.catalogName = catalogName
    }
}
