import Foundation
import Testing

/// The `/api` reference opens with the document's `info.description`, what every request has in common; it names
/// every request media type the operations take, so a script sending `application/json` to `PATCH /api/store` (a JSON
/// Merge Patch, RFC 7396: https://www.rfc-editor.org/rfc/rfc7396) is not told the wrong thing.
@Suite("The /api introduction")
struct APIIntroTests {
    @Test func theIntroductionNamesEveryRequestMediaTypeTheOperationsTake() throws {
        let url = LiveServer.repositoryRoot.appendingPathComponent("Public/api/openapi.json")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let description = try #require((document["info"] as? [String: Any])?["description"] as? String)
        var mediaTypes: Set<String> = []
        for case let operations as [String: Any] in (document["paths"] as? [String: Any] ?? [:]).values {
            for case let operation as [String: Any] in operations.values {
                let content = (operation["requestBody"] as? [String: Any])?["content"] as? [String: Any] ?? [:]
                mediaTypes.formUnion(content.keys)
            }
        }
        #expect(mediaTypes.contains("application/merge-patch+json"))
        for mediaType in mediaTypes { #expect(description.contains(mediaType), "\(mediaType)") }
    }
}
