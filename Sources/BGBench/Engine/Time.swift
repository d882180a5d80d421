import CConvert

/// Simulated time: an integer count of microseconds since day 0, 00:00 device-local time
/// (MODEL.md §2). Integer time means event order never depends on floating-point rounding.
public typealias SimTime = Int64

extension Int64 {
    /// `x` truncated toward zero with no range check: one instruction, where `Int64(x)`
    /// compares with both ends of the range first (in the hot paths, most of what the
    /// build without -Ounchecked added). Each use says why its value is in range.
    /// - Precondition: x is finite and inside (−2⁶³, 2⁶³); anything else is undefined,
    ///   not trapped.
    @inlinable @inline(__always) init(uncheckedTruncating x: Double) { self = bg_int64_truncating(x) }
}

/// Units and calendar arithmetic on ``SimTime``. Day 0 is a Monday (MODEL.md §2).
public enum Clock {
    public static let microsecond: SimTime = 1
    public static let millisecond: SimTime = 1_000
    public static let second: SimTime = 1_000_000
    public static let minute: SimTime = 60 * second
    public static let hour: SimTime = 60 * minute
    public static let day: SimTime = 24 * hour
    public static let week: SimTime = 7 * day
    /// A time later than any horizon: "never".
    public static let never: SimTime = .max

    /// Seconds (possibly fractional) as ticks, rounded to the nearest microsecond (half
    /// away from zero; by truncation, one instruction, where `rounded()` calls libm).
    /// Beyond ±2⁶² µs (146,000 years) it saturates, and NaN gives +2⁶² (never reached), so
    /// any Double converts without a check and nothing traps.
    @inlinable @inline(__always) public static func ticks(seconds: Double) -> SimTime {
        let micros = seconds * 1e6
        let rounded = micros < 0 ? micros - 0.5 : micros + 0.5
        return SimTime(uncheckedTruncating: rounded < 0x1p62 ? (rounded > -0x1p62 ? rounded : -0x1p62) : 0x1p62)
    }

    /// Ticks as seconds.
    @inlinable public static func seconds(_ t: SimTime) -> Double { Double(t) * 1e-6 }

    /// The day index of t (day k is [k·day, (k+1)·day)).
    @inlinable public static func dayIndex(_ t: SimTime) -> Int { Int(t / day) }

    /// The start of the day that contains t.
    @inlinable public static func startOfDay(_ t: SimTime) -> SimTime { t - t % day }

    /// The hour of day of t, 0...23.
    @inlinable public static func hourOfDay(_ t: SimTime) -> Int { Int((t % day) / hour) }

    /// Whether day k is a Saturday or Sunday (day 0 is a Monday).
    @inlinable public static func isWeekend(day k: Int) -> Bool { k % 7 >= 5 }
}
