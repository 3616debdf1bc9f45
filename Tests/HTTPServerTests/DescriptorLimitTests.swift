import TestSupport
import Testing

@testable import HTTPServer

/// Every connection is a descriptor (RLIMIT_NOFILE, getrlimit(2)): the caps fit the limit, less a
/// reserve for the database, files and the log, so `accept4(2)` does not fail with EMFILE.
@Suite("Connection caps and the descriptor limit")
struct DescriptorLimitTests {
    @Test func theCapsFitTheCommonSoftLimitOf1024WithTheReserveLeft() {
        let fitted = HTTPServerConfiguration().fitted(toDescriptorLimit: 1024)
        #expect(fitted.maxConnections + fitted.maxShedConnections + DescriptorLimit.reserve <= 1024)
        #expect(fitted.maxConnections == 784)
        #expect(fitted.maxShedConnections == 112)
        #expect(fitted.maxConnectionsPerAddress == 512)
    }

    @Test func thePerAddressCapIsNeverAboveTheWholeCap() {
        let fitted = HTTPServerConfiguration().fitted(toDescriptorLimit: 256)
        #expect(fitted.maxConnections + fitted.maxShedConnections + DescriptorLimit.reserve <= 256)
        #expect(fitted.maxConnectionsPerAddress == fitted.maxConnections)
    }

    @Test func capsThatFitAreKept() {
        let configuration = HTTPServerConfiguration()
        let fitted = configuration.fitted(toDescriptorLimit: 1 << 20)
        #expect(fitted.maxConnections == configuration.maxConnections)
        #expect(fitted.maxShedConnections == configuration.maxShedConnections)
    }

    @Test func theRunningServerUsesTheFittedCaps() async throws {
        let server = HTTPServer(configuration: .onTestExecutor(), responder: Router<BasicRequestContext>())
        _ = try server.start()
        let running = try #require(server.runningConfiguration)
        let limit = try #require(DescriptorLimit.current)
        #expect(running.maxConnections + running.maxShedConnections + DescriptorLimit.reserve <= max(limit, 2 + DescriptorLimit.reserve))
        await server.shutdown(timeout: .seconds(1))
    }
}
