import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The system's CSPRNG, read 4 KiB at a time: glibc's `arc4random_buf(3)` is one `getrandom(2)` per call (glibc 2.36),
/// a system call for every session cookie and every UUID otherwise. Each byte is handed out once and zeroed as it is.
public enum SystemRandom {
    private static let pool = Mutex<(bytes: [UInt8], next: Int)>(([UInt8](repeating: 0, count: 4096), 4096))

    /// Fills `buffer` (at most 4 KiB) with bytes of the system's CSPRNG.
    public static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        precondition(buffer.count <= 4096, "at most 4 KiB at a time")
        pool.withLock { pool in
            if pool.next + buffer.count > pool.bytes.count {
                pool.bytes.withUnsafeMutableBytes { arc4random_buf($0.baseAddress!, $0.count) }
                pool.next = 0
            }
            pool.bytes.withUnsafeMutableBytes { bytes in
                let taken = UnsafeMutableRawBufferPointer(rebasing: bytes[pool.next..<(pool.next + buffer.count)])
                buffer.copyMemory(from: UnsafeRawBufferPointer(taken))
                taken.initializeMemory(as: UInt8.self, repeating: 0)
            }
            pool.next += buffer.count
        }
    }
}
