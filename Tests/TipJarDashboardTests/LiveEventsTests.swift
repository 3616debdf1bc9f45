import Foundation
import TestSupport
import Testing
import TipJar

@testable import TipJarDashboard

#if canImport(Glibc)
import Glibc
#endif

/// The install page's live channel, `GET /installs/{id}/events` (server-sent events,
/// https://html.spec.whatwg.org/multipage/server-sent-events.html), over a real socket: the current
/// fragments on connect, then one event after each change to the install, with the notice that holds.
extension PageTests {
    /// An open event stream: the socket and everything read from it so far.
    final class EventStreamReader: @unchecked Sendable {
        let fd: Int32
        var bytes: [UInt8] = []
        /// Where the next ``next(containing:)`` starts looking.
        var consumed = 0

        init(port: Int, path: String) {
            let fd = TestClient.connect(port: port)
            var request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n\r\n".utf8)
            _ = request.withUnsafeMutableBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            self.fd = fd
        }

        deinit { close(fd) }

        /// The next complete block (up to an empty line: the head, or an event) that holds `needle`,
        /// skipping earlier ones; `nil` when the stream closes or 10 s pass without one.
        func next(containing needle: String) async -> String? {
            await onThread { [self] in
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while true {
                    var index = consumed
                    while index + 1 < bytes.count {
                        // An event ends with LF LF; the head with CR LF CR LF.
                        let crlf = bytes[index + 1] == 0x0D && index + 2 < bytes.count && bytes[index + 2] == 0x0A
                        if bytes[index] == 0x0A && (bytes[index + 1] == 0x0A || crlf) {
                            let end = index + (crlf ? 3 : 2)
                            let block = String(decoding: bytes[consumed..<end], as: UTF8.self)
                            consumed = end
                            if block.contains(needle) { return block }
                            index = end
                            continue
                        }
                        index += 1
                    }
                    let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                    if count <= 0 { return nil }
                    bytes += buffer[0..<count]
                }
            }
        }
    }

    @Test func theLiveChannelPushesEachChangeToTheInstallWithTheNoticeThatHolds() async throws {
        try await withLiveServer(transport: .live, settings: StoreSettings(purchaseOutcome: .pending)) { server in
            let session = try await session(server)
            let id = try await createInstall(server, session)
            let stream = EventStreamReader(port: server.port, path: "/installs/\(id)/events")
            let head = try #require(await stream.next(containing: "HTTP/1.1"))
            #expect(head.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(head.lowercased().contains("content-type: text/event-stream"))
            let first = try #require(await stream.next(containing: "event: live"))
            #expect(first.contains(#"data: <div id="hearts""#))
            #expect(first.contains(#"<strong id="app-state">running</strong>"#))
            #expect(first.contains(#"<div id="timeline">"#) && first.contains(#"<div id="feedback""#))

            _ = await post(server, "/installs/\(id)/purchases", session, form: "productID=com.example.tipjar.tip.coffee", fragment: true)
            let pending = try #require(await stream.next(containing: "notice-pending"))
            #expect(pending.contains("Your purchase is waiting for approval."))

            let transaction = try #require(try await server.storage.pendingTransactions().first { $0.installID == id })
            _ = try await server.service.approve(requestID: transaction.transaction.id)
            let approved = try #require(await stream.next(containing: "notice-purchased"))
            #expect(!approved.contains("notice-pending"))
            #expect(approved.contains("♥♡♡♡♡") && approved.contains(TipJarStrings.english.thankYou))

            _ = try await server.service.stop(installID: id)
            let stopped = try #require(await stream.next(containing: #"<strong id="app-state">stopped</strong>"#))
            #expect(stopped.contains("<code>stop</code>"), "the timeline came with it")
        }
    }

