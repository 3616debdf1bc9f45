import Foundation
import Synchronization
import TestSupport
import Testing

@testable import HTTPServer

/// The access log's writer, on a real pipe: a reader that stops reading costs lines (counted and
/// reported once it reads again), never a blocked caller; a reader that went away (EPIPE,
/// https://man7.org/linux/man-pages/man7/pipe.7.html) costs lines, never the process.
@Suite("Log writer on a pipe")
struct LogWriterTests {
    /// A pipe whose buffer is one page (F_SETPIPE_SZ, fcntl(2)), so that it fills after a few lines.
    /// Its write end is never closed: a writer's thread may make one more pass after its test, and
    /// a closed descriptor's number is soon another test's pipe.
    static func smallPipe() -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        _ = fcntl(ends[1], 1031 /* F_SETPIPE_SZ */, 4096)
        return (ends[0], ends[1])
    }

    /// Reads from `fd` until `done` holds for what was read, or 10 s pass.
    static func read(_ fd: Int32, until done: (String) -> Bool) -> String {
        var text = ""
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let deadline = ContinuousClock.now + .seconds(10)
        while !done(text), ContinuousClock.now < deadline {
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 100) > 0 else { continue }
            let n = Glibc.read(fd, &buffer, buffer.count)
            if n <= 0 { break }
            text += String(decoding: buffer[0..<n], as: UTF8.self)
        }
        return text
    }

    @Test func linesThatFindTheBufferFullAreDroppedCountedAndReportedOnceTheReaderReadsAgain() {
        let ends = Self.smallPipe()
        defer { close(ends.read) }
        let writer = LogWriter(fileDescriptor: ends.write, capacity: 4096, name: "test")
        // Nobody reads: the pipe (4 KiB), the batch the thread holds and the buffer (4 KiB each)
        // take at most 12 KiB of these 120 KiB, and every call returns.
        let count = 2000
        for number in 0..<count { writer.write(line: "line \(number) " + String(repeating: "x", count: 48)) }
        #expect(writer.droppedLineCount > 0)
        let text = Self.read(ends.read) { $0.contains(" log lines dropped") && $0.hasSuffix("\n") }
        let lines = text.split(separator: "\n")
        let received = lines.filter { $0.hasPrefix("line ") }.map { Int($0.split(separator: " ")[1])! }
        let reports = lines.filter { $0.hasPrefix("test: ") }
        #expect(reports.count == 1)
        let reported = reports.first.flatMap { Int($0.split(separator: " ")[1]) } ?? -1
        #expect(reports.first == "test: \(reported) log lines dropped: the log's reader fell behind or went away")
        #expect(received.count + reported == count, "every line is either written or counted")
        #expect(reported == writer.droppedLineCount)
        #expect(received == received.sorted(), "lines keep their order")
    }

    @Test func aReaderThatWentAwayCostsTheLinesNotTheProcess() async {
        signal(SIGPIPE, SIG_IGN)  // as `tipjar serve` does at start-up
        let ends = Self.smallPipe()
        close(ends.read)
        let writer = LogWriter(fileDescriptor: ends.write, capacity: 4096, name: "test")
        for number in 0..<100 { writer.write(line: "line \(number)") }
        #expect(writer.flush(timeout: .seconds(10)))
        #expect(await eventually { writer.droppedLineCount == 100 })
    }

    @Test func flushWritesEverythingQueuedForAReader() {
        let ends = Self.smallPipe()
        defer { close(ends.read) }
        let writer = LogWriter(fileDescriptor: ends.write, capacity: 4096, name: "test")
        writer.write(line: "first")
        writer.write(line: "second")
        #expect(writer.flush(timeout: .seconds(10)))
        #expect(Self.read(ends.read) { $0.hasSuffix("second\n") } == "first\nsecond\n")
    }

    @Test func aLineFormattedOnTheWritersThreadKeepsItsPlaceAmongTheOthers() {
        let ends = Self.smallPipe()
        defer { close(ends.read) }
        let writer = LogWriter(fileDescriptor: ends.write, capacity: 4096, name: "test")
        let caller = UInt(pthread_self())
        let formattedOn = Mutex<[UInt]>([])
        writer.write(line: "first")
        writer.write(formatting: {
            formattedOn.withLock { $0.append(UInt(pthread_self())) }
            $0.append(contentsOf: "second".utf8)
        }, estimatedBytes: 7)
        writer.write(line: "third")
        writer.write(formatting: { $0.append(contentsOf: "fourth".utf8) }, estimatedBytes: 7)
        #expect(writer.flush(timeout: .seconds(10)))
        #expect(Self.read(ends.read) { $0.hasSuffix("fourth\n") } == "first\nsecond\nthird\nfourth\n")
        let threads = formattedOn.withLock { $0 }
        #expect(threads.count == 1 && threads.first != caller, "made once, by the writer's thread, not the caller's")
    }

    @Test func aLineToFormatThatFindsTheBufferFullIsDroppedAndCountedUnmade() {
        let ends = Self.smallPipe()
        defer { close(ends.read) }
        let writer = LogWriter(fileDescriptor: ends.write, capacity: 100, name: "test")
        let made = Atomic<Int>(0)
        writer.write(formatting: { made.add(1, ordering: .relaxed); $0.append(contentsOf: "too long".utf8) }, estimatedBytes: 101)
        writer.write(formatting: { made.add(1, ordering: .relaxed); $0.append(contentsOf: "fits".utf8) }, estimatedBytes: 60)
        #expect(writer.droppedLineCount == 1)
        #expect(writer.flush(timeout: .seconds(10)))
        let text = Self.read(ends.read) { $0.contains("dropped") && $0.hasSuffix("\n") }
        #expect(text == "fits\ntest: 1 log lines dropped: the log's reader fell behind or went away\n")
        #expect(made.load(ordering: .relaxed) == 1)
    }
}
