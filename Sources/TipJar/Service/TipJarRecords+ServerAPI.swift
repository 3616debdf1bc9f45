import Foundation

extension TipJarRecords {
    /// ``ServerAPIStorage/serverAPITransactions(matching:)``; none when the storage keeps no such reads.
    public func serverAPITransactions(matching query: ServerAPIHistoryQuery) async throws -> [StoredTransaction] {
        guard let reads = storage as? any ServerAPIStorage else { return [] }
        return try await reads.serverAPITransactions(matching: query)
    }

    /// ``ServerAPIStorage/accountID(appTransactionID:appBundleID:)``; `nil` when the storage keeps no such reads.
    public func accountID(appTransactionID: String, appBundleID: String) async throws -> String? {
        guard let reads = storage as? any ServerAPIStorage else { return nil }
        return try await reads.accountID(appTransactionID: appTransactionID, appBundleID: appBundleID)
    }

    /// ``ServerAPIStorage/firstSeen(accountID:)``; `nil` when the storage keeps no such reads.
    public func firstSeen(accountID: String) async throws -> Date? {
        guard let reads = storage as? any ServerAPIStorage else { return nil }
        return try await reads.firstSeen(accountID: accountID)
    }
}
