import Foundation
import Synchronization

/// Standard error with a small buffer for the access log: one line per request, written in
/// batches (when 32 KiB are waiting, or every 100 ms) instead of one `write(2)` per request.
/// A SIGKILL can lose at most the last 100 ms of access log lines, never a tip: the ledger is in
/// SQLite. `flush()` runs at shutdown.
final class BufferedStandardError: Sendable {
    private let buffer = Mutex<[UInt8]>([])
    private let flusher = Mutex<Task<Void, Never>?>(nil)
    private static let limit = 32 * 1024

    init() {
        let task = Task.detached(priority: .utility) { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(100))
                self?.flush()
            }
        }
        flusher.withLock { $0 = task }
    }

    /// Queues `line` plus a newline; writes at once when the buffer is full.
    func write(line: String) {
        let full: [UInt8]? = buffer.withLock { bytes in
            bytes.append(contentsOf: line.utf8)
            bytes.append(UInt8(ascii: "\n"))
            guard bytes.count >= Self.limit else { return nil }
            defer { bytes.removeAll(keepingCapacity: true) }
            return bytes
        }
        if let full { FileHandle.standardError.write(Data(full)) }
    }

    /// Writes whatever is waiting.
    func flush() {
        let waiting = buffer.withLock { bytes in
            defer { bytes.removeAll(keepingCapacity: true) }
            return bytes
        }
        if !waiting.isEmpty { FileHandle.standardError.write(Data(waiting)) }
    }

    deinit { flusher.withLock { $0?.cancel() } }
}
