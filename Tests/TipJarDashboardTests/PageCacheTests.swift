import Foundation
import Mustache
import TestSupport
import Testing
import TipJar

@testable import TipJarDashboard
@testable import SQLiteDatabase
@testable import TipJarSQLite

/// A page view is a read, and a repeated one sends stored bytes (`PageCache`): over a real socket, a GET writes
/// nothing to the SQLite file or the timeline; a stored page is sent again only while nothing it shows has changed,
/// with the asking session's own CSRF token; and the live channel and the stored pages agree.
extension PageTests {
    /// `PRAGMA data_version` read on a connection of its own: it changes when any other connection commits
    /// (https://www.sqlite.org/pragma.html#pragma_data_version), so two equal readings mean nothing was written between.
    final class DataVersionProbe: @unchecked Sendable {
        let database: Database

        init(path: String) throws {
            database = try Database(path: path, flags: 0x0000_0001)  // SQLITE_OPEN_READONLY (https://www.sqlite.org/c3ref/open.html)
        }

        func read() throws -> Int64 { try #require(try database.fetchValue(sql: "PRAGMA data_version", as: Int64.self)) }
    }

    /// The body after the value of its `csrf-token` meta tag is made neutral, for comparing two sessions' pages.
    func withoutToken(_ reply: HTTPReply) -> String {
        guard let token = reply.csrfToken, !token.isEmpty else { return reply.body }
        return reply.body.replacingOccurrences(of: token, with: "TOKEN")
    }

