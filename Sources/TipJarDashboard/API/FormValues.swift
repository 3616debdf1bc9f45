/// The form fields several page routes read the same way: a checkbox, and the text size a no-JavaScript form
/// carries across its redirect.
enum FormValues {
    /// A checkbox of a form: a checked box sends its `value` (`on` when it has none,
    /// https://html.spec.whatwg.org/#constructing-the-form-data-set), an unchecked one nothing. `on`, `true`
    /// and `1` are checked (ASCII case ignored), an absent field is unchecked, anything else is refused.
    /// - Throws: `RequestError` (400) naming the field.
    static func checkbox(_ form: [String: String], _ name: String) throws -> Bool {
        guard let raw = form[name] else { return false }
        guard ["on", "true", "1"].contains(raw.lowercased()) else {
            throw RequestError(message: "\(name) must be on, true or 1 when checked, and absent when not.")
        }
        return true
    }

    /// `&textSize=…` when the form carried a known text size other than the default (Large), so a no-JavaScript
    /// user keeps it across the redirect (``TextSize``: an earlier name is passed on as today's).
    /// The text size the form carried (``TextSize``), the default when none or an unknown one.
    static func textSize(_ context: DashboardContext) -> TextSize {
        TextSize(value: context.form["textSize"]) ?? .default
    }

    static func textSizeQuery(_ context: DashboardContext) -> String {
        guard let size = TextSize(value: context.form["textSize"]), size != .default else { return "" }
        return "&textSize=\(size.rawValue)"
    }
}
