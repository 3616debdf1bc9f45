import Foundation
import Synchronization
import TipJar

/// A deterministic world for the domain rules over any ``TipJarStorage``: the shipped catalog, a clock that starts
/// at 2025-09-10T00:00:00Z and ticks one second per reading, install IDs `install-1`, `install-2`, … and
/// transaction IDs 1, 2, 3, … Simulated latencies pass at once.
public struct RuleWorld: Sendable {
    /// The storage under test.
    public let storage: any TipJarStorage
    /// The simulated App Store on it.
    public let store: SimulatedStore
    /// The app's service on it.
    public let service: TipJarService
    /// Every line the core logged.
    public let logged: LogRecorder

    /// The clock's first reading.
    public static let epoch = Date(timeIntervalSince1970: 1_757_462_400)
    /// The shipped catalog's tips.
    public static let coffee = "com.example.tipjar.tip.coffee"
    /// The shipped catalog's second tip.
    public static let snack = "com.example.tipjar.tip.snack"
    /// The shipped catalog's third tip.
    public static let lunch = "com.example.tipjar.tip.lunch"

    /// The shipped catalog, loaded once for every rule.
    static let shippedCatalog = Result { try Catalog.shipped() }

    /// Opens the store and the service on `storage` (a new, empty one), with `settings` saved when they are not
    /// the defaults.
    public static func make(storage: any TipJarStorage, settings: StoreSettings = .normal) async throws -> RuleWorld {
        let logged = LogRecorder()
        let ticks = Mutex(0)
        let installs = Mutex(0)
        let environment = TipJarEnvironment(
            now: {
                epoch.addingTimeInterval(
                    Double(
                        ticks.withLock {
                            $0 += 1; return $0
                        }))
            },
            sleep: { _ in },
            makeInstallID: { "install-\(installs.withLock { $0 += 1; return $0 })" },
            log: { message, metadata in logged.append(message, metadata) })
        let store = try await SimulatedStore(catalog: try shippedCatalog.get(), storage: storage, environment: environment)
        if settings != .normal { try await store.update(settings) }
        return RuleWorld(
            storage: storage, store: store, service: TipJarService(store: store, storage: storage, environment: environment),
            logged: logged)
    }

    /// A running install (created, then launched).
    public func runningInstall(locale: AppLocale = .en, storefront: String = "USA", accountID: String? = nil) async throws -> Install {
        let install = try await service.createInstall(locale: locale, storefront: storefront, accountID: accountID)
        _ = try await service.launch(installID: install.id)
        return try await service.install(install.id)
    }

    /// The install's hearts as the service reads them.
    public func hearts(_ installID: String) async throws -> Int { try await service.install(installID).hearts }

    /// The outcomes of the install's ledger, oldest first.
    public func ledgerOutcomes(_ installID: String) async throws -> [RecordOutcome] {
        try await storage.ledger(installID: installID, limit: 1000).map(\.outcome)
    }

    /// Changes the store's settings.
    public func setSettings(_ change: (inout StoreSettings) -> Void) async throws {
        var settings = store.settings
        change(&settings)
        try await store.update(settings)
    }

    /// A verified coffee transaction (or `productID`), optionally revoked.
    public static func verified(_ id: UInt64, _ productID: String = coffee, revoked: Bool = false) -> VerificationResult<Transaction> {
        .verified(transaction(id, productID, revoked: revoked))
    }

    /// A transaction as the store would issue it on the USA storefront at ``epoch``.
    public static func transaction(_ id: UInt64, _ productID: String = coffee, revoked: Bool = false) -> Transaction {
        var transaction = Transaction(id: id, productID: productID, purchaseDate: epoch, storefront: "USA")
        if revoked {
            transaction.revocationDate = epoch
            transaction.revocationReason = .other
        }
        return transaction
    }
}

/// An in-memory log sink (swift-log's advice: tests read what was logged).
public final class LogRecorder: Sendable {
    private let lines = Mutex<[String]>([])

    /// Creates an empty log.
    public init() {}

    /// Records one line: the message, then the metadata sorted by key as `key=value`.
    public func append(_ message: String, _ metadata: [String: String]) {
        let text = message + " " + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        lines.withLock { $0.append(text) }
    }

    /// Every line so far.
    public var all: [String] { lines.withLock { $0 } }
}
