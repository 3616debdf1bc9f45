import Foundation

/// The app side of every simulated install: the seed's `TipJar` service. It loads offers into the
/// three-state machine, holds the per-install purchase lock, runs launch (migration, then
/// unfinished transactions), Restore, and the one transaction handler that every path feeds:
/// verify → record → `finish()` (README "Domain rules", Loading to Restore).
public actor TipJarService {
    /// The simulated App Store.
    nonisolated let store: SimulatedStore
    /// The loaded catalog.
    public nonisolated let catalog: Catalog
    let storage: any TipJarStorage
    /// Recent events per install, in memory.
    public nonisolated let timeline: Timeline
    let environment: TipJarEnvironment
    var openPurchases: Set<String> = []
    /// Installs whose delete is running: a purchase is refused for them before the store charges anything.
    var deletingInstalls: Set<String> = []
    /// Deliveries waiting for their delay (``LateDelivery``), by schedule number, so shutdown can cancel them.
    var scheduledDeliveries: [Int: Task<Void, Never>] = [:]
    var lastScheduleNumber = 0
    /// Delayed re-emits that came due while their app was stopped: delivered at its next launch.
    var reemitsWaitingForLaunch: [String: [(transaction: Transaction, count: Int)]] = [:]
    /// The purchase sheets shown, by install; each install in it is also in `openPurchases`.
    var openSheets: [String: PurchaseSheet] = [:]
    /// The last tip jar state each install's load reached, as its timeline event (kind and detail):
    /// a load records an event only when this changes, so a page view that finds the same state
    /// writes nothing to the timeline.
    var lastStates: [String: String] = [:]
    /// What each running install's last `Product.products(for:)` came to since its launch: the app can buy only
    /// a product that load returned (``beginPurchase(productID:installID:options:)``). Forgotten when the app launches or stops.
    var lastLoads: [String: TipJarState] = [:]
    /// How long a purchase sheet may stay unanswered before it closes as a cancel (seconds).
    public nonisolated let purchaseSheetTimeout: TimeInterval

    /// The purchase sheet's timeout when none is given: five minutes.
    public static let defaultPurchaseSheetTimeout: TimeInterval = 300

    /// Creates the service over a store and its storage.
    public init(
        store: SimulatedStore, storage: any TipJarStorage, environment: TipJarEnvironment,
        purchaseSheetTimeout: TimeInterval = TipJarService.defaultPurchaseSheetTimeout
    ) {
        self.store = store
        self.catalog = store.catalog
        self.storage = storage
        self.timeline = Timeline(changeLog: storage.changeLog)
        self.environment = environment
        self.purchaseSheetTimeout = purchaseSheetTimeout
    }

    // MARK: Installs

    /// Creates an install. It starts stopped; `launch(installID:)` opens the app.
    ///
    /// The storefront belongs to the Apple Account, not to the device: `Storefront.current` is "the App Store
    /// storefront of the customer's account" (https://developer.apple.com/documentation/storekit/storefront). An
    /// install on a new account gives the account `storefront`; an install on an account that exists is a device
    /// signing into it, which takes the account's storefront, so a different `storefront` asked for is ignored
    /// (it is still validated), and the `install.created` event says so (`requestedStorefront`). The returned
    /// install shows the storefront it got.
    /// - Parameters:
    ///   - locale: The install's language.
    ///   - storefront: ISO 3166-1 alpha-3 storefront code for a new account; `nil` takes the catalog's default.
    ///     Ignored for an account that already has a storefront.
    ///   - accountID: The Apple Account; `nil` gives the install an account of its own.
    ///   - label: Free text such as "Ana's iPhone" (at most 100 characters).
    ///   - legacyHasTipped: Created by the old app version, which stored only "has tipped".
    /// - Throws: `TipJarError.invalidValue` for an unknown storefront (with the closest codes), a too-long label,
    ///   or an account ID that is longer than 100 characters or holds a `/`.
    public func createInstall(
        locale: AppLocale, storefront: String?, accountID: String? = nil, label: String = "",
        legacyHasTipped: Bool = false
    ) async throws -> Install {
        let code = try Self.validatedStorefront(storefront ?? catalog.defaultStorefront.countryCode).countryCode
        let label = try Self.validatedLabel(label)
        let id = environment.makeInstallID()
        if let accountID { try Self.checkSize(accountID, field: "accountID", characters: 100, slack: 64) }
        let account = accountID.map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
        if let account { try Self.checkSize(account, field: "accountID", characters: 100) }
        // The account page lives at /accounts/{accountID}: one path segment, which can never hold a "/".
        guard account?.contains("/") != true else {
            throw TipJarError.invalidValue(field: "accountID", reason: "must not contain \"/\"")
        }
        let requested = Install(
            id: id, label: label, locale: locale, storefront: code, accountID: account ?? "account-\(id.prefix(8))",
            legacyHasTipped: legacyHasTipped, createdAt: environment.now())
        let install = try await storage.insert(requested)
        var attributes = [
            "locale": locale.rawValue, "storefront": install.storefront, "accountID": install.accountID, "label": label,
            "legacyHasTipped": String(legacyHasTipped),
        ]
        var detail = "Installed (\(locale.rawValue), \(install.storefront))\(legacyHasTipped ? " by the old version, has tipped" : "")."
        if install.storefront != code, storefront != nil {
            attributes["requestedStorefront"] = code
            detail += " Signed into \(install.accountID), whose storefront is \(install.storefront): \(code) was not used."
        }
        event(id, "install.created", detail, attributes)
        return install
    }

    /// Looks up an install's storefront code (any App Store storefront, ``Storefront/all``; case-insensitive).
    /// - Throws: `TipJarError.invalidValue` naming the closest valid codes (``Storefront/unknownCodeMessage(_:)``).
    public static func validatedStorefront(_ code: String) throws -> Storefront {
        guard let storefront = Storefront.named(code) else {
            throw TipJarError.invalidValue(field: "storefront", reason: Storefront.unknownCodeMessage(code))
        }
        return storefront
    }

    /// Moves the install's Apple Account to another storefront, as when the person changes their account's country
    /// or region. The storefront is the account's (https://developer.apple.com/documentation/storekit/storefront),
    /// so every install signed in with it, running or not, shows the new one at once. Each running install's
    /// `Storefront.updates` "emits when the storefront changes"
    /// (https://developer.apple.com/documentation/storekit/storefront/updates): a `storefront.changed` event on its
    /// timeline; a stopped one reads it from `Storefront.current` at its next launch (its timeline gets an
    /// `account.storefront` note). The next `Product.products(for:)` prices the same numbers in the new
    /// storefront's currency. Transactions already made keep the storefront they were made in.
    /// - Parameters:
    ///   - code: an alpha-3 storefront code, e.g. `"GBR"` (case-insensitive).
    ///   - installID: an install of the account.
    /// - Returns: the install as saved.
    /// - Throws: `TipJarError.installNotFound`, `.invalidValue` for an unknown code; storage errors.
    public func setStorefront(_ code: String, installID: String) async throws -> Install {
        let install = try await install(installID)
        let storefront = try Self.validatedStorefront(code)
        guard storefront.countryCode != install.storefront,
            let before = try await storage.setStorefront(storefront.countryCode, accountID: install.accountID)
        else {
            return try await self.install(installID)
        }
        for other in try await installs(accountID: install.accountID) {
            if other.isRunning {
                event(
                    other.id, "storefront.changed",
                    "Storefront.updates: \(before) → \(storefront.countryCode) "
                        + "(\(storefront.name)); prices now in \(storefront.currencyCode).",
                    ["accountID": install.accountID, "from": before, "storefront": storefront.countryCode])
            } else {
                event(
                    other.id, "account.storefront",
                    "Apple Account \(install.accountID) moved \(before) → \(storefront.countryCode) "
                        + "(\(storefront.name)); the app reads it from Storefront.current at its next launch.",
                    ["accountID": install.accountID, "from": before, "storefront": storefront.countryCode])
            }
        }
        return try await self.install(installID)
    }

    /// Every install signed in with `accountID`, page by page (newest first).
    func installs(accountID: String) async throws -> [Install] {
        var installs: [Install] = []
        var page = 1
        while true {
            let found = try await storage.installs(matching: InstallQuery(page: page, pageSize: 200, accountID: accountID))
            installs += found.installs
            guard found.hasMore, page < InstallQuery.maximumPage else { return installs }
            page += 1
        }
    }

    /// Validates an install label: trimmed, at most 100 characters (grapheme clusters), 200 Unicode scalars and
    /// 400 bytes of UTF-8, no control characters. The byte and scalar limits keep one character from carrying
    /// kilobytes of combining marks, and are checked before anything walks the text.
    /// - Throws: `TipJarError.invalidValue`.
    public static func validatedLabel(_ label: String) throws -> String {
        try checkSize(label, field: "label", characters: 100, slack: 64)
        let trimmed = label.trimmingCharacters(in: .whitespacesAndNewlines)
        try checkSize(trimmed, field: "label", characters: 100)
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw TipJarError.invalidValue(field: "label", reason: "must not contain control characters")
        }
        return trimmed
    }

    /// Refuses `text` when it is longer than `characters` grapheme clusters, twice as many Unicode scalars or four
    /// times as many UTF-8 bytes (plus `slack` bytes of whitespace the caller trims), cheapest check first.
    /// - Throws: `TipJarError.invalidValue` naming `field` and the limits.
    public static func checkSize(_ text: String, field: String, characters: Int, slack: Int = 0) throws {
        guard text.utf8.count <= 4 * characters + slack, text.unicodeScalars.count <= 2 * characters + slack,
            text.count <= characters + slack
        else {
            throw TipJarError.invalidValue(
                field: field,
                reason: "must be at most \(characters) characters "
                    + "(\(2 * characters) Unicode scalars, \(4 * characters) bytes of UTF-8)")
        }
    }

    /// Changes an install's label. - Throws: `TipJarError.installNotFound`, `.invalidValue`.
    public func setLabel(_ label: String, installID: String) async throws -> Install {
        _ = try await install(installID)
        try await storage.setLabel(try Self.validatedLabel(label), installID: installID)
        return try await install(installID)
    }

    /// The install with `installID`. - Throws: `TipJarError.installNotFound`.
    public func install(_ installID: String) async throws -> Install {
        guard let install = try await storage.install(withID: installID) else { throw TipJarError.installNotFound(installID) }
        return install
    }

    /// The app is deleted from the device: its hearts, ledger and counted keys go (UserDefaults goes with
    /// the app); its transactions stay with the store under its account, so a new install on the same
    /// account receives the unfinished ones at launch, as `Transaction.unfinished` would.
    ///
    /// A delete and a purchase of one install exclude each other on this actor: while a purchase is open the delete
    /// is refused, and while the delete runs a purchase is refused before anything is charged, so no transaction is
    /// ever charged for an install that a delete removes under it.
    /// - Throws: `TipJarError.installNotFound`; `.purchaseInProgress` while a purchase is open, `.installBeingDeleted`
    ///   while another delete of it runs; storage errors.
    public func deleteInstall(_ installID: String) async throws {
        expireSheet(installID: installID)
        guard !openPurchases.contains(installID) else { throw TipJarError.purchaseInProgress(installID: installID) }
        guard deletingInstalls.insert(installID).inserted else { throw TipJarError.installBeingDeleted(installID) }
        defer { deletingInstalls.remove(installID) }
        guard try await storage.deleteInstall(withID: installID) else { throw TipJarError.installNotFound(installID) }
        lastStates[installID] = nil
        lastLoads[installID] = nil
        event(nil, "install.deleted", "Install \(installID.prefix(8)) deleted; its account's transactions stay with the store.")
    }

    /// Whether a purchase is open for the install right now (its tip buttons are disabled).
    public func isPurchaseOpen(installID: String) -> Bool {
        expireSheet(installID: installID)
        return openPurchases.contains(installID)
    }

    // MARK: Loading

    /// Loads the tip jar's offers: `Product.products(for:)` with the catalog's tip IDs, then the
    /// seed's state machine: a throw or an empty answer → `.unavailable`, else `.ready` in tier order.
    /// - Throws: `TipJarError.installNotFound`; storage errors. Store errors become `.unavailable`.
    public func loadOffers(installID: String) async throws -> TipJarState {
        let install = try await install(installID)
        let state: TipJarState
        do {
            let storefront = Storefront.byCode[install.storefront] ?? Storefront.named(install.storefront) ?? catalog.defaultStorefront
            // The tiles of a full answer are computed once per storefront and locale; any other answer is sorted here.
            let listing = store.offers.listing(storefront: storefront, locale: install.locale)
            let products = try await store.products(for: store.offers.tipIDs, storefront: storefront, locale: install.locale)
            let offers = products == listing.storeTips ? listing.tipOffers : Self.offers(from: products, catalog: catalog, locale: install.locale)
            state = offers.isEmpty ? .unavailable(.empty) : .ready(offers)
        } catch let error as StoreKitError {
            state = .unavailable(.loadFailed(error))
        }
        recordStateChange(state, installID: installID)
        // A page shows the last load (``lastLoad(installID:)``): a different one (new prices after a storefront
        // change, which the timeline does not list) must reach whatever keeps a page, as a change does.
        if lastLoads[installID] != state { timeline.noteChange(installID: installID) }
        lastLoads[installID] = state
        return state
    }

    /// The state the install's last load reached since its launch, or `nil` when it has not loaded since (the app keeps
    /// the products it loaded while it runs, so a page shown again can show them without loading).
    public func lastLoad(installID: String) -> TipJarState? { lastLoads[installID] }

    /// Appends the state's timeline event only when it differs from the last one this install's loads
    /// reached (first load, ready → unavailable when an outage starts, unavailable → ready after Retry,
    /// a different offer count or error); the transient `loading` is never recorded.
    func recordStateChange(_ state: TipJarState, installID: String) {
        let (kind, detail): (String, String)
        switch state {
        case .ready(let offers): (kind, detail) = ("state.ready", "ready: \(offers.count) offers.")
        case .unavailable(.empty): (kind, detail) = ("state.unavailable", "unavailable: the store returned no products.")
        case .unavailable(.loadFailed(let error)): (kind, detail) = ("state.unavailable", "unavailable: Product.products(for:) threw \(error).")
        case .loading: return
        }
        let key = kind + " " + detail
        guard lastStates[installID] != key else { return }
        lastStates[installID] = key
        event(installID, kind, detail)
    }

    /// Turns store products into tile values in tier order, whatever order the store used
    /// (README "Domain rules": Catalog): the catalog's tip order decides; products outside it are dropped.
    /// - Parameter locale: the install's language, for the tile names the tip jar gives the tiers itself
    ///   (``Catalog/tileName(of:locale:)``); any other tip's tile shows `Product.displayName`.
    public nonisolated static func offers(from products: [Product], catalog: Catalog, locale: AppLocale) -> [TipOffer] {
        let byID = Dictionary(products.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return catalog.tips.compactMap { entry in
            guard let product = byID[entry.productID] else { return nil }
            let tier = catalog.tier(of: entry)
            let name = catalog.tipOrder == .tierOrder && tier != nil ? catalog.tileName(of: entry, locale: locale) : product.displayName
            return TipOffer(
                productID: product.id, tier: tier, name: name, emoji: tier?.emoji ?? "💝",
                tint: tier?.tint ?? TipTier.otherTint, displayPrice: product.displayPrice)
        }
    }
}
