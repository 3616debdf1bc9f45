import Synchronization
import TipJar

/// The Apple Accounts by the `appTransactionId` of their download of one app, for the endpoints that take "any
/// transactionId, originalTransactionId, or appTransactionId" (``AppStoreServerAPIController/customer(_:)``). The
/// identifier is derived from the account and the bundle ID (``Transaction/appTransactionID(accountID:appBundleID:)``)
/// and cannot be read back, so every account is derived once and kept here. Accounts are never forgotten, so the
/// index is derived again only when the number of accounts has changed (a new one signed in) or the bundle ID has;
/// an identifier that names nobody costs one `count(*)`, not a pass over the accounts.
final class AppTransactionIndex: Sendable {
    private struct State {
        var bundleID = ""
        var accountCount = -1
        var accounts: [String: String] = [:]
    }

    private let state = Mutex(State())

    /// Creates an empty index; the first lookup derives it.
    init() {}

    /// The account whose download of `bundleID` has `appTransactionID`, or `nil`.
    func accountID(_ appTransactionID: String, bundleID: String, records: TipJarRecords) async throws -> String? {
        if let found = state.withLock({ $0.bundleID == bundleID ? $0.accounts[appTransactionID] : nil }) { return found }
        let count = try await records.accountCount()
        if state.withLock({ $0.bundleID == bundleID && $0.accountCount == count }) { return nil }
        let accountIDs = try await records.accountIDs()
        var accounts: [String: String] = [:]
        accounts.reserveCapacity(accountIDs.count)
        for accountID in accountIDs {
            if let id = Transaction.appTransactionID(accountID: accountID, appBundleID: bundleID) { accounts[id] = accountID }
        }
        state.withLock { $0 = State(bundleID: bundleID, accountCount: accountIDs.count, accounts: accounts) }
        return accounts[appTransactionID]
    }
}
