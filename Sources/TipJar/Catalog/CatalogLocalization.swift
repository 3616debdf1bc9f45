/// One entry of a product's `localizations` array in a StoreKit configuration file.
///
/// Kept exactly as written in the file: the locale identifier is not normalised (`"pt_BR"`, `"ja"`, `"en_US"`),
/// and names may be empty — the catalog's name fallback (``Catalog/displayName(of:locale:)``, per
/// Tests/TipJarTests/Fixtures/storekit/README.md) skips empty names.
public struct CatalogLocalization: Sendable, Equatable, Hashable {
    /// The locale identifier as written in the file's `locale` key, e.g. `"en_US"`, `"pt_BR"`, `"ja"`.
    public var locale: String
    /// The localized product name from `displayName`; may be empty.
    public var displayName: String
    /// The localized product description from `description`; empty when the file omits it.
    public var description: String

    /// Creates a localization.
    /// - Parameters:
    ///   - locale: the file's locale identifier, e.g. `"pt_BR"`.
    ///   - displayName: the localized name (may be empty).
    ///   - description: the localized description (may be empty).
    public init(locale: String, displayName: String, description: String = "") {
        self.locale = locale
        self.displayName = displayName
        self.description = description
    }
}
