import Glibc

/// The `Date` field of a loop's answers, formatted at most once a second (RFC 9110's IMF-fixdate:
/// `Date: Sun, 06 Nov 1994 08:49:37 GMT`): every answer carries one, and formatting it per request would cost the
/// hot path.
struct HTTPDate {
    private var second = -1
    private var line: [UInt8] = []

    /// The field line, CR LF included, for the second of `time` (unix seconds; this machine's clock by default).
    mutating func field(at time: Int = Int(Glibc.time(nil))) -> [UInt8] {
        if time != second {
            second = time
            line = Array(("Date: " + Self.imfFixdate(time) + "\r\n").utf8)
        }
        return line
    }

    private static let days = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `Sun, 06 Nov 1994 08:49:37 GMT` for unix seconds `time`.
    static func imfFixdate(_ time: Int) -> String {
        var seconds = time_t(time)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let day = days[((time / 86_400) % 7 + 7) % 7]
        return "\(day), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