    @Test func aPageViewWritesNothingToTheDatabaseOrTheTimeline() async throws {
        try await withLiveServer { server in
            server.dashboard.pageCache.setEnabled(false)  // every GET below renders
            let session = try await session(server)
            let id = try await createInstall(server, session)
            _ = await server.send("GET", "/installs/\(id)/offers", fields: [("Cookie", session.cookie), ("X-Fragment", "1")])  // first load: state.ready
            let account = try await server.service.install(id).accountID
            let probe = try DataVersionProbe(path: server.databasePath)
            let dataVersion = try probe.read()
            let changes = server.service.timeline.changeCount
            let events = server.service.timeline.events(installID: nil, limit: 200)
            let paths = [
                "/", "/installs", "/installs?q=a&hearts=0", "/installs/\(id)", "/installs/\(id)?load=now", "/installs/\(id)?textSize=large",
                "/installs/\(id)/offers", "/installs/\(id)/live", "/installs/\(id)/purchase-sheet", "/store", "/catalog", "/transactions",
                "/accounts/\(account)", "/confirm/installs/\(id)/delete", "/api/installs/\(id)", "/api/installs/\(id)/offers",
                "/api/installs/\(id)/ledger", "/api/store", "/api/transactions", "/api/installs/\(id)/scenario",
            ]
            for path in paths {
                for fields in [[("Cookie", session.cookie)], [("Cookie", session.cookie), ("X-Fragment", "1")], []] {
                    let reply = await server.send("GET", path, fields: fields)
                    #expect([200, 303, 409].contains(reply.status), "\(path) answered \(reply.status)")
                }
            }
            #expect(try probe.read() == dataVersion, "a GET committed a write")
            #expect(server.service.timeline.changeCount == changes, "a GET signalled a change")
            #expect(server.service.timeline.events(installID: nil, limit: 200) == events, "a GET appended a timeline event")

            // The probe sees a write when there is one.
            _ = await server.json("POST", "/api/installs/\(id)/purchases", #"{"productID":"com.example.tipjar.tip.coffee"}"#)
            #expect(try probe.read() != dataVersion)
            #expect(server.service.timeline.changeCount != changes)
        }
    }

    @Test func aRepeatedPageViewSendsTheStoredBytesWithTheSessionsOwnToken() async throws {
        try await withLiveServer { server in
            let ana = try await session(server)
            let bia = try await session(server)
            let id = try await createInstall(server, ana)
            _ = await server.send("GET", "/api/installs/\(id)/offers")  // the first load records the ready state
            let cache = server.dashboard.pageCache
            for path in ["/installs/\(id)", "/installs/\(id)?load=now", "/", "/installs", "/store", "/catalog"] {
                let first = await server.send("GET", path, fields: [("Cookie", ana.cookie)])
                let hits = cache.hits
                let again = await server.send("GET", path, fields: [("Cookie", ana.cookie)])
                #expect(cache.hits == hits + 1, "\(path) was rendered again")
                #expect(again.status == 200 && again.body == first.body)
                let other = await server.send("GET", path, fields: [("Cookie", bia.cookie)])
                #expect(cache.hits == hits + 2)
                #expect(other.csrfToken == bia.token && !other.body.contains(ana.token), "\(path) leaked another session's token")
                #expect(withoutToken(other) == withoutToken(first))
                let stranger = await server.send("GET", path)
                #expect(!stranger.body.contains(ana.token) && !stranger.body.contains(bia.token))
                #expect(!stranger.body.contains(cache.placeholder) && !again.body.contains(cache.placeholder))
                if let cookie = stranger.sessionCookie {
                    // A page with forms starts a session, as it did before any page was stored, and carries its new token.
                    let token = try #require(stranger.csrfToken)
                    #expect(!token.isEmpty)
                    let next = await server.send("GET", path, fields: [("Cookie", cookie)])
                    #expect(next.csrfToken == token)
                } else {
                    #expect(stranger.csrfToken == "", "\(path) without a session shows no token")
                }
            }
        }
    }

    @Test func eachInputOfTheInstallPageGivesAFreshPage() async throws {
        try await withLiveServer(settings: StoreSettings(purchaseOutcome: .pending)) { server in
            let session = try await session(server)
            let id = try await createInstall(server, session, label: "Ana")
            let cache = server.dashboard.pageCache
            let cookie = [("Cookie", session.cookie)]
            let paths = [
                "/installs/\(id)", "/installs/\(id)?load=now", "/", "/store", "/api/installs/\(id)/offers", "/api/installs/\(id)",
                "/api/installs/\(id)/ledger", "/api/installs/\(id)/ledger?format=csv",
            ]

            /// Every page is stored, then the change is made; no stored page may be sent after it, and once the pages
            /// settle (a tip jar load records its new state on the first view), each equals a render with the cache off
            /// and the install page shows `expected`.
            func change(_ name: String, expected: String, _ make: () async throws -> Void) async throws {
                // Two passes settle the pages (a first load records its state), the third finds every page stored.
                for _ in 0..<2 { for path in paths { _ = await server.send("GET", path, fields: cookie) } }
                var before: [String: String] = [:]
                for path in paths {
                    let hits = cache.hits
                    before[path] = await server.send("GET", path, fields: cookie).body
                    #expect(cache.hits == hits + 1, "\(path) was not stored before \(name)")
                }
                try await make()
                let hits = cache.hits
                for path in paths { _ = await server.send("GET", path, fields: cookie) }
                #expect(cache.hits == hits, "a page stored before \(name) was sent after it")
                var after: [String: String] = [:]
                for _ in 0..<2 { for path in paths { after[path] = await server.send("GET", path, fields: cookie).body } }
                #expect(after["/installs/\(id)?load=now"]?.contains(expected) == true, "\(name): the page does not show \(expected)")
                cache.setEnabled(false)
                for path in paths {
                    let fresh = await server.send("GET", path, fields: cookie).body
                    #expect(after[path] == fresh, "\(name): \(path) differs from a fresh render")
                }
                cache.setEnabled(true)
                #expect(before["/installs/\(id)"] != after["/installs/\(id)"], "\(name) did not change the install page")
            }

            try await change("a label (no timeline event)", expected: "Ana&#39;s iPhone") {
                _ = await server.json("PUT", "/api/installs/\(id)/label", #"{"label":"Ana's iPhone"}"#)
            }
            try await change("the storefront", expected: "R$") {
                _ = await server.json("PUT", "/api/installs/\(id)/storefront", #"{"storefront":"BRA"}"#)
            }
            try await change("an Ask to Buy purchase (the store's transaction and the timeline)", expected: "purchase closed: pending.") {
                _ = await post(server, "/installs/\(id)/purchases", session, form: "productID=com.example.tipjar.tip.coffee", fragment: true)
            }
            try await change("an approval made outside any request (the ledger and hearts)", expected: "♥♡♡♡♡") {
                let pending = try #require(try await server.storage.pendingTransactions().first { $0.installID == id })
                _ = try await server.service.approve(requestID: pending.transaction.id)
            }
            try await change("the store settings", expected: #"data-state="unavailable""#) {
                _ = await server.json("PUT", "/api/store", #"{"catalog":"failing"}"#)
            }
            try await change("the app stopped outside any request (timeline only)", expected: #"<strong id="app-state">stopped</strong>"#) {
                _ = try await server.service.stop(installID: id)
            }

            // Text size and locale are part of what is asked for: each has a page of its own.
            let large = await server.send("GET", "/installs/\(id)?textSize=accessibility", fields: cookie)
            #expect(large.body != (await server.send("GET", "/installs/\(id)", fields: cookie)).body)
            let portuguese = try await createInstall(server, session, locale: "pt-BR", storefront: "BRA")
            #expect((await server.send("GET", "/installs/\(portuguese)?load=now", fields: cookie)).body.contains("lang=\"pt-BR\""))
        }
    }

    @Test func theLiveChannelAndTheStoredPageAgree() async throws {
        try await withLiveServer(transport: .live, settings: StoreSettings(purchaseOutcome: .pending)) { server in
            let session = try await session(server)
            let id = try await createInstall(server, session)
            let cookie = [("Cookie", session.cookie)]
            let stream = EventStreamReader(port: server.port, path: "/installs/\(id)/events")
            _ = try #require(await stream.next(containing: "event: live"))
            _ = await server.send("GET", "/installs/\(id)", fields: cookie)
            let hits = server.dashboard.pageCache.hits
            _ = await server.send("GET", "/installs/\(id)", fields: cookie)
            #expect(server.dashboard.pageCache.hits == hits + 1)

            _ = await post(server, "/installs/\(id)/purchases", session, form: "productID=com.example.tipjar.tip.coffee", fragment: true)
            let pending = try #require(try await server.storage.pendingTransactions().first { $0.installID == id })
            _ = try await server.service.approve(requestID: pending.transaction.id)
            let event = try #require(await stream.next(containing: "♥♡♡♡♡"))
            let pushed = event.split(separator: "\n").filter { $0.hasPrefix("data: ") }.map { $0.dropFirst("data: ".count) }.joined(separator: "\n")
            let page = await server.send("GET", "/installs/\(id)", fields: cookie).body
            func hearts(_ html: String) -> String? {
                guard let start = html.range(of: #"<div id="hearts""#), let end = html[start.upperBound...].range(of: "</div>") else { return nil }
                return html[start.lowerBound..<end.upperBound].split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined()
            }
            #expect(hearts(pushed) != nil && hearts(page) == hearts(pushed), "the page and the live channel show different hearts")
            let newest = try #require(server.service.timeline.events(installID: id, limit: 1).first)
            // The detail as a template writes it (HTML-escaped, Mustache's {{name}}).
            let detail = try MustacheTemplate(source: "{{detail}}").render(value: .object(["detail": .string(newest.detail)]))
            #expect(pushed.contains(detail) && page.contains(detail), "the timeline's newest line, as a template writes it")
        }
    }
}
