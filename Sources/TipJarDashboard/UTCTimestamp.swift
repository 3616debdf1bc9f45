import Foundation

/// A `Date` broken into its UTC calendar fields with integer arithmetic (the proleptic Gregorian
/// calendar of ISO 8601), for the timestamps every ledger row and timeline line shows. Pages
/// render dozens of them per request, and Foundation's formatters cost more than the rest of the
/// page; the result is the same text.
struct UTCTimestamp: Equatable {
    var year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, millisecond: Int

    init(_ date: Date) {
        let milliseconds = Int((date.timeIntervalSince1970 * 1000).rounded(.down))
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

    private static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// `2026-11-30 08:01:02`, for tables.
    var short: String {
        "\(Self.padded(year, 4))-\(Self.padded(month, 2))-\(Self.padded(day, 2)) "
            + "\(Self.padded(hour, 2)):\(Self.padded(minute, 2)):\(Self.padded(second, 2))"
    }

    /// `2026-11-30T08:01:02Z` (ISO 8601, UTC, whole seconds).
    var iso: String {
        "\(Self.padded(year, 4))-\(Self.padded(month, 2))-\(Self.padded(day, 2))T"
            + "\(Self.padded(hour, 2)):\(Self.padded(minute, 2)):\(Self.padded(second, 2))Z"
    }

    /// `2026-11-30T08:01:02.345Z` (ISO 8601, UTC, milliseconds).
    var isoWithMilliseconds: String {
        String(iso.dropLast()) + "." + Self.padded(millisecond, 3) + "Z"
    }
}
