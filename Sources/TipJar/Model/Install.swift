import Foundation

/// One simulated installation of the app: its locale, its account and that account's storefront, and heart count
/// (the app's UserDefaults, one row per install; README "Domain rules": Hearts live per installation).
public struct Install: Sendable, Equatable, Identifiable {
    /// Opaque identifier (a lowercase UUID from the injected generator).
    public var id: String
    /// Optional free-text label such as "Ana's iPhone"; never interpreted.
    public var label: String
    /// The language the tip jar is shown in.
    public var locale: AppLocale
    /// ISO 3166-1 alpha-3 storefront code, e.g. `USA`: its Apple Account's storefront, the same for every install
    /// of the account (https://developer.apple.com/documentation/storekit/storefront). A storage reads it from the
    /// account; on insert it is used only for a new account (``TipJarStorage/insert(_:)``).
    public var storefront: String
    /// The Apple Account the install is signed in with; installs of one account share its
    /// unfinished transactions.
    public var accountID: String
    /// Hearts shown in Info and Credits, 0...5.
    public var hearts: Int
    /// The old app version's "has tipped" boolean, still waiting for its launch-time migration.
    public var legacyHasTipped: Bool
    /// Whether the app is running (its `Transaction.updates` listener receives deliveries).
    public var isRunning: Bool
    /// When the install was created (UTC).
    public var createdAt: Date

    /// The most hearts an install shows (the EXIF.ER tip-jar essay: "Each accepted tip adds a heart, up to five").
    public static let maximumHearts = 5

    /// Creates an install value.
    public init(
        id: String, label: String = "", locale: AppLocale, storefront: String, accountID: String,
        hearts: Int = 0, legacyHasTipped: Bool = false, isRunning: Bool = false, createdAt: Date
    ) {
        self.id = id
        self.label = label
        self.locale = locale
        self.storefront = storefront
        self.accountID = accountID
        self.hearts = hearts
        self.legacyHasTipped = legacyHasTipped
        self.isRunning = isRunning
        self.createdAt = createdAt
    }
}
