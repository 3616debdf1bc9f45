import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A log that never blocks or traps its callers, for the access log written on the event loop's
/// thread: ``write(line:)`` only appends to a bounded buffer, and a dedicated thread writes the
/// buffer with `write(2)` (in batches: when 32 KiB are waiting, or every 100 ms). A line can also be
/// queued unformatted (``write(formatting:estimatedBytes:)``): the writer's thread makes its text, in
/// its place among the others, so the I/O thread that answered the request does not.
///
/// A reader that stops reading fills the pipe and blocks only that thread; lines that find the
/// buffer full are dropped and counted, and once a write succeeds again one line reports how many
/// were lost. A reader that went away (`EPIPE`, with SIGPIPE ignored) loses the lines, never the
/// process: `FileHandle.write(_:)` traps on a failed write, `write(2)` returns the error
/// (https://man7.org/linux/man-pages/man2/write.2.html). `EINTR` is retried, `EAGAIN` (a
/// descriptor someone made `O_NONBLOCK`) waits in `poll(2)`.
public final class LogWriter: Sendable {
    struct State {
        var pending: [UInt8] = []
        /// Lines still to be formatted, each with the length `pending` had when it was queued (its place).
        var deferred: [(at: Int, line: @Sendable (inout [UInt8]) -> Void)] = []
        /// The bytes the deferred lines were estimated to take, counted against the capacity.
        var deferredBytes = 0
        var queuedBytes: Int { pending.count + deferredBytes }
        /// The writer thread sleeps on an empty queue until a line comes (``LogWriter/pass()``).
        var isAsleep = false
        /// Lines dropped since the last report.
        var dropped = 0
    }

    /// The process's standard error, with a 256 KiB buffer (over 2,000 access log lines); its thread
    /// starts on first use.
    public static let standardError = LogWriter(fileDescriptor: STDERR_FILENO, capacity: 256 * 1024)

    private let fileDescriptor: Int32
    private let capacity: Int
    private let name: String
    private let state = Mutex(State())
    private let droppedTotal = Atomic<Int>(0)
    /// Signalled when a batch is waiting; the thread also wakes every 100 ms.
    private let wake = DispatchSemaphore(value: 0)
    /// Set while the thread holds a batch.
    private let isWriting = Atomic<Bool>(false)
    private static let batchBytes = 32 * 1024

    /// Creates a writer and starts its thread.
    /// - Parameters:
    ///   - fileDescriptor: Where lines go (standard error by default); not closed by the writer.
    ///   - capacity: Bytes that may wait for the thread; a line that does not fit is dropped. Default 1 MiB.
    ///   - name: The prefix of the line that reports dropped lines, e.g. `tipjar`.
    public init(fileDescriptor: Int32, capacity: Int = 1 << 20, name: String = "tipjar") {
        self.fileDescriptor = fileDescriptor
        self.capacity = capacity
        self.name = name
        let box = WeakBox(self)
        let thread = Thread { Self.run(box) }
        thread.name = "log writer"
        thread.start()
    }

    /// Lines dropped so far, because the buffer was full or the reader had gone away.
    public var droppedLineCount: Int { droppedTotal.load(ordering: .relaxed) }

    /// Queues `line` plus a newline, or drops it (counted) when the buffer is full. Never blocks
    /// on the descriptor.
    /// - Parameter line: One line, without its newline.
    public func write(line: String) {
        let needed = line.utf8.count + 1
        enqueue(needed) { state in
            state.pending.append(contentsOf: line.utf8)
            state.pending.append(UInt8(ascii: "\n"))
        }
    }

    /// Queues a line that the writer's thread formats, after every line queued before it and before every line
    /// queued after it, or drops it (counted) when the buffer is full. Never blocks on the descriptor.
    /// - Parameters:
    ///   - line: Appends the line's bytes, without its newline, to what the thread writes; called once, on the writer's
    ///     thread.
    ///   - estimatedBytes: What the line is expected to take, counted against the capacity until it is written.
    public func write(formatting line: @escaping @Sendable (inout [UInt8]) -> Void, estimatedBytes: Int) {
        enqueue(max(1, estimatedBytes)) { state in
            state.deferred.append((state.pending.count, line))
            state.deferredBytes += max(1, estimatedBytes)
        }
    }

