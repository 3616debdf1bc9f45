import Foundation
import Testing
import TipJar

/// `UUID.random()` and `UUID.timeOrdered(at:)`: the version 4 UUIDs the dashboard gives installs (RFC 9562 §5.4) and
/// the version 7 UUIDs it gives notifications (RFC 9562 §5.7).
@Suite("Random UUIDs")
struct RandomUUIDTests {
    @Test func everyOneIsVersion4WithTheRFCVariantAndParsesBack() throws {
        for _ in 0..<1_000 {
            let uuid = UUID.random()
            let bytes = withUnsafeBytes(of: uuid.uuid) { Array($0) }
            #expect(bytes[6] >> 4 == 0b0100, "version 4 in the high bits of octet 6")
            #expect(bytes[8] >> 6 == 0b10, "the variant of RFC 9562 in the high bits of octet 8")
            let text = uuid.uuidString
            #expect(Array(text)[14] == "4")
            #expect(UUID(uuidString: text) == uuid)
            #expect(UUID(uuidString: text.lowercased()) == uuid, "read back as the JSON API writes it")
        }
    }

    @Test func theyDoNotRepeatAndUseAllOtherBits() {
        let uuids = (0..<10_000).map { _ in UUID.random() }
        #expect(Set(uuids).count == uuids.count)
        // Each of the 122 random bits is set in some UUID and clear in another.
        var ones = [UInt8](repeating: 0, count: 16)
        var zeros = [UInt8](repeating: 0, count: 16)
        for uuid in uuids {
            withUnsafeBytes(of: uuid.uuid) { bytes in
                for index in 0..<16 {
                    ones[index] |= bytes[index]
                    zeros[index] |= ~bytes[index]
                }
            }
        }
        var fixed = [UInt8](repeating: 0, count: 16)
        fixed[6] = 0xF0
        fixed[8] = 0xC0
        for index in 0..<16 {
            #expect(ones[index] & zeros[index] == ~fixed[index], "octet \(index)")
        }
    }

    @Test func aTimeOrderedOneCarriesItsMillisecondAndVersion7() throws {
        let date = Date(timeIntervalSince1970: 1_796_410_935.420)
        let uuid = UUID.timeOrdered(at: date)
        let bytes = withUnsafeBytes(of: uuid.uuid) { Array($0) }
        let milliseconds = bytes[0..<6].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        #expect(milliseconds == 1_796_410_935_420, "RFC 9562 §5.7: unix_ts_ms, big-endian")
        #expect(bytes[6] >> 4 == 0b0111 && bytes[8] >> 6 == 0b10)
        #expect(UUID(uuidString: uuid.uuidString.lowercased()) == uuid)
    }

    @Test func timeOrderedOnesSortByTimeAndDoNotRepeatWithinAMillisecond() {
        let start = Date(timeIntervalSince1970: 1_796_410_935)
        let later = (0..<1_000).map { UUID.timeOrdered(at: start.addingTimeInterval(Double($0) / 1_000)).uuidString.lowercased() }
        #expect(later == later.sorted(), "text order is time order, as an index keeps them")
        #expect(Set(later.map { $0.prefix(13) }).count == later.count, "one millisecond each")
        let sameMillisecond = (0..<10_000).map { _ in UUID.timeOrdered(at: start) }
        #expect(Set(sameMillisecond).count == sameMillisecond.count, "74 random bits apart")
    }
}
