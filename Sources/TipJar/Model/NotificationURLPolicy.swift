import Foundation

/// Which notifications URLs the simulated App Store posts to: the checks a URL passes when it is saved (the API, the
/// `/notifications` form, `serve --notifications-url`) and again at every hop an attempt takes (a 307 or 308's
/// `Location`), and the addresses a sender may connect to once the host name is resolved.
///
/// A URL that can never work is refused with a reason: not `http`/`https`, no host, user information (RFC 3986 §3.2.1
/// deprecates a password there, and a notification carries none), a port outside 1–65535 (RFC 6335 §6: port 0 is
/// reserved), control or bidirectional-formatting characters (a newline would split the request's head; U+202E shows
/// a host other than the one connected to, Unicode TR #36 §2.3). Link-local addresses (169.254.0.0/16, RFC 3927;
/// fe80::/10, RFC 4291 §2.5.6) and the cloud metadata services that live there or under well-known names are refused
/// unless ``allowsLinkLocal``: a dashboard behind `--admin-token` must not become a way to read its own host's
/// credentials. Loopback and private addresses stay allowed: the developer's server is usually on the same machine or
/// network.
public struct NotificationURLPolicy: Sendable, Equatable {
    /// Whether link-local and cloud metadata addresses may be posted to (`serve --notifications-allow-link-local`).
    public var allowsLinkLocal: Bool

    /// Creates a policy; by default link-local and metadata addresses are refused.
    public init(allowsLinkLocal: Bool = false) {
        self.allowsLinkLocal = allowsLinkLocal
    }

    /// Host names of cloud metadata services (Google Cloud's, https://cloud.google.com/compute/docs/metadata/querying-metadata).
    static let metadataNames: Set<String> = ["metadata.google.internal", "metadata.goog", "metadata"]

    /// The URL of `text` if this policy posts to it.
    /// - Throws: `TipJarError.invalidValue(field: "url", …)` naming what is wrong.
    public func checked(_ text: String) throws -> URL {
        func refuse(_ reason: String) -> TipJarError { TipJarError.invalidValue(field: "url", reason: reason) }
        guard text.utf8.count <= 2_048 else { throw refuse("must be at most 2048 bytes") }
        if let (offset, scalar) = text.unicodeScalars.enumerated().first(where: { Self.isForbidden($0.element) }) {
            throw refuse(
                "must not contain control or bidirectional-formatting characters (U+\(String(format: "%04X", scalar.value)) at character \(offset + 1))")
        }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty, let url = components.url
        else { throw refuse("must be an absolute http:// or https:// URL with a host") }
        guard components.user == nil, components.password == nil else { throw refuse("must not carry a user name or password") }
        if let port = components.port, !(1...65_535).contains(port) { throw refuse("port must be from 1 to 65535") }
        if !allowsLinkLocal, Self.isLinkLocalOrMetadata(host: host) {
            throw refuse(
                "\(host) is a link-local or cloud metadata address; start the dashboard with --notifications-allow-link-local to post there")
        }
        return url
    }

    /// Whether a scalar may not appear in a notifications URL: C0 and C1 controls, DEL, and the bidirectional
    /// formatting characters of Unicode TR #9 (ALM, LRM, RLM, LRE–RLO, LRI–PDI).
    static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    /// Whether `host` (a name, a dotted IPv4 address, or an IPv6 address with or without brackets) names a link-local
    /// or cloud metadata address. Forms a resolver also reads as IPv4 (`2852039166`, `0xa9.0xfe.…`) are caught when
    /// the address is resolved (``isLinkLocalOrMetadata(address:)``).
    public static func isLinkLocalOrMetadata(host: String) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        while name.hasSuffix(".") { name.removeLast() }
        if metadataNames.contains(name) { return true }
        if let bytes = ipv4Bytes(name) { return isLinkLocalOrMetadata(address: bytes) }
        if name.contains(":"), let bytes = ipv6Bytes(name) { return isLinkLocalOrMetadata(address: bytes) }
        return false
    }

    /// Whether a resolved address (4 bytes for IPv4, 16 for IPv6, network order) is link-local or a metadata service:
    /// 169.254.0.0/16 (and the same inside ::ffff:0:0/96), fe80::/10, AWS's fd00:ec2::254
    /// (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/instancedata-data-retrieval.html) and Alibaba Cloud's
    /// 100.100.100.200.
    public static func isLinkLocalOrMetadata(address bytes: [UInt8]) -> Bool {
        switch bytes.count {
        case 4: return (bytes[0] == 169 && bytes[1] == 254) || bytes == [100, 100, 100, 200]
        case 16:
            if bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80 { return true }
            if bytes == [0xFD, 0x00, 0x0E, 0xC2] + [UInt8](repeating: 0, count: 10) + [0x02, 0x54] { return true }
            if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
                return isLinkLocalOrMetadata(address: Array(bytes[12...]))
            }
            return false
        default: return false
        }
    }

    /// The four bytes of a dotted-decimal IPv4 address, or `nil`.
    static func ipv4Bytes(_ text: String) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        let bytes = parts.compactMap { part in part.allSatisfy(\.isASCII) ? UInt8(part) : nil }
        return bytes.count == 4 ? bytes : nil
    }

    /// The sixteen bytes of an IPv6 address in text (RFC 4291 §2.2, a zone after `%` ignored), or `nil`.
    static func ipv6Bytes(_ text: String) -> [UInt8]? {
        let address = text.split(separator: "%", maxSplits: 1).first.map(String.init) ?? text
        var tail: [UInt8] = []
        var body = address
        if let last = address.split(separator: ":", omittingEmptySubsequences: false).last, last.contains(".") {
            guard let v4 = ipv4Bytes(String(last)) else { return nil }
            tail = v4
            body = String(address.dropLast(last.count))
            if body.hasSuffix("::") == false, body.hasSuffix(":") { body.removeLast() }
        }
        func groups(_ part: Substring) -> [UInt16]? {
            if part.isEmpty { return [] }
            var values: [UInt16] = []
            for piece in part.split(separator: ":", omittingEmptySubsequences: false) {
                guard piece.count <= 4, let value = UInt16(piece, radix: 16) else { return nil }
                values.append(value)
            }
            return values
        }
        let halves = body.components(separatedBy: "::")
        guard halves.count <= 2, let head = groups(Substring(halves[0])) else { return nil }
        let rest = halves.count == 2 ? groups(Substring(halves[1])) : []
        guard let rest else { return nil }
        let wanted = (16 - tail.count) / 2
        let zeros = halves.count == 2 ? wanted - head.count - rest.count : 0
        guard zeros >= 0, head.count + zeros + rest.count == wanted else { return nil }
        let all = head + [UInt16](repeating: 0, count: zeros) + rest
        return all.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } + tail
    }
}
