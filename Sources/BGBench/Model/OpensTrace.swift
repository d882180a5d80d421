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

/// Everything wrong with a trace (or an LSApp file), one problem per place, in the
/// scenario loader's form: `error: trace.csv:7:3: timestamp: ...`.
public struct TraceError: Error, Sendable, CustomStringConvertible {
    public var problems: [ScenarioError.Problem]
    public init(problems: [ScenarioError.Problem]) { self.problems = problems }
    public var description: String { problems.map(\.description).joined(separator: "\n") }
}

/// Collects the problems of a text file by line and column; after `limit` of them, only
/// counts (a file with a bad column on every line would otherwise print millions). A
/// class, so that a reader and the closures it calls can all add to one list.
final class LineProblems {
    static let limit = 100
    let file: String
    private(set) var problems: [ScenarioError.Problem] = []
    private(set) var dropped = 0

    init(file: String) { self.file = file }

    var isEmpty: Bool { problems.isEmpty }

    func add(line: Int, column: Int, _ path: String, _ message: String) {
        add(.init(location: .position(file: file, line: line, column: column), path: path, message: message))
    }

    func add(_ problem: ScenarioError.Problem) {
        if problems.count < Self.limit { problems.append(problem) } else { dropped += 1 }
    }

    /// The problems, with a last line saying how many were left out.
    var all: [ScenarioError.Problem] {
        problems + (dropped > 0 ? [.init(location: .file(file), path: "",
                                         message: "\(dropped) more problems not shown (the first \(Self.limit) are above)")] : [])
    }
}

/// Splits a text file into lines and a line into fields: separated by `separator` (comma
/// or tab), a field in double quotes may hold the separator and doubled quotes. Lines end
/// with LF or CRLF; a UTF-8 byte order mark is skipped. Reads bytes, so a big trace is not
/// copied into strings.
struct DelimitedLines {
    struct Field {
        var bytes: ArraySlice<UInt8>
        /// 1-based byte column of the field's first character (ASCII files: the column).
        var column: Int
        var text: String { String(decoding: bytes, as: UTF8.self) }
        /// Without surrounding spaces and tabs (on bytes: Foundation's trimming costs
        /// more than the rest of reading a row).
        var trimmed: String {
            var b = bytes[...]
            while let c = b.first, c == 0x20 || c == 0x09 { b.removeFirst() }
            while let c = b.last, c == 0x20 || c == 0x09 { b.removeLast() }
            return String(decoding: b, as: UTF8.self)
        }
    }

    let bytes: [UInt8]
    let separator: UInt8

    init(_ data: Data, separator: UInt8) {
        var bytes = [UInt8](data)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        self.bytes = bytes
        self.separator = separator
    }

    /// Calls `body(lineNumber, fields)` for every line that is not empty; a line with a
    /// broken quote gets `error` instead.
    func forEachLine(_ body: (Int, [Field]) -> Void, error: (Int, Int, String) -> Void) {
        var lineNumber = 0
        var start = 0
        while start < bytes.count {
            lineNumber += 1
            var end = start
            while end < bytes.count && bytes[end] != UInt8(ascii: "\n") { end += 1 }
            var stop = end
            if stop > start && bytes[stop - 1] == UInt8(ascii: "\r") { stop -= 1 }
            if stop > start {
                switch fields(start, stop) {
                case .success(let fields): body(lineNumber, fields)
                case .failure(let failure): error(lineNumber, failure.column, failure.message)
                }
            }
            start = end + 1
        }
    }

    /// Reads a table: the first line goes to `header`, which reports its own problems;
    /// when it has none, every later line must have as many fields (else a problem) and
    /// goes to `row`. A broken quote is a problem of its line. Returns false for a file
    /// without a line.
    func forEachRow(problems: LineProblems, header: (Int, [Field]) -> Void, row: (Int, [Field]) -> Void) -> Bool {
        var headerSeen = false, headerOK = false, width = 0
        forEachLine({ line, fields in
            if !headerSeen {
                headerSeen = true
                width = fields.count
                header(line, fields)
                headerOK = problems.isEmpty
            } else if headerOK {
                guard fields.count == width else {
                    return problems.add(line: line, column: 1, "", "\(fields.count) fields where the header has \(width)")
                }
                row(line, fields)
            }
        }, error: { line, column, message in
            headerSeen = true
            problems.add(line: line, column: column, "", message)
        })
        return headerSeen
    }

    struct Failure: Error { var column: Int; var message: String }

