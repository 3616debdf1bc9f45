import Foundation
import Testing

/// Sources/TipJar/StoreKitFidelity.md cannot drift: every row names a test that exists, cites Apple (a link to
/// developer.apple.com or Apple's forums) or says *silent* with the choice made, and the table covers each rule the
/// simulator states as StoreKit's.
@Suite("The StoreKit fidelity table")
struct FidelityTableTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The table's rows after its header: (behaviour, Apple, choice, test).
    static func rows() throws -> [[String]] {
        let text = try String(contentsOf: root.appendingPathComponent("Sources/TipJar/StoreKitFidelity.md"), encoding: .utf8)
        let lines = text.split(separator: "\n").map(String.init).filter { $0.hasPrefix("| ") && !$0.hasPrefix("| ---") }
        return lines.dropFirst().map { line in
            line.dropFirst(2).dropLast(2).components(separatedBy: " | ").map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    @Test func everyRowHasFourColumnsAndSaysApplesWordsOrSilent() throws {
        let rows = try Self.rows()
        #expect(rows.count >= 30)
        for row in rows {
            #expect(row.count == 4, "\(row)")
            guard row.count == 4 else { continue }
            let apple = row[1]
            let citesApple = apple.contains("https://developer.apple.com/") || apple.contains("Apple Developer Forums")
            #expect(citesApple || apple.hasPrefix("silent"), "row cites neither Apple nor silence: \(row[0])")
            if apple.hasPrefix("silent") { #expect(row[2] != "—" && !row[2].isEmpty, "a silent row must state its choice: \(row[0])") }
            for link in apple.components(separatedBy: "<").dropFirst().map({ $0.prefix { $0 != ">" } }) {
                #expect(link.hasPrefix("https://developer.apple.com/documentation/"), "\(link)")
            }
        }
    }

    @Test func everyTestTheTableNamesExists() throws {
        for row in try Self.rows() where row.count == 4 {
            let parts = row[3].components(separatedBy: " › ").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "` ")) }
            #expect(parts.count == 2, "\(row[3])")
            guard parts.count == 2 else { continue }
            let file = Self.root.appendingPathComponent(parts[0])
            let source = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            #expect(!source.isEmpty, "no file \(parts[0])")
            let named = source.contains("func \(parts[1])(") || source.contains("StorageRule(name: \"\(parts[1])\"")
            #expect(named, "\(parts[0]) has no test \(parts[1])")
        }
    }
}
