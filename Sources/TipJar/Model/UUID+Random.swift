import Foundation

extension UUID {
    /// A version 4 UUID (RFC 9562 §5.4: 122 random bits, the version `0b0100` in the high bits of octet 6 and the
    /// variant `0b10` in the high bits of octet 8), its 16 bytes from the system's CSPRNG (``SystemRandom``).
    ///
    /// The same kind of UUID as `UUID()`, which FoundationEssentials on Linux makes by opening, reading and closing
    /// `/dev/urandom` for every one: three system calls and a file descriptor for each notification sent.
    public static func random() -> UUID {
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &uuid) { bytes in
            SystemRandom.fill(bytes)
            bytes[6] = (bytes[6] & 0x0F) | 0x40
            bytes[8] = (bytes[8] & 0x3F) | 0x80
        }
        return UUID(uuid: uuid)
    }

    /// A version 7 UUID (RFC 9562 §5.7): the UNIX time of `date` in milliseconds, big-endian, in the first 48 bits, then
    /// the version `0b0111`, 74 random bits from the system's CSPRNG and the variant `0b10`. UUIDs made one after the
    /// other sort one after the other (to the millisecond), so a unique index of them grows at its end, one page for a
    /// batch of them, instead of a random page each as version 4 UUIDs do.
    public static func timeOrdered(at date: Date) -> UUID {
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        // To the nearest millisecond: a date made from whole milliseconds (as the store keeps them) reads back as those.
        let milliseconds = UInt64(max(0, (date.timeIntervalSince1970 * 1_000).rounded()))
        withUnsafeMutableBytes(of: &uuid) { bytes in
            SystemRandom.fill(UnsafeMutableRawBufferPointer(rebasing: bytes[6...]))
            for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * UInt64(5 - index))) }
            bytes[6] = (bytes[6] & 0x0F) | 0x70
            bytes[8] = (bytes[8] & 0x3F) | 0x80
        }
        return UUID(uuid: uuid)
    }
}
