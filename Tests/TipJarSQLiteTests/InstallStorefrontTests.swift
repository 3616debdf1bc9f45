import Foundation
import Testing
import TipJar

@testable import SQLiteDatabase
@testable import TipJarSQLite

/// An install can be created in any App Store storefront and moved to another while it runs, as StoreKit's
/// `Storefront.updates` reports: the next load prices the same numbers in the new currency.
@Suite("Install storefronts")
struct InstallStorefrontTests {
    @Test("an install can start in any storefront", arguments: ["LUX", "RUS", "HRV", "KAZ", "xks"])
    func createAnywhere(code: String) async throws {
        let world = try await TestWorld.make()
        let install = try await world.service.createInstall(locale: .en, storefront: code)
        #expect(install.storefront == code.uppercased())
        #expect(try await world.service.install(install.id).storefront == code.uppercased())
    }

    @Test("an unknown storefront is refused with the closest codes, and nothing is created")
    func unknownAtCreation() async throws {
        let world = try await TestWorld.make()
        await #expect(throws: TipJarError.invalidValue(field: "storefront", reason: Storefront.unknownCodeMessage("LUQ"))) {
            try await world.service.createInstall(locale: .en, storefront: "LUQ")
        }
        #expect(try await world.storage.installs(matching: InstallQuery()).installs.isEmpty)
        #expect(Storefront.unknownCodeMessage("LUQ").contains("closest: LUX"))
    }

    @Test("changing the storefront: the next load shows the new currency, the timeline says so, old transactions keep theirs")
    func changeWhileRunning() async throws {
        let world = try await TestWorld.make()
        let install = try await world.runningInstall()
        _ = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        guard case .ready(let before) = try await world.service.loadOffers(installID: install.id) else { Issue.record("not ready"); return }
        #expect(before.map(\.displayPrice) == ["$0.99", "$2.99", "$4.99"])

        let moved = try await world.service.setStorefront("gbr", installID: install.id)
        #expect(moved.storefront == "GBR")
        #expect(moved.isRunning, "the app keeps running, as with Storefront.updates")
        guard case .ready(let after) = try await world.service.loadOffers(installID: install.id) else { Issue.record("not ready"); return }
        #expect(after.map(\.displayPrice) == ["£0.99", "£2.99", "£4.99"])
        let event = try #require(world.service.timeline.events(installID: install.id, limit: 50).last { $0.kind == "storefront.changed" })
        #expect(event.detail.contains("USA → GBR"))
        #expect(event.detail.contains("GBP"))
        #expect(try await world.storage.transaction(withID: 1)?.transaction.storefront == "USA")
        let second = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        #expect(try await world.storage.transaction(withID: try #require(second.transactionID))?.transaction.storefront == "GBR")
    }

    @Test("a bad code or an unknown install changes nothing")
    func refusals() async throws {
        let world = try await TestWorld.make()
        let install = try await world.runningInstall()
        await #expect(throws: TipJarError.self) { try await world.service.setStorefront("GB", installID: install.id) }
        await #expect(throws: TipJarError.installNotFound("nope")) { try await world.service.setStorefront("GBR", installID: "nope") }
        #expect(try await world.service.install(install.id).storefront == "USA")
        #expect(!world.service.timeline.events(installID: install.id, limit: 50).contains { $0.kind == "storefront.changed" })
    }

    @Test("the same storefront again is not a change")
    func sameStorefront() async throws {
        let world = try await TestWorld.make()
        let install = try await world.runningInstall()
        #expect(try await world.service.setStorefront("usa", installID: install.id).storefront == "USA")
        #expect(!world.service.timeline.events(installID: install.id, limit: 50).contains { $0.kind == "storefront.changed" })
    }
}
