/// Syntax and allow-list checks for `Host` and absolute-form authorities (RFC 9112 §3.2, RFC 3986 §3.2).
enum HostValidator {
    /// Validates `uri-host [ ":" port ]` and returns it lower-cased with an explicit port
    /// (`:80` when absent), e.g. `127.0.0.1:8080`, `[::1]:80`.
    /// - Throws: ``HTTPParseError/badRequest(_:)`` for empty values, userinfo, bad characters or ports.
    static func normalize(_ raw: ArraySlice<UInt8>) throws(HTTPParseError) -> String {
        guard !raw.isEmpty else { throw .badRequest("empty host") }
        var hostEnd: Int
        if raw.first == UInt8(ascii: "[") {
            guard let close = raw.firstIndex(of: UInt8(ascii: "]")) else { throw .badRequest("unterminated IP-literal") }
            for b in raw[(raw.startIndex + 1)..<close] where !TokenTable.ipLiteral[Int(b)] {
                throw .badRequest("invalid IP-literal")
            }
            hostEnd = close + 1
        } else {
            hostEnd = raw.endIndex
            for i in raw.indices {
                let b = raw[i]
                if b == UInt8(ascii: ":") { hostEnd = i; break }
                if b == UInt8(ascii: "@") { throw .badRequest("userinfo in host") }
                guard TokenTable.regName[Int(b)] else { throw .badRequest("invalid host character") }
            }
            if hostEnd == raw.startIndex { throw .badRequest("empty host") }
        }
        var port = "80"
        if hostEnd < raw.endIndex {
            guard raw[hostEnd] == UInt8(ascii: ":") else { throw .badRequest("junk after host") }
            let digits = raw[(hostEnd + 1)...]
            guard digits.count <= 5, digits.allSatisfy(TokenTable.isDigit) else { throw .badRequest("invalid port") }
            if !digits.isEmpty { port = String(Int(String(decoding: digits, as: UTF8.self)) ?? 0) }
        }
        return String(decoding: raw[raw.startIndex..<hostEnd], as: UTF8.self).lowercased() + ":" + port
    }

    /// Normalises configured allow-list entries; invalid entries are dropped.
    /// - Parameter entries: `host[:port]` strings.
    /// - Returns: the normalised set.
    static func normalizeAll(_ entries: [String]) -> Set<String> {
        var set = Set<String>()
        for entry in entries {
            if let value = try? normalize(ArraySlice(entry.utf8)) { set.insert(value) }
        }
        return set
    }

    /// The names every loopback listener answers to.
    static let loopbackNames = ["localhost", "127.0.0.1", "::1"]

    /// The `Host` allow-list of a server (RFC 9110 §7.2; DNS-rebinding defence), each entry with
    /// `port` unless it names its own:
    /// - ``HTTPServerConfiguration/allowedHosts``, when set, exactly;
    /// - a wildcard bind (`0.0.0.0`, `::`): the loopback names, plus the machine's own names and
    ///   addresses (``HTTPServerConfiguration/machineNames``, read with `gethostname(2)` and
    ///   `getifaddrs(3)` when `nil`);
    /// - any other bind: its address, plus the loopback names for a loopback address;
    /// - in every case but the first, ``HTTPServerConfiguration/additionalHosts``.
    /// - Parameters:
    ///   - configuration: the server's configuration.
    ///   - port: the bound port.
    static func allowList(for configuration: HTTPServerConfiguration, port: Int) -> Set<String> {
        if let hosts = configuration.allowedHosts { return normalizeAll(hosts) }
        let host = configuration.host
        var names: [String]
        if host == "0.0.0.0" || host == "::" || host == "[::]" || host.isEmpty {
            names = loopbackNames + (configuration.machineNames ?? MachineNames.current())
        } else {
            names = [host]
            if host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.") { names += loopbackNames }
        }
        names += configuration.additionalHosts
        return normalizeAll(names.map { authority($0, defaultPort: port) })
    }

    /// `name` as `host:port`: an IPv6 literal gets its brackets (RFC 3986 §3.2.2), and a name
    /// without a port gets `defaultPort`.
    static func authority(_ name: String, defaultPort: Int) -> String {
        if name.hasPrefix("[") { return name.hasSuffix("]") ? "\(name):\(defaultPort)" : name }
        switch name.utf8.filter({ $0 == UInt8(ascii: ":") }).count {
        case 0: return "\(name):\(defaultPort)"
        case 1: return name
        default: return "[\(name)]:\(defaultPort)"
        }
    }
}
