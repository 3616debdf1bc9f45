import Foundation
import Testing
import TipJar

/// `UUID.random()`: the version 4 UUIDs the dashboard gives installs and notifications (RFC 9562 §5.4).
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
}
