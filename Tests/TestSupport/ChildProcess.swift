import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn(3)`, for the tests that run the `tipjar` binary.
///
/// Not Foundation's `Process`: on Linux its `run()` walks `/proc/self/fd` with a 256-byte copy of
/// each `dirent`'s name and crashes now and then when a record sits at the end of glibc's buffer
/// (swift-corelibs-foundation's `Process.swift`; seen here in full test runs). Standard output and error are socket pairs created close-on-exec, so no
/// other child inherits them and a reader sees end-of-file when this child exits; the child starts
/// with no signal blocked and default dispositions for the signals the tests send.
///
/// `@unchecked Sendable`: the one mutable property, the exit status, is read and written only under `state`.
public final class ChildProcess: @unchecked Sendable {
    /// The child's process ID.
    public let processIdentifier: pid_t
    /// The read end of the child's standard output.
    public let standardOutput: FileHandle
    /// The read end of the child's standard error.
    public let standardError: FileHandle
    private let state = NSLock()
    private var exitStatus: Int32?

    /// How the child ended, once it has.
    public enum TerminationReason: Equatable { case exit, uncaughtSignal }

    /// Starts `executable` with `arguments`, standard input from `/dev/null`.
    /// - Throws: `POSIXError` when a pipe or the spawn fails.
    public init(_ executable: URL, arguments: [String]) throws {
        // A socket pair stands in for pipe2(O_CLOEXEC), which Glibc's Swift module does not export:
        // close-on-exec from the start, so a child spawned by another thread never inherits it.
        func makePipe() throws -> (read: Int32, write: Int32) {
            var fds: [Int32] = [0, 0]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            return (fds[0], fds[1])
        }
        let out = try makePipe(), err = try makePipe()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, out.write, 1)
        posix_spawn_file_actions_adddup2(&actions, err.write, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), defaults = sigset_t()
        sigemptyset(&none)
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGPIPE, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable.path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable.path, &actions, &attributes, argv, environ)
        close(out.write)
        close(err.write)
        guard result == 0 else {
            close(out.read)
            close(err.read)
            throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO)
        }
        processIdentifier = pid
        standardOutput = FileHandle(fileDescriptor: out.read, closeOnDealloc: true)
        standardError = FileHandle(fileDescriptor: err.read, closeOnDealloc: true)
    }

    /// Whether the child has not exited yet (reaps it when it has).
    public var isRunning: Bool {
        state.withLock {
            if exitStatus != nil { return false }
            var status: Int32 = 0
            guard waitpid(processIdentifier, &status, WNOHANG) == processIdentifier else { return true }
            exitStatus = status
            return false
        }
    }

    /// Blocks until the child exits.
    public func waitUntilExit() {
        state.withLock {
            guard exitStatus == nil else { return }
            var status: Int32 = 0
            while waitpid(processIdentifier, &status, 0) == -1 && errno == EINTR {}
            exitStatus = status
        }
    }

    /// Blocks until the child exits or `seconds` pass, on a thread that waits in `waitpid(2)` (no polling);
    /// answers whether it exited. When it did not, the waiting thread stays until it does: kill the child.
    public func waitForExit(seconds: Int) -> Bool {
        let exited = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            self.waitUntilExit()
            exited.signal()
        }
        return exited.wait(timeout: .now() + .seconds(seconds)) == .success
    }

    private var status: Int32 {
        waitUntilExit()
        return state.withLock { exitStatus ?? 0 }
    }

    /// `exit` when the child returned or called `exit`, `uncaughtSignal` when a signal ended it.
    public var terminationReason: TerminationReason { (status & 0x7f) == 0 ? .exit : .uncaughtSignal }

    /// The exit code, or the number of the signal that ended the child.
    public var terminationStatus: Int32 { terminationReason == .exit ? (status >> 8) & 0xff : status & 0x7f }

    /// The next bytes `handle` delivers (at most 64 KiB), empty at end of file, read with `read(2)` and retried on
    /// `EINTR`: Foundation's `availableData` and `readDataToEndOfFile()` trap when a signal interrupts their read.
    public static func readChunk(_ handle: FileHandle) -> Data {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
            if count >= 0 { return Data(buffer[0..<count]) }
            if errno != EINTR { return Data() }
        }
    }

    /// Everything `handle` delivers until end of file (``readChunk(_:)`` after ``readChunk(_:)``).
    public static func readToEnd(_ handle: FileHandle) -> Data {
        var data = Data()
        while true {
            let chunk = readChunk(handle)
            if chunk.isEmpty { return data }
            data += chunk
        }
    }
}
