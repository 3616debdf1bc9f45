import Foundation
import HTTPServer
import TestSupport
import Testing
import TipJar

@testable import TipJarDashboard

/// Input the dashboard used to accept silently or answer wrongly, over a real socket: every bad value is a
/// 4xx naming it, an install is found by what a person can read off a page, input quoted back is escaped,
/// and admin-token refusals follow HTTP's authentication rules.
@Suite("Request input")
struct RequestInputTests {
    static let token = "0123456789abcdef0123456789abcdef"
    let pages = PageTests()

    /// Inserts an install with a chosen ID, as the service would have created it.
    func insert(_ server: LiveServer, id: String, label: String) async throws {
        try await server.storage.insert(
            Install(
                id: id, label: label, locale: .en, storefront: "USA", accountID: "account-\(id.prefix(8))",
                createdAt: Date()))
    }

    static let coffee = "com.example.tipjar.tip.coffee"

    @Test func aPurchaseOutsideTheAppPicksTheInstallByLabelOrIDPrefixCaseInsensitively() async throws {
        try await withLiveServer { server in
            try await insert(server, id: "aaaaaaaa-1111-4000-8000-000000000001", label: "Ana's iPhone")
            try await insert(server, id: "aaaaaaaa-2222-4000-8000-000000000002", label: "Beef")
            try await insert(server, id: "bbbbbbbb-3333-4000-8000-000000000003", label: "Ana's iPad")
            let session = try await pages.session(server)
            func buy(_ installID: String) async -> HTTPReply {
                let encoded = installID.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                return await pages.post(server, "/store/external-purchases", session, form: "installID=\(encoded)&productID=\(Self.coffee)")
            }
            func purchases(_ id: String) async -> Int {
                (await server.json("GET", "/api/transactions?installID=\(id)").object["transactions"] as? [Any])?.count ?? -1
            }
            #expect(await buy("  ana's iphone\n").status == 303, "a label, case and surrounding whitespace ignored")
            #expect(await purchases("aaaaaaaa-1111-4000-8000-000000000001") == 1)
            #expect(await buy("BBBBBBBB").status == 303, "the 8-character short ID, upper case")
            #expect(await purchases("bbbbbbbb-3333-4000-8000-000000000003") == 1)
            #expect(await buy("beef").status == 303, "a label that looks like hex is still a label")
            #expect(await purchases("aaaaaaaa-2222-4000-8000-000000000002") == 1)
            #expect(await buy("AAAAAAAA-2222-4000-8000-000000000002").status == 303, "the full ID, upper case")
            #expect(await purchases("aaaaaaaa-2222-4000-8000-000000000002") == 2)

            let ambiguous = await buy("aaaaaaaa")
            #expect(ambiguous.status == 400)
            #expect(ambiguous.body.contains("matches 2 installs"))
            #expect(ambiguous.body.contains("aaaaaaaa (Ana&#39;s iPhone)") || ambiguous.body.contains("aaaaaaaa (Ana&#x27;s iPhone)"), "\(ambiguous.body)")
            let empty = await buy("")
            #expect(empty.status == 400)
            #expect(empty.body.contains("installID: choose an install"))
            #expect(await buy("aaaa").status == 400, "a prefix shorter than the short ID")
            #expect(await buy("cccccccc").status == 404)
            #expect(await purchases("aaaaaaaa-1111-4000-8000-000000000001") == 1, "refusals bought nothing")
        }
    }

