import Foundation

/// One open read from a trace: its time (ticks since the device's t = 0) and session length
/// (ticks; -1 when the trace gives none and the session model draws it).
public struct TraceOpen: Sendable, Equatable {
    public var time: SimTime
    public var session: SimTime
    public init(time: SimTime, session: SimTime) { self.time = time; self.session = session }
}

/// A trace of app opens that replaces the synthetic user (MODEL.md §3 "Trace replay";
/// the format is in Datasets/README.md, "Traces"). Loaded once per run and shared
/// read-only by every device, like the news feed: one array of opens grouped by device
/// (device i's are `opens[starts[i]..<starts[i + 1]]`, ascending), 16 bytes an open.
public final class OpensTrace: Sendable {
    /// How the file writes its timestamps.
    public enum TimestampForm: String, Sendable {
        /// Seconds since t = 0, the same t = 0 for every device.
        case seconds
        /// ISO 8601 local date-times; each device's t = 0 is the midnight before its first open.
        case iso8601 = "iso-8601"
    }

    /// The file as named, and the SHA-256 (hex) of its bytes.
    public let file: String
    public let sha256: String
    public let form: TimestampForm
    /// Trace device ids; device index i is `deviceIDs[i]` (order of first appearance).
    public let deviceIDs: [String]
    let starts: [Int]
    public let opens: [TraceOpen]
    /// Whole days from t = 0 to the last open of any device (the default run length).
    public let days: Int
    /// Opens that carry a session length.
    public let sessionsGiven: Int

    init(file: String, sha256: String, form: TimestampForm, deviceIDs: [String], starts: [Int], opens: [TraceOpen]) {
        self.file = file; self.sha256 = sha256; self.form = form
        self.deviceIDs = deviceIDs; self.starts = starts; self.opens = opens
        days = opens.map { Clock.dayIndex($0.time) + 1 }.max() ?? 0
        sessionsGiven = opens.reduce(0) { $0 + ($1.session >= 0 ? 1 : 0) }
    }

    public var deviceCount: Int { deviceIDs.count }

    /// Device i's opens, ascending.
    public func opens(device i: Int) -> ArraySlice<TraceOpen> { opens[starts[i]..<starts[i + 1]] }

    /// Device i's mean opens per day over its first week, days 0–6 (all its days when it
    /// has fewer, up to its last open): the start of the platform's usage average u
    /// (MODEL.md §6.4 rule 4).
    public func firstWeekOpensPerDay(device i: Int) -> Double {
        let mine = opens(device: i)
        guard let last = mine.last else { return 0 }
        let days = min(7, Clock.dayIndex(last.time) + 1)
        let inWeek = mine.prefix { $0.time < SimTime(days) * Clock.day }.count
        return Double(inWeek) / Double(days)
    }

    /// Device i's mean opens per day over its whole span.
    public func opensPerDay(device i: Int) -> Double {
        let mine = opens(device: i)
        guard let last = mine.last else { return 0 }
        return Double(mine.count) / Double(Clock.dayIndex(last.time) + 1)
    }
}
