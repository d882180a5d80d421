/// The fleet's load on the app's server (MODEL.md §2, §9): network requests (background
/// runs' requests and foreground fetches) per minute of the UTC day, counted per day so
/// that both the mean over days and the peak day are known. Integer counts, so adding
/// them in any order gives the same totals (one per worker thread, merged at the end).
public struct ServerLoad: Sendable {
    public static let minutesPerDay = 1440
    public let days: Int
    /// The first counted day (warm-up days are left out).
    public let firstDay: Int
    /// Requests per (counted day, minute of the UTC day): what shards add up (a shard's
    /// state), empty once folded (`fold`), which a run that is not a shard does as soon as
    /// its fleet has run, so its memory does not grow with days.
    public internal(set) var counts: [Int32]
    /// Per minute of the UTC day, once folded: the requests over every counted day and the
    /// peak day's.
    private var totals: [Int64] = [], peaks: [Int32] = []

    public init(days: Int, firstDay: Int) {
        self.days = days
        self.firstDay = firstDay
        counts = Array(repeating: 0, count: max(0, days - firstDay) * Self.minutesPerDay)
    }

    /// A load folded as it is made: each minute's total and peak read from per-day counts
    /// laid out like `counts` (`count(i)` is entry i), which are never copied (a whole
    /// run's shared grid, docs/limits.md "Memory").
    init(days: Int, firstDay: Int, folding count: (Int) -> Int32) {
        self.days = days
        self.firstDay = firstDay
        counts = []
        let countedDays = max(0, days - firstDay)
        totals = Array(repeating: 0, count: Self.minutesPerDay)
        peaks = Array(repeating: 0, count: Self.minutesPerDay)
        for d in 0..<countedDays {
            for m in 0..<Self.minutesPerDay {
                let c = count(d * Self.minutesPerDay + m)
                totals[m] += Int64(c)
                peaks[m] = max(peaks[m], c)
            }
        }
    }

    /// Adds per-minute counts laid out like `counts` (one worker's).
    mutating func add(_ other: UnsafeBufferPointer<Int32>) {
        for i in counts.indices { counts[i] += other[i] }
    }

    /// Adds another set of devices' counts (a shard's); neither may be folded.
    package mutating func add(_ other: ServerLoad) {
        precondition(totals.isEmpty && other.totals.isEmpty, "a folded server load cannot be added to")
        for i in counts.indices { counts[i] += other.counts[i] }
    }

    /// Keeps only what server.csv reads, each minute's total and peak over the days, and
    /// frees the per-day counts.
    package mutating func fold() {
        guard totals.isEmpty else { return }
        let folded = (0..<Self.minutesPerDay).map(perDay)
        totals = folded.map(\.total)
        peaks = folded.map(\.peak)
        counts = []
    }

    /// Requests in minute m of the UTC day: the mean over the counted days and the peak.
    public func minute(_ m: Int) -> (mean: Double, peak: Int32) {
        let countedDays = days - firstDay
        guard countedDays > 0 else { return (0, 0) }
        let (total, peak) = totals.isEmpty ? perDay(m) : (totals[m], peaks[m])
        return (Double(total) / Double(countedDays), peak)
    }

    /// Minute m's total and peak over the per-day counts.
    private func perDay(_ m: Int) -> (total: Int64, peak: Int32) {
        let countedDays = max(0, days - firstDay)
        // The minute checked once: every index below is then inside `counts` (countedDays
        // rows of minutesPerDay), read unchecked and computed wrapping.
        precondition(m >= 0 && m < Self.minutesPerDay && counts.count >= countedDays * Self.minutesPerDay)
        var total: Int64 = 0, peak: Int32 = 0
        counts.withUnsafeBufferPointer { counts in
            for d in 0..<countedDays {
                let c = counts[d &* Self.minutesPerDay &+ m]
                total += Int64(c)
                peak = max(peak, c)
            }
        }
        return (total, peak)
    }
}

/// One line of the event log of a traced device (events.csv, `--trace-devices K`).
public struct TraceRow: Sendable, Equatable {
    public var device: Int
    public var time: SimTime
    /// requested, replaced, denied, started, completed, open, session_end, charging, midnight.
    public var event: String
    /// The reason code, status, or kind (denial reason, run status, fresh/stale, network).
    public var detail: String
    /// A number that goes with it (retry time in s, run duration in s, staleness in s, ...).
    public var value: Double?
}
