/// Content types for static files, by lower-cased file extension.
public enum MIMETypes {
    /// The built-in table. Text types carry `charset=utf-8`.
    public static let table: [String: String] = [
        "css": "text/css; charset=utf-8",
        "js": "text/javascript; charset=utf-8",
        "mjs": "text/javascript; charset=utf-8",
        "svg": "image/svg+xml",
        "png": "image/png",
        "ico": "image/x-icon",
        "html": "text/html; charset=utf-8",
        "htm": "text/html; charset=utf-8",
        "txt": "text/plain; charset=utf-8",
        "json": "application/json",
        "woff2": "font/woff2",
        "woff": "font/woff",
        "webp": "image/webp",
        "jpg": "image/jpeg",
        "jpeg": "image/jpeg",
        "gif": "image/gif",
        "map": "application/json",
        "webmanifest": "application/manifest+json",
    ]

    /// The content type for `path`'s extension.
    /// - Parameter path: a file path or name.
    /// - Returns: the type, or `application/octet-stream` when unknown.
    public static func type(forPath path: String) -> String {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return "application/octet-stream" }
        return table[path[path.index(after: dot)...].lowercased()] ?? "application/octet-stream"
    }
}
