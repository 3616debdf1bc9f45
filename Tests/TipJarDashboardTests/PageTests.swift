import Foundation
import HTTPServer
import TestSupport
import Testing
import TipJar

@testable import TipJarDashboard

/// Pages, fragments and form posts over a real socket, as a browser (with and without
/// JavaScript) uses them.
@Suite("Pages and fragments")
struct PageTests {
    /// A browser session: the cookie and CSRF token from a first page view.
    struct Session {
        var cookie: String
        var token: String
    }

    func session(_ server: LiveServer) async throws -> Session {
        let page = await server.send("GET", "/installs")
        #expect(page.status == 200)
        return Session(cookie: try #require(page.sessionCookie), token: try #require(page.csrfToken))
    }

    func post(
        _ server: LiveServer, _ target: String, _ session: Session, form: String, fragment: Bool = false,
        origin: String? = nil, fetchSite: String? = "same-origin"
    ) async -> HTTPReply {
        var fields = [("Content-Type", "application/x-www-form-urlencoded"), ("Cookie", session.cookie), ("Origin", origin ?? server.origin)]
        if let fetchSite { fields.append(("Sec-Fetch-Site", fetchSite)) }
        if fragment { fields += [("X-Fragment", "1"), ("X-CSRF-Token", session.token)] }
        return await server.send("POST", target, fields: fields, body: fragment ? form : form + "&csrfToken=\(session.token)")
    }

    func createInstall(
        _ server: LiveServer, _ session: Session, locale: String = "en", storefront: String = "USA",
        label: String = ""
    ) async throws -> String {
        let label = label.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let reply = await post(server, "/installs", session, form: "locale=\(locale)&storefront=\(storefront)&launch=1&label=\(label)")
        #expect(reply.status == 303)
        let location = try #require(reply["Location"])
        return String(location.dropFirst("/installs/".count))
    }

    @Test(arguments: ["/", "/installs", "/store", "/catalog"])
    func everyPageRendersWithTheSecurityHeaders(_ path: String) async throws {
        try await withLiveServer { server in
            let page = await server.send("GET", path)
            #expect(page.status == 200)
            #expect(page["Content-Type"] == "text/html; charset=utf-8")
            #expect(page["Content-Security-Policy"]?.contains("script-src 'self'") == true)
            #expect(page["X-Content-Type-Options"] == "nosniff")
            #expect(page["X-Frame-Options"] == "DENY")
            #expect(page["Referrer-Policy"] == "no-referrer")
            #expect(page["Cache-Control"] == "no-store")
            if ["/installs", "/store"].contains(path) {
                #expect(page["Set-Cookie"]?.contains("HttpOnly; SameSite=Strict") == true, "a page with forms starts a session")
            } else {
                #expect(page["Set-Cookie"] == nil, "a page without forms starts no session")
            }
            #expect(page["Access-Control-Allow-Origin"] == nil)
            #expect(page.body.hasPrefix("<!DOCTYPE html>"))
            #expect(!page.body.contains("<script>"), "no inline script")
            #expect(!page.body.contains("style=\""), "no inline style")
        }
    }

    @Test(arguments: [
        "GET / HTTP/1.1\r\nHost: H\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
        "GET /\u{0}x HTTP/1.1\r\nHost: H\r\n\r\n", "GET / HTTP/3.0\r\nHost: H\r\n\r\n",
    ])
    func framingErrorsCarryTheSecurityHeaders(_ raw: String) async throws {
        try await withLiveServer(transport: .live) { server in
            let reply = await TestClient.reply(port: server.port, raw.replacingOccurrences(of: "Host: H", with: "Host: 127.0.0.1:\(server.port)"))
            #expect((400...505).contains(reply.status))
            #expect(reply["Content-Security-Policy"] != nil)
            #expect(reply["X-Frame-Options"] == "DENY")
        }
    }

    @Test func errorsCarryTheSecurityHeadersToo() async throws {
        try await withLiveServer { server in
            let missing = await server.send("GET", "/installs/does-not-exist")
            #expect(missing.status == 404)
            #expect(missing["Content-Security-Policy"] != nil)
            #expect(missing["X-Frame-Options"] == "DENY")
        }
    }

    @Test func installPageShowsTheSkeletonThenTheFragmentHasThreeTilesInTierOrder() async throws {
        try await withLiveServer { server in
            let session = try await session(server)
            let id = try await createInstall(server, session, locale: "pt-BR", storefront: "BRA")
            let page = await server.send("GET", "/installs/\(id)", fields: [("Cookie", session.cookie)])
            #expect(page.body.contains(#"data-state="loading""#))
            #expect(page.body.contains(#"data-src="/installs/\#(id)/offers""#))
            #expect(page.body.contains("Informações e Créditos"))
            let fragment = await server.send("GET", "/installs/\(id)/offers", fields: [("Cookie", session.cookie), ("X-Fragment", "1")])
            #expect(fragment.status == 200)
            #expect(!fragment.body.contains("<html"), "a fragment, not a page")
            let tiers = ["tier-coffee", "tier-snack", "tier-lunch"].compactMap { fragment.body.range(of: $0)?.lowerBound }
            #expect(tiers.count == 3)
            #expect(tiers == tiers.sorted())
            for text in ["Café", "Lanche", "Almoço completo", "R$\u{A0}0,99", "R$\u{A0}4,99", "<button type=\"submit\" class=\"tile"] {
                #expect(fragment.body.contains(text), "missing \(text)")
            }
        }
    }

    @Test func failingCatalogShowsTheInlineRetryState() async throws {
        try await withLiveServer(settings: StoreSettings(catalog: .failing)) { server in
            let session = try await session(server)
            let id = try await createInstall(server, session)
            let fragment = await server.send("GET", "/installs/\(id)/offers", fields: [("X-Fragment", "1")])
            #expect(fragment.body.contains(#"data-state="unavailable""#))
            #expect(fragment.body.contains("The tips couldn&#39;t be loaded."))
            #expect(fragment.body.contains(">Retry</button>"))
        }
    }

    @Test func purchaseWithoutJavaScriptPostsAndRedirectsToTheThankYou() async throws {
        try await withLiveServer { server in
            let session = try await session(server)
            let id = try await createInstall(server, session)
            let reply = await post(server, "/installs/\(id)/purchases", session, form: "productID=com.example.tipjar.tip.coffee")
            #expect(reply.status == 303)
            let location = try #require(reply["Location"])
            #expect(location.hasPrefix("/installs/\(id)?load=now&feedback=purchased&once="), "the feedback, and the marker that shows it once")
            let page = await server.send("GET", location, fields: [("Cookie", session.cookie)])
            #expect(page.body.contains("Thank you for the tip! One more heart."))
            #expect(page.body.contains(#"data-state="ready""#))
            #expect(page.body.contains("♥♡♡♡♡"))
        }
    }

    @Test func withoutJavaScriptTheTextSizeSurvivesThePurchaseRedirect() async throws {
        try await withLiveServer { server in
            let session = try await session(server)
            let id = try await createInstall(server, session)
            let page = await server.send("GET", "/installs/\(id)?textSize=accessibility&load=now", fields: [("Cookie", session.cookie)])
            #expect(page.body.contains(#"name="textSize" value="AX5""#), "the earlier name is today's AX5")
            let reply = await post(server, "/installs/\(id)/purchases", session, form: "productID=com.example.tipjar.tip.coffee&textSize=accessibility")
            #expect(reply["Location"]?.hasPrefix("/installs/\(id)?load=now&feedback=purchased&textSize=AX5&once=") == true)
            let hostile = await post(server, "/installs/\(id)/purchases", session, form: "productID=com.example.tipjar.tip.coffee&textSize=%22%3E%3Cscript%3E")
            #expect(hostile["Location"]?.hasPrefix("/installs/\(id)?load=now&feedback=purchased&once=") == true, "unknown sizes are dropped, never echoed")
        }
    }

    @Test func purchaseFragmentReturnsHeartsFeedbackAndLedger() async throws {
        try await withLiveServer(settings: StoreSettings(purchaseOutcome: .failed, purchaseError: .networkError)) { server in
            let session = try await session(server)
            let id = try await createInstall(server, session)
            let reply = await post(server, "/installs/\(id)/purchases", session, form: "productID=com.example.tipjar.tip.coffee", fragment: true)
            #expect(reply.status == 200)
            #expect(reply.body.contains(#"id="hearts""#))
            #expect(reply.body.contains(#"<dialog id="alert""#))
            #expect(reply.body.contains(StoreKitError.networkError.message(locale: .en)))
            #expect(reply.body.contains(#"id="ledger""#))
        }
    }

    @Test func formPostWithoutTheCSRFTokenIsRefused() async throws {
        try await withLiveServer { server in
            let session = try await session(server)
            let reply = await server.send(
                "POST", "/installs",
                fields: [
                    ("Content-Type", "application/x-www-form-urlencoded"),
                    ("Cookie", session.cookie), ("Sec-Fetch-Site", "same-origin"),
                ],
                body: "locale=en&storefront=USA")
            #expect(reply.status == 403)
            #expect(reply["Content-Security-Policy"] != nil)
            let installs = await server.json("GET", "/api/installs").object["installs"] as? [Any]
            #expect(installs?.isEmpty == true, "nothing was created")
        }
    }

    @Test func tokenFromAnotherSessionIsRefused() async throws {
        try await withLiveServer { server in
            let mine = try await session(server)
            let theirs = try await session(server)
            let reply = await post(server, "/installs", Session(cookie: mine.cookie, token: theirs.token), form: "locale=en&storefront=USA")
            #expect(reply.status == 403)
        }
    }

    @Test(arguments: [("http://localhost:3000", "same-site"), ("http://evil.example", "cross-site"), ("http://localhost:3000", nil)])
    func otherOriginsCannotPostEvenWithAValidToken(_ origin: String, _ fetchSite: String?) async throws {
        try await withLiveServer { server in
            let session = try await session(server)
            let reply = await post(server, "/installs", session, form: "locale=en&storefront=USA", origin: origin, fetchSite: fetchSite)
            #expect(reply.status == 403)
        }
    }

    @Test func jsonEndpointsRefuseOtherContentTypes() async throws {
        try await withLiveServer { server in
            let reply = await server.send("POST", "/api/installs", fields: [("Content-Type", "text/plain")], body: #"{"locale":"en"}"#)
            #expect(reply.status == 415)
            let form = await server.send("POST", "/api/installs", fields: [("Content-Type", "application/x-www-form-urlencoded")], body: "locale=en")
            #expect(form.status == 415)
        }
    }

    @Test("The media type of Content-Type ignores parameters, surrounding whitespace and case (RFC 9110 §8.3.1)")
    func mediaTypeOfContentType() {
        #expect(OriginCheck.mediaType("application/json") == "application/json")
        #expect(OriginCheck.mediaType(" Application/JSON ; charset=utf-8") == "application/json")
        #expect(OriginCheck.mediaType("\tapplication/json\t;x=y;z") == "application/json")
        #expect(OriginCheck.mediaType("application/jsonx") != "application/json")
        #expect(OriginCheck.mediaType("text/plain; x=application/json") == "text/plain")
        #expect(OriginCheck.mediaType("") == "")
    }

    @Test func jsonEndpointsRefuseCrossOriginBrowsers() async throws {
        try await withLiveServer { server in
            let reply = await server.send(
                "POST", "/api/installs",
                fields: [
                    ("Content-Type", "application/json"), ("Origin", "http://localhost:3000"),
                    ("Sec-Fetch-Site", "same-site"),
                ], body: #"{"locale":"en"}"#)
            #expect(reply.status == 403)
            #expect(reply["Access-Control-Allow-Origin"] == nil)
        }
    }

    @Test(arguments: ["evil.example", "localhost:3000", "127.0.0.1:1"])
    func foreignHostIsRefusedBeforeRouting(_ host: String) async throws {
        try await withLiveServer(transport: .live) { server in
            let raw = "GET /installs HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n"
            let reply = await TestClient.reply(port: server.port, raw)
            #expect(reply.status == 421)
            #expect(reply["Content-Security-Policy"] == SecurityHeaders.contentSecurityPolicy, "errors the server writes itself carry the headers too")
            #expect(reply["X-Content-Type-Options"] == "nosniff")
            let absolute = "GET http://\(host)/installs HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nConnection: close\r\n\r\n"
            #expect(await TestClient.reply(port: server.port, absolute).status == 421)
        }
    }

    static let hostileLabels = ["<script>alert(1)</script>", "\" onmouseover=\"alert(1)", "'><img src=x onerror=alert(1)>", "javascript:alert(1)"]

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
            .replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "'", with: "&#39;")
    }

    @Test(arguments: hostileLabels)
    func hostileLabelsRenderInert(_ label: String) async throws {
        try await withLiveServer { server in
            let session = try await session(server)
            let id = try await createInstall(server, session, label: label)
            for path in ["/installs", "/installs/\(id)"] {
                let page = await server.send("GET", path, fields: [("Cookie", session.cookie)])
                for marker in ["<script>alert", "\" onmouseover=", "'><img", "<img src=x", "href=\"javascript:"] {
                    #expect(!page.body.contains(marker), "\(marker) reached \(path) unescaped")
                }
                #expect(page.body.contains(Self.escaped(label)), "the label is shown, escaped, in \(path)")
            }
            let json = await server.json("GET", "/api/installs/\(id)")
            #expect(json.object["label"] as? String == label, "JSON carries the text exactly, as data")
            #expect(!json.body.contains("<script>"), "JSON escapes nothing dangerous into markup")
        }
    }

    @Test func adminTokenGuardsEveryRequest() async throws {
        let token = String(repeating: "ab", count: 16)
        try await withLiveServer(adminToken: token) { server in
            #expect(await server.send("GET", "/").status == 401)
            #expect(await server.send("GET", "/api/store").status == 401)
            #expect(await server.send("GET", "/api/store", fields: [("Authorization", "Bearer \(token)")]).status == 200)
            #expect(await server.send("GET", "/api/store", fields: [("Authorization", "Bearer \(token.dropLast())0")]).status == 401)
            let link = await server.send("GET", "/installs?token=\(token)")
            #expect(link.status == 303)
            #expect(link["Location"] == "/installs")
            let cookie = try #require(link["Set-Cookie"]?.split(separator: ";").first.map(String.init))
            #expect(link["Set-Cookie"]?.contains("HttpOnly") == true)
            #expect(await server.send("GET", "/installs", fields: [("Cookie", cookie)]).status == 200)
        }
    }

    @Test func staticFilesAreServedAndCannotEscapePublic() async throws {
        try await withLiveServer { server in
            let css = await server.send("GET", "/app.css")
            #expect(css.status == 200)
            #expect(css["Content-Type"]?.hasPrefix("text/css") == true)
            #expect(css["ETag"] != nil)
            #expect(css["X-Content-Type-Options"] == "nosniff")
            for path in ["/../Package.swift", "/%2e%2e/Package.swift", "/.gitignore", "/..%2fPackage.swift"] {
                let reply = await server.send("GET", path)
                #expect(reply.status >= 400, "\(path) answered \(reply.status)")
                #expect(!reply.body.contains("PackageDescription"))
            }
        }
    }
}

/// No secrets in logs.
@Suite("Access log")
struct AccessLogTests {
    @Test func theAdminTokenNeverReachesTheAccessLog() {
        let entry = AccessLogEntry(
            method: "GET", target: "/installs?page=2&token=abcdef0123456789abcdef0123456789&q=x", status: 303,
            bytes: 0, durationMilliseconds: 1, requestID: "1-1", remoteAddress: "127.0.0.1:5")
        let line = AccessLogRedaction.redact(entry).description
        #expect(!line.contains("abcdef0123456789"))
        #expect(line.contains(#"target="/installs?page=2&token=REDACTED&q=x""#))
    }

