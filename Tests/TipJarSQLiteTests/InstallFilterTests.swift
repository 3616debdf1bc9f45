import CSQLite
import Foundation
import Testing
import TipJar

@testable import SQLiteDatabase
@testable import TipJarSQLite

/// The install filter of `transactions(matching:)` (`TipJarSchema.v20`): through the account's range when no other
/// install uses the account, through `shared_account_transactions` when one does, and it lists exactly the rows whose
/// `install_id` is the install's, as an index on that column did.
@Suite("Install filter")
struct InstallFilterTests {
    static func filed(_ id: UInt64, accountID: String, installID: String) -> StoredTransaction {
        StoredTransaction(
            transaction: Transaction(id: id, productID: TestWorld.coffee, purchaseDate: TestWorld.epoch, storefront: "USA"),
            accountID: accountID, installID: installID, status: .purchased)
    }

    static func ids(_ storage: SQLiteTipJarStorage, _ query: TransactionQuery) async throws -> [UInt64] {
        try await storage.transactions(matching: query).transactions.map(\.transaction.id)
    }

    /// The install-and-account pairs filed, and the transactions listed by install, as `install account` and `install id`.
    static func filing(_ storage: SQLiteTipJarStorage) throws -> (pairs: [String], listed: [String]) {
        try storage.pool.readSync { db in
            (
                try db.fetchAll(sql: "SELECT install_id || ' ' || account_id FROM install_accounts ORDER BY 1") { try $0.value(at: 0, as: String.self) },
                try db.fetchAll(sql: "SELECT install_id || ' ' || transaction_id FROM shared_account_transactions ORDER BY 1") {
                    try $0.value(at: 0, as: String.self)
                }
            )
        }
    }

    @Test func anInstallsTransactionsAreListedBeforeAndAfterAnotherInstallSharesItsAccountAndAfterItIsDeleted() async throws {
        let world = try await TestWorld.make()
        let storage = world.storage
        let phone = try await world.runningInstall(accountID: "ana")
        let tablet = try await world.runningInstall(accountID: "ana")
        let solo = try await world.runningInstall(accountID: "bob")
        for installID in [phone.id, phone.id, solo.id] {
            #expect(try await world.service.purchase(productID: TestWorld.coffee, installID: installID).outcome == .purchased)
        }
        // Each account used by one install so far: nothing listed by install.
        #expect(try Self.filing(storage).listed.isEmpty)
        #expect(try await Self.ids(storage, TransactionQuery(installID: phone.id)) == [2, 1])
        #expect(try await Self.ids(storage, TransactionQuery(installID: solo.id)) == [3])
        #expect(try await Self.ids(storage, TransactionQuery(installID: tablet.id)).isEmpty)

        // The tablet's first purchase shares "ana": every transaction of the account is listed by install from then on.
        for installID in [tablet.id, phone.id, tablet.id] {
            #expect(try await world.service.purchase(productID: TestWorld.coffee, installID: installID).outcome == .purchased)
        }
        #expect(try await Self.ids(storage, TransactionQuery(installID: phone.id)) == [5, 2, 1])
        #expect(try await Self.ids(storage, TransactionQuery(installID: tablet.id)) == [6, 4])
        #expect(try await Self.ids(storage, TransactionQuery(installID: solo.id)) == [3])
        #expect(try await Self.ids(storage, TransactionQuery(accountID: "ana", installID: phone.id)) == [5, 2, 1])
        #expect(try await Self.ids(storage, TransactionQuery(accountID: "bob", installID: phone.id)).isEmpty)
        #expect(try await Self.ids(storage, TransactionQuery(installID: "never-installed")).isEmpty)
        let second = try await storage.transactions(matching: TransactionQuery(installID: phone.id, page: 2, pageSize: 1))
        #expect(second.transactions.map(\.transaction.id) == [2] && second.hasMore)
        let filing = try Self.filing(storage)
        #expect(filing.pairs == ["\(phone.id) ana", "\(solo.id) bob", "\(tablet.id) ana"].sorted())
        #expect(Set(filing.listed) == Set([1, 2, 5].map { "\(phone.id) \($0)" } + [4, 6].map { "\(tablet.id) \($0)" }))

        // A transaction filed under an account of the install's own beside the shared one: both ranges, one order.
        try await storage.insert(Self.filed(10, accountID: "carol", installID: phone.id))
        #expect(try await Self.ids(storage, TransactionQuery(installID: phone.id)) == [10, 5, 2, 1])
        #expect(try await Self.ids(storage, TransactionQuery(accountID: "carol", installID: phone.id)) == [10])
        #expect(try await Self.ids(storage, TransactionQuery(installID: phone.id, page: 2, pageSize: 2)) == [2, 1])

        // The app deleted from the device: its transactions stay with the store, and stay listed by install.
        #expect(try await storage.deleteInstall(withID: phone.id))
        #expect(try await Self.ids(storage, TransactionQuery(installID: phone.id)) == [10, 5, 2, 1])
        #expect(try await Self.ids(storage, TransactionQuery(installID: tablet.id)) == [6, 4])
    }

