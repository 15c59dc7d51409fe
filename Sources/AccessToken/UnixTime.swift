/// Unix times as UTC ISO 8601 and durations in words, without Foundation.
public enum UnixTime {
    /// "2026-11-30T09:04:54Z" for a unix time.
    public static func iso8601(_ seconds: Int64) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T"
            + "\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))Z"
    }

    /// "1 h 2 min 3 s", "45 s".
    public static func duration(_ seconds: Int64) -> String {
        let s = abs(seconds)
        var parts: [String] = []
        if s >= 86_400 { parts.append("\(s / 86_400) d") }
        if s >= 3600, s % 86_400 / 3600 > 0 { parts.append("\(s % 86_400 / 3600) h") }
        if s >= 60, s % 3600 / 60 > 0 { parts.append("\(s % 3600 / 60) min") }
        if s % 60 > 0 || parts.isEmpty { parts.append("\(s % 60) s") }
        return parts.joined(separator: " ")
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
