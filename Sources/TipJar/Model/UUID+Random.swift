import Foundation

extension UUID {
    /// A version 4 UUID (RFC 9562 §5.4: 122 random bits, the version `0b0100` in the high bits of octet 6 and the
    /// variant `0b10` in the high bits of octet 8), its random bits from `SystemRandomNumberGenerator`, which reads the
    /// kernel's generator with `getrandom(2)`.
    ///
    /// The same kind of UUID as `UUID()`, which FoundationEssentials on Linux makes by opening, reading and closing
    /// `/dev/urandom` for every one: three system calls and a file descriptor for each notification sent.
    public static func random() -> UUID {
        var generator = SystemRandomNumberGenerator()
        let high: UInt64 = generator.next()
        let low: UInt64 = generator.next()
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<8 {
            bytes[index] = UInt8(truncatingIfNeeded: high >> (8 * UInt64(index)))
            bytes[8 + index] = UInt8(truncatingIfNeeded: low >> (8 * UInt64(index)))
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}
