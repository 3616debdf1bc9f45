import Foundation
import Testing
import TipJar

/// Every store setting is declared once (`StoreSettings.declarations`, Sources/TipJar/Store/StoreSettings+Declarations.swift)
/// and the JSON API, the `/store` form and its rows, and `Public/api/openapi.json` all follow the declaration: each
/// declared setting round-trips through `PUT /api/store` and the form, and a value outside its declaration is refused
/// with the message Public/api/openapi.json and Sources/TipJar/README.md promise, changing nothing.
@Suite("Store settings, one declaration each")
struct StoreSettingDeclarationTests {
    let pages = PageTests()

    /// A value the declaration allows that is not the default.
    static func otherValue(_ declaration: StoreSetting) -> StoreSetting.Value? {
        switch declaration.kind {
        case .choice(let values, _): values.reversed().map(StoreSetting.Value.text).first { $0 != declaration.defaultValue }
        case .integer(let range, _): .number(range.upperBound)
        case .flag: .flag(declaration.defaultValue != .flag(true))
        }
    }

    static func json(_ value: StoreSetting.Value) -> String {
        switch value {
        case .text(let text): "\"\(text)\""
        case .number(let number): "\(number)"
        case .flag(let flag): "\(flag)"
        case .off: "null"
        }
    }

    /// A `PUT /api/store` body setting only `declaration`, nested as its key says.
    static func patch(_ declaration: StoreSetting, _ json: String) -> String {
        declaration.path.reversed().reduce(json) { inner, name in "{\"\(name)\":\(inner)}" }
    }

    /// The declaration's value in a `GET /api/store` answer, as a ``StoreSetting/Value``.
    static func value(_ declaration: StoreSetting, in object: [String: Any]) -> StoreSetting.Value? {
        var current: Any? = object
        for name in declaration.path { current = (current as? [String: Any])?[name] }
        switch (declaration.kind, current) {
        case (.choice, let text as String): return .text(text)
        case (.choice(_, true), is NSNull): return .off
        case (.integer, let number as Int): return .number(number)
        case (.flag, let flag as Bool): return .flag(flag)
        default: return nil
        }
    }

    /// The `/store` form as the page posts it with every setting at its default, except `changes`.
    static func form(_ changes: [String: StoreSetting.Value] = [:]) -> String {
        StoreSettings.declarations.compactMap { declaration in
            let name = declaration.formName
            switch changes[name] ?? declaration.defaultValue {
            case .text(let text): return "\(name)=\(text)"
            case .number(let number): return "\(name)=\(number)"
            case .flag(let flag): return flag ? "\(name)=1" : nil
            case .off: return "\(name)="
            }
        }.joined(separator: "&")
    }

    /// The text of `page` from `start` (included) to the next `end`, or "" when `start` is not there.
    static func segment(of page: String, from start: String, to end: String) -> String {
        guard let lower = page.range(of: start) else { return "" }
        let upper = page.range(of: end, range: lower.upperBound..<page.endIndex)?.lowerBound ?? page.endIndex
        return String(page[lower.lowerBound..<upper])
    }

    @Test func everyDeclaredSettingRoundTripsThroughPutAndGetAPIStore() async throws {
        try await withLiveServer { server in
            let original = await server.json("GET", "/api/store").body
            for declaration in StoreSettings.declarations {
                guard let other = Self.otherValue(declaration) else { Issue.record("\(declaration.key) has one value"); continue }
                let put = await server.json("PUT", "/api/store", Self.patch(declaration, Self.json(other)))
                #expect(put.status == 200, "\(declaration.key): \(put.body)")
                #expect(Self.value(declaration, in: put.object) == other, "\(declaration.key) in the PUT answer")
                #expect(Self.value(declaration, in: await server.json("GET", "/api/store").object) == other, "\(declaration.key) read back")
                _ = await server.json("PUT", "/api/store", Self.patch(declaration, Self.json(declaration.defaultValue)))
            }
            #expect(await server.json("GET", "/api/store").body == original, "putting every default back restores the body")
        }
    }

    @Test func aValueOutsideItsDeclarationIsRefusedByPutWithTheRuleAndChangesNothing() async throws {
        try await withLiveServer { server in
            let before = await server.json("GET", "/api/store").body
            for declaration in StoreSettings.declarations {
                let (bad, message): (String, String) =
                    switch declaration.kind {
                    case .choice(let values, _): ("\"nope\"", "\(declaration.key) must be one of \(values.joined(separator: ", ")).")
                    case .integer(let range, _): ("\(range.upperBound + 1)", "\(declaration.key) must be a whole number from \(range.lowerBound) to \(range.upperBound).")
                    case .flag: ("1", "\(declaration.key) must be true or false.")
                    }
                let reply = await server.json("PUT", "/api/store", Self.patch(declaration, bad))
                #expect(reply.status == 400, "\(declaration.key)")
                #expect(reply.object["error"] as? String == message, "\(declaration.key)")
            }
            #expect(await server.json("GET", "/api/store").body == before)
        }
    }