    @Test func targetsWithoutSecretsAreLoggedAsTheyCame() {
        let entry = AccessLogEntry(
            method: "GET", target: "/installs?q=ab", status: 200, bytes: 10, durationMilliseconds: 1,
            requestID: "1-1", remoteAddress: "127.0.0.1:5")
        #expect(AccessLogRedaction.redact(entry).target == "/installs?q=ab")
    }
}

/// The hand-rolled UTC formatting agrees with Foundation's ISO 8601 formatter.
@Suite("UTC timestamps")
struct UTCTimestampTests {
    @Test(arguments: [0.0, 951_782_400.123, 1_757_462_400.999, 4_102_444_799.5, -86_400.25, 1_709_208_000])
    func matchesFoundationsISO8601(_ seconds: Double) {
        let date = Date(timeIntervalSince1970: seconds)
        #expect(UTCTimestamp(date).iso == date.formatted(Date.ISO8601FormatStyle()))
        #expect(UTCTimestamp(date).isoWithMilliseconds == date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        #expect(UTCTimestamp(date).short == String(UTCTimestamp(date).iso.dropLast()).replacingOccurrences(of: "T", with: " "))
    }

    static let cookieToken = String(repeating: "0123456789abcdef", count: 4)

    @Test(arguments: ["a=1; tipjar_session=\(cookieToken); b=2", "tipjar_session=\(cookieToken)", " tipjar_session=\(cookieToken) ;x=y", "tipjar_session=\t\(cookieToken)\t",
        "other=1;tipjar_session=  \(cookieToken)", "x; tipjar_session=\(cookieToken)", "tipjar_session=\(cookieToken); tipjar_session=zz"])
    func readsTheCSRFCookie(_ header: String) {
        #expect(CSRFCookie.token(fromCookie: header) == Self.cookieToken)
    }