    @Test func aPurchaseOnAnAccountOfItsOwnWritesNeitherTableAfterTheFirst() async throws {
        let world = try await TestWorld.make()
        let phone = try await world.runningInstall(accountID: "ana")
        _ = try await world.service.purchase(productID: TestWorld.coffee, installID: phone.id)
        let changes = try world.storage.pool.writer.writeSync { db -> Int32 in
            let before = sqlite3_total_changes(try db.connection())
            try db.execute(sql: SQLiteTipJarStorage.insertTransactionSQL, arguments: SQLiteTipJarStorage.insertArguments(Self.filed(10, accountID: "ana", installID: phone.id)))
            return sqlite3_total_changes(try db.connection()) - before
        }
        #expect(changes == 1, "the transaction's row, and no row of install_accounts or shared_account_transactions")
        #expect(try Self.filing(world.storage).pairs == ["\(phone.id) ana"])
        #expect(try Self.filing(world.storage).listed.isEmpty)
    }

    @Test func theUpgradeFilesEveryTransactionAndListsTheSharedAccountsOnes() async throws {
        let directory = try SchemaUpgradeTests.newFolder("tipjar-upgrade-v19")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("tipjar.sqlite3").path
        let (old, _) = try SchemaUpgradeTests.pool(at: path, migratedThrough: "v19-membership-checks-as-comparisons")
        try old.writeSync { db in
            try db.execute(
                sql: """
                    INSERT INTO transactions (id, product_id, purchase_date_ms, storefront, account_id, install_id, status) VALUES
                        (1, 'com.example.tipjar.tip.coffee', 1000, 'USA', 'ana', 'phone', 'purchased'),
                        (2, 'com.example.tipjar.tip.coffee', 2000, 'USA', 'ana', 'tablet', 'purchased'),
                        (3, 'com.example.tipjar.tip.coffee', 3000, 'USA', 'bob', 'laptop', 'purchased'),
                        (4, 'com.example.tipjar.tip.coffee', 4000, 'USA', 'ana', 'phone', 'purchased');
                    """)
        }
        try old.close()
        let storage = try SQLiteTipJarStorage(path: path, configuration: TestWorld.testDatabase)
        defer { try? storage.pool.close() }
        let filing = try Self.filing(storage)
        #expect(filing.pairs == ["laptop bob", "phone ana", "tablet ana"])
        #expect(filing.listed == ["phone 1", "phone 4", "tablet 2"])
        #expect(try await Self.ids(storage, TransactionQuery(installID: "phone")) == [4, 1])
        #expect(try await Self.ids(storage, TransactionQuery(installID: "laptop")) == [3])
        let indexes = try storage.pool.readSync { db in
            try db.fetchAll(sql: "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'transactions'") { try $0.value(at: 0, as: String.self) }
        }
        #expect(!indexes.contains("transactions_by_install"))
    }
}
