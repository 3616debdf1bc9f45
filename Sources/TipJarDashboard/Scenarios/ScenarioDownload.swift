import Foundation

/// A scenario file shipped in `Public/scenarios/`, offered for download on `/store`.
struct ScenarioDownload: Sendable, Equatable {
    /// The file name, e.g. `trap-01-….json`.
    var file: String
    /// The scenario's `name`.
    var name: String
    /// Where the static files serve it: `/scenarios/<file>`, percent-encoded.
    var href: String
    /// The file's path on disk, which `/store`'s "Run" reads.
    var path: String
    /// Where `/store` posts to run it: `/store/scenarios/<file>/run`, percent-encoded.
    var runAction: String

    /// The scenario files of `publicDirectory/scenarios`, sorted by name; files
    /// that are not scenario objects with a `name` are left out.
    static func list(in publicDirectory: URL) -> [ScenarioDownload] {
        let folder = publicDirectory.appendingPathComponent("scenarios")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return files.filter { $0.hasSuffix(".json") }.sorted().compactMap { file in
            let path = folder.appendingPathComponent(file).path
            guard let data = FileManager.default.contents(atPath: path),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let name = object["name"] as? String
            else { return nil }
            let encoded = file.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? file
            return ScenarioDownload(
                file: file, name: name, href: "/scenarios/\(encoded)", path: path,
                runAction: "/store/scenarios/\(ViewModels.urlComponent(file))/run")
        }
    }
}
