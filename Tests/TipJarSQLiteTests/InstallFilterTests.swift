import Foundation
import Testing
import TipJar

@testable import SQLiteDatabase
@testable import TipJarSQLite

/// The install filter of `transactions(matching:)` reads the accounts' index through `install_accounts`
/// (`TipJarSchema.v20`), and lists exactly the rows whose `install_id` is the install's, as an index on that column did.
@Suite("Install filter")
struct InstallFilterTests {
    static func filed(_ id: UInt64, accountID: String, installID: String) -> StoredTransaction {
        StoredTransaction(
            transaction: Transaction(id: id, productID: TestWorld.coffee, purchaseDate: TestWorld.epoch, storefront: "USA"),
            accountID: accountID, installID: installID, status: .purchased)
    }

    static func ids(_ page: TransactionPage) -> [UInt64] { page.transactions.map(\.transaction.id) }

    @Test func anInstallsTransactionsAreListedWhateverAccountTheyAreFiledUnderAndAfterTheInstallIsDeleted() async throws {
        let world = try await TestWorld.make()
        let phone = try await world.runningInstall(accountID: "ana")
        let tablet = try await world.runningInstall(accountID: "ana")
        for installID in [phone.id, phone.id, tablet.id] {
            #expect(try await world.service.purchase(productID: TestWorld.coffee, installID: installID).outcome == .purchased)
        }
        try await world.storage.insert(Self.filed(10, accountID: "bob", installID: phone.id))
        let storage = world.storage

        #expect(Self.ids(try await storage.transactions(matching: TransactionQuery(installID: phone.id))) == [10, 2, 1])
        #expect(Self.ids(try await storage.transactions(matching: TransactionQuery(installID: tablet.id))) == [3])
        #expect(Self.ids(try await storage.transactions(matching: TransactionQuery(accountID: "bob", installID: phone.id))) == [10])
        #expect(Self.ids(try await storage.transactions(matching: TransactionQuery(accountID: "ana", installID: phone.id))) == [2, 1])
        #expect(try await storage.transactions(matching: TransactionQuery(accountID: "carol", installID: phone.id)).transactions.isEmpty)
        #expect(try await storage.transactions(matching: TransactionQuery(installID: "never-installed")).transactions.isEmpty)
        let second = try await storage.transactions(matching: TransactionQuery(installID: phone.id, page: 2, pageSize: 1))
        #expect(Self.ids(second) == [2] && second.hasMore)

        // A transaction moved to another account or install (no code path does; SQL can) is listed where it went.
        try storage.pool.writer.writeSync { db in
            try db.execute(sql: "UPDATE transactions SET install_id = ?, account_id = 'dora' WHERE id = 1", arguments: [tablet.id])
        }
        #expect(Self.ids(try await storage.transactions(matching: TransactionQuery(installID: tablet.id))) == [3, 1])
        #expect(Self.ids(try await storage.transactions(matching: TransactionQuery(installID: phone.id))) == [10, 2])

        // The app deleted from the device: its transactions stay with the store, and stay listed by install.
        #expect(try await storage.deleteInstall(withID: phone.id))
        #expect(Self.ids(try await storage.transactions(matching: TransactionQuery(installID: phone.id))) == [10, 2])
    }

    @Test func onlyAnInstallsFirstTransactionUnderAnAccountFilesIt() async throws {
        let world = try await TestWorld.make()
        let phone = try await world.runningInstall(accountID: "ana")
        for _ in 0..<3 { _ = try await world.service.purchase(productID: TestWorld.coffee, installID: phone.id) }
        try await world.storage.insert(Self.filed(10, accountID: "bob", installID: phone.id))
        let pairs = try world.storage.pool.readSync { db in
            try db.fetchAll(sql: "SELECT install_id, account_id FROM install_accounts ORDER BY account_id", arguments: []) { row in
                "\(try row.value(at: 0, as: String.self)) \(try row.value(at: 1, as: String.self))"
            }
        }
        #expect(pairs == ["\(phone.id) ana", "\(phone.id) bob"])
    }
}