    private func fields(_ start: Int, _ stop: Int) -> Result<[Field], Failure> {
        var fields: [Field] = []
        var i = start
        while true {
            let column = i - start + 1
            if i < stop && bytes[i] == UInt8(ascii: "\"") {
                var text: [UInt8] = []
                var j = i + 1
                var closed = false
                while j < stop {
                    if bytes[j] == UInt8(ascii: "\"") {
                        if j + 1 < stop && bytes[j + 1] == UInt8(ascii: "\"") { text.append(bytes[j]); j += 2; continue }
                        closed = true; j += 1; break
                    }
                    text.append(bytes[j]); j += 1
                }
                guard closed else { return .failure(Failure(column: column, message: "a quoted field is not closed on its line")) }
                guard j == stop || bytes[j] == separator else {
                    return .failure(Failure(column: j - start + 1, message: "text after a closing quote"))
                }
                fields.append(Field(bytes: text[...], column: column))
                i = j
            } else {
                var j = i
                while j < stop && bytes[j] != separator { j += 1 }
                fields.append(Field(bytes: bytes[i..<j], column: column))
                i = j
            }
            if i >= stop { return .success(fields) }
            i += 1  // the separator
            if i == stop { fields.append(Field(bytes: [], column: i - start + 1)); return .success(fields) }
        }
    }
}

/// A local date-time in ISO 8601: `YYYY-MM-DDTHH:MM[:SS[.fraction]]`, `T` or a space
/// between date and time, then optionally `Z` or an offset `±HH:MM`, `±HHMM` or `±HH`.
/// The wall-clock time as written is the device's local time; the offset is checked
/// but not used (the simulation runs in device-local time, MODEL.md §2).
enum LocalDateTime {
    /// Microseconds since 1970-01-01 00:00 on the local wall clock, or nil.
    static func parse(_ text: String) -> SimTime? {
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
              i < b.count, b[i] == UInt8(ascii: "T") || b[i] == UInt8(ascii: " ") else { return nil }
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
              hour < 24, minute < 60, second < 60 else { return nil }
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

    /// `2018-01-16T06:01:05` (with `.ffffff` when there are microseconds).
    static func format(_ t: SimTime) -> String {
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
        var text = "\(y)-\(two(SimTime(m)))-\(two(SimTime(d)))T\(two(seconds / 3600)):\(two(seconds / 60 % 60)):\(two(seconds % 60))"
        if micros > 0 { text += "." + String(String(micros + 1_000_000).dropFirst()) }
        return text
    }
}

extension SimTime {
    /// Division rounding toward minus infinity.
    func floorDiv(_ d: SimTime) -> SimTime { self >= 0 ? self / d : -((-self + d - 1) / d) }
}

/// Reads opens traces (Datasets/README.md, "Traces"): a CSV file with a header naming the
/// columns `device`, `timestamp` and optionally `session_seconds`, in any order.
public enum OpensTraceLoader {
    static let columns = ["device", "timestamp", "session_seconds"]
    /// The longest run, 36,500 days (as `--days`), in seconds.
    static let maxSeconds = 36_500.0 * 86_400
    static let maxSessionSeconds = 86_400.0
    static let expectedTimestamp = "expected seconds since t = 0 (e.g. 28800.5) or an ISO 8601 date-time (e.g. 2024-03-04T08:15:00+01:00)"

    /// Reads and checks a trace file. Throws TraceError with every problem found (a file
    /// that cannot be read: one problem without a place).
    public static func load(file: String) throws -> OpensTrace {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw TraceError(problems: [.init(location: .none, path: "",
                                              message: "cannot read trace '\(file)': \(ScenarioLoader.readFailureReason(error))")])
        }
        return try parse(data, file: file)
    }

