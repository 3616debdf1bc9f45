import Foundation

extension TipJarRecords {
    /// ``ServerAPIStorage/serverAPITransactions(matching:)``; none when the storage keeps no such reads.
    public func serverAPITransactions(matching query: ServerAPIHistoryQuery) async throws -> [StoredTransaction] {
        guard let reads = storage as? any ServerAPIStorage else { return [] }
        return try await reads.serverAPITransactions(matching: query)
    }

    /// ``ServerAPIStorage/accountIDs()``; none when the storage keeps no such reads.
    public func accountIDs() async throws -> [String] {
        guard let reads = storage as? any ServerAPIStorage else { return [] }
        return try await reads.accountIDs()
    }

    /// ``ServerAPIStorage/accountCount()``; 0 when the storage keeps no such reads.
    public func accountCount() async throws -> Int {
        guard let reads = storage as? any ServerAPIStorage else { return 0 }
        return try await reads.accountCount()
    }

    /// ``ServerAPIStorage/firstSeen(accountID:)``; `nil` when the storage keeps no such reads.
    public func firstSeen(accountID: String) async throws -> Date? {
        guard let reads = storage as? any ServerAPIStorage else { return nil }
        return try await reads.firstSeen(accountID: accountID)
    }
}
