import Foundation
import TestSupport
import Testing
import TipJar

/// Whole pages, byte for byte, against the files in `Tests/TipJarDashboardTests/Golden/`: the install page and the
/// store page, each rendered by a live server after the same steps, with the values that change from run to run
/// (install IDs, session and CSRF tokens, timestamps) replaced by fixed names. A change to a template, a view
/// model or a route that changes a page shows here as the first line that differs.
///
/// After an intended change, regenerate the files and review their diff:
/// `TIPJAR_UPDATE_GOLDEN=1 swift test --filter GoldenPageTests`.
@Suite("Whole pages")
struct GoldenPageTests {
    static let folder = LiveServer.repositoryRoot.appendingPathComponent("Tests/TipJarDashboardTests/Golden")
    static let coffee = "com.example.tipjar.tip.coffee"

    /// `page` with every value that differs between runs replaced: each of `known` (a value and its name), then
    /// UUIDs, 64-hex-digit tokens and UTC timestamps, in the forms the pages show.
    static func normalised(_ page: String, known: [(value: String, name: String)]) -> String {
        var text = page
        for (value, name) in known where !value.isEmpty { text = text.replacingOccurrences(of: value, with: name) }
        let patterns = [
            (#"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"#, "{uuid}"),
            (#"\b[0-9a-f]{64}\b"#, "{token}"),
            (#"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z"#, "{iso-time}"),
            (#"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,3})?"#, "{date-time}"),
            (#"\b\d{2}:\d{2}:\d{2}(\.\d{3})?\b"#, "{time}"),
            // A table's date alone (its time in a span of its own, so the two may take a line each).
            (#"\b\d{4}-\d{2}-\d{2}\b"#, "{date}"),
        ]
        for (pattern, name) in patterns {
            text = text.replacingOccurrences(of: pattern, with: name, options: .regularExpression)
        }
        return text
    }

    /// Compares `page` to the golden file `name`, or writes it there when `TIPJAR_UPDATE_GOLDEN` is set. On a
    /// difference, the page as rendered is kept beside the temporary folder's copy for `diff`.
    static func compare(_ page: String, toGolden name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let file = folder.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["TIPJAR_UPDATE_GOLDEN"] != nil {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(page.utf8).write(to: file)
            return
        }
        guard let golden = try? String(contentsOf: file, encoding: .utf8) else {
            Issue.record(
                "no golden file \(file.path); create it with TIPJAR_UPDATE_GOLDEN=1 swift test --filter GoldenPageTests",
                sourceLocation: sourceLocation)
            return
        }
        guard page != golden else { return }
        let actual = FileManager.default.temporaryDirectory.appendingPathComponent("actual-\(name)")
        try Data(page.utf8).write(to: actual)
        let pageLines = page.components(separatedBy: "\n")
        let goldenLines = golden.components(separatedBy: "\n")
        let common = min(pageLines.count, goldenLines.count)
        let line = (0..<common).first { pageLines[$0] != goldenLines[$0] } ?? common
        Issue.record(
            """
            \(name) differs from its golden file at line \(line + 1):
              golden:   \(line < goldenLines.count ? goldenLines[line] : "(end of file)")
              rendered: \(line < pageLines.count ? pageLines[line] : "(end of file)")
            diff \(file.path) \(actual.path); if the change is intended: TIPJAR_UPDATE_GOLDEN=1 swift test --filter GoldenPageTests
            """, sourceLocation: sourceLocation)
    }

    /// A GET of `target` as a browser sends it, with its page's own session.
    static func page(_ server: LiveServer, _ target: String) async throws -> HTTPReply {
        let reply = await server.send("GET", target, fields: [("Accept", "text/html")])
        #expect(reply.status == 200, "\(target): \(reply.body)")
        return reply
    }

    static func createInstall(_ server: LiveServer, _ body: String) async throws -> String {
        let created = await server.json("POST", "/api/installs", body)
        return try #require(created.object["id"] as? String, "\(created.body)")
    }

    @Test func theInstallPageAfterATipOnAPortugueseInstall() async throws {
        try await withLiveServer { server in
            let id = try await Self.createInstall(server, #"{"label":"iPhone da Ana","locale":"pt-BR","storefront":"BRA","accountID":"ana","launch":true}"#)
            #expect(await server.json("POST", "/api/installs/\(id)/purchases", #"{"productID":"\#(Self.coffee)"}"#).status == 200)
            #expect(await server.send("GET", "/installs/\(id)/offers", fields: [("X-Fragment", "1")]).status == 200)
            let reply = try await Self.page(server, "/installs/\(id)")
            let known = [(id, "{install-id}"), (String(id.prefix(8)), "{install-short-id}"), (reply.csrfToken ?? "", "{csrf-token}")]
            try Self.compare(Self.normalised(reply.body, known: known), toGolden: "install-page.html")
        }
    }

    @Test func theStorePageWithAPendingAnInterruptedAndAPurchasedTransaction() async throws {
        try await withLiveServer { server in
            let id = try await Self.createInstall(server, #"{"label":"iPhone da Ana","accountID":"ana","launch":true}"#)
            let buy = { (settings: String) async in
                #expect(await server.json("PUT", "/api/store", settings).status == 200, "\(settings)")
                #expect(await server.json("POST", "/api/installs/\(id)/purchases", #"{"productID":"\#(Self.coffee)"}"#).status == 200)
            }
            await buy(#"{"purchaseOutcome":"pending"}"#)
            await buy(#"{"purchaseOutcome":"success","interruptedPurchases":true}"#)
            await buy(#"{"interruptedPurchases":false}"#)
            let reply = try await Self.page(server, "/store")
            let known = [(id, "{install-id}"), (String(id.prefix(8)), "{install-short-id}"), (reply.csrfToken ?? "", "{csrf-token}")]
            try Self.compare(Self.normalised(reply.body, known: known), toGolden: "store-page.html")
        }
    }
}
