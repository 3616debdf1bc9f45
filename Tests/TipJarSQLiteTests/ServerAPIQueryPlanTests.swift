import Foundation
import Testing
import TipJar

@testable import SQLiteDatabase
@testable import TipJarSQLite

/// A page of the App Store Server API's history costs the same on an account with a million transactions as on one with
/// twenty: one range of an index from the page's position, in the index's order, with no sort step
/// (`EXPLAIN QUERY PLAN`, https://sqlite.org/eqp.html; `TipJarSchema.v16`).
@Suite("App Store Server API query plans")
struct ServerAPIQueryPlanTests {
    static func plan(_ query: ServerAPIHistoryQuery) throws -> [String] {
        let (sql, arguments) = SQLiteTipJarStorage.serverAPITransactionsSQL(query)
        return try PurchaseQueryPlanTests.plan(sql, StatementArguments(arguments))
    }

    @Test func aHistoryPageIsOneRangeOfTheHistoryIndexWithoutASort() throws {
        for descending in [false, true] {
            for after in [nil, ServerAPIHistoryQuery.Key(milliseconds: 1_000, id: 7)] {
                let query = ServerAPIHistoryQuery(
                    accountID: "ana", environment: .localTesting, appBundleID: "com.example.tipjar", descending: descending, after: after,
                    productIDs: ["com.example.tipjar.tip.coffee"], revoked: false, excludesFinishedConsumables: true)
                let plan = try Self.plan(query)
                let range = after == nil ? "" : " AND signed_date_ms\(descending ? "<" : ">")?"
                #expect(plan == ["SEARCH transactions USING INDEX transactions_history (account_id=? AND environment=?\(range))"], "\(plan)")
            }
        }
    }

    @Test func aRefundHistoryPageIsOneRangeOfTheRefundsIndexWithoutASort() throws {
        let query = ServerAPIHistoryQuery(
            accountID: "ana", environment: .xcode, appBundleID: "com.example.tipjar", order: .revoked, after: .init(milliseconds: 5, id: 9))
        let plan = try Self.plan(query)
        #expect(plan == ["SEARCH transactions USING INDEX transactions_refunds (account_id=? AND environment=? AND revocation_date_ms>?)"], "\(plan)")
    }
}
