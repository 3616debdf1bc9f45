import Foundation
import TipJar

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
    /// Which notifications URLs and addresses the store posts to (`serve --notifications-allow-link-local` widens it).
    public var notificationURLPolicy: NotificationURLPolicy

    /// Creates a configuration.
    public init(
        templatesDirectory: URL, publicDirectory: URL, reloadTemplates: Bool = false, adminToken: String? = nil,
        catalogName: String = "TipProducts.storekit", notificationURLPolicy: NotificationURLPolicy = NotificationURLPolicy()
    ) {
        self.notificationURLPolicy = notificationURLPolicy
        self.templatesDirectory = templatesDirectory
        self.publicDirectory = publicDirectory
        self.reloadTemplates = reloadTemplates
        self.adminToken = adminToken
        self.catalogName = catalogName
    }
}
