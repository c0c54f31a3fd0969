public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// ISO 8601 time stamps in UTC, made with `gmtime_r`: the log lines, `health.json`, `bridge/health` and
/// the web page's times.
///
/// Not Foundation's `ISO8601DateFormatter` or `Date.ISO8601FormatStyle`: both look up the local time
/// zone through ICU on first use, which leaves `hap2mqtt run` about 3 MB more resident for the rest of its life
/// (hap2mqtt-bench scale's peak memory).
public enum UTCTimestamp {
    /// `2025-06-01T12:00:00Z`, or `2025-06-01T12:00:00.123Z` with `milliseconds`; the time is rounded
    /// down to the unit shown, also before 1970.
    public static func string(_ date: Date, milliseconds: Bool) -> String {
        let total = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var (whole, fraction) = total.quotientAndRemainder(dividingBy: 1000)
        if fraction < 0 { (whole, fraction) = (whole - 1, fraction + 1000) }
        var seconds = time_t(whole)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        var text =
            "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
        if milliseconds { text += fraction < 10 ? ".00\(fraction)" : fraction < 100 ? ".0\(fraction)" : ".\(fraction)" }
        return text + "Z"
    }
}
