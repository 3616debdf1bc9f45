#if canImport(Glibc)
import Glibc
#endif

/// IMF-fixdate formatting for the `Date` field (RFC 9110 §5.6.7), cached per second.
/// Used only on the event-loop thread.
struct HTTPDate {
    private var second: time_t = -1
    private var cached: [UInt8] = []

    /// `Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n` for the current second, as bytes.
    mutating func fieldLine() -> [UInt8] {
        let now = time(nil)
        if now != second {
            second = now
            cached = Array("Date: \(Self.format(now))\r\n".utf8)
        }
        return cached
    }

    /// Formats a UNIX time as IMF-fixdate.
    /// - Parameter t: seconds since the epoch.
    static func format(_ t: time_t) -> String {
        var t = t
        var parts = tm()
        gmtime_r(&t, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
