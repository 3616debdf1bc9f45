import Foundation
import HTTPServer

/// Downloads: the CSV/JSON exports (``APIController``) and a recorded scenario (``ScenariosController``).
extension HTTPResponse {
    /// `text/csv` with the `header=present` parameter (RFC 4180, section 3), as an attachment.
    static func csvAttachment(_ table: CSVTable, name: String) -> HTTPResponse {
        var response = HTTPResponse(status: .ok, body: Array(table.text.utf8))
        response.fields["Content-Type"] = "text/csv; charset=utf-8; header=present"
        return response.attachment(named: name)
    }

    /// The response marked as a download (RFC 6266, section 4): `attachment; filename="…"`, the name
    /// reduced to letters, digits, `-`, `_` and `.` so it needs no quoting or encoding.
    func attachment(named name: String) -> HTTPResponse {
        var response = self
        let safe = String(
            name.unicodeScalars.map { scalar -> Character in
                scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "-_.".unicodeScalars.contains(scalar)) ? Character(scalar) : "_"
            })
        response.fields["Content-Disposition"] = "attachment; filename=\"\(safe)\""
        return response
    }
}
