import Foundation
import Testing
import TipJar

/// A `.storekit` price some storefront's currency cannot express is warned about wherever the file is read:
/// `tipjar check-storekit`, `tipjar serve`'s standard error at start and `/catalog`. The App Store "supports either zero
/// or two decimal places for prices, depending on the currency" (https://developer.apple.com/documentation/advancedcommerceapi/prices);
/// Apple does not say what Xcode shows for such a price, so the warning says what the simulator charges.
@Suite("Charged price warnings")
struct ChargedPriceWarningTests {
    /// v3-tips-and-subscriptions.storekit sells `io.example.config.tip.a` at 0.99.
    static let file = "v3-tips-and-subscriptions"
    static let warning =
        "products[0] io.example.config.tip.a: 0.99 cannot be charged in CLP, COP, DKK, HKD, HUF, IDR, INR, JPY, KRW, KZT, "
        + "MXN, NGN, NOK, PHP, PKR, RUB, SEK, THB, TWD, TZS, VND (the App Store prices them without decimals): those storefronts charge 1"

    @Test func aPriceAStorefrontCannotChargeIsWarnedAboutByCheckStoreKitServeAndTheCatalogPage() async throws {
        let path = CommandLineTests.fixtures.appendingPathComponent("\(Self.file).storekit").path
        let check = try await CommandLineTests.run(["check-storekit", path, "--storefront", "JPN"])
        #expect(check.status == 0, "\(check.error)")
        #expect(check.output.contains("io.example.config.tip.a\tSmall tip\t¥1\n"), "the amount charged is the amount shown")
        #expect(check.output.split(separator: "\n").contains { $0 == "warning: \(Self.warning)" }, "\(check.output)")

        // serve prints its warnings before it listens: a port in use stops it right after.
        let (fd, port) = try CommandLineInputTests.occupiedPort()
        defer { close(fd) }
        let database = FileManager.default.temporaryDirectory.appendingPathComponent("tipjar-prices-\(UUID().uuidString).sqlite3").path
        let serve = try await CommandLineTests.run(["serve", "--storekit", path, "--port", "\(port)", "--database", database])
        #expect(serve.error.split(separator: "\n").contains { $0 == "tipjar: warning: \(Self.warning)" }, "\(serve.error)")

        try await withLiveServer(catalog: try LiveServer.fixtureCatalog(Self.file)) { server in
            let page = await server.send("GET", "/catalog").body
            #expect(page.contains("<li>\(Self.warning)</li>"), "\(page)")
            #expect(page.contains("Apple does not say what Xcode shows for a price a storefront"))
        }
    }
}
