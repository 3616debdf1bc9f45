import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension UUID {
    /// A version 4 UUID (RFC 9562 §5.4: 122 random bits, the version `0b0100` in the high bits of octet 6 and the
    /// variant `0b10` in the high bits of octet 8), its 16 bytes from the system's CSPRNG in one call
    /// (`arc4random_buf(3)`, one `getrandom(2)` in glibc 2.36).
    ///
    /// The same kind of UUID as `UUID()`, which FoundationEssentials on Linux makes by opening, reading and closing
    /// `/dev/urandom` for every one: three system calls and a file descriptor for each notification sent.
    public static func random() -> UUID {
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &uuid) { bytes in
            arc4random_buf(bytes.baseAddress!, bytes.count)
            bytes[6] = (bytes[6] & 0x0F) | 0x40
            bytes[8] = (bytes[8] & 0x3F) | 0x80
        }
        return UUID(uuid: uuid)
    }
}