    /// The messages as the documents and scripts know them, written out.
    @Test(arguments: [
        (#"{"latencyMs":60001}"#, "latencyMs must be a whole number from 0 to 60000."),
        (#"{"listenerReemits":4}"#, "listenerReemits must be a whole number from 0 to 3."),
        (#"{"catalog":"sometimes"}"#, "catalog must be one of normal, empty, failing, slow, mismatch."),
        (
            #"{"failures":{"sync":"flood"}}"#,
            "failures.sync must be one of networkError, systemError, userCancelled, notAvailableInStorefront, notEntitled, unknown, unsupported."
        ),
        (#"{"skipPurchaseSheet":1}"#, "skipPurchaseSheet must be true or false."),
        (#"{"surprise":1}"#, #"Unknown field "surprise"."#),
        (#"{"failures":{"refund":null}}"#, #"Unknown field "failures.refund"."#),
        (#"{"failures":[]}"#, "failures must be an object."),
    ])
    func aBadPutNamesTheFieldAsBefore(_ body: String, _ message: String) async throws {
        try await withLiveServer { server in
            let reply = await server.json("PUT", "/api/store", body)
            #expect(reply.status == 400)
            #expect(reply.object["error"] as? String == message)
        }
    }

    @Test func everyDeclaredSettingRoundTripsThroughTheStoreFormAndItsRow() async throws {
        try await withLiveServer { server in
            let session = try await pages.session(server)
            for declaration in StoreSettings.declarations {
                guard let other = Self.otherValue(declaration) else { continue }
                let saved = await pages.post(server, "/store", session, form: Self.form([declaration.formName: other]))
                #expect(saved.status == 303, "\(declaration.formName): \(saved.body)")
                let settings = await server.json("GET", "/api/store").object
                #expect(Self.value(declaration, in: settings) == other, "\(declaration.formName) saved")
                let page = await server.send("GET", "/store", fields: [("Cookie", session.cookie)]).body
                let name = declaration.formName
                let select = Self.segment(of: page, from: #"<select name="\#(name)">"#, to: "</select>")
                switch (other, declaration.kind) {
                case (.text(let text), _) where declaration.control == .radios:
                    #expect(page.contains(#"name="\#(name)" value="\#(text)" checked"#), "\(name)")
                case (.text(let text), _):
                    #expect(select.contains(#"<option value="\#(text)" selected>"#), "\(name)")
                case (.number(let number), _) where declaration.control == .select:
                    #expect(select.contains(#"<option value="\#(number)" selected>"#), "\(name)")
                case (.number(let number), .integer(let range, _)):
                    #expect(page.contains(#"name="\#(name)" min="\#(range.lowerBound)" max="\#(range.upperBound)" value="\#(number)""#), "\(name)")
                case (.flag(true), _):
                    #expect(page.contains(#"name="\#(name)" value="1" checked"#), "\(name)")
                case (.flag(false), _):
                    #expect(page.contains(#"name="\#(name)" value="1">"#), "\(name)")
                default:
                    Issue.record("\(name): no row shows \(other)")
                }
            }
            #expect(await pages.post(server, "/store", session, form: Self.form()).status == 303)
        }
    }

    @Test func aBadFormValueIsRefusedNamingTheFieldAndChangesNothing() async throws {
        try await withLiveServer { server in
            let session = try await pages.session(server)
            let before = await server.json("GET", "/api/store").body
            for declaration in StoreSettings.declarations {
                let message: String
                switch declaration.kind {
                case .choice: message = "\(declaration.formName) has a value that is not allowed."
                case .integer(let range, _): message = "\(declaration.formName) must be a whole number from \(range.lowerBound) to \(range.upperBound)."
                case .flag: continue  // a checkbox is ticked by `1` and unticked by anything else, as browsers post it
                }
                let bad: StoreSetting.Value = if case .integer(let range, _) = declaration.kind { .number(range.upperBound + 1) } else { .text("nope") }
                let reply = await pages.post(server, "/store", session, form: Self.form([declaration.formName: bad]))
                #expect(reply.status == 400, "\(declaration.formName)")
                #expect(reply.body.contains(message), "\(declaration.formName): \(message)")
            }
            #expect(await server.json("GET", "/api/store").body == before)
        }
    }
}
