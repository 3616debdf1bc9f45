import CSQLite
import Foundation
import Testing
import TipJar

@testable import SQLiteDatabase
@testable import TipJarSQLite

/// A purchase's reads cost the same with a million rows as with ten: each goes straight to its rows through an index
/// (`EXPLAIN QUERY PLAN`, https://sqlite.org/eqp.html), never walking a table or an account's whole history.
@Suite("Purchase query plans")
struct PurchaseQueryPlanTests {
    /// The plan's detail lines for `sql` on a migrated file.
    static func plan(_ sql: String, _ arguments: StatementArguments) throws -> [String] {
        let folder = try SQLiteTemporaryFolder()
        let path = folder.path("tipjar.sqlite3")
        try SQLiteTipJarStorage(path: path, configuration: TestWorld.testDatabase).pool.close()
        let db = try Database(path: path, flags: SQLITE_OPEN_READONLY)
        defer { try? db.close() }
        return try db.fetchAll(sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments) {
            try $0.value(at: 3, as: String.self)
        }
    }

    @Test func theAccountsUnfinishedPurchasesAreReadThroughThePartialIndexNotTheAccountsHistory() throws {
        let plan = try Self.plan(SQLiteTipJarStorage.unfinishedTransactionsSQL, ["account"])
        #expect(plan == ["SEARCH transactions USING INDEX transactions_unfinished (account_id=?)"], "\(plan)")
    }

    @Test func theUnfinishedPurchaseAPurchaseReturnsIsReadThroughThePartialIndex() throws {
        let plan = try Self.plan(SQLiteTipJarStorage.firstUnfinishedTransactionSQL, ["account", "product"])
        #expect(plan == ["SEARCH transactions USING INDEX transactions_unfinished (account_id=?)"], "\(plan)")
    }

    @Test func aPageOfAnInstallsTransactionsUnderAnAccountOfItsOwnIsARangeOfTheAccountsIndexInOrder() throws {
        let query = TransactionQuery(installID: "install", pageSize: 20)
        let (sql, arguments) = try #require(SQLiteTipJarStorage.transactionsSQL(query, filed: [("account", false)]))
        let plan = try Self.plan(sql, arguments)
        #expect(plan == ["SEARCH transactions USING INDEX transactions_by_account (account_id=?)"], "\(plan)")
    }

    @Test func aPageOfAnInstallsTransactionsUnderASharedAccountIsARangeOfItsListInOrder() throws {
        let query = TransactionQuery(installID: "install", status: .purchased, pageSize: 20)
        let (sql, arguments) = try #require(SQLiteTipJarStorage.transactionsSQL(query, filed: [("account", true)]))
        let plan = try Self.plan(sql, arguments)
        #expect(
            plan == ["SEARCH s USING PRIMARY KEY (install_id=?)", "SEARCH t USING INTEGER PRIMARY KEY (rowid=?)"], "\(plan)")
    }

    @Test func theAccountsAnInstallIsFiledUnderAreReadByKey() throws {
        let plan = try Self.plan(SQLiteTipJarStorage.installAccountsSQL, ["install"])
        #expect(plan.first == "SEARCH mine USING COVERING INDEX install_accounts_by_install (install_id=?)", "\(plan)")
        #expect(!plan.contains { $0.hasPrefix("SCAN") || $0.contains("TEMP B-TREE") }, "\(plan)")
    }

    @Test func aPageOfAnAccountsPurchasedTransactionsIsARangeOfItsIndexInOrder() throws {
        let query = TransactionQuery(accountID: "account", status: .purchased, pageSize: 20)
        let (sql, arguments) = try #require(SQLiteTipJarStorage.transactionsSQL(query, filed: nil))
        let plan = try Self.plan(sql, arguments)
        #expect(plan == ["SEARCH transactions USING INDEX transactions_by_account (account_id=?)"], "\(plan)")
    }

    @Test func theAccountsOtherRunningInstallsAreReadThroughTheAccountsIndex() throws {
        let plan = try Self.plan(SQLiteTipJarStorage.otherRunningInstallsSQL, ["account", "install"])
        #expect(plan.first == "SEARCH installs USING INDEX installs_by_account (account_id=?)", "\(plan)")
        #expect(!plan.contains { $0.hasPrefix("SCAN") }, "\(plan)")
    }
}
