/// Size limits applied while parsing a request. Exceeding one ends the connection with the given status.
public struct HTTPLimits: Sendable, Equatable {
    /// Maximum request-line length in bytes, CRLF excluded. Default 8 KiB (8192). Over → 414.
    public var requestLine: Int
    /// Maximum field-section size in bytes (all field lines with their CRLFs; trailers count
    /// separately with the same limit). Default 16 KiB (16384). Over → 431.
    public var fieldSection: Int
    /// Maximum number of field lines (and of trailer lines). Default 100. Over → 431.
    public var maxFields: Int
    /// Maximum body size in bytes after de-chunking. Default 1 MiB (1048576). Over → 413,
    /// decided from Content-Length before any body byte is read.
    public var body: Int
    /// Maximum chunk-extension length in bytes per chunk-size line (RFC 9112 §7.1.1). Default 1 KiB. Over → 400.
    public var chunkExtension: Int

    /// Creates limits; every parameter has the documented default.
    /// - Parameters:
    ///   - requestLine: bytes, default 8192.
    ///   - fieldSection: bytes, default 16384.
    ///   - maxFields: lines, default 100.
    ///   - body: bytes, default 1048576.
    ///   - chunkExtension: bytes, default 1024.
    public init(
        requestLine: Int = 8 * 1024, fieldSection: Int = 16 * 1024, maxFields: Int = 100,
        body: Int = 1024 * 1024, chunkExtension: Int = 1024
    ) {
        self.requestLine = requestLine
        self.fieldSection = fieldSection
        self.maxFields = maxFields
        self.body = body
        self.chunkExtension = chunkExtension
    }
}
