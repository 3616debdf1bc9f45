#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Serves files below a root folder (e.g. `Public/`).
///
/// Safety: only `GET`/`HEAD` are served; dotfiles (any segment starting with `.`) and directories
/// are never served (no listings); the resolved real path (symlinks followed) must stay inside the
/// resolved root. Responses carry `Content-Type`, a strong `ETag` and `Cache-Control`;
/// `If-None-Match` yields 304 (RFC 9110 §13.1.2, weak comparison). File bytes are cached in memory
/// after the first read (up to 64 MiB in total), so changes on disk are not picked up until restart;
/// every response shares the cached bytes (the server writes them without copying).
public struct StaticFiles: HTTPResponder, RouterFallback {
    /// The root folder as given.
    public let root: URL
    /// The `Cache-Control` value sent with files. Default `public, max-age=3600`.
    public let cacheControl: String
    /// Largest file served, in bytes. Default 16 MiB.
    public let maxFileSize: Int
    let rootPath: String
    let cache: StaticFileCache

    /// Creates a static file responder.
    /// - Parameters:
    ///   - root: the folder to serve; symlinks in it are resolved once here.
    ///   - cacheControl: `Cache-Control` for served files (default `public, max-age=3600`, i.e. 1 hour).
    ///   - maxFileSize: largest file served, in bytes (default 16 MiB).
    public init(root: URL, cacheControl: String = "public, max-age=3600", maxFileSize: Int = 16 * 1024 * 1024) {
        self.root = root
        self.cacheControl = cacheControl
        self.maxFileSize = maxFileSize
        let path = root.path
        if let resolved = realpath(path, nil) {
            rootPath = String(cString: resolved)
            free(resolved)
        } else {
            rootPath = path
        }
        cache = StaticFileCache(capacity: 64 * 1024 * 1024)
    }

    /// The response for `request` if it names a servable file.
    /// - Parameter request: the request; its decoded ``HTTPRequest/path`` is used.
    /// - Returns: 200/304 for GET and HEAD, 204 with `Allow` for OPTIONS, 405 with `Allow` for other
    ///   methods on an existing file; `nil` when the path is not a servable file.
    public func response(for request: HTTPRequest) -> HTTPResponse? {
        let path = request.path
        guard path.hasPrefix("/"), path.count > 1 else { return nil }
        guard let (entry, cached) = entry(for: path) else { return nil }
        switch request.method {
        case "GET", "HEAD":
            break
        case "OPTIONS":
            return HTTPResponse(status: .noContent, fields: ["Allow": "GET, HEAD, OPTIONS"])
        default:
            var response = HTTPResponse.status(.methodNotAllowed)
            response.fields["Allow"] = "GET, HEAD, OPTIONS"
            return response
        }
        var fields: HTTPFields = ["ETag": entry.etag, "Cache-Control": cacheControl]
        if let inm = request.fields["If-None-Match"], Self.matches(ifNoneMatch: inm, etag: entry.etag) {
            return HTTPResponse(status: .notModified, fields: fields)
        }
        fields.append(name: "Content-Type", value: entry.contentType)
        var response = HTTPResponse(status: .ok, fields: fields, body: entry.body)
        if cached { response.markBodyShared() }
        return response
    }

    /// ``RouterFallback/answer(_:)``: the file, or ``HTTPError/notFound`` / ``HTTPError/methodNotAllowed(_:allow:)``
    /// thrown for the router's chain to render.
    public func answer(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let response = response(for: request) else { throw HTTPError.notFound }
        if response.status == .methodNotAllowed { throw HTTPError.methodNotAllowed(request.method, allow: response.fields["Allow"] ?? "GET, HEAD, OPTIONS") }
        return response
    }

    /// Serves the file or answers 404.
    /// - Parameter request: the request.
    /// - Returns: ``response(for:)`` or a 404 page.
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        response(for: request) ?? .status(.notFound)
    }

    /// ``RouterFallback/immediateAnswer(_:)``: for a `GET` or `HEAD` of a file whose bytes are in memory, its 200, or
    /// `304 Not Modified` for a matching `If-None-Match`, both prepared when the file was cached: the same answers as
    /// ``response(for:)``. Never reads the disk, so it may be asked on the I/O thread (``ImmediateResponder``).
    /// - Parameter request: the request.
    /// - Returns: the prepared answer, or `nil` when the file is not in memory (or the method is another).
    public func immediateAnswer(_ request: HTTPRequest) -> PreparedResponse? {
        guard request.method == "GET" || request.method == "HEAD", let entry = cache.lookup(request.path), let answers = entry.answers else { return nil }
        if let condition = request.fields["If-None-Match"], Self.matches(ifNoneMatch: condition, etag: entry.etag) { return answers.notModified }
        return answers.ok
    }

    /// The file's entry, and whether it is in the cache (so its bytes are shared by every response).
    func entry(for path: String) -> (StaticFileCache.Entry, cached: Bool)? {
        if let cached = cache.lookup(path) { return (cached, true) }
        for segment in path.split(separator: "/") where segment.hasPrefix(".") || segment.contains("\\") { return nil }
        if path.utf8.contains(0) { return nil }
        guard let resolved = realpath(rootPath + path, nil) else { return nil }
        let real = String(cString: resolved)
        free(resolved)
        guard real.hasPrefix(rootPath.hasSuffix("/") ? rootPath : rootPath + "/") else { return nil }
        guard let body = Self.readRegularFile(real, maxSize: maxFileSize) else { return nil }
        var entry = StaticFileCache.Entry(body: body, etag: Self.etag(for: body), contentType: MIMETypes.type(forPath: path))
        var ok = HTTPResponse(
            status: .ok, fields: ["ETag": entry.etag, "Cache-Control": cacheControl, "Content-Type": entry.contentType], body: body)
        ok.markBodyShared()
        if let ok = PreparedResponse(ok),
            let notModified = PreparedResponse(HTTPResponse(status: .notModified, fields: ["ETag": entry.etag, "Cache-Control": cacheControl]))
        {
            entry.answers = StaticFileCache.Answers(ok: ok, notModified: notModified)
        }
        return (entry, cache.store(entry, for: path))
    }

    /// Reads a regular file (not a directory, device or FIFO) up to `maxSize` bytes.
    static func readRegularFile(_ path: String, maxSize: Int) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) <= maxSize else { return nil }
        let size = Int(info.st_size)
        var bytes = [UInt8](repeating: 0, count: size)
        var offset = 0
        while offset < size {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + offset, size - offset) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            offset += n
        }
        return offset == size ? bytes : nil
    }

    /// A strong validator: FNV-1a 64 of the content plus its length, quoted (RFC 9110 §8.8.3).
    static func etag(for body: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf29ce484222325
        for b in body {
            hash ^= UInt64(b)
            hash &*= 0x100000001b3
        }
        return "\"\(String(hash, radix: 16))-\(String(body.count, radix: 16))\""
    }

    /// `If-None-Match` evaluation with the weak comparison function (RFC 9110 §13.1.2).
    static func matches(ifNoneMatch: String, etag: String) -> Bool {
        for candidate in ifNoneMatch.split(separator: ",") {
            var tag = candidate.trimmingCharacters(in: " \t")
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
            if tag == etag[...] { return true }
        }
        return false
    }
}
