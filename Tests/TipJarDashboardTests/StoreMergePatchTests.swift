import Foundation
import TestSupport
import Testing

/// `PATCH /api/store` is a JSON Merge Patch of the settings (RFC 7396, https://www.rfc-editor.org/rfc/rfc7396): the
/// members it names are set, `null` sets a member back to its default (a healthy store's value), the others are kept;
/// any error changes nothing. `PUT /api/store` keeps setting only the fields it names (Public/api/openapi.json says so).
@Suite("PATCH /api/store (JSON Merge Patch)")
struct StoreMergePatchTests {
    static func patch(_ server: LiveServer, _ body: String, type: String = "application/merge-patch+json") async -> HTTPReply {
        await server.send("PATCH", "/api/store", fields: [("Content-Type", type)], body: body)
    }

    @Test func aMemberSetsItsSettingAndTheOthersAreKept() async throws {
        try await withLiveServer { server in
            let reply = await Self.patch(server, #"{"catalog":"slow","latencyMs":1500,"failures":{"sync":"networkError"}}"#)
            #expect(reply.status == 200)
            #expect(reply["Content-Type"]?.hasPrefix("application/json") == true)
            let after = await Self.patch(server, #"{"purchaseLatencyMs":700}"#).object
            #expect(after["catalog"] as? String == "slow")
            #expect(after["latencyMs"] as? Int == 1500)
            #expect(after["purchaseLatencyMs"] as? Int == 700)
            #expect((after["failures"] as? [String: Any])?["sync"] as? String == "networkError")
        }
    }

    @Test func aNullMemberSetsItsSettingBackToItsDefault() async throws {
        try await withLiveServer { server in
            _ = await Self.patch(
                server, #"{"catalog":"slow","latencyMs":1500,"purchaseOutcome":"failed","failures":{"sync":"networkError","purchase":"unknown"}}"#)
            let reset = await Self.patch(server, #"{"catalog":null,"purchaseOutcome":null,"failures":{"sync":null}}"#)
            #expect(reset.status == 200)
            #expect(reset.object["catalog"] as? String == "normal")
            #expect(reset.object["purchaseOutcome"] as? String == "success")
            #expect(reset.object["latencyMs"] as? Int == 1500, "a member left out keeps its value")
            let failures = try #require(reset.object["failures"] as? [String: Any])
            #expect(failures["sync"] is NSNull)
            #expect(failures["purchase"] as? String == "unknown")
            let cleared = await Self.patch(server, #"{"failures":null}"#)
            #expect((cleared.object["failures"] as? [String: Any])?.values.allSatisfy { $0 is NSNull } == true, "failures: null turns every one off")
        }
    }

    @Test(arguments: ["application/json", "text/plain", "application/json-patch+json"])
    func aPatchInAnotherMediaTypeIs415WithAcceptPatchAndChangesNothing(_ type: String) async throws {
        try await withLiveServer { server in
            let before = await server.json("GET", "/api/store").body
            let reply = await Self.patch(server, #"{"catalog":"failing"}"#, type: type)
            #expect(reply.status == 415)
            #expect(reply["Accept-Patch"] == "application/merge-patch+json")
            #expect((reply.object["error"] as? String)?.contains("application/merge-patch+json") == true)
            #expect(await server.json("GET", "/api/store").body == before)
        }
    }

    @Test func unknownMembersAre400NamingEveryOneAndChangeNothing() async throws {
        try await withLiveServer { server in
            let before = await server.json("GET", "/api/store").body
            let reply = await Self.patch(server, #"{"catalog":"slow","colour":"red","failures":{"flood":null}}"#)
            #expect(reply.status == 400)
            #expect(reply.object["error"] as? String == #"Unknown fields "colour", "failures.flood"."#)
            #expect(await server.json("GET", "/api/store").body == before)
        }
    }

    @Test(arguments: [
        #"{"latencyMs":"slow"}"#, #"{"latencyMs":1.5}"#, #"{"catalog":3}"#, #"{"askToBuyEnabled":1}"#, #"{"failures":[]}"#,
        #"{"failures":{"sync":false}}"#, #"{"catalog":"sometimes"}"#, #"{"latencyMs":60001}"#, #"[{"catalog":null}]"#, #"null"#, #"{"catalog":"#,
        #"{"catalog":"slow","latencyMs":-1}"#,
    ])
    func aValueOfTheWrongTypeOrOutOfRangeIs400AndChangesNothing(_ body: String) async throws {
        try await withLiveServer { server in
            let before = await server.json("GET", "/api/store").body
            let reply = await Self.patch(server, body)
            #expect(reply.status == 400)
            #expect(reply.object["error"] is String)
            #expect(await server.json("GET", "/api/store").body == before)
        }
    }

    /// PUT keeps what it did: it sets the fields it names; `null` is a value, which only a failure takes (off).
    @Test func putSetsOnlyTheFieldsItNamesAndNullIsOffForAFailureOnly() async throws {
        try await withLiveServer { server in
            _ = await server.json("PUT", "/api/store", #"{"catalog":"slow","failures":{"sync":"networkError"}}"#)
            let put = await server.json("PUT", "/api/store", #"{"latencyMs":900,"failures":{"sync":null}}"#)
            #expect(put.status == 200)
            #expect(put.object["catalog"] as? String == "slow", "a field PUT does not name is kept")
            #expect((put.object["failures"] as? [String: Any])?["sync"] is NSNull)
            let before = await server.json("GET", "/api/store").body
            let refused = await server.json("PUT", "/api/store", #"{"catalog":null}"#)
            #expect(refused.status == 400)
            #expect(refused.object["error"] as? String == "catalog must be one of normal, empty, failing, slow, mismatch.")
            #expect(await server.json("GET", "/api/store").body == before)
        }
    }

    /// Each PATCH is applied to the settings the one before it left (the store's changes take turns), so two at
    /// once that name different fields both last; without turns, the later save would carry the field the other
    /// changed as it was before.
    @Test func twoPatchesAtOnceToDifferentFieldsBothLast() async throws {
        try await withLiveServer { server in
            for round in 1...8 {
                _ = await Self.patch(server, #"{"catalog":"normal","purchaseLatencyMs":0}"#)
                async let first = Self.patch(server, #"{"catalog":"slow"}"#)
                async let second = Self.patch(server, #"{"purchaseLatencyMs":\#(round)}"#)
                #expect(await [first.status, second.status] == [200, 200])
                let settings = await server.json("GET", "/api/store").object
                #expect(settings["catalog"] as? String == "slow", "round \(round)")
                #expect(settings["purchaseLatencyMs"] as? Int == round, "round \(round)")
            }
        }
    }

    @Test func aPatchIsCheckedForItsOriginAsAPutIs() async throws {
        try await withLiveServer { server in
            let reply = await server.send(
                "PATCH", "/api/store",
                fields: [("Content-Type", "application/merge-patch+json"), ("Origin", "http://evil.example"), ("Sec-Fetch-Site", "cross-site")],
                body: #"{"catalog":"failing"}"#)
            #expect(reply.status == 403)
            #expect(await server.json("GET", "/api/store").object["catalog"] as? String == "normal")
        }
    }
}
