#if canImport(Glibc)
import Glibc
#endif

/// The process's file-descriptor limit (`RLIMIT_NOFILE`, getrlimit(2)), which every connection
/// counts against: ``HTTPServer/start()`` cuts the connection caps to fit it
/// (``HTTPServerConfiguration/fitted(toDescriptorLimit:)``), so `accept4(2)` does not run out of
/// descriptors (`EMFILE`) under load.
public enum DescriptorLimit {
    /// Descriptors kept for everything that is not a connection: standard streams, the listening
    /// socket, epoll and eventfd, SQLite's connections with their WAL and shared-memory files
    /// (https://www.sqlite.org/tempfiles.html), static files being read, and the log.
    public static let reserve = 128

    /// The soft limit now in force, or `nil` when it cannot be read or is unlimited (`RLIM_INFINITY`, all ones).
    public static var current: Int? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
        return Int(clamping: limit.rlim_cur)
    }

    /// Raises the soft limit to the hard limit (setrlimit(2): an unprivileged process may raise
    /// its soft limit up to the hard one). The common soft limit of 1,024 exists for `select(2)`'s
    /// `FD_SETSIZE`, which an epoll server does not use.
    /// - Returns: The soft limit in force afterwards (`nil` when unlimited or unreadable).
    @discardableResult
    public static func raiseToHardLimit() -> Int? {
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        return current
    }
}

extension HTTPServerConfiguration {
    /// The configuration with its connection caps cut so that the open connections
    /// (``maxConnections``) and those being refused with a 503 (``maxShedConnections``), each one
    /// descriptor, fit in `descriptorLimit` less ``DescriptorLimit/reserve``; an eighth of that
    /// goes to the refused ones. The stream budget is fitted with them: cut in the same proportion as
    /// ``maxConnections`` (1,024 of 4,096 by default stays a quarter), never above three quarters of the
    /// open connections, so there is always room for a client that is not streaming, and one address
    /// holds at most a quarter of it (``maxStreamsPerAddress``). Unchanged when everything already fits.
    /// - Parameter descriptorLimit: The soft `RLIMIT_NOFILE`, e.g. ``DescriptorLimit/current``; `Int.max`
    ///   when unlimited (only the stream budget is fitted then).
    /// - Returns: The fitted configuration; ``maxConnectionsPerAddress`` is at most ``maxConnections``.
    public func fitted(toDescriptorLimit descriptorLimit: Int) -> HTTPServerConfiguration {
        var fitted = self
        let budget = max(2, descriptorLimit - DescriptorLimit.reserve)
        if maxConnections + maxShedConnections > budget {
            fitted.maxShedConnections = max(1, min(maxShedConnections, budget / 8))
            fitted.maxConnections = max(1, min(maxConnections, budget - fitted.maxShedConnections))
            fitted.maxConnectionsPerAddress = min(maxConnectionsPerAddress, fitted.maxConnections)
        }
        var streams = maxStreams
        if fitted.maxConnections < maxConnections {
            streams = Int((Double(maxStreams) * Double(fitted.maxConnections) / Double(maxConnections)).rounded(.down))
        }
        fitted.maxStreams = max(1, min(streams, fitted.maxConnections - fitted.maxConnections / 4))
        fitted.maxStreamsPerAddress = max(1, min(maxStreamsPerAddress, fitted.maxStreams / 4))
        return fitted
    }
}
