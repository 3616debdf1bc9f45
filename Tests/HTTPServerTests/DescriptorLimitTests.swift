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

    @Test func theStreamBudgetIsCutInTheSameProportionAsTheConnections() {
        let at1024 = HTTPServerConfiguration().fitted(toDescriptorLimit: 1024)
        #expect(at1024.maxStreams == 196, "a quarter of 784 connections, as 1,024 is of 4,096")
        #expect(at1024.maxStreamsPerAddress == 49)
        let at256 = HTTPServerConfiguration().fitted(toDescriptorLimit: 256)
        #expect(at256.maxConnections == 112)
        #expect(at256.maxStreams == 28)
        #expect(at256.maxStreamsPerAddress == 7)
    }

    @Test(arguments: [64, 256, 1024, 1 << 20])
    func streamsNeverTakeTheSlotsOfClientsThatAreNotStreaming(_ limit: Int) {
        var greedy = HTTPServerConfiguration()
        greedy.maxStreams = 100_000
        greedy.maxStreamsPerAddress = 100_000
        let fitted = greedy.fitted(toDescriptorLimit: limit)
        #expect(fitted.maxStreams <= fitted.maxConnections - fitted.maxConnections / 4)
        #expect(fitted.maxStreamsPerAddress <= max(1, fitted.maxStreams / 4))
        #expect(fitted.maxStreams >= 1)
    }

    @Test func capsThatFitAreKept() {
        let configuration = HTTPServerConfiguration()
        let fitted = configuration.fitted(toDescriptorLimit: 1 << 20)
        #expect(fitted.maxConnections == configuration.maxConnections)
        #expect(fitted.maxShedConnections == configuration.maxShedConnections)
        #expect(fitted.maxStreams == configuration.maxStreams)
        #expect(fitted.maxStreamsPerAddress == configuration.maxStreamsPerAddress)
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
