import Foundation
import Mustache
import Testing
import TipJar

@testable import TipJarDashboard

/// The install page's render benchmark: renders the install page's view model 100,000 times and prints renders per
/// second. Not a timed test: it asserts only that the page rendered, and runs only when
/// `TIPJAR_BENCHMARK=1` (see `Tests/Benchmarks/install_page_render.sh`, which builds in release).
@Suite("Install page render benchmark", .enabled(if: ProcessInfo.processInfo.environment["TIPJAR_BENCHMARK"] == "1"))
struct InstallPageRenderBenchmark {
    /// The install page of a pt-BR install with three tiles, a thank-you, `rows` ledger rows and
    /// `rows / 2` timeline lines.
    /// The domain values of the page, made once.
    struct Inputs {
        var install: Install
        var offers: [TipOffer]
        var ledger: [Delivery]
        var events: [InstallEvent]
    }

    static func model(_ inputs: Inputs) -> TemplateData {
        ViewModels.installPage(
            install: inputs.install, state: .ready(inputs.offers), isPurchaseOpen: false, ledger: inputs.ledger,
            events: inputs.events, csrfToken: String(repeating: "a", count: 64), catalogName: "TipProducts.storekit",
            textSize: nil, feedback: Feedback(kind: .purchased, locale: .ptBR))
    }

    static func inputs(rows: Int) throws -> Inputs {
        let catalog = try Catalog.shipped()
        let offers = catalog.tips.map { entry in
            TipOffer(
                productID: entry.productID, tier: catalog.tier(of: entry), name: catalog.displayName(of: entry, locale: "pt-BR"),
                emoji: catalog.tier(of: entry)?.emoji ?? "", tint: "", displayPrice: Storefront.bra.displayPrice(entry.price))
        }
        let now = Date(timeIntervalSince1970: 1_757_462_400)
        let install = Install(
            id: "0a1b2c3d-0000-4000-8000-000000000001", label: "iPhone da Ana", locale: .ptBR, storefront: "BRA",
            accountID: "ana@example.com", hearts: 3, isRunning: true, createdAt: now)
        let ledger = (0..<rows).map { (index: Int) -> Delivery in
            let outcome: RecordOutcome = index % 4 == 0 ? .duplicate : .counted
            return Delivery(
                installID: install.id, transactionID: UInt64(index), productID: offers[index % 3].productID,
                path: .purchase, outcome: outcome, finished: true, at: now.addingTimeInterval(Double(index)))
        }
        let events = (0..<rows / 2).map {
            InstallEvent(
                installID: install.id, at: now.addingTimeInterval(Double($0)), kind: "purchase.closed",
                detail: "purchase closed: purchased.")
        }
        return Inputs(install: install, offers: offers, ledger: ledger, events: events)
    }

    /// Renders per second of `body`, run `iterations` times.
    static func measure(_ iterations: Int, _ body: () throws -> Int) rethrows -> Double {
        var bytes = 0
        let elapsed = try ContinuousClock().measure {
            for _ in 0..<iterations { bytes &+= try body() }
        }
        if bytes == 0 { Issue.record("the renders produced no bytes") }
        return Double(iterations) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    @Test(arguments: [0, 20])
    func renderTheInstallPage100000Times(ledgerRows rows: Int) throws {
        let templates = try TemplateSource(directory: LiveServer.repositoryRoot.appendingPathComponent("Templates"), reload: false)
        let inputs = try Self.inputs(rows: rows)
        let model = Self.model(inputs)
        let page = try templates.render("pages/install", model)
        #expect(page.contains("Almoço completo"))
        let iterations = 100_000
        let library = try MustacheLibrary(directory: LiveServer.repositoryRoot.appendingPathComponent("Templates"))
        let value = MustacheValue.object(TemplateSource.withPresenceFlags(model))
        let render = try Self.measure(iterations) { try library.renderUTF8("pages/install", value).count }
        let buildAndRender = try Self.measure(iterations) { try templates.renderUTF8("pages/install", Self.model(inputs)).count }
        print(
            "install page with \(rows) ledger rows: \(page.utf8.count) bytes, \(iterations) renders on one core: "
                + "\(Int(render)) renders/s of its view model; \(Int(buildAndRender)) renders/s building the view model "
                + "from domain values each time, as the server does")
    }
}
