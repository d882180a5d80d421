import Foundation

/// A wake plan for the `schedule` policy (docs/policies.md, "schedule"): per hour of the
/// week, how often a device asks for a wake, for one device, for a cohort of devices (by
/// what a real app can know of itself: its platform, its own mean opens a day so far) or
/// for all (`*`). Read from a CSV file by ``SchedulePlanLoader``.
public struct SchedulePlan: Sendable, Equatable {
    /// The file as the scenario names it, and the SHA-256 of its bytes.
    public let file: String
    public let sha256: String
    /// The bands of mean opens a day the plan names, disjoint, sorted: [lower, upper).
    public let bands: [Band]
    /// The rows' hours by subject: 168 slots, each ``unplanned``, ``off`` or an interval
    /// in ticks.
    let subjects: [Subject: [SimTime]]

    /// A slot no row covers.
    static let unplanned: SimTime = -1
    /// A slot whose row says `off`: no request in that hour.
    static let off: SimTime = 0

    /// A band of mean opens a day: lower ≤ mean < upper (`upper` infinite for `20-`).
    public struct Band: Sendable, Hashable, CustomStringConvertible {
        public var lower: Double
        public var upper: Double
        public func contains(_ mean: Double) -> Bool { lower <= mean && mean < upper }
        public var description: String {
            ParameterChecker.format(lower) + "-" + (upper.isFinite ? ParameterChecker.format(upper) : "")
        }
    }

    /// Whom a row is for: a device (index), or a cohort (platform, band; nil is `*`).
    struct Subject: Sendable, Hashable {
        var device: Int? = nil
        var platform: String? = nil
        var band: Int? = nil
    }

    /// The plan of a device of `platform` whose mean opens a day is in band `band` (nil:
    /// in none of the plan's bands): each hour from the most specific row that covers it,
    /// device > platform and band > band > platform > `*` (docs/policies.md), ``off``
    /// where none does. Intervals are multiplied by `scale` (rounded to the tick, at
    /// least one).
    func slots(device: Int, platform: String, band: Int?, scale: Double) -> [SimTime] {
        var order = [Subject(device: device)]
        if let band { order += [Subject(platform: platform, band: band), Subject(band: band)] }
        order += [Subject(platform: platform), Subject()]
        let rows = order.compactMap { subjects[$0] }
        var out = [SimTime](repeating: Self.off, count: 168)
        for h in 0..<168 {
            guard let interval = rows.lazy.map({ $0[h] }).first(where: { $0 != Self.unplanned }) else { continue }
            out[h] = interval <= 0 || scale == 1 ? interval : max(1, SimTime((Double(interval) * scale).rounded()))
        }
        return out
    }

    /// Whether any row names a device.
    var hasDeviceRows: Bool { subjects.keys.contains { $0.device != nil } }
}

/// Reads schedule plans: a CSV file with a header naming the columns `hour_of_week` and
/// `interval`, and optionally `device`, `platform` and `opens_per_day`, in any order
/// (docs/policies.md, "schedule"). The same reader, caps and messages as opens traces.
public enum SchedulePlanLoader {
    static let columns = ["device", "platform", "opens_per_day", "hour_of_week", "interval"]
    static let expectedColumns = "expected hour_of_week, interval and optionally device, platform and opens_per_day"
    static let expectedHour =
        "expected *, an hour of the week from 0 to 167 (0 is Monday 00:00 local time) or a range such as 9-17"
    static let expectedInterval = "expected a duration from 1s to 7d (e.g. 15m, 1h) or off"
    static let expectedBand =
        "expected * or a band of mean opens a day LOW-HIGH (LOW ≤ mean < HIGH, e.g. 0-5) or LOW- (at least LOW)"
    /// The longest interval, as `fixed`'s `interval`.
    static let maxInterval = Clock.week

    /// Reads and checks a plan file (the trace cap, docs/limits.md). Throws TraceError with
    /// every problem found (a file that cannot be read: one problem without a place).
    public static func load(file: String) throws -> SchedulePlan {
        let bytes: [UInt8]
        do {
            bytes = try InputFile.read(file, limit: InputFile.Limit.trace, kind: "schedule plan")
        } catch {
            throw TraceError(problems: error.problems)
        }
        return try parse(bytes: bytes, file: file)
    }

