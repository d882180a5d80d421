import Foundation

/// A length of time in a scenario file: a number of seconds (`90`, `0.8`) or a string with
/// a unit (`"250ms"`, `"90s"`, `"15m"`, `"2h"`, `"1d"`, `"1.5h"`), or a clock time of day
/// (`"07:30"`, meaning 7.5 h after midnight). Stored exactly in microseconds.
public struct TimeSpan: Codable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public var ticks: SimTime

    public init(ticks: SimTime) { self.ticks = ticks }
    public static func seconds(_ s: Double) -> TimeSpan { TimeSpan(ticks: Clock.ticks(seconds: s)) }
    public static func minutes(_ m: Double) -> TimeSpan { .seconds(m * 60) }
    public static func hours(_ h: Double) -> TimeSpan { .seconds(h * 3600) }
    public static func days(_ d: Double) -> TimeSpan { .seconds(d * 86400) }

    public var seconds: Double { Clock.seconds(ticks) }
    public var minutes: Double { seconds / 60 }
    public var hours: Double { seconds / 3600 }

    public static func < (a: TimeSpan, b: TimeSpan) -> Bool { a.ticks < b.ticks }

    /// Parses the textual forms above; nil when the text is not one of them.
    public static func parse(_ text: String) -> TimeSpan? {
        let s = text.trimmingCharacters(in: .whitespaces)
        if let colon = s.firstIndex(of: ":") {
            guard let h = Int(s[..<colon]), let m = Int(s[s.index(after: colon)...]),
                (0...24).contains(h), (0..<60).contains(m), s[s.index(after: colon)...].count == 2
            else { return nil }
            return .seconds(Double(h * 3600 + m * 60))
        }
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86400)]
        for (suffix, scale) in units where s.hasSuffix(suffix) {
            let number = s.dropLast(suffix.count)
            // "ms" also ends in "s": only accept a plain number before the suffix.
            guard let value = Double(number), value.isFinite, !number.contains("e"), !number.isEmpty
            else { continue }
            return .seconds(value * scale)
        }
        if let value = Double(s), value.isFinite { return .seconds(value) }
        return nil
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let number = try? c.decode(Double.self), number.isFinite {
            self = .seconds(number)
        } else if let text = try? c.decode(String.self), let span = TimeSpan.parse(text) {
            self = span
        } else {
            throw DecodingError.dataCorruptedError(
                in: c, debugDescription: "expected a duration such as 90, \"90s\", \"15m\", \"2h\" or \"1d\"")
        }
    }

    /// Encodes in the largest unit that divides it exactly ("15m", "7h", "0.8s").
    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }

    public var description: String {
        for (suffix, unit) in [("d", Clock.day), ("h", Clock.hour), ("m", Clock.minute), ("s", Clock.second)]
        where ticks != 0 && ticks % unit == 0 {
            return "\(ticks / unit)\(suffix)"
        }
        if ticks == 0 { return "0s" }
        return "\(Decimal(ticks) / 1_000_000)s"
    }
}
