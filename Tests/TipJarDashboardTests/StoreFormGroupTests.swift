import Foundation
import Testing
import TipJar

@testable import TipJarDashboard

/// `/store` in groups (`Templates/pages/store.mustache`), each with its own form and Apply button: a form posts only
/// its own fields and `group=…` (`StoreFormGroup`), and applying it changes that group's settings and no other, even
/// though an unticked checkbox of another group is absent from the body. Without JavaScript, as a plain form POST.
/// And the "Now" summary of `/store` and `/` names every setting that is not at its default.
@Suite("Store page groups")
struct StoreFormGroupTests {
    let pages = PageTests()

    /// The declarations a group's form holds.
    static func declarations(_ group: StoreFormGroup) -> [StoreSetting] {
        StoreSettings.declarations.filter { group.fieldsets.contains($0.group) }
    }

    /// `group`'s form as the page posts it, every one of its settings at its default.
    static func form(_ group: StoreFormGroup) -> String {
        let fields = declarations(group).map(\.formName)
        return
            (["group=\(group.rawValue)"]
            + StoreSettingDeclarationTests.form().split(separator: "&").map(String.init)
            .filter { fields.contains(String($0.prefix { $0 != "=" })) }).joined(separator: "&")
    }

    /// A `PUT /api/store` body setting each of `declarations` to a value that is not its default.
    static func otherValues(_ declarations: [StoreSetting]) throws -> String {
        var body: [String: Any] = [:]
        for declaration in declarations {
            let value: Any =
                switch StoreSettingDeclarationTests.otherValue(declaration) {
                case .text(let text)?: text
                case .number(let number)?: number
                case .flag(let flag)?: flag
                case .off?, nil: NSNull()
                }
            let path = declaration.path
            if path.count == 2 {
                var object = body[path[0]] as? [String: Any] ?? [:]
                object[path[1]] = value
                body[path[0]] = object
            } else {
                body[path[0]] = value
            }
        }
        return String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
    }

    @Test func everyFieldsetOfTheStoreFormIsInExactlyOneGroup() {
        for fieldset in StoreSetting.Group.allCases {
            #expect(StoreFormGroup.allCases.filter { $0.fieldsets.contains(fieldset) }.count == 1, "\(fieldset)")
        }
    }

    @Test(arguments: StoreFormGroup.allCases)
    func applyingOneGroupKeepsTheSettingsOfEveryOtherGroup(_ group: StoreFormGroup) async throws {
        try await withLiveServer { server in
            let session = try await pages.session(server)
            let others = StoreSettings.declarations.filter { !group.fieldsets.contains($0.group) }
            #expect(await server.json("PUT", "/api/store", try Self.otherValues(StoreSettings.declarations)).status == 200)
            let reply = await pages.post(server, "/store", session, form: Self.form(group))
            #expect(reply.status == 303, "\(reply.body)")
            let settings = await server.json("GET", "/api/store").object
            for declaration in others {
                #expect(
                    StoreSettingDeclarationTests.value(declaration, in: settings) == StoreSettingDeclarationTests.otherValue(declaration),
                    "\(declaration.key), outside \(group), kept its value")
            }
            for declaration in Self.declarations(group) {
                #expect(
                    StoreSettingDeclarationTests.value(declaration, in: settings) == declaration.defaultValue,
                    "\(declaration.key), in \(group), took the form's value")
            }
        }
    }

    @Test(arguments: StoreFormGroup.allCases)
    func eachGroupHasItsOwnFormAndItsApplyReturnsToIt(_ group: StoreFormGroup) async throws {
        try await withLiveServer { server in
            let session = try await pages.session(server)
            let page = await server.send("GET", "/store", fields: [("Cookie", session.cookie)]).body
            #expect(page.components(separatedBy: #"<input type="hidden" name="group" value="\#(group.rawValue)">"#).count == 2)
            let section = StoreSettingDeclarationTests.segment(of: page, from: #"<section class="panel" id="\#(group.rawValue)""#, to: "</section>")
            for declaration in Self.declarations(group) {
                #expect(section.contains(#"name="\#(declaration.formName)""#), "\(declaration.formName) is in the \(group) form")
            }
            let reply = await pages.post(server, "/store", session, form: Self.form(group))
            #expect(reply["Location"] == "/store?flash=saved-\(group.rawValue)#\(group.rawValue)")
            let after = await server.send("GET", "/store?flash=saved-\(group.rawValue)", fields: [("Cookie", session.cookie)]).body
            let flashed = StoreSettingDeclarationTests.segment(of: after, from: #"<section class="panel" id="\#(group.rawValue)""#, to: "</section>")
            #expect(flashed.contains("saved; the other groups kept their settings."))
        }
    }

    @Test func aGroupTheStorePageDoesNotHaveIs400AndChangesNothing() async throws {
        try await withLiveServer { server in
            let session = try await pages.session(server)
            let before = await server.json("GET", "/api/store").body
            let reply = await pages.post(server, "/store", session, form: "group=everything&" + StoreSettingDeclarationTests.form())
            #expect(reply.status == 400)
            #expect(reply.body.contains("group must be one of settings, failures, traps."))
            #expect(await server.json("GET", "/api/store").body == before)
        }
    }

    @Test func theSummaryNamesEverySettingThatIsNotAtItsDefault() {
        let healthy = StoreSettings.normal.summary.map { "\($0.term): \($0.parts.map(\.text).joined())" }
        for declaration in StoreSettings.declarations {
            guard let other = StoreSettingDeclarationTests.otherValue(declaration) else { continue }
            var settings = StoreSettings.normal
            #expect(declaration.set(other, in: &settings))
            let summary = settings.summary.map { "\($0.term): \($0.parts.map(\.text).joined())" }
            #expect(summary != healthy, "\(declaration.key) = \(other) shows in the summary")
        }
    }

    @Test func theStoreAndTheOverviewNameTheListenerTrapsThatAreOn() async throws {
        try await withLiveServer { server in
            #expect(await server.json("PUT", "/api/store", #"{"listenerReemits":2,"crashBeforeFinish":true}"#).status == 200)
            for path in ["/store", "/"] {
                let summary = StoreSettingDeclarationTests.segment(of: await server.send("GET", path).body, from: #"<dl class="summary">"#, to: "</dl>")
                #expect(summary.contains("<dt>Listener traps</dt>"), "\(path)")
                #expect(summary.contains(#"<span class="badge badge-failing">re-emits 2×</span>"#), "\(path)")
                #expect(summary.contains(#"<span class="badge badge-failing">crashes before finish()</span>"#), "\(path)")
            }
        }
    }
}
