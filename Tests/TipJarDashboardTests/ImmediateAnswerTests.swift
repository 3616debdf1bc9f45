import Foundation
import Testing
import TipJar

@testable import HTTPServer
@testable import TipJarDashboard

/// What each answer the I/O thread gives must be. It walks each route's own middlewares
/// (`MiddlewareChain.immediateResponse(to:)`, `Dashboard.chain(router:pageCache:adminToken:errorPages:appStoreServerAPIGate:rendersErrorsAtOnce:log:)`)
/// and the start-up gate's (`StartUpGate+Immediate.swift`): the admin token's refusal, the start-up gate's 503, static
/// files, 304, HEAD and stored pages with the asking session's token, each the bytes the task's road gives but `Date`;
/// and what needs a task (an unsafe method, a page not stored, a sign-in link…) it leaves to one.
@Suite("What the I/O thread answers")
struct ImmediateAnswerTests {
    static let date = Array("Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n".utf8)
    static let session = "tipjar_session=" + String(repeating: "ab", count: 32)
    static let otherSession = "tipjar_session=" + String(repeating: "cd", count: 32)

    static func request(_ target: String, _ fields: HTTPFields = HTTPFields(), body: [UInt8] = []) -> HTTPRequest {
        request("GET", target, fields, body: body)
    }

    static func request(_ method: String, _ target: String, _ fields: HTTPFields = HTTPFields(), body: [UInt8] = []) -> HTTPRequest {
        var all: HTTPFields = ["Host": "127.0.0.1"]
        for field in fields { all.append(name: field.name, value: field.value) }
        return HTTPRequest(method: method, target: target, fields: all, body: body, remoteAddress: "127.0.0.1:5", requestID: "1-\(target.count)")
    }

    /// The wire bytes of the normal path's answer, as the server writes them (its security headers added by the serializer).
    static func slow(_ responder: some HTTPResponder, _ request: HTTPRequest) async -> String {
        let response = await responder.respond(to: request)
        let output = ResponseSerializer.serialize(
            response, isHead: request.method == "HEAD", keepAlive: true, http10: false, dateLine: date, defaults: SecurityHeaders.defaults)
        return String(decoding: output.bytes, as: UTF8.self)
    }

    /// The wire bytes of the immediate answer, or `nil` when there is none.
    static func fast(_ responder: some ImmediateResponder, _ request: HTTPRequest) -> String? {
        guard let prepared = responder.immediateResponse(to: request) else { return nil }
        let output = ResponseSerializer.serialize(
            prepared, isHead: request.method == "HEAD", keepAlive: true, http10: false, dateLine: date, defaults: SecurityHeaders.defaults)
        return String(decoding: output.bytes, as: UTF8.self)
    }

