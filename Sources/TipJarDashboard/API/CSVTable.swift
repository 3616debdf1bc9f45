/// A table written as CSV (RFC 4180, section 2): records end with CRLF, a field that holds a
/// double quote, a comma, a CR or an LF is enclosed in double quotes with each double quote
/// doubled, and the first record is the header.
///
/// Every field a spreadsheet would read as a formula — one that starts with `=`, `+`, `-`, `@`, a
/// tab or a carriage return — is prefixed with `'`, as OWASP's "CSV Injection" page advises
/// (https://owasp.org/www-community/attacks/CSV_Injection), so an install labelled
/// `=HYPERLINK(…)` opens as text, not as a live link.
struct CSVTable: Sendable {
    /// The column names.
    var header: [String]
    /// The records, each with one field per column.
    var rows: [[String]]

    /// The CSV text.
    var text: String {
        var out = ""
        for record in [header] + rows {
            out += record.map { Self.field($0) }.joined(separator: ",")
            out += "\r\n"
        }
        return out
    }

    /// One field, neutralised and quoted as needed.
    static func field(_ value: String) -> String {
        var value = value
        if let first = value.unicodeScalars.first, ["=", "+", "-", "@", "\t", "\r"].contains(first) { value = "'" + value }
        guard value.contains(where: { $0 == "\"" || $0 == "," || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
