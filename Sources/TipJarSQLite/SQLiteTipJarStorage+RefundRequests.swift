import SQLiteDatabase
import Foundation
import TipJar

extension SQLiteTipJarStorage {
    // MARK: Refund requests

    /// The `refund_requests` columns ``refundRequest(_:)`` reads by name (`TipJarSchema.v12`).
    static let refundRequestColumns = """
        transaction_id, install_id, account_id, product_id, requested_at_ms, reason, state, decided_at_ms
        """

    /// A refund request from a row of ``refundRequestColumns``, read by column name.
    static func refundRequest(_ row: Row) throws -> RefundRequest {
        RefundRequest(
            transactionID: UInt64(bitPattern: try row.value(named: "transaction_id")),
            installID: try row.value(named: "install_id"), accountID: try row.value(named: "account_id"),
            productID: try row.value(named: "product_id"), requestedAt: date(try row.value(named: "requested_at_ms")),
            reason: (try row.value(named: "reason", as: String?.self)).flatMap(Transaction.RevocationReason.init(rawValue:)),
            state: RefundRequest.State(rawValue: try row.value(named: "state")) ?? .pending,
            decidedAt: (try row.value(named: "decided_at_ms", as: Int64?.self)).map(date))
    }

    /// `TipJarStorage.insert(_:)` for a refund request: `INSERT … ON CONFLICT DO NOTHING` on the transaction's key, so
    /// of two requests for one transaction one row is written.
    public nonisolated(nonsending) func insert(_ request: RefundRequest) async throws -> Bool {
        let arguments: StatementArguments = [
            Int64(bitPattern: request.transactionID), request.installID, request.accountID, request.productID,
            Self.milliseconds(request.requestedAt), request.reason?.rawValue, request.state.rawValue,
            request.decidedAt.map(Self.milliseconds),
        ]
        return try await write { db, changes in
            try db.execute(
                sql: "INSERT INTO refund_requests (\(Self.refundRequestColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                arguments: arguments)
            guard db.changes == 1 else { return false }
            changes.install(request.installID, accountID: request.accountID)
            return true
        }
    }

    /// `TipJarStorage.refundRequest(transactionID:)`: by primary key.
    public nonisolated(nonsending) func refundRequest(transactionID: UInt64) async throws -> RefundRequest? {
        try await pool.read { db in
            try db.cachedStatement(sql: "SELECT \(Self.refundRequestColumns) FROM refund_requests WHERE transaction_id = ?")
                .fetchOne(arguments: [Int64(bitPattern: transactionID)], Self.refundRequest)
        }
    }

    /// `TipJarStorage.refundRequests(limit:)`: newest first.
    public nonisolated(nonsending) func refundRequests(limit: Int) async throws -> [RefundRequest] {
        try await pool.read { db in
            try db.cachedStatement(
                sql: "SELECT \(Self.refundRequestColumns) FROM refund_requests ORDER BY requested_at_ms DESC, transaction_id DESC LIMIT ?"
            ).fetchAll(arguments: [limit], Self.refundRequest)
        }
    }

    /// `TipJarStorage.update(_:from:)` for a refund request: one `UPDATE … WHERE state = ?` (the state it was read in).
    public nonisolated(nonsending) func update(_ request: RefundRequest, from expected: RefundRequest) async throws -> Bool {
        let arguments: StatementArguments = [
            request.state.rawValue, request.decidedAt.map(Self.milliseconds), Int64(bitPattern: expected.transactionID),
            expected.state.rawValue,
        ]
        return try await write { db, changes in
            try db.execute(
                sql: "UPDATE refund_requests SET state = ?, decided_at_ms = ? WHERE transaction_id = ? AND state = ?",
                arguments: arguments)
            guard db.changes == 1 else { return false }
            changes.install(request.installID, accountID: request.accountID)
            return true
        }
    }
}