    /// The immediate answer exists and is the normal path's bytes.
    static func expectSame(_ dashboard: Dashboard, _ request: HTTPRequest, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let immediate = try #require(
            fast(dashboard, request), "\(request.method) \(request.target) was not answered at once",
            sourceLocation: sourceLocation)
        let normal = await slow(dashboard, request)
        #expect(immediate == normal, "\(request.method) \(request.target)", sourceLocation: sourceLocation)
        return immediate
    }

    @Test func aStaticFileItsHEADAndIts304AreTheChainsBytes() async throws {
        try await withLiveServer { server in
            let dashboard = server.dashboard
            #expect(Self.fast(dashboard, Self.request("/app.css")) == nil, "a file not read yet would read the disk on the I/O thread")
            let first = await dashboard.respond(to: Self.request("/app.css"))
            let etag = try #require(first.fields["ETag"])
            let ok = try await Self.expectSame(dashboard, Self.request("/app.css"))
            for header in [
                "Content-Security-Policy: ", "X-Content-Type-Options: nosniff", "X-Frame-Options: DENY", "Referrer-Policy: no-referrer",
                "Cache-Control: public, max-age=3600", "ETag: \(etag)", "Content-Type: text/css",
            ] {
                #expect(ok.contains("\r\n" + header), "missing \(header)")
            }
            _ = try await Self.expectSame(dashboard, Self.request("HEAD", "/app.css"))
            let notModified = try await Self.expectSame(dashboard, Self.request("/app.css", ["If-None-Match": etag]))
            #expect(notModified.hasPrefix("HTTP/1.1 304 Not Modified\r\n"))
            _ = try await Self.expectSame(dashboard, Self.request("/app.css", ["If-None-Match": "W/\(etag), \"other\""]))
            _ = try await Self.expectSame(dashboard, Self.request("/app.css", ["If-None-Match": "\"other\""]))
        }
    }

    @Test func storedPagesAndJSONAreTheChainsBytesWithTheAskingSessionsToken() async throws {
        try await withLiveServer { server in
            let dashboard = server.dashboard
            let created = await server.json("POST", "/api/installs", #"{"locale":"en","storefront":"USA","launch":true}"#)
            let id = try #require(created.object["id"] as? String)
            let session: HTTPFields = ["Cookie": Self.session], other: HTTPFields = ["Cookie": Self.otherSession]
            let cases: [(HTTPRequest, HTTPRequest)] = [
                (Self.request("/"), Self.request("/")),
                (Self.request("/catalog", session), Self.request("/catalog", other)),
                (Self.request("/installs/\(id)", session), Self.request("/installs/\(id)", other)),
                (Self.request("/installs/\(id)"), Self.request("/installs/\(id)", other)),  // stored with a new session's token
                (Self.request("/installs/\(id)/offers", session + ["X-Fragment": "1"]), Self.request("/installs/\(id)/offers", other + ["X-Fragment": "1"])),
                (Self.request("/store", session), Self.request("HEAD", "/store", other)),
                (Self.request("/api/installs/\(id)"), Self.request("/api/installs/\(id)")),
                (Self.request("/api/installs/\(id)"), Self.request("/api/installs/\(id)", other)),
                (Self.request("/api/installs/\(id)/offers"), Self.request("/api/installs/\(id)/offers")),
                (Self.request("/api/installs/\(id)/ledger"), Self.request("HEAD", "/api/installs/\(id)/ledger")),
            ]
            for (storing, asking) in cases {
                _ = await dashboard.respond(to: storing)
                _ = await dashboard.respond(to: storing)  // a first load changes what the page shows: the second view is stored
                let hits = dashboard.pageCache.hits
                let answer = try await Self.expectSame(dashboard, asking)
                #expect(dashboard.pageCache.hits == hits + 2, "\(asking.target): the immediate answer and the chain's each count one hit")
                #expect(!answer.contains("Set-Cookie"))
                #expect(answer.contains("\r\nCache-Control: no-store\r\n") && answer.contains("\r\nContent-Security-Policy: "))
            }
            // A write makes every stored page out of date: the next view takes the routes.
            #expect(await server.json("POST", "/api/installs/\(id)/purchases", #"{"productID":"com.example.tipjar.tip.coffee"}"#).status == 200)
            #expect(Self.fast(dashboard, Self.request("/installs/\(id)", session)) == nil)
            #expect(Self.fast(dashboard, Self.request("/api/installs/\(id)")) == nil)
        }
    }

    @Test func aRequestThatNeedsATaskIsLeftToOneAndWhatTheStepsDecideAtOnceIsAnswered() async throws {
        try await withLiveServer { server in
            let dashboard = server.dashboard
            let created = await server.json("POST", "/api/installs", #"{"locale":"en","storefront":"USA","launch":true}"#)
            let id = try #require(created.object["id"] as? String)
            _ = await dashboard.respond(to: Self.request("/app.css"))
            _ = await dashboard.respond(to: Self.request("/installs/\(id)", ["Cookie": Self.session]))
            _ = await dashboard.respond(to: Self.request("/"))
            #expect(Self.fast(dashboard, Self.request("/app.css")) != nil)
            #expect(Self.fast(dashboard, Self.request("/installs/\(id)", ["Cookie": Self.session])) != nil)
            let declined: [HTTPRequest] = [
                Self.request("POST", "/api/installs", ["Content-Type": "application/json"], body: Array("{}".utf8)),
                Self.request("PUT", "/app.css"), Self.request("DELETE", "/installs/\(id)"), Self.request("OPTIONS", "/app.css"),
                // The overview stored without a session holds the placeholder of a token: with a session, the routes splice it in.
                Self.request("/", ["Cookie": Self.session]),
                Self.request("/installs/\(id)?textSize=large", ["Cookie": Self.session]),  // not stored yet
                Self.request("/no-such-file.css"), Self.request("/installs/\(id)/live"),
            ]
            for request in declined {
                #expect(Self.fast(dashboard, request) == nil, "\(request.method) \(request.target) was answered at once")
            }
            // What the same steps decide without a task is answered at once, as the task's road answers it: a file in memory
            // whatever body came with the GET, and the field size check's 400.
            _ = try await Self.expectSame(dashboard, Self.request("/app.css", body: [0x61]))
            let oversized = try await Self.expectSame(dashboard, Self.request("/app.css?q=" + String(repeating: "x", count: FieldSizeCheck.maximumBytes + 1)))
            #expect(oversized.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
            #expect(await dashboard.respond(to: Self.request("/installs/\(id)")).fields["Set-Cookie"] != nil)
        }
    }

    /// `answer` with the token its `Set-Cookie` hands out written `TOKEN` wherever it occurs, and that token.
    static func withoutNewToken(_ answer: String) throws -> (text: String, token: String) {
        let start = try #require(answer.range(of: "\r\nSet-Cookie: tipjar_session="), "no new session in \(answer.prefix(400))")
        let token = String(answer[start.upperBound...].prefix(64))
        return (answer.replacingOccurrences(of: token, with: "TOKEN"), token)
    }

    @Test func aPageWhoseRouteStartsSessionsIsAnsweredAtOnceWithANewSessionAsItsRouteGivesOne() async throws {
        try await withLiveServer { server in
            let dashboard = server.dashboard
            let created = await server.json("POST", "/api/installs", #"{"locale":"en","storefront":"USA","launch":true}"#)
            let id = try #require(created.object["id"] as? String)
            for target in ["/installs/\(id)", "/installs", "/store", "/installs/\(id)/offers"] {
                for cookie in [nil, "tipjar_session=short"] {  // no session, or a cookie that is not one
                    let request = Self.request(target, cookie.map { ["Cookie": $0] } ?? HTTPFields())
                    _ = await dashboard.respond(to: request)
                    _ = await dashboard.respond(to: request)  // a first load changes what the page shows: the second view is stored
                    let immediate = try Self.withoutNewToken(try #require(Self.fast(dashboard, request), "\(target) was not answered at once"))
                    let normal = try Self.withoutNewToken(await Self.slow(dashboard, request))
                    #expect(immediate.text == normal.text, "\(target): the route's bytes, but the new token")
                    #expect(immediate.token != normal.token && immediate.token != dashboard.pageCache.placeholder, "\(target): a token of its own")
                    #expect(CSRFCookie.token(fromCookie: "tipjar_session=" + immediate.token) != nil, "\(target): a token the session check accepts")
                    #expect(immediate.text.contains("value=\"TOKEN\""), "\(target): the new token is in the page's forms")
                    let again = try Self.withoutNewToken(try #require(Self.fast(dashboard, request)))
                    #expect(again.token != immediate.token, "\(target): every request without a session gets its own")
                }
            }
            // A page whose route reads a session but never starts one (the catalog) is not given one at once.
            _ = await dashboard.respond(to: Self.request("/catalog", ["Cookie": Self.session]))
            _ = await dashboard.respond(to: Self.request("/catalog", ["Cookie": Self.session]))
            #expect(Self.fast(dashboard, Self.request("/catalog")) == nil)
            #expect(await dashboard.respond(to: Self.request("/catalog")).fields["Set-Cookie"] == nil)
        }
    }

    @Test func theAdminTokensRefusalIsTheChainsAndASignedInRequestIsAnsweredAtOnce() async throws {
        let token = String(repeating: "7", count: 40)
        try await withLiveServer(adminToken: token) { server in
            let dashboard = server.dashboard
            for target in ["/app.css", "/", "/api/installs", "/no-such-page"] {
                let refusal = try await Self.expectSame(dashboard, Self.request(target))
                #expect(refusal.hasPrefix("HTTP/1.1 401 Unauthorized\r\n"))
                #expect(refusal.contains("\r\nWWW-Authenticate: Bearer realm=\"tipjar\"\r\n") && refusal.contains("\r\nX-Frame-Options: DENY\r\n"))
                _ = try await Self.expectSame(dashboard, Self.request(target, ["Authorization": "Bearer wrong"]))
            }
            _ = await dashboard.respond(to: Self.request("/app.css", ["Authorization": "Bearer \(token)"]))
            _ = try await Self.expectSame(dashboard, Self.request("/app.css", ["Authorization": "Bearer \(token)"]))
            _ = try await Self.expectSame(dashboard, Self.request("/app.css", ["Cookie": "tipjar_admin=\(token)"]))
            // The sign-in link sets a cookie and redirects: the chain's own answer.
            #expect(Self.fast(dashboard, Self.request("/app.css?token=\(token)")) == nil)
        }
    }

    @Test func theStartUpGates503IsTheSameAtOnceAndOnlyForReads() async throws {
        let gate = StartUpGate(reason: "Checking the database <file>.")
        for target in ["/", "/installs/x", "/api/installs", "/app.css"] {
            for method in ["GET", "HEAD"] {
                let request = Self.request(method, target)
                let immediate = try #require(Self.fast(gate, request))
                #expect(immediate == (await Self.slow(gate, request)))
                #expect(immediate.hasPrefix("HTTP/1.1 503 Service Unavailable\r\n") && immediate.contains("\r\nRetry-After: 2\r\n"))
            }
        }
        #expect(Self.fast(gate, Self.request("POST", "/api/installs")) == nil)
    }

    @Test func anOpenGateAnswersAtOnceWhatTheDashboardAnswersAtOnce() async throws {
        try await withLiveServer { server in
            let gate = StartUpGate()
            gate.open(server.stack)
            _ = await gate.respond(to: Self.request("/app.css"))
            let immediate = try #require(Self.fast(gate, Self.request("/app.css")))
            #expect(immediate == (await Self.slow(gate, Self.request("/app.css"))))
            #expect(immediate.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(Self.fast(gate, Self.request("/no-such-file.css")) == nil)
        }
    }

    /// The server `tipjar serve` and the tests build (``DashboardStack/server(_:accessLog:)``, the stack behind an open
    /// ``StartUpGate``) gives the answers the dashboard can give at once on its I/O thread: a file in memory and a stored page
    /// or JSON answer leave without a task, counted by the event loop.
    @Test func theServerInFrontOfTheStackAnswersFilesAndStoredAnswersOnItsIOThread() async throws {
        try await withLiveServer(transport: .live) { server in
            let httpServer = try #require(server.server)
            func answeredOnLoop() async -> Int { await httpServer.statistics()?.counters.answeredOnLoop ?? -1 }
            #expect(await server.send("GET", "/app.css").status == 200)  // read from disk by the chain, kept in memory
            #expect(await answeredOnLoop() == 0)
            #expect(await server.send("GET", "/app.css").status == 200)
            #expect(await answeredOnLoop() == 1, "a file in memory is answered on the I/O thread")
            let created = await server.json("POST", "/api/installs", #"{"locale": "en", "launch": true}"#)
            let id = try #require(created.object["id"] as? String)
            #expect(await server.send("GET", "/api/installs/\(id)").status == 200)  // rendered and stored
            #expect(await server.send("GET", "/api/installs/\(id)").status == 200)
            #expect(await answeredOnLoop() == 2, "a stored JSON answer is answered on the I/O thread")
        }
    }
}

extension HTTPFields {
    /// Both field lists, `lhs` first.
    static func + (lhs: HTTPFields, rhs: HTTPFields) -> HTTPFields {
        var all = lhs
        for field in rhs { all.append(name: field.name, value: field.value) }
        return all
    }
}