    /// Adds `needed` bytes' worth with `add` when they fit, else counts a dropped line; wakes the thread when a batch
    /// is complete.
    private func enqueue(_ needed: Int, _ add: (inout State) -> Void) {
        let wakeNow: Bool? = state.withLock { state in
            guard state.queuedBytes + needed <= capacity else {
                state.dropped += 1
                return nil
            }
            let before = state.queuedBytes
            add(&state)
            // A line wakes a writer asleep on an empty queue; a full batch, one gathering lines.
            if state.isAsleep {
                state.isAsleep = false
                return true
            }
            return before < Self.batchBytes && state.queuedBytes >= Self.batchBytes
        }
        guard let wakeNow else {
            droppedTotal.add(1, ordering: .relaxed)
            return
        }
        if wakeNow { wake.signal() }
    }

    /// Waits until everything queued so far is written, or `timeout` passes (a reader that does
    /// not read would otherwise hold the caller forever). For shutdown.
    /// - Parameter timeout: The longest wait. Default 1 s.
    /// - Returns: Whether the buffer was written out.
    @discardableResult
    public func flush(timeout: Duration = .seconds(1)) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while state.withLock({ $0.queuedBytes > 0 }) || isWriting.load(ordering: .acquiring) {
            guard ContinuousClock.now < deadline else { return false }
            wake.signal()
            usleep(1_000)
        }
        return true
    }

    /// The writer thread's loop; it holds the writer only during a pass, so an unused writer goes away.
    private static func run(_ writer: WeakBox) {
        while let strong = writer.value {
            strong.pass()
        }
    }

    /// Sleeps while nothing is queued (waking every 5 s, so an unused writer still goes away), then waits up to 100 ms
    /// for a batch, then writes what is waiting, with the report of dropped lines. An idle server's log costs no
    /// wake-ups beyond those.
    private func pass() {
        let sleeps = state.withLock { state -> Bool in
            state.isAsleep = state.queuedBytes == 0 && state.dropped == 0
            return state.isAsleep
        }
        if sleeps {
            let woken = wake.wait(timeout: .now() + .seconds(5)) == .success
            let stillAsleep = state.withLock { state -> Bool in
                defer { state.isAsleep = false }
                return state.isAsleep
            }
            guard woken || !stillAsleep else { return }
        }
        _ = wake.wait(timeout: .now() + .milliseconds(100))
        isWriting.store(true, ordering: .releasing)
        defer { isWriting.store(false, ordering: .releasing) }
        var (bytes, deferred, dropped) = state.withLock { state in
            defer {
                state.pending.removeAll(keepingCapacity: true)
                state.deferred.removeAll(keepingCapacity: true)
                state.deferredBytes = 0
                state.dropped = 0
            }
            return (state.pending, state.deferred, state.dropped)
        }
        if !deferred.isEmpty { bytes = Self.placing(deferred, in: bytes) }
        let lineBytes = bytes.count
        // The lines lost while the reader was away come after those it was still given.
        if dropped > 0 { bytes += Array("\(name): \(dropped) log lines dropped: the log's reader fell behind or went away\n".utf8) }
        guard !bytes.isEmpty, !writeAll(bytes) else { return }
        let lines = bytes[..<lineBytes].reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        droppedTotal.add(lines, ordering: .relaxed)
        dropped += lines
        state.withLock { $0.dropped += dropped }
    }

    /// `bytes` with each deferred line made and put in its place, followed by a newline.
    private static func placing(_ deferred: [(at: Int, line: @Sendable (inout [UInt8]) -> Void)], in bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + deferred.count * 160)
        var copied = 0
        for (at, line) in deferred {
            out.append(contentsOf: bytes[copied..<at])
            copied = at
            line(&out)
            out.append(UInt8(ascii: "\n"))
        }
        out.append(contentsOf: bytes[copied...])
        return out
    }

    /// Writes all of `bytes` with `write(2)`; false on an error other than EINTR/EAGAIN (EPIPE:
    /// the reader went away).
    private func writeAll(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(fileDescriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if n > 0 {
                    offset += n
                } else if n < 0, errno == EINTR {
                    continue
                } else if n < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                    var ready = pollfd(fd: fileDescriptor, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&ready, 1, 100)
                } else {
                    return false
                }
            }
            return true
        }
    }
}

/// A weak reference to a ``LogWriter`` for its thread. `@unchecked Sendable`: `weak var` is not
/// `Sendable`, but loading and clearing a weak reference are atomic in the Swift runtime.
private final class WeakBox: @unchecked Sendable {
    weak var value: LogWriter?
    init(_ value: LogWriter) { self.value = value }
}
