import Foundation
import TestSupport
import Testing
import SQLiteDatabase
import TipJarSQLite

/// The `tipjar` executable as a person runs it: help texts, `check-storekit` on every fixture,
/// `check-database`, usage errors, and start-up refusals.
@Suite("tipjar command line")
struct CommandLineTests {
    struct Run: Sendable {
        var status: Int32
        var output: String
        var error: String
    }

    /// `TIPJAR_BIN` (to try another build, e.g. the release one), else the `tipjar` built beside the tests.
    static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["TIPJAR_BIN"] { return URL(fileURLWithPath: path) }
        let beside = Bundle.main.bundleURL.appendingPathComponent("tipjar")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        return LiveServer.repositoryRoot.appendingPathComponent(".build/debug/tipjar")
    }

    /// Runs the binary on a thread of its own (a blocked pool thread would starve the live servers
    /// that other suites run meanwhile: the pool has two threads on a two-core machine).
    static func run(_ arguments: [String], timeout: Duration = .seconds(20)) async throws -> Run {
        let result: Result<Run, any Error> = await onThread { Result { try runBlocking(arguments, timeout: timeout) } }
        return try result.get()
    }

    private static func runBlocking(_ arguments: [String], timeout: Duration) throws -> Run {
        let process = try ChildProcess(binary, arguments: arguments)
        // A watchdog: a command that should have exited but did not is killed, so a regression
        // fails this test instead of hanging the suite.
        let seconds = Double(timeout.components.seconds)
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        let outData = ChildProcess.readToEnd(process.standardOutput)
        let errData = ChildProcess.readToEnd(process.standardError)
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, output: String(decoding: outData, as: UTF8.self),
            error: String(decoding: errData, as: UTF8.self))
    }

    /// The first line `serve` prints (the address it serves), read as it arrives.
    static func banner(_ output: FileHandle) -> String {
        var banner = Data()
        while !banner.contains(UInt8(ascii: "\n")) {
            let chunk = ChildProcess.readChunk(output)
            if chunk.isEmpty { break }
            banner += chunk
        }
        return String(decoding: banner, as: UTF8.self)
    }

    static var fixtures: URL { LiveServer.repositoryRoot.appendingPathComponent("Tests/TipJarTests/Fixtures/storekit") }

    @Test func helpExplainsTheCommands() async throws {
        let help = try await Self.run(["--help"])
        #expect(help.status == 0)
        #expect(help.output.contains("serve"))
        #expect(help.output.contains("check-storekit"))
        #expect(help.output.contains("check-database"))
        let check = try await Self.run(["check-database", "--help"])
        #expect(check.status == 0)
        #expect(check.output.contains("integrity_check"))
        let serve = try await Self.run(["serve", "--help"])
        #expect(serve.status == 0)
        for option in [
            "--host", "--port", "--database", "--storekit", "--durability", "--admin-token", "--allowed-host", "--reload-templates",
            "--max-connections-per-address", "--max-streams", "--max-streams-per-address", "--bundle-id",
        ] {
            #expect(serve.output.contains(option), "serve --help does not mention \(option)")
        }
    }

    @Test(arguments: [
        ["frobnicate"], ["serve", "--port", "70000"], ["serve", "--bogus"], ["serve", "--durability", "sometimes"],
        ["serve", "--host", "0.0.0.0"], ["serve", "--host", "0.0.0.0", "--admin-token", "short"],
        ["serve", "--allowed-host", "bad host"], ["serve", "--allowed-host"],
        ["serve", "--max-connections-per-address", "0"], ["serve", "--max-connections-per-address", "many"],
        ["serve", "--max-streams", "0"], ["serve", "--max-streams-per-address", "many"],
        ["serve", "--bundle-id", "com.example.tip jar"], ["serve", "--bundle-id", "com..example"], ["serve", "--bundle-id"],
        ["check-storekit"], ["check-storekit", "a", "b"], ["check-storekit", "x.storekit", "--storefront", "LUQ"],
        ["check-storekit", "x.storekit", "--locale", ""],
        ["check-database"], ["check-database", "a", "b"], ["check-database", "x.sqlite3", "--bogus"],
    ])
    func usageErrorsExit64WithAMessage(_ arguments: [String]) async throws {
        let run = try await Self.run(arguments)
        #expect(run.status == 64)
        #expect(run.error.contains("error:"))
    }

    static let expectedListings: [(file: String, arguments: [String], lines: [String])] = [
        ("v1-single-tip", [], ["\tBig Thanks\t$99.99"]),
        ("v1.1-legacy-error-key", [], ["com.example.helper.consumable.tip\tGenerous tip\t$29.00"]),
        (
            "v3-three-tiers-pt-BR", ["--locale", "pt-BR"],
            [
                "app.example.photos.tip.coffee\tCafé\tR$\u{A0}4,90",
                "app.example.photos.tip.snack\tLanche\tR$\u{A0}6,90",
                "app.example.photos.tip.lunch\tAlmoço completo\tR$\u{A0}9,90",
            ]
        ),
        ("v3-tips-and-subscriptions", [], ["\tSmall tip\t$0.99", "\tMedium tip\t$1.99", "\tLarge tip\t$4.99", "not a tip: "]),
        ("v3-yen-integer-prices", [], ["\t¥100", "\t¥200", "\t¥500"]),
        ("v4-ja-only-names", [], ["\tコーヒー\t", "\tおやつ\t", "\tランチ\t"]),
        ("v4-empty-display-names", [], ["church.example.app.tip.small\t\t$0.99", "church.example.app.tip.medium\t\t", "church.example.app.tip.large\t\t"]),
        ("v4-compact-no-newline", [], ["\tSmall tip — thanks!\t$1.99", "\tMedium tip\t$4.99", "\tLarge tip\t$9.99"]),
        ("v4-empty-catalog", [], []),
        ("v5-nested-offers", [], ["\tCoffee\t$1.69", "\tSnack\t$3.49", "not a tip: "]),
    ]

    @Test(arguments: expectedListings.indices)
    func checkStoreKitListsTheTipsOfEveryGoodFixture(_ index: Int) async throws {
        let expected = Self.expectedListings[index]
        let run = try await Self.run(["check-storekit", Self.fixtures.appendingPathComponent("\(expected.file).storekit").path] + expected.arguments)
        #expect(run.status == 0, "\(expected.file): \(run.error)")
        let lines = run.output.split(separator: "\n").map(String.init)
            .filter { !$0.hasPrefix("applied setting: ") && !$0.hasPrefix("ignored setting: ") }
        var cursor = 0
        for fragment in expected.lines {
            let found = lines[cursor...].firstIndex { $0.contains(fragment) }
            #expect(found != nil, "\(expected.file): no line with \(fragment) in order; got \(lines)")
            cursor = (found ?? cursor) + (fragment.hasPrefix("not a tip") ? 0 : 1)
        }
        if expected.lines.isEmpty { #expect(lines.filter { !$0.hasPrefix("not a tip") }.isEmpty) }
    }

    @Test(arguments: [
        ("v3-storefront-LUX-fr-de", ["--locale", "fr"], ["lu.example.pourboire.cafe\tUn café\t1,99\u{A0}€"]),
        (
            "v3-storefront-LUX-fr-de", ["--locale", "de_DE"],
            [
                "lu.example.pourboire.cafe\tUn café\t1,99\u{A0}€",
                "lu.example.pourboire.croissant\tUn croissant\t3,99\u{A0}€",
            ]
        ),
        ("v4-compact-no-newline", ["--locale", "de", "--storefront", "lux"], ["tip.small\tSmall tip — thanks!\t1,99\u{A0}€"]),
        ("v3-yen-integer-prices", ["--locale", "ja_JP", "--storefront", "KAZ"], ["jp.example.cards.tip.s\t小さな応援\t100,00\u{A0}₸"]),
        // The App Store prices RUB without decimals (Storefront.zeroDecimalCurrencies): 4.90 is charged 5.
        ("v3-three-tiers-pt-BR", ["--storefront", "RUS"], ["app.example.photos.tip.coffee\tCoffee\t5,00\u{A0}₽"]),
    ])
    func checkStoreKitTakesAnyLocaleTheFileHoldsAndAnyStorefront(_ file: String, _ arguments: [String], _ lines: [String]) async throws {
        let run = try await Self.run(["check-storekit", Self.fixtures.appendingPathComponent("\(file).storekit").path] + arguments)
        #expect(run.status == 0, "\(run.error)")
        let output = run.output.split(separator: "\n").map(String.init)
        #expect(Array(output.prefix(lines.count)) == lines)
    }

    @Test func checkStoreKitRefusesALocaleTheFileDoesNotHoldNamingTheOnesItDoes() async throws {
        let run = try await Self.run(["check-storekit", Self.fixtures.appendingPathComponent("v3-storefront-LUX-fr-de.storekit").path, "--locale", "ja"])
        #expect(run.status == 64)
        #expect(run.output.isEmpty)
        #expect(run.error.contains("--locale ja: the file holds no such locale (it holds fr_FR, de_DE, en_US;"))
        let storefront = try await Self.run(["check-storekit", Self.fixtures.appendingPathComponent("v1-single-tip.storekit").path, "--storefront", "RUZ"])
        #expect(storefront.status == 64)
        #expect(storefront.error.contains("unknown storefront \"RUZ\""))
        #expect(storefront.error.contains("closest: RUS"))
    }

    @Test func checkStoreKitEscapesTabsAndLineBreaksSoEveryTipLineHasThreeFields() async throws {
        let run = try await Self.run(["check-storekit", Self.fixtures.appendingPathComponent("v4-names-with-tab-and-newline.storekit").path])
        #expect(run.status == 0)
        let all = run.output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        // The file's settings follow the tips, one `applied setting:` / `ignored setting:` line per key, then a
        // `warning:` per price a currency cannot express (0.99, 2.99 and 4.99 in JPY, …).
        let lines = all.filter { !$0.hasPrefix("applied setting: ") && !$0.hasPrefix("ignored setting: ") && !$0.hasPrefix("warning: ") }
        #expect(all.count == lines.count + 1 + 3)
        #expect(
            lines == [
                "com.example.tabs.tip.small\tSmall\\ttip\t$0.99",
                "com.example.tabs.tip.medium\tMedium tip\\nwith a second line\t$2.99",
                "com.example.tabs.tip.large\tLarge \\\\ tip\\r\t$4.99",
            ])
        #expect(lines.allSatisfy { $0.split(separator: "\t", omittingEmptySubsequences: false).count == 3 })
        #expect(!run.output.contains("\r"))
        let help = try await Self.run(["check-storekit", "--help"])
        #expect(help.output.contains("a tab \\t, a line feed \\n"))
    }

    @Test(arguments: [
        ("bad-truncated", "end of file"), ("bad-not-json", "not a StoreKit configuration file"),
        ("bad-price-not-a-number", "products[1].displayPrice"), ("bad-duplicate-product-id", "com.example.bad.tip.same"),
        ("bad-unknown-product-type", "products[0].type"),
    ])
    func checkStoreKitRefusesEveryBadFixtureNamingTheProblem(_ file: String, _ location: String) async throws {
        let path = Self.fixtures.appendingPathComponent("\(file).storekit").path
        let run = try await Self.run(["check-storekit", path])
        #expect(run.status == 1)
        #expect(run.output.isEmpty, "nothing half-loaded is printed")
        #expect(run.error.hasPrefix(path + ": "))
        #expect(run.error.contains(location))
    }

    @Test(arguments: [("/tmp", "is a folder"), ("/dev/zero", "is not a regular file"), ("/nonexistent/tips.storekit", "no such file")])
    func checkStoreKitExplainsAPathThatIsNotAFile(_ path: String, _ problem: String) async throws {
        let run = try await Self.run(["check-storekit", path])
        #expect(run.status == 1)
        #expect(run.error.hasPrefix(path + ": "))
        #expect(run.error.contains(problem))
    }

    @Test func checkStoreKitPrintsWhatItAppliedAndOneIgnoredLinePerOtherKey() async throws {
        let run = try await Self.run(["check-storekit", Self.fixtures.appendingPathComponent("settings-ask-to-buy-pt-BR.storekit").path])
        #expect(run.status == 0, "\(run.error)")
        let lines = run.output.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("warning: ") }
        let settings = lines.filter { $0.hasPrefix("applied setting: ") || $0.hasPrefix("ignored setting: ") }
        #expect(settings.count == 12, "one line per key of the file's settings: \(settings)")
        #expect(lines.suffix(settings.count) == settings[...], "after the tips")
        for expected in [
            "applied setting: _askToBuyEnabled (true", "applied setting: _locale (pt_BR: new installs start in pt-BR",
            "applied setting: _storeKitErrors (", "ignored setting: _timeRate (", "ignored setting: _billingGracePeriodEnabled (",
            "applied setting: _disableDialogs (true: skipPurchaseSheet on",
        ] {
            #expect(settings.contains { $0.hasPrefix(expected) }, "\(expected)")
        }
    }

    @Test func serveLogsTheFilesSettingsAtStartUp() async throws {
        let run = try await Self.run([
            "serve", "--port", "0", "--database", "/nonexistent-dir/x.sqlite3",
            "--storekit", Self.fixtures.appendingPathComponent("settings-hostile-values.storekit").path,
        ])
        #expect(run.error.contains("tipjar: ignored setting: _askToBuyEnabled (expected true or false, found the string \"yes\")"))
        #expect(run.error.contains("tipjar: ignored setting: _storeKitError (2 (paymentCancelled): SKTestSession.failureError does not support it)"))
        #expect(run.error.contains("tipjar: ignored setting: _storeKitErrors[0] (Load Products: current.index 99 is out of range"))
    }

    /// The shipped catalog's prices are rounded in the zero-decimal currencies by design (Sources/TipJar/README.md,
    /// "Prices"): a first start says nothing alarming about them, `check-storekit` still does, and a developer's own
    /// file with such a price is warned about at start.
    @Test func aStartOnTheShippedCatalogLogsNoWarningButCheckStoreKitAndAnOwnFileDo() async throws {
        // A database in a folder that does not exist: `serve` prints its start-up lines, then exits 1.
        let shipped = try await Self.run(["serve", "--port", "0", "--database", "/nonexistent-dir/x.sqlite3"])
        #expect(shipped.error.contains("tipjar: applied setting: _locale"), "the start-up lines were printed: \(shipped.error)")
        #expect(!shipped.error.contains("warning"), "\(shipped.error)")
        let file = LiveServer.repositoryRoot.appendingPathComponent("Sources/TipJar/Resources/TipProducts.storekit").path
        let check = try await Self.run(["check-storekit", file])
        #expect(check.output.contains("warning: products[0] com.example.tipjar.tip.coffee: 0.99 cannot be charged in CLP"))
        let own = try await Self.run(["serve", "--port", "0", "--database", "/nonexistent-dir/x.sqlite3", "--storekit", file])
        #expect(own.error.contains("tipjar: warning: products[0] com.example.tipjar.tip.coffee: 0.99 cannot be charged in CLP"))
    }

    @Test func serveRefusesACorruptDatabaseAndLeavesItsBytesAlone() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tipjar-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("garbage.sqlite3")
        var generator = SystemRandomNumberGenerator()
        let bytes = Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try bytes.write(to: file)
        let run = try await Self.run(["serve", "--port", "0", "--database", file.path])
        #expect(run.status == 1)
        #expect(run.error.contains(file.path))
        #expect(try Data(contentsOf: file) == bytes)
    }

    @Test func checkDatabaseSaysOkForASoundDatabaseAndExits1NamingTheFileOtherwise() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tipjar-check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = directory.appendingPathComponent("good.sqlite3").path
        try SQLiteTipJarStorage(path: good).pool.close()
        let sound = try await Self.run(["check-database", good])
        #expect(sound.status == 0, "\(sound.error)")
        #expect(sound.output == "\(good): ok\n")

        let garbage = directory.appendingPathComponent("garbage.sqlite3")
        let bytes = Data((0..<8192).map { _ in UInt8.random(in: 0...255) })
        try bytes.write(to: garbage)
        for path in [garbage.path, directory.appendingPathComponent("missing.sqlite3").path] {
            let run = try await Self.run(["check-database", path])
            #expect(run.status == 1)
            #expect(run.error.hasPrefix(path + ": "), "\(run.error)")
        }
        #expect(try Data(contentsOf: garbage) == bytes, "check-database changes nothing")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("missing.sqlite3").path))
    }

    @Test func serveRefusesABadStoreKitFile() async throws {
        let run = try await Self.run([
            "serve", "--port", "0", "--database", "/nonexistent-dir/x.sqlite3",
            "--storekit", Self.fixtures.appendingPathComponent("bad-truncated.storekit").path,
        ])
        #expect(run.status == 1)
        #expect(run.error.contains("bad-truncated.storekit"))
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func serveShutsDownGracefullyOnASignalAndClosesTheDatabase(_ signal: Int32) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tipjar-signal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let database = directory.appendingPathComponent("tipjar.sqlite3").path
        let process = try ChildProcess(Self.binary, arguments: ["serve", "--port", "0", "--database", database])
        #expect(await onThread { Self.banner(process.standardOutput) }.contains("serving TipProducts.storekit on http://127.0.0.1:"))
        #expect(FileManager.default.fileExists(atPath: database + "-wal"))
        kill(process.processIdentifier, signal)
        if await !onThread({ process.waitForExit(seconds: 10) }) {
            kill(process.processIdentifier, SIGKILL)
            Issue.record("tipjar serve ignored signal \(signal) for 10 s")
        }
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
        #expect(!FileManager.default.fileExists(atPath: database + "-wal"), "the database was closed cleanly (WAL checkpointed)")
    }
}