    /// The `<section id="ledger">` of an HTML page or fragment list.
    static func ledger(_ html: String) -> String? {
        guard let start = html.range(of: #"<section id="ledger">"#), let end = html.range(of: "</section>", range: start.upperBound..<html.endIndex)
        else { return nil }
        return String(html[start.lowerBound..<end.upperBound])
    }

    @Test(arguments: ["", "?textSize=AX5", "?textSize=xSmall"])
    func theLiveLedgerIsThePagesOwnSoTheEventOnConnectSwapsNothing(_ query: String) async throws {
        try await withLiveServer(transport: .live) { server in
            let session = try await session(server)
            let id = try await createInstall(server, session)
            _ = await post(server, "/installs/\(id)/purchases", session, form: "productID=com.example.tipjar.tip.coffee", fragment: true)
            let page = await server.send("GET", "/installs/\(id)\(query)", fields: [("Cookie", session.cookie)])
            let live = try #require(page.body.firstMatch(of: /data-live="([^"]+)"/).map { String($0.1).replacingOccurrences(of: "&amp;", with: "&") })
            #expect(live == "/installs/\(id)/live\(query)", "the page's live channel is at its text size")
            let pageLedger = try #require(Self.ledger(page.body))
            #expect(pageLedger.contains("refund-sheet"), "a ledger row with its refund link")
            #expect(Self.ledger(await server.send("GET", live).body) == pageLedger)
            let stream = EventStreamReader(port: server.port, path: live.replacingOccurrences(of: "/live", with: "/events"))
            let first = try #require(await stream.next(containing: "event: live"))
            let data = first.split(separator: "\n").filter { $0.hasPrefix("data: ") }.map { $0.dropFirst("data: ".count) }.joined(separator: "\n")
            #expect(Self.ledger(data) == pageLedger)
        }
    }

    @Test func everyStreamOfAnInstallPageSharesOneRenderPerChange() async throws {
        try await withLiveServer(transport: .live) { server in
            let session = try await session(server)
            let id = try await createInstall(server, session)
            let channels = server.dashboard.liveChannels
            var streams = (0..<8).map { _ in EventStreamReader(port: server.port, path: "/installs/\(id)/events") }
            for stream in streams { _ = try #require(await stream.next(containing: "event: live")) }
            #expect(channels.renderCount == 1, "eight streams connecting cost one render")

            // A write made outside any request: the storage's commit wakes the channel, nobody signals it.
            try await server.storage.setRunning(false, installID: id)
            var events: Set<String> = []
            for stream in streams { events.insert(try #require(await stream.next(containing: "event: live"))) }
            #expect(channels.renderCount == 2, "one change costs one render, however many streams watch")
            #expect(events.count == 1, "every stream got the same bytes")

            streams = []  // each reader closes its socket
            #expect(await eventually { channels.openCounts == (0, 0) }, "the channel left with its last stream")
        }
    }

    @Test func aPurchaseLeavesAnotherInstallsStoredPageAndLiveChannelAloneWhileItsAccountsOtherDeviceHearsIt() async throws {
        try await withLiveServer(transport: .live) { server in
            let session = try await session(server)
            let buyer = try await createInstall(server, session)
            let account = try await server.service.install(buyer).accountID
            let device = try await server.service.createInstall(locale: .en, storefront: "USA", accountID: account).id
            _ = try await server.service.launch(installID: device)
            let other = try await createInstall(server, session)
            #expect(try await server.service.install(other).accountID != account)
            let channels = server.dashboard.liveChannels
            let deviceStream = EventStreamReader(port: server.port, path: "/installs/\(device)/events")
            let otherStream = EventStreamReader(port: server.port, path: "/installs/\(other)/events")
            _ = try #require(await deviceStream.next(containing: "event: live"))
            _ = try #require(await otherStream.next(containing: "event: live"))
            let cookie = [("Cookie", session.cookie)]
            let stored = await server.send("GET", "/installs/\(other)", fields: cookie)
            let hits = server.dashboard.pageCache.hits
            #expect(await server.send("GET", "/installs/\(other)", fields: cookie).body == stored.body)
            #expect(server.dashboard.pageCache.hits == hits + 1, "the other install's page was not stored")

            let purchase = await server.json("POST", "/api/installs/\(buyer)/purchases", #"{"productID":"com.example.tipjar.tip.coffee"}"#)
            #expect(purchase.status == 200)
            let heard = try #require(await deviceStream.next(containing: "♥♡♡♡♡"), "the account's other device did not hear the purchase")
            #expect(heard.contains("event: live"))

            // The other install: its stored page is sent again, and its channel rendered nothing for the purchase.
            #expect(await server.send("GET", "/installs/\(other)", fields: cookie).body == stored.body)
            #expect(server.dashboard.pageCache.hits == hits + 2, "a purchase elsewhere made the other install's page render again")
            #expect(channels.renderCount(of: other) == 1)
            // A change of its own still reaches it, with one render.
            try await server.storage.setRunning(false, installID: other)
            _ = try #require(await otherStream.next(containing: #"<strong id="app-state">stopped</strong>"#))
            #expect(channels.renderCount(of: other) == 2, "the purchase elsewhere had woken the other install's channel")
        }
    }

    @Test func anUnknownInstallGets404InsteadOfAStream() async throws {
        try await withLiveServer { server in
            let reply = await server.send("GET", "/installs/00000000-0000-0000-0000-000000000000/events")
            #expect(reply.status == 404)
            #expect(reply["Content-Type"]?.hasPrefix("text/event-stream") != true)
        }
    }
}
