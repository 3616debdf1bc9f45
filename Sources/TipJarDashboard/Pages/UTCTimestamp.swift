import Foundation

/// A `Date` broken into its UTC calendar fields with integer arithmetic (the proleptic Gregorian
/// calendar of ISO 8601), for the timestamps every ledger row and timeline line shows. Pages
/// render dozens of them per request, and Foundation's formatters cost more than the rest of the
/// page; the result is the same text.
struct UTCTimestamp: Equatable {
    var year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, millisecond: Int

    /// `date` to the nearest millisecond: a date read back from the database is `Double(ms) / 1000`, whose product
    /// by 1000 can land just below `ms` (1080295754370 gives 1080295754369.9999), so rounding down would show it one
    /// millisecond early.
    init(_ date: Date) {
        self.init(milliseconds: Self.milliseconds(since1970: date))
    }

    /// Milliseconds since 1970-01-01T00:00:00Z, to the nearest (as the database stores dates), e.g. for the JWS
    /// payload's dates (https://developer.apple.com/documentation/appstoreserverapi/purchasedate: "UNIX time, in
    /// milliseconds").
    static func milliseconds(since1970 date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// The fields of the instant `milliseconds` after 1970-01-01T00:00:00Z.
    init(milliseconds: Int64) {
        let milliseconds = Int(milliseconds)
        var days = milliseconds >= 0 ? milliseconds / 86_400_000 : (milliseconds - 86_399_999) / 86_400_000
        let inDay = milliseconds - days * 86_400_000
        hour = inDay / 3_600_000
        minute = inDay / 60_000 % 60
        second = inDay / 1000 % 60
        millisecond = inDay % 1000
        // Days since 1970-01-01 to a civil date (H. Hinnant, "chrono-Compatible Low-Level Date Algorithms").
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// Appends `value` as exactly `width` decimal digits (zero-padded; 0 ≤ value < 10^width, so
    /// years 0...9999, which every date this dashboard records is).
    private static func append(_ value: Int, width: Int, to bytes: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest / divisor % 10))
            rest %= divisor
            divisor /= 10
        }
    }

    /// `YYYY-MM-DD<separator>hh:mm:ss`, then `suffix`.
    private func text(separator: UInt8, milliseconds: Bool, zulu: Bool) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        Self.append(year, width: 4, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        Self.append(month, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        Self.append(day, width: 2, to: &bytes)
        bytes.append(separator)
        Self.append(hour, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        Self.append(minute, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        Self.append(second, width: 2, to: &bytes)
        if milliseconds {
            bytes.append(UInt8(ascii: "."))
            Self.append(millisecond, width: 3, to: &bytes)
        }
        if zulu { bytes.append(UInt8(ascii: "Z")) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `2026-11-30 08:01:02`, for tables.
    var short: String { text(separator: UInt8(ascii: " "), milliseconds: false, zulu: false) }
    /// ``short``'s date (`2026-12-03`) and time (`03:26:56`), for a table that lets the two take a line each but never
    /// breaks the date at its hyphens.
    var datePart: String { String(short.prefix { $0 != " " }) }
    var timePart: String { String(short.drop { $0 != " " }.dropFirst()) }

    /// `2026-11-30T08:01:02Z` (ISO 8601, UTC, whole seconds).
    var iso: String { text(separator: UInt8(ascii: "T"), milliseconds: false, zulu: true) }

    /// `2026-11-30T08:01:02.345Z` (ISO 8601, UTC, milliseconds).
    var isoWithMilliseconds: String { text(separator: UInt8(ascii: "T"), milliseconds: true, zulu: true) }
}