    @Test func theStorePageOffersTheInstallsInASelect() async throws {
        try await withLiveServer { server in
            try await insert(server, id: "aaaaaaaa-1111-4000-8000-000000000001", label: "Ana's iPhone")
            let page = await server.send("GET", "/store")
            #expect(page.status == 200)
            #expect(
                page.body.contains(#"<select name="installID" required><option value="aaaaaaaa-1111-4000-8000-000000000001">Ana&#39;s iPhone · aaaaaaaa</option>"#)
                    || page.body.contains(#"<option value="aaaaaaaa-1111-4000-8000-000000000001">Ana&#x27;s iPhone · aaaaaaaa</option>"#), "\(page.body)")
        }
    }

    @Test func anUppercaseInstallIDInAnAPIPathFindsTheInstall() async throws {
        try await withLiveServer { server in
            let id = try #require(await server.json("POST", "/api/installs", #"{"locale":"en"}"#).object["id"] as? String)
            let found = await server.json("GET", "/api/installs/\(id.uppercased())")
            #expect(found.status == 200)
            #expect(found.object["id"] as? String == id)
            #expect(await server.json("GET", "/api/installs/\(id.uppercased())/offers").status == 200)
        }
    }

    @Test(arguments: ["hearts=abc", "hearts=6", "page=-1", "page=99999999999999999999", "pageSize=0", "pageSize=201", "q=%00"])
    func aBadInstallListParameterIs400NamingIt(_ query: String) async throws {
        try await withLiveServer { server in
            let reply = await server.json("GET", "/api/installs?\(query)")
            #expect(reply.status == 400)
            let name = String(query.prefix { $0 != "=" })
            #expect((reply.object["error"] as? String)?.hasPrefix(name + " must be") == true, "\(reply.body)")
        }
    }

    @Test(arguments: [
        (#"{"id":"fixed"}"#, #"Unknown field "id"."#), ("null", "The message body must be a JSON object."),
        ("[]", "The message body must be a JSON object."), ("1e999", "The message body must be a JSON object."),
        (#""en""#, "The message body must be a JSON object."), ("{", "The message body is not valid JSON."),
    ])
    func aBadNewInstallBodyIs400SayingWhy(_ body: String, _ message: String) async throws {
        try await withLiveServer { server in
            let reply = await server.json("POST", "/api/installs", body)
            #expect(reply.status == 400)
            #expect(reply.object["error"] as? String == message, "\(reply.body)")
            #expect((await server.json("GET", "/api/installs").object["installs"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func theCreateFormReadsCheckboxesAsHTMLSendsThem() async throws {
        try await withLiveServer { server in
            let session = try await pages.session(server)
            for (value, expected) in [("on", true), ("true", true), ("1", true), ("ON", true)] {
                let reply = await pages.post(server, "/installs", session, form: "locale=en&legacyHasTipped=\(value)")
                #expect(reply.status == 303)
                let id = String(try #require(reply["Location"]).dropFirst("/installs/".count))
                #expect(await server.json("GET", "/api/installs/\(id)").object["legacyHasTipped"] as? Bool == expected, "\(value)")
            }
            let unchecked = await pages.post(server, "/installs", session, form: "locale=en")
            let id = String(try #require(unchecked["Location"]).dropFirst("/installs/".count))
            #expect(await server.json("GET", "/api/installs/\(id)").object["legacyHasTipped"] as? Bool == false)
            for form in ["locale=en&legacyHasTipped=yes", "locale=en&legacyHasTipped=", "locale=en&launch=maybe"] {
                let refused = await pages.post(server, "/installs", session, form: form)
                #expect(refused.status == 400, "\(form)")
            }
            #expect((await server.json("GET", "/api/installs").object["installs"] as? [Any])?.count == 5, "refusals created nothing")
        }
    }

    @Test(arguments: ["text/plain", "multipart/form-data; boundary=x"])
    func aFormPostThatIsNotURLEncodedIs415(_ contentType: String) async throws {
        try await withLiveServer { server in
            let session = try await pages.session(server)
            let reply = await server.send(
                "POST", "/installs",
                fields: [
                    ("Content-Type", contentType), ("Cookie", session.cookie),
                    ("Origin", server.origin), ("Sec-Fetch-Site", "same-origin"),
                    ("X-CSRF-Token", session.token),
                ],
                body: "locale=en&csrfToken=\(session.token)")
            #expect(reply.status == 415)
            #expect((await server.json("GET", "/api/installs").object["installs"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func controlCharactersInARefusedStorefrontAreEscapedInThePage() async throws {
        try await withLiveServer { server in
            let session = try await pages.session(server)
            let id = try await pages.createInstall(server, session)
            let reply = await pages.post(server, "/installs/\(id)/storefront", session, form: "storefront=%00%01%1b")
            #expect(reply.status == 400)
            #expect(
                reply.body.contains(#"unknown storefront &quot;\u{0}\u{1}\u{1B}&quot;"#) || reply.body.contains(#"unknown storefront "\u{0}\u{1}\u{1B}""#),
                "\(reply.body)")
            #expect(!reply.body.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" && $0 != "\t" && $0 != "\r" })
            let json = await server.json("PUT", "/api/installs/\(id)/storefront", #"{"storefront":"\u0000\u001b"}"#)
            #expect((json.object["error"] as? String)?.contains(#""\u{0}\u{1B}""#) == true, "\(json.body)")
        }
    }

    @Test func theCatalogPageSaysWhichOrderItsTipsAreIn() async throws {
        try await withLiveServer { shipped in
            #expect(await shipped.send("GET", "/catalog").body.contains("Tips, in the order the tip jar offers them: tier order"))
        }
        try await withLiveServer(catalog: try LiveServer.fixtureCatalog("v4-compact-no-newline")) { priced in
            #expect(await priced.send("GET", "/catalog").body.contains("Tips, in the order the tip jar offers them: ascending price"))
        }
    }

    @Test func aRefusedAdminTokenSaysHowToAuthenticateAndTheSchemeIgnoresCase() async throws {
        try await withLiveServer(adminToken: Self.token) { server in
            let refused = await server.send("GET", "/api/store")
            #expect(refused.status == 401)
            #expect(refused["WWW-Authenticate"] == #"Bearer realm="tipjar""#)
            for scheme in ["Bearer", "bearer", "BEARER", "bEaReR"] {
                #expect(await server.send("GET", "/api/store", fields: [("Authorization", "\(scheme) \(Self.token)")]).status == 200, "\(scheme)")
            }
            #expect(await server.send("GET", "/api/store", fields: [("Authorization", "Basic \(Self.token)")]).status == 401)
            #expect(await server.send("GET", "/api/store", fields: [("Authorization", "Bearer")]).status == 401)
        }
    }

    @Test func anUnknownMethodIs501BeforeTheAdminTokenAndATokenInTheMethodIsNotLogged() async throws {
        try await withLiveServer(transport: .live, adminToken: Self.token) { server in
            let raw = "\(Self.token.uppercased()) / HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nConnection: close\r\n\r\n"
            #expect(await TestClient.reply(port: server.port, raw).status == 501)
            let brew = "BREW /api/store HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nConnection: close\r\n\r\n"
            #expect(await TestClient.reply(port: server.port, brew).status == 501)
            #expect(await server.send("DELETE", "/api/store").status == 401, "a standard method still needs the token")
            for method in [Self.token, Self.token.uppercased(), "X\(Self.token)"] {
                let entry = AccessLogEntry(
                    method: method, target: "/", status: 501, bytes: 0, durationMilliseconds: 1, requestID: "1-1",
                    remoteAddress: "127.0.0.1:5")
                let line = AccessLogRedaction.redact(entry, adminToken: Self.token)
                #expect(line.method == "REDACTED")
                #expect(!line.description.lowercased().contains(Self.token))
            }
        }
    }
}
