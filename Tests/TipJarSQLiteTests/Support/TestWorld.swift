import Foundation
import Synchronization
import TestSupport
import TipJar
import TipJarStorageRules

@testable import SQLiteDatabase
@testable import TipJarSQLite

/// A deterministic world for service scenarios: a real SQLite file in a temporary folder, the
/// shipped catalog, a clock that starts at 2026-09-10T00:00:00Z and ticks one second per reading,
/// install IDs `install-1`, `install-2`, … and transaction IDs 1, 2, 3, …
struct TestWorld {
    let directory: URL
    let path: String
    let storage: SQLiteTipJarStorage
    let store: SimulatedStore
    let service: TipJarService
    let logged: LogRecorder

    /// The durability tests use unless they are about durability: `synchronous=NORMAL` survives the crash of a
    /// process (<https://www.sqlite.org/pragma.html#pragma_synchronous>), which is all a test can cause.
    static let testDatabase = DatabaseConfiguration(durability: .normal)

    static let epoch = Date(timeIntervalSince1970: 1_757_462_400)

    static func make(
        catalog: Catalog? = nil, settings: StoreSettings = .normal, gate: DelayGate? = nil,
        directory: URL? = nil, database: DatabaseConfiguration = TestWorld.testDatabase
    ) async throws -> TestWorld {
        let directory = directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("tipjar-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("tipjar.sqlite3").path
        let storage = try SQLiteTipJarStorage(path: path, configuration: database)
        let logged = LogRecorder()
        let environment = TestWorld.environment(gate: gate, log: logged)
        let store = try await SimulatedStore(catalog: try catalog ?? Catalog.shipped(), storage: storage, environment: environment)
        if settings != .normal { try await store.update(settings) }
        return TestWorld(
            directory: directory, path: path, storage: storage, store: store,
            service: TipJarService(store: store, storage: storage, environment: environment), logged: logged)
    }

    static func environment(gate: DelayGate?, log: LogRecorder) -> TipJarEnvironment {
        let ticks = Mutex(0)
        let installs = Mutex(0)
        return TipJarEnvironment(
            now: {
                epoch.addingTimeInterval(
                    Double(
                        ticks.withLock {
                            $0 += 1; return $0
                        }))
            },
            sleep: { duration in if let gate { await gate.wait(duration) } },
            makeInstallID: { "install-\(installs.withLock { $0 += 1; return $0 })" },
            log: { message, metadata in log.append(message, metadata) })
    }

    /// Reopens the same file with a fresh service, as a restart of the server would.
    func reopened() async throws -> TestWorld {
        try storage.pool.close()
        let storage = try SQLiteTipJarStorage(path: path, configuration: TestWorld.testDatabase)
        let environment = TestWorld.environment(gate: nil, log: logged)
        let store = try await SimulatedStore(catalog: store.catalog, storage: storage, environment: environment)
        return TestWorld(
            directory: directory, path: path, storage: storage, store: store,
            service: TipJarService(store: store, storage: storage, environment: environment), logged: logged)
    }

    /// A running install (created, then launched).
    func runningInstall(
        locale: AppLocale = .en, storefront: String = "USA", accountID: String? = nil,
        legacyHasTipped: Bool = false
    ) async throws -> Install {
        let install = try await service.createInstall(
            locale: locale, storefront: storefront, accountID: accountID,
            legacyHasTipped: legacyHasTipped)
        _ = try await service.launch(installID: install.id)
        return try await service.install(install.id)
    }

    func hearts(_ installID: String) async throws -> Int { try await service.install(installID).hearts }

    func ledgerOutcomes(_ installID: String) async throws -> [RecordOutcome] {
        try await storage.ledger(installID: installID, limit: 1000).map(\.outcome)
    }

    func setSettings(_ change: (inout StoreSettings) -> Void) async throws {
        var settings = store.settings
        change(&settings)
        try await store.update(settings)
    }

    static let coffee = "com.example.tipjar.tip.coffee"
    static let snack = "com.example.tipjar.tip.snack"
    static let lunch = "com.example.tipjar.tip.lunch"
}
