import Foundation

extension InMemoryTipJarStorage {
    // MARK: Refund requests

    /// `TipJarStorage.insert(_:)` for a refund request: under the lock, only when none exists for its transaction.
    public func insert(_ request: RefundRequest) -> Bool {
        write { state in
            guard state.refundRequests[request.transactionID] == nil else { return false }
            state.refundRequests[request.transactionID] = request
            return true
        }
    }

    /// `TipJarStorage.refundRequest(transactionID:)`.
    public func refundRequest(transactionID: UInt64) -> RefundRequest? {
        state.withLock { $0.refundRequests[transactionID] }
    }

    /// `TipJarStorage.refundRequests(limit:)`: newest first (by when they were received, then transaction ID).
    public func refundRequests(limit: Int) -> [RefundRequest] {
        state.withLock { state in
            Array(
                state.refundRequests.values.sorted {
                    ($0.requestedAt, $0.transactionID) > ($1.requestedAt, $1.transactionID)
                }.prefix(limit))
        }
    }

    /// `TipJarStorage.update(_:from:)` for a refund request: the state and decision date, only while the saved state is
    /// `expected`'s.
    public func update(_ request: RefundRequest, from expected: RefundRequest) -> Bool {
        write { state in
            guard var saved = state.refundRequests[expected.transactionID], saved.state == expected.state else { return false }
            saved.state = request.state
            saved.decidedAt = request.decidedAt
            state.refundRequests[expected.transactionID] = saved
            return true
        }
    }
}
