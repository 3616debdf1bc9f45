import Foundation
import Testing
import SQLiteDatabase
import TipJarSQLite

#if canImport(Glibc)
import Glibc
#endif

/// The `tipjar` executable on input it used to get wrong: an option given twice, a locale of the file's
/// language in another region, a missing file, a wildcard host, and a port already in use (which must name
/// the address and leave no database behind that this run created).
@Suite("tipjar command line input")
struct CommandLineInputTests {
    typealias CLI = CommandLineTests
    /// Runs the executable as ``CommandLineTests/run(_:timeout:)`` does, on a thread of its own.
    static func run(_ arguments: [String]) async throws -> CLI.Run {
        try await CLI.run(arguments)
    }

    static var luxembourg: String { CLI.fixtures.appendingPathComponent("v3-storefront-LUX-fr-de.storekit").path }

    @Test(arguments: [
        ["serve", "--port", "1", "--port", "2"], ["serve", "--reload-templates", "--reload-templates"],
        ["serve", "--host=127.0.0.1", "--host", "127.0.0.2"],
        ["check-storekit", "x.storekit", "--locale", "fr", "--locale", "de"],
        ["check-storekit", "x.storekit", "--storefront=LUX", "--storefront=USA"],
    ])
    func anOptionGivenTwiceIsAUsageError(_ arguments: [String]) async throws {
        let run = try await Self.run(arguments)
        #expect(run.status == 64)
        #expect(run.error.contains("is given twice"), "\(run.error)")
    }

    @Test func aRepeatableOptionMayBeGivenTwice() async throws {
        let run = try await Self.run(["serve", "--allowed-host", "a.lan", "--allowed-host", "b.lan", "--port", "0", "--database", "/nonexistent-dir/x.sqlite3"])
        #expect(run.status == 1, "gets past the options to the database: \(run.error)")
        #expect(!run.error.contains("given twice"))
    }

    // StoreKit names a product in the file's _locale (fr_FR here), whatever the install's language.
    @Test(arguments: [("de_CH", "Un café"), ("de-AT", "Un café"), ("fr_CA", "Un café"), ("FR_be", "Un café")])
    func productNamesFollowTheFilesLocaleWhateverLocaleIsAsked(_ locale: String, _ name: String) async throws {
        let run = try await Self.run(["check-storekit", Self.luxembourg, "--locale", locale])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output.hasPrefix("lu.example.pourboire.cafe\t\(name)\t"), "\(run.output)")
    }

    @Test func aMissingFileIsNamedWithoutAJSONLocation() async throws {
        let run = try await Self.run(["check-storekit", "/nonexistent/tips.storekit"])
        #expect(run.status == 1)
        #expect(run.error == "/nonexistent/tips.storekit: cannot read the file: no such file\n")
    }

    @Test(arguments: ["*.example", "*", "tipjar.*:8080"])
    func aWildcardAllowedHostIsRefused(_ host: String) async throws {
        let run = try await Self.run(["serve", "--allowed-host", host])
        #expect(run.status == 64)
        #expect(run.error.contains("wildcards are not supported: name each host"), "\(run.error)")
    }

    /// A listening TCP socket on 127.0.0.1 and an ephemeral port, so `serve --port` finds it in use.
    static func occupiedPort() throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, 1) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        try #require(bound, "bind an ephemeral port")
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    @Test func aPortInUseNamesTheAddressAndLeavesNoDatabaseThisRunCreated() async throws {
        let (fd, port) = try Self.occupiedPort()
        defer { close(fd) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tipjar-bind-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let database = directory.appendingPathComponent("new.sqlite3").path
        let run = try await Self.run(["serve", "--port", "\(port)", "--database", database])
        #expect(run.status == 1)
        #expect(run.error.contains("cannot listen on 127.0.0.1:\(port): bind failed: Address already in use"), "\(run.error)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "no .sqlite3, -wal or -shm left")
    }

    @Test func aPortInUseKeepsADatabaseThatExistedBefore() async throws {
        let (fd, port) = try Self.occupiedPort()
        defer { close(fd) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tipjar-bind-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let database = directory.appendingPathComponent("kept.sqlite3").path
        let storage = try SQLiteTipJarStorage(path: database, configuration: DatabaseConfiguration())
        try storage.pool.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: database))
        let run = try await Self.run(["serve", "--port", "\(port)", "--database", database])
        #expect(run.status == 1)
        #expect(FileManager.default.fileExists(atPath: database))
        #expect(try Data(contentsOf: URL(fileURLWithPath: database)).count >= before.count)
    }
}