    /// Checks plan bytes; `file` names them in messages.
    public static func parse(bytes data: [UInt8], file: String) throws -> SchedulePlan {
        let problems = LineProblems(file: file)
        var column: [String: Int] = [:]
        var subjects: [SchedulePlan.Subject: [SimTime]] = [:]
        /// The line that planned each hour of each subject, for duplicate messages.
        var plannedOn: [SchedulePlan.Subject: [Int]] = [:]
        var bandLines: [SchedulePlan.Band: (line: Int, column: Int)] = [:]
        var rows:
            [(
                line: Int, column: Int, device: Int?, platform: String?, band: SchedulePlan.Band?,
                hours: ClosedRange<Int>, interval: SimTime
            )] = []
        let platforms = PlatformRegistry.all.map { $0.name }

        let any = CSVReader(bytes: data, dialect: .commaSeparatedLines).forEachRow(
            problems: problems,
            header: { line, fields in
                for (k, field) in fields.enumerated() {
                    let name = field.trimmed
                    guard columns.contains(name) else {
                        problems.add(
                            line: line, column: field.column, "", "unknown column '\(name)': \(expectedColumns)")
                        continue
                    }
                    guard column.updateValue(k, forKey: name) == nil else {
                        problems.add(line: line, column: field.column, "", "column '\(name)' given twice")
                        continue
                    }
                }
                for name in ["hour_of_week", "interval"] where column[name] == nil {
                    problems.add(
                        line: line, column: 1, "",
                        "missing column '\(name)': expected a header naming hour_of_week, interval and optionally device, platform and opens_per_day"
                    )
                }
            },
            row: { line, fields in
                func text(_ name: String) -> (String, Int)? {
                    column[name].map { (fields[$0].trimmed, fields[$0].column) }
                }
                var ok = true
                func bad(_ name: String, _ at: Int, _ message: String) {
                    problems.add(line: line, column: at, name, message)
                    ok = false
                }
                var device: Int?
                if let (value, at) = text("device"), value != "*" {
                    if let i = Int(value), i >= 0 {
                        device = i
                    } else {
                        bad("device", at, "'\(value)' is not a device: expected * or a device index (0, 1, ...)")
                    }
                }
                var platform: String?
                if let (value, at) = text("platform"), value != "*" {
                    if platforms.contains(value) {
                        platform = value
                    } else {
                        bad(
                            "platform", at,
                            "unknown platform '\(value)': expected * or one of \(platforms.joined(separator: ", "))")
                    }
                }
                var band: SchedulePlan.Band?
                if let (value, at) = text("opens_per_day"), value != "*" {
                    if let b = parseBand(value) {
                        band = b
                    } else {
                        bad("opens_per_day", at, "'\(value)' is not a band: \(expectedBand)")
                    }
                }
                for name in ["platform", "opens_per_day"] where device != nil {
                    if let (value, at) = text(name), value != "*" {
                        bad(
                            name, at,
                            "'\(value)' on a device's row: expected * (a device's row is for that device alone)")
                    }
                }
                let (hourText, hourAt) = text("hour_of_week")!
                let hours = parseHours(hourText)
                if hours == nil {
                    bad("hour_of_week", hourAt, "'\(hourText)' is not an hour of the week: \(expectedHour)")
                }
                let (intervalText, intervalAt) = text("interval")!
                var interval = SchedulePlan.off
                if intervalText != "off" {
                    if let span = TimeSpan.parse(intervalText), span.ticks >= Clock.second,
                        span.ticks <= maxInterval
                    {
                        interval = span.ticks
                    } else {
                        bad("interval", intervalAt, "'\(intervalText)' is not an interval: \(expectedInterval)")
                    }
                }
                guard ok, let hours else { return }
                rows.append((line, hourAt, device, platform, band, hours, interval))
                if let band, bandLines[band] == nil { bandLines[band] = (line, text("opens_per_day")!.1) }
            })

        if !any {
            problems.add(
                .init(
                    location: .file(file), path: "",
                    message: "empty file: expected a header line 'hour_of_week,interval' and one plan row per line"))
        } else if rows.isEmpty && problems.isEmpty {
            problems.add(
                .init(location: .file(file), path: "", message: "no rows: expected at least one line after the header"))
        }
        // Bands must not overlap: a mean of opens is in one band at most.
        let bands = bandLines.keys.sorted { ($0.lower, $0.upper) < ($1.lower, $1.upper) }
        for (a, b) in zip(bands, bands.dropFirst()) where b.lower < a.upper {
            let (first, second) = bandLines[a]!.line < bandLines[b]!.line ? (a, b) : (b, a)
            problems.add(
                line: bandLines[second]!.line, column: bandLines[second]!.column, "opens_per_day",
                "band \(second) overlaps band \(first) of line \(bandLines[first]!.line): expected disjoint bands")
        }
        guard problems.isEmpty else { throw TraceError(problems: problems.all) }

        let bandIndex = Dictionary(uniqueKeysWithValues: bands.enumerated().map { ($1, $0) })
        for row in rows {
            let subject = SchedulePlan.Subject(
                device: row.device, platform: row.platform, band: row.band.map { bandIndex[$0]! })
            var slots = subjects[subject] ?? [SimTime](repeating: SchedulePlan.unplanned, count: 168)
            var lines = plannedOn[subject] ?? [Int](repeating: 0, count: 168)
            if let h = row.hours.first(where: { lines[$0] != 0 }) {
                let who =
                    row.device.map { "device \($0)" }
                    ?? "platform \(row.platform ?? "*"), opens_per_day \(row.band.map(\.description) ?? "*")"
                problems.add(
                    line: row.line, column: row.column, "hour_of_week",
                    "hour \(h) of \(who) is planned on line \(lines[h]) already: expected each hour once per device or cohort"
                )
                continue
            }
            for h in row.hours { (slots[h], lines[h]) = (row.interval, row.line) }
            subjects[subject] = slots
            plannedOn[subject] = lines
        }
        guard problems.isEmpty else { throw TraceError(problems: problems.all) }
        return SchedulePlan(file: file, sha256: SHA256.hex(data), bands: bands, subjects: subjects)
    }

    /// `*`, `H` or `A-B` (A ≤ B), hours of the week 0...167.
    static func parseHours(_ text: String) -> ClosedRange<Int>? {
        if text == "*" { return 0...167 }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count <= 2, let a = Int(parts[0]), let b = Int(parts.last!), 0 <= a, a <= b, b < 168 else {
            return nil
        }
        return a...b
    }

    /// `LOW-HIGH` (LOW < HIGH) or `LOW-`, numbers ≥ 0.
    static func parseBand(_ text: String) -> SchedulePlan.Band? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let low = Double(parts[0]), low.isFinite, low >= 0 else { return nil }
        if parts[1].isEmpty { return .init(lower: low, upper: .infinity) }
        guard let high = Double(parts[1]), high.isFinite, high > low else { return nil }
        return .init(lower: low, upper: high)
    }
}