    /// Checks trace bytes; `file` names them in messages.
    public static func parse(_ data: Data, file: String) throws -> OpensTrace {
        let problems = LineProblems(file: file)
        var deviceColumn = -1, timeColumn = -1, sessionColumn = -1
        var ids: [String: Int32] = [:], order: [String] = []
        var lastDeviceBytes: ArraySlice<UInt8> = [], lastDevice: Int32 = -1
        // Per device: its last raw time and the line it was on (time order check).
        var previous: [(time: SimTime, line: Int)] = []
        var rows: [(device: Int32, time: SimTime, session: SimTime)] = []
        var form: OpensTrace.TimestampForm?
        var formLine = 0

        let any = DelimitedLines(data, separator: UInt8(ascii: ",")).forEachRow(problems: problems, header: { line, fields in
            var seen: Set<String> = []
            for (k, field) in fields.enumerated() {
                let name = field.trimmed
                guard columns.contains(name) else {
                    problems.add(line: line, column: field.column, "", "unknown column '\(name)': expected device, timestamp and optionally session_seconds")
                    continue
                }
                guard seen.insert(name).inserted else {
                    problems.add(line: line, column: field.column, "", "column '\(name)' given twice")
                    continue
                }
                switch name {
                case "device": deviceColumn = k
                case "timestamp": timeColumn = k
                default: sessionColumn = k
                }
            }
            for name in ["device", "timestamp"] where !seen.contains(name) {
                problems.add(line: line, column: 1, "", "missing column '\(name)': expected a header naming device, timestamp and optionally session_seconds")
            }
        }, row: { line, fields in
            // The device: consecutive rows of one device are common, so compare bytes first.
            let deviceField = fields[deviceColumn]
            var device = lastDevice
            if lastDevice < 0 || deviceField.bytes != lastDeviceBytes {
                let id = deviceField.trimmed
                guard !id.isEmpty else {
                    problems.add(line: line, column: deviceField.column, "device", "empty device id: expected a device id")
                    return
                }
                if let known = ids[id] {
                    device = known
                } else {
                    device = Int32(order.count)
                    ids[id] = device
                    order.append(id)
                    previous.append((SimTime.min, 0))
                }
                lastDevice = device
                lastDeviceBytes = deviceField.bytes
            }
            // The time.
            let timeField = fields[timeColumn]
            let text = timeField.trimmed
            var time: SimTime?
            var thisForm: OpensTrace.TimestampForm?
            if let seconds = Double(text), seconds.isFinite {
                thisForm = .seconds
                if seconds < 0 || seconds >= maxSeconds {
                    problems.add(line: line, column: timeField.column, "timestamp",
                                 "\(text) is out of range: expected seconds from 0 to less than \(Int(maxSeconds)) (36500 days)")
                } else {
                    time = Clock.ticks(seconds: seconds)
                }
            } else if let local = LocalDateTime.parse(text) {
                thisForm = .iso8601
                time = local
            } else {
                problems.add(line: line, column: timeField.column, "timestamp",
                             "'\(text)' is not a timestamp: \(expectedTimestamp)")
            }
            if let thisForm {
                if let form, form != thisForm {
                    problems.add(line: line, column: timeField.column, "timestamp",
                                 "'\(text)' is \(thisForm == .seconds ? "in seconds" : "an ISO 8601 date-time") but line \(formLine) is \(form == .seconds ? "in seconds" : "an ISO 8601 date-time"): expected one form in the whole file")
                    time = nil
                } else if form == nil {
                    form = thisForm; formLine = line
                }
            }
            // The session.
            var session: SimTime = -1
            var sessionOK = true
            if sessionColumn >= 0 {
                let field = fields[sessionColumn]
                let value = field.trimmed
                if !value.isEmpty {
                    if let seconds = Double(value), seconds.isFinite {
                        if seconds < 0 || seconds > maxSessionSeconds {
                            problems.add(line: line, column: field.column, "session_seconds",
                                         "\(value) is out of range: expected seconds from 0 to 86400")
                            sessionOK = false
                        } else {
                            session = Clock.ticks(seconds: seconds)
                        }
                    } else {
                        problems.add(line: line, column: field.column, "session_seconds",
                                     "'\(value)' is not a number: expected seconds from 0 to 86400, or nothing to draw the session")
                        sessionOK = false
                    }
                }
            }
            guard let time else { return }
            let before = previous[Int(device)]
            if time < before.time {
                problems.add(line: line, column: timeField.column, "timestamp",
                             "\(text) is earlier than the previous open of device '\(order[Int(device)])' (line \(before.line)): expected each device's opens in time order")
                return
            }
            previous[Int(device)] = (time, line)
            if sessionOK { rows.append((device, time, session)) }
        })

        if !any {
            problems.add(.init(location: .file(file), path: "",
                               message: "empty file: expected a header line 'device,timestamp,session_seconds' and one open per line"))
        } else if order.isEmpty && problems.isEmpty {
            problems.add(.init(location: .file(file), path: "", message: "no opens: expected at least one line after the header"))
        }
        guard problems.isEmpty, let form else { throw TraceError(problems: problems.all) }

        // Group by device (a stable counting sort: each device keeps its time order) and
        // move each device's times to its own t = 0 for ISO 8601 traces.
        var starts = [Int](repeating: 0, count: order.count + 1)
        for row in rows { starts[Int(row.device) + 1] += 1 }
        for i in 0..<order.count { starts[i + 1] += starts[i] }
        var origin = [SimTime](repeating: 0, count: order.count)
        if form == .iso8601 {
            var first = [SimTime](repeating: .max, count: order.count)
            for row in rows where row.time < first[Int(row.device)] { first[Int(row.device)] = row.time }
            for i in 0..<order.count { origin[i] = first[i].floorDiv(Clock.day) * Clock.day }
        }
        var fill = starts
        var opens = [TraceOpen](repeating: TraceOpen(time: 0, session: 0), count: rows.count)
        for row in rows {
            let d = Int(row.device)
            opens[fill[d]] = TraceOpen(time: row.time - origin[d], session: row.session)
            fill[d] += 1
        }
        let trace = OpensTrace(file: file, sha256: SHA256.hex(data), form: form, deviceIDs: order, starts: starts, opens: opens)
        guard trace.days <= 36_500 else {
            throw TraceError(problems: [.init(location: .file(file), path: "",
                                              message: "the trace spans \(trace.days) days: expected at most 36500")])
        }
        return trace
    }
}
