import Foundation
import Testing

/// The dashboard's templates never place a value in an unquoted attribute, a `<script>`,
/// a `<style>` or an event-handler attribute, and never use the unescaped forms.
@Suite("Template safety")
struct TemplateSafetyTests {
    static var templates: [(name: String, text: String)] {
        let root = LiveServer.repositoryRoot.appendingPathComponent("Templates")
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        return files.filter { $0.pathExtension == "mustache" }.sorted { $0.path < $1.path }.compactMap { url in
            (try? String(contentsOf: url, encoding: .utf8)).map { (url.path.replacingOccurrences(of: root.path + "/", with: ""), $0) }
        }
    }

    /// What is wrong with a template's text, as sentences; empty when it is safe.
    static func problems(in text: String) -> [String] {
        let rules: [(pattern: String, problem: String)] = [
            (#"\{\{\{"#, "unescaped {{{ }}}"),
            (#"\{\{&"#, "unescaped {{& }}"),
            (#"(?is)<script.*?\{\{.*?</script>"#, "a value in a <script>"),
            (#"(?is)<script[^>]*>\s*[^<\s]"#, "an inline script"),
            (#"(?i)<style"#, "a <style> element"),
            (#"\sstyle\s*="#, "an inline style attribute"),
            (#"\s[A-Za-z-]+=\{\{"#, "an unquoted attribute value"),
            (#"(?i)\son[a-z]+\s*="#, "an event-handler attribute"),
        ]
        return rules.filter { text.range(of: $0.pattern, options: .regularExpression) != nil }.map(\.problem)
    }

    @Test func everyTemplateIsChecked() {
        #expect(Self.templates.count >= 15)
    }

    @Test(arguments: templates.map(\.name))
    func valuesOnlyAppearInTextOrQuotedAttributes(_ name: String) throws {
        let text = try #require(Self.templates.first { $0.name == name }?.text)
        #expect(Self.problems(in: text).isEmpty, "\(name): \(Self.problems(in: text))")
    }

    @Test(arguments: [
        #"<a href={{url}}>"#, #"<p>{{{raw}}}</p>"#, #"<script>var x = "{{name}}";</script>"#,
        #"<button onclick="go()">"#, #"<div style="color: red">"#, #"<style>p{}</style>"#, #"<p>{{& raw}}</p>"#,
    ])
    func theCheckCatchesEachUnsafePattern(_ snippet: String) {
        #expect(!Self.problems(in: snippet).isEmpty)
    }

    @Test func theCheckAcceptsWhatTheTemplatesDo() {
        #expect(Self.problems(in: #"<a href="/installs/{{id}}?textSize={{size}}" class="tile tier-{{tier}}">{{name}}</a><script src="/app.js" defer></script>"#).isEmpty)
    }
}
