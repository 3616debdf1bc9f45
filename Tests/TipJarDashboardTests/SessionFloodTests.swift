import Foundation
import Testing
import TipJar
@testable import TipJarDashboard

/// Another site can make a browser send any number of cookie-less requests (`<img src>`: a
/// `SameSite=Strict` cookie is never sent cross-site, RFC 6265bis §5.6.7.1). None of them may sign
/// out a browser that is using its session.
@Suite("Sessions under a flood", .serialized)
struct SessionFloodTests {
    @Test func aSessionInUseSurvivesAHundredThousandNewSessions() async {
        let store = SessionStore()
        let (id, token) = SessionStore.randomHexPair()
        store.insert(id: id, token: token)
        #expect(store.token(forSession: id) == token, "the browser sends its cookie back: the session is in use")
        await LiveServer.onThread {
            for _ in 0..<100_000 {
                let (other, otherToken) = SessionStore.randomHexPair()
                store.insert(id: other, token: otherToken)
            }
        }
        #expect(store.token(forSession: id) == token)
        #expect(store.counts.new == store.limit, "new sessions stay bounded")
        #expect(store.counts.used == 1)
    }

    @Test func theLeastRecentlyUsedSessionIsTheOnlyOneForgotten() {
        let store = SessionStore(limit: 3)
        for id in ["a", "b", "c"] {
            store.insert(id: id, token: "token-\(id)")
            _ = store.token(forSession: id)
        }
        #expect(store.token(forSession: "a") == "token-a", "a is now the most recently used")
        store.insert(id: "d", token: "token-d")
        _ = store.token(forSession: "d")
        #expect(store.token(forSession: "b") == nil, "b was the least recently used")
        for id in ["a", "c", "d"] { #expect(store.token(forSession: id) == "token-\(id)") }
        store.insert(id: "x", token: "token-x")
        store.insert(id: "y", token: "token-y")
        store.insert(id: "z", token: "token-z")
        store.insert(id: "w", token: "token-w")
        #expect(store.counts == (new: 3, used: 3))
        #expect(store.token(forSession: "x") == nil, "the oldest new session goes first")
        #expect(store.token(forSession: "y") == "token-y")
    }

    @Test func aFloodOfCookielessPageViewsCannotSignOutABrowserInUse() async throws {
        let limit = 20
        try await withLiveServer(sessionLimit: limit) { server in
            let pages = PageTests()
            let session = try await pages.session(server)
            #expect(await server.send("GET", "/store", fields: [("Cookie", session.cookie)]).status == 200, "the session is in use")
            for _ in 0..<(limit * 10) {
                let flood = await server.send("GET", "/installs")
                #expect(flood.status == 200)
                #expect(flood.sessionCookie != nil, "a page with forms gets a session")
            }
            #expect(server.dashboard.sessions.counts.new <= limit)
            _ = try await pages.createInstall(server, session)
        }
    }

    @Test func requestsWithoutAFormStartNoSession() async throws {
        // A failing catalog: the tip jar fragment shows its Retry state, which has no form with a token.
        try await withLiveServer(settings: StoreSettings(catalog: .failing)) { server in
            let created = await server.json("POST", "/api/installs", #"{"locale":"en","launch":true}"#)
            #expect(created.status == 201)
            let id = try #require(created.object["id"] as? String)
            let targets: [(String, [(String, String)])] = [
                ("/", []), ("/catalog", []), ("/app.css", []), ("/app.js", []), ("/api/store", []), ("/api/installs/\(id)", []),
                ("/installs/\(id)/live", [("X-Fragment", "1")]), ("/installs/\(id)/offers", [("X-Fragment", "1")]),
                ("/installs/no-such-install", []), ("/no-such-page", []), ("/installs/no-such-install/offers", [("X-Fragment", "1")]),
            ]
            for (target, fields) in targets {
                let reply = await server.send("GET", target, fields: fields)
                #expect(reply.status != 0, "\(target) answered")
                #expect(reply["Set-Cookie"] == nil, "\(target) set a cookie")
            }
            let post = await server.send("POST", "/installs", fields: [("Content-Type", "application/x-www-form-urlencoded")], body: "locale=en")
            #expect(post.status == 403)
            #expect(post["Set-Cookie"] == nil)
            #expect(server.dashboard.sessions.counts == (new: 0, used: 0))
            for target in ["/installs", "/store", "/installs/\(id)"] {
                #expect(await server.send("GET", target).sessionCookie != nil, "\(target) has forms")
            }
            #expect(server.dashboard.sessions.counts == (new: 3, used: 0))
        }
    }
}
