import Foundation
import Testing
import TipJar

@testable import TipJarDashboard

/// Every text input is bounded in bytes before any work, and values that only look valid are refused: the
/// bounds of `FieldSizeCheck`, `TipJarService.checkSize(_:field:characters:slack:)` and the JSON API's
/// `quantity` and `appAccountToken`.
@Suite("Input bounds")
struct InputBoundTests {
    static let coffee = "com.example.tipjar.tip.coffee"
    let pages = PageTests()

    @Test func aJSONStringOverTheFieldLimitIsRefusedBeforeTheStorefrontIsMatched() async throws {
        try await withLiveServer { server in
            let code = String(repeating: "X", count: 1_000_000)
            let reply = await server.json("POST", "/api/installs", #"{"locale":"en","storefront":"\#(code)"}"#)
            #expect(reply.status == 400)
            #expect(reply.object["error"] as? String == "The value of a JSON string is longer than 1024 bytes.")
            let installs = await server.json("GET", "/api/installs").object["installs"] as? [Any]
            #expect(installs?.isEmpty == true, "nothing was created")
        }
    }

    @Test func aFormFieldOrQueryValueOverTheFieldLimitIsRefused() async throws {
        try await withLiveServer { server in
            let session = try await pages.session(server)
            let label = String(repeating: "a", count: 1025)
            let form = await pages.post(server, "/installs", session, form: "locale=en&storefront=USA&label=\(label)")
            #expect(form.status == 400)
            #expect(
                form.body.contains("The value of field &quot;label&quot; is longer than 1024 bytes.")
                    || form.body.contains("The value of field &#34;label&#34; is longer than 1024 bytes."), "\(form.body.prefix(400))")
            let query = await server.send("GET", "/installs?q=\(label)")
            #expect(query.status == 400)
            #expect(query.body.contains("is longer than 1024 bytes"))
            #expect(await server.send("GET", "/installs?q=\(String(label.dropLast()))").status == 200, "1,024 bytes is allowed")
        }
    }

    @Test func aLabelOfAHundredCharactersIsRefusedWhenItsScalarsOrBytesExceedTheLimits() throws {
        // One "character" each: a letter under 20 combining acute accents (21 scalars, 41 bytes).
        let heavy = String(repeating: "e" + String(repeating: "\u{301}", count: 20), count: 100)
        #expect(heavy.count == 100)
        #expect(throws: TipJarError.self) { try TipJarService.validatedLabel(heavy) }
        let flags = String(repeating: "🇧🇷", count: 50)  // 50 characters, 100 scalars, 400 bytes: the limits themselves
        #expect(try TipJarService.validatedLabel(flags) == flags)
        #expect(throws: TipJarError.self) { try TipJarService.validatedLabel(flags + "🇧🇷") }
        #expect(try TipJarService.validatedLabel("  Ana's iPhone  ") == "Ana's iPhone")
    }

    @Test func aStorefrontTextLongerThanAnyNameIsNearNothing() {
        #expect(Storefront.closest(to: String(repeating: "LUQ", count: 100_000)).isEmpty)
        #expect(Storefront.closest(to: "LUQ").contains("LUX"))
        #expect(Storefront.closest(to: "Saint Vincent and the Grenadines") == ["VCT"])
    }

    @Test(arguments: ["1.0000000000000000001", "0.9999999999999999999", "1.5", "1e400", "99999999999999999999", "\"1\""])
    func aQuantityThatIsNotExactlyAWholeNumberIsRefused(_ quantity: String) async throws {
        try await withLiveServer { server in
            let id = try await JSONAPITests().createInstall(server)
            let reply = await server.json("POST", "/api/installs/\(id)/purchases", #"{"productID":"\#(Self.coffee)","quantity":\#(quantity)}"#)
            #expect(reply.status == 400)
            #expect((reply.object["error"] as? String)?.contains("quantity must be a whole number") == true)
            let transactions = await server.json("GET", "/api/transactions").object["transactions"] as? [Any]
            #expect(transactions?.isEmpty == true, "nothing was bought")
        }
    }

    @Test func aWholeQuantityWrittenWithADecimalPointIsThatNumber() async throws {
        try await withLiveServer { server in
            let id = try await JSONAPITests().createInstall(server)
            let reply = await server.json("POST", "/api/installs/\(id)/purchases", #"{"productID":"\#(Self.coffee)","quantity":2.0}"#)
            #expect(reply.status == 200)
            #expect(reply.object["outcome"] as? String == "purchased")
        }
    }

    @Test(arguments: [
        "6f1c2a7e-3b5d-4c8e-9a0f-1d2e3f4a5b6c\\u0000", "6f1c2a7e-3b5d-4c8e-9a0f-1d2e3f4a5b6c\\u0000junk",
        "6f1c2a7e-3b5d-4c8e-9a0f-1d2e3f4a5b6c ", "{6f1c2a7e-3b5d-4c8e-9a0f-1d2e3f4a5b6c}", "6f1c2a7e3b5d4c8e9a0f1d2e3f4a5b6c",
    ])
    func anAppAccountTokenThatIsNotExactlyAUUIDIsRefused(_ token: String) async throws {
        try await withLiveServer { server in
            let id = try await JSONAPITests().createInstall(server)
            let reply = await server.json(
                "POST", "/api/installs/\(id)/purchases",
                #"{"productID":"\#(Self.coffee)","appAccountToken":"\#(token)"}"#)
            #expect(reply.status == 400)
            #expect((reply.object["error"] as? String)?.hasPrefix("appAccountToken must be a UUID") == true)
        }
    }

    @Test func anAppAccountTokenInUpperCaseIsStillAUUID() throws {
        #expect(APIModels.PurchaseRequest.uuid("6F1C2A7E-3B5D-4C8E-9A0F-1D2E3F4A5B6C") != nil)
        #expect(FieldSizeCheck.longestJSONString(in: Array(#"{"a":"x\"yz","bb":"1234567"}"#.utf8)) == 7)
        #expect(FieldSizeCheck.longestJSONString(in: Array(#"{"a":"unterminated"#.utf8)) == 12)
    }
}
