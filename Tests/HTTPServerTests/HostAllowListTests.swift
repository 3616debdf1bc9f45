import Foundation
import TestSupport
import Testing

@testable import HTTPServer

/// The `Host` allow-list (RFC 9110 §7.2, §15.5.20 421 Misdirected Request), the defence against
/// DNS rebinding: a wildcard bind accepts the machine's own names and addresses plus the
/// configured ones, nothing else.
@Suite("Host allow-list")
struct HostAllowListTests {
    static func accepts(_ allowed: Set<String>, _ host: String) throws -> Bool {
        allowed.contains(try HostValidator.normalize(ArraySlice(host.utf8)))
    }

    static let wildcard = HTTPServerConfiguration(
        host: "0.0.0.0", port: 8080, additionalHosts: ["tipjar.lan", "proxy.lan:443", "2001:db8::9"],
        machineNames: ["box", "192.0.2.7", "fe80::1"])

    @Test(arguments: [
        "localhost:8080", "127.0.0.1:8080", "[::1]:8080", "BOX:8080", "box:8080", "192.0.2.7:8080", "[fe80::1]:8080",
        "tipjar.lan:8080", "proxy.lan:443", "[2001:db8::9]:8080",
    ])
    func aWildcardBindAcceptsTheMachinesOwnNamesAndTheConfiguredOnes(_ host: String) throws {
        #expect(try Self.accepts(HostValidator.allowList(for: Self.wildcard, port: 8080), host))
    }

    @Test(arguments: [
        "evil.example:8080", "evil.example", "box:9999", "box", "tipjar.lan:443", "proxy.lan:8080", "192.0.2.8:8080",
        "0.0.0.0:8080", "127.0.0.2:8080", "box.evil.example:8080",
    ])
    func aWildcardBindRefusesEveryOtherName(_ host: String) throws {
        #expect(try !Self.accepts(HostValidator.allowList(for: Self.wildcard, port: 8080), host))
    }

    @Test func withoutTheSeamAWildcardBindReadsTheHostNameAndTheInterfaces() throws {
        for host in ["0.0.0.0", "::"] {
            let allowed = HostValidator.allowList(for: HTTPServerConfiguration(host: host), port: 8080)
            #expect(try Self.accepts(allowed, "127.0.0.1:8080"))
            #expect(try Self.accepts(allowed, ProcessInfo.processInfo.hostName + ":8080"), "the machine's host name")
            #expect(try !Self.accepts(allowed, "evil.example:8080"))
        }
        let names = MachineNames.current()
        #expect(names.contains("127.0.0.1"), "the loopback interface is one of getifaddrs' addresses")
    }

    @Test(arguments: [
        ("0.0.0.0", "127.0.0.1"), ("::", "[::1]"), ("[::]", "[::1]"), ("127.0.0.1", "127.0.0.1"), ("::1", "[::1]"),
        ("localhost", "localhost"), ("192.0.2.7", "192.0.2.7"), ("fe80::1", "[fe80::1]"),
    ])
    func theURLPrintedForABindNamesAHostTheAllowListAccepts(_ bind: String, _ urlHost: String) throws {
        #expect(HTTPServerConfiguration.urlHost(forBind: bind) == urlHost)
        let allowed = HostValidator.allowList(for: HTTPServerConfiguration(host: bind, port: 8080, machineNames: []), port: 8080)
        #expect(try Self.accepts(allowed, "\(urlHost):8080"), "a browser opening http://\(urlHost):8080/ is served")
    }

    @Test func aSpecificBindAcceptsItsAddressAndTheConfiguredNames() throws {
        let allowed = HostValidator.allowList(
            for: HTTPServerConfiguration(
                host: "192.0.2.7", additionalHosts: ["tipjar.lan"],
                machineNames: ["box"]), port: 80)
        #expect(try Self.accepts(allowed, "192.0.2.7"))
        #expect(try Self.accepts(allowed, "tipjar.lan:80"))
        #expect(try !Self.accepts(allowed, "box"), "the machine's names are for a wildcard bind")
        #expect(try !Self.accepts(allowed, "localhost"))
    }

    @Test(arguments: [
        ("tipjar.lan", true), ("tipjar.lan:8443", true), ("fe80::1", true), ("[fe80::1]:80", true), ("10.0.0.1", true),
        ("", false), ("bad host", false), ("user@host", false), ("host:99999", false), ("[fe80::1", false),
    ])
    func allowedHostEntriesAreCheckedBeforeTheServerStarts(_ name: String, _ valid: Bool) {
        #expect(HTTPServerConfiguration.isValidHost(name) == valid)
    }

    @Test func overARealSocketOnlyTheAllowedNamesReachTheResponder() async throws {
        let (server, port) = try ServerIntegrationTests.makeServer { $0.additionalHosts = ["tipjar.test", "proxy.test:8443"] }
        for (host, status) in [
            ("tipjar.test:\(port)", 200), ("proxy.test:8443", 200), ("127.0.0.1:\(port)", 200),
            ("evil.example:\(port)", 421), ("tipjar.test:1", 421), ("proxy.test:\(port)", 421),
        ] {
            let reply = await TestClient.exchange(port: port, "GET / HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n")
            #expect(TestClient.statuses(reply.text) == [status], "Host: \(host)")
        }
        await server.shutdown(timeout: .seconds(1))
    }
}

/// A connection's later requests are held to the allow-list as its first was: the parser skips the check only for the
/// exact bytes it accepted last.
@Suite("Host allow-list on one connection")
struct HostAllowListPerConnectionTests {
    static func pipeline(_ hosts: [String]) -> ParseOutcome {
        parseBothWays(hosts.map { "GET / HTTP/1.1\r\nHost: \($0)\r\n\r\n" }.joined(), allowedHosts: ["tipjar.lan:8080"])
    }

    @Test func anAllowedHostThenAnotherIsRefusedOnTheSameConnection() {
        let outcome = Self.pipeline(["tipjar.lan:8080", "tipjar.lan:8080", "evil.example:8080"])
        #expect(outcome.requests.count == 2)
        #expect(outcome.error == .misdirected("evil.example:8080"))
    }

    @Test(arguments: ["TIPJAR.lan:8080", "tipjar.lan:08080"])
    func anotherSpellingOfTheAcceptedHostIsCheckedAgainAndStillAllowed(_ spelling: String) {
        let outcome = Self.pipeline(["tipjar.lan:8080", spelling, "tipjar.lan:8080"])
        #expect(outcome.error == nil)
        #expect(outcome.requests.map { $0.request.fields["Host"] } == ["tipjar.lan:8080", spelling, "tipjar.lan:8080"])
    }

    @Test func aHostCanonicallyEquivalentToTheAcceptedOneButOtherBytesIsCheckedAgain() {
        // U+212A KELVIN SIGN is canonically equivalent to "K": Swift's `==` calls the two hosts equal, their bytes differ.
        let outcome = parseBothWays(
            "GET / HTTP/1.1\r\nHost: K.lan\r\n\r\nGET / HTTP/1.1\r\nHost: \u{212A}.lan\r\n\r\n", allowedHosts: ["K.lan"])
        #expect(outcome.requests.count == 1)
        #expect(outcome.error != nil)
    }
}