    @Test(arguments: [
        "", "tipjar_sessionx=\(cookieToken)", "tipjar_session=", "a=b", "tipjar_session=abc",
        "tipjar_session=\(cookieToken.uppercased())", "tipjar_session=\(cookieToken)0",
        "tipjar_session=; tipjar_session=\(cookieToken)", "tipjar_session =\(cookieToken)", ";;;", "tipjar_session",
        "tipjar_session=\(cookieToken.dropLast())é",
    ])
    func ignoresOtherCookiesAndTokensThatAreNot64LowercaseHexDigits(_ header: String) {
        #expect(CSRFCookie.token(fromCookie: header) == nil)
    }
}

/// Session secrets: 256 bits each, hex, never repeated.
@Suite("Session secrets")
struct SessionSecretTests {
    @Test func tokensAre64LowercaseHexDigitsAndDistinct() {
        var seen = Set<String>()
        for _ in 0..<1_000 {
            let token = CSRFCookie.randomToken()
            #expect(token.count == 64)
            #expect(token.allSatisfy { $0.isHexDigit && !$0.isUppercase })
            #expect(seen.insert(token).inserted)
            #expect(CSRFCookie.token(fromCookie: "tipjar_session=" + token) == token, "the cookie check accepts it")
        }
    }

    @Test func everyHexDigitTurnsUpInEachPlaceOfATokensBytes() {
        // 32 random bytes as digits: over 400 tokens each of the 64 places sees all 16 digits (a nibble mapped wrongly would not).
        var seen = [Set<UInt8>](repeating: [], count: 64)
        for _ in 0..<400 {
            for (place, digit) in CSRFCookie.randomTokenBytes().enumerated() { seen[place].insert(digit) }
        }
        #expect(seen.allSatisfy { $0 == Set("0123456789abcdef".utf8) })
    }
}
