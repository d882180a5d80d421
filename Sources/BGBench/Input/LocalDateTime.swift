/// A local date-time in ISO 8601: `YYYY-MM-DDTHH:MM[:SS[.fraction]]`, `T` or a space
/// between date and time, then optionally `Z` or an offset `±HH:MM`, `±HHMM` or `±HH`.
/// The wall-clock time as written is the device's local time; the offset is checked
/// but not used (the simulation runs in device-local time, MODEL.md §2).
package enum LocalDateTime {
    /// Microseconds since 1970-01-01 00:00 on the local wall clock, or nil.
    package static func parse(_ text: String) -> SimTime? {
        let b = Array(text.utf8)
        var i = 0
        func digits(_ n: Int) -> Int? {
            guard i + n <= b.count else { return nil }
            var v = 0
            for k in 0..<n {
                let c = b[i + k]
                guard c >= 48 && c <= 57 else { return nil }
                v = v * 10 + Int(c - 48)
            }
            i += n
            return v
        }
        func expect(_ c: Character) -> Bool {
            guard i < b.count && b[i] == c.asciiValue! else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), expect("-"), let month = digits(2), expect("-"), let day = digits(2),
            i < b.count, b[i] == UInt8(ascii: "T") || b[i] == UInt8(ascii: " ")
        else { return nil }
        i += 1
        guard let hour = digits(2), expect(":"), let minute = digits(2) else { return nil }
        var second = 0, micros = 0
        if expect(":") {
            guard let s = digits(2) else { return nil }
            second = s
            if expect(".") {
                var scale = 100_000, any = false
                while i < b.count, b[i] >= 48 && b[i] <= 57 {
                    micros += Int(b[i] - 48) * scale; scale /= 10; i += 1; any = true
                }
                guard any else { return nil }
            }
        }
        if i < b.count {
            if b[i] == UInt8(ascii: "Z") {
                i += 1
            } else if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
                i += 1
                guard let oh = digits(2), oh <= 14 else { return nil }
                if i < b.count {
                    _ = expect(":")
                    guard let om = digits(2), om < 60 else { return nil }
                }
            }
        }
        guard i == b.count, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
            hour < 24, minute < 60, second < 60
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        return SimTime(days) * Clock.day + SimTime(hour) * Clock.hour + SimTime(minute) * Clock.minute
            + SimTime(second) * Clock.second + SimTime(micros)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// `2018-01-16T06:01:05` (with `.ffffff` when there are microseconds); the year in
    /// four digits (`0018-03-03T07:45:10`).
    package static func format(_ t: SimTime) -> String {
        let days = Int(t.floorDiv(Clock.day))
        let rest = t - SimTime(days) * Clock.day
        // civil_from_days
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        func two(_ v: SimTime) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let seconds = rest / Clock.second, micros = rest % Clock.second
        // Four digits, as the reader expects (a year before 1000 is written 0018).
        let year = String(repeating: "0", count: max(0, 4 - String(y).count)) + String(y)
        var text =
            "\(year)-\(two(SimTime(m)))-\(two(SimTime(d)))T\(two(seconds / 3600)):\(two(seconds / 60 % 60)):\(two(seconds % 60))"
        if micros > 0 { text += "." + String(String(micros + 1_000_000).dropFirst()) }
        return text
    }
}

extension SimTime {
    /// Division rounding toward minus infinity.
    package func floorDiv(_ d: SimTime) -> SimTime { self >= 0 ? self / d : -((-self + d - 1) / d) }
}
