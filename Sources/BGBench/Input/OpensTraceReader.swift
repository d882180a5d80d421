import Foundation

/// Reads opens traces (Datasets/README.md, "Traces"): a CSV file with a header naming the
/// columns `device`, `timestamp` and optionally `session_seconds`, in any order.
public enum OpensTraceLoader {
    static let columns = ["device", "timestamp", "session_seconds"]
    /// The longest run, 36,500 days (as `--days`), in seconds.
    static let maxSeconds = 36_500.0 * 86_400
    package static let maxSessionSeconds = 86_400.0
    /// Opens of one device in one day: a phone's heaviest users open an app a few hundred
    /// times a day; more is a broken export (docs/limits.md).
    static let maxOpensPerDay = 2_000
    static let expectedTimestamp =
        "expected seconds since t = 0 (e.g. 28800.5) or an ISO 8601 date-time (e.g. 2024-03-04T08:15:00+01:00)"

    /// Reads and checks a trace file. Throws TraceError with every problem found (a file
    /// that cannot be read: one problem without a place).
    public static func load(file: String) throws -> OpensTrace {
        let bytes: [UInt8]
        do {
            bytes = try InputFile.read(file, limit: InputFile.Limit.trace, kind: "trace")
        } catch {
            throw TraceError(problems: error.problems)
        }
        return try parse(bytes: bytes, file: file)
    }

    /// Checks trace bytes; `file` names them in messages.
    public static func parse(_ data: Data, file: String) throws -> OpensTrace {
        try parse(bytes: [UInt8](data), file: file)
    }

    /// Checks trace bytes; `file` names them in messages. Memory: the bytes, 24 bytes a
    /// line while reading, then 16 bytes an open.
    public static func parse(bytes data: [UInt8], file: String) throws -> OpensTrace {
        let problems = LineProblems(file: file)
        var deviceColumn = -1, timeColumn = -1, sessionColumn = -1
        var ids: [String: Int32] = [:], order: [String] = []
        var lastDeviceBytes: ArraySlice<UInt8> = [], lastDevice: Int32 = -1
        // Per device: its last raw time and the line it was on (time order check).
        var previous: [(time: SimTime, line: Int)] = []
        var rows: [(device: Int32, time: SimTime, session: SimTime)] = []
        rows.reserveCapacity(data.reduce(0) { $0 &+ ($1 == UInt8(ascii: "\n") ? 1 : 0) })
        var form: OpensTrace.TimestampForm?
        var formLine = 0

        let any = CSVReader(bytes: data, dialect: .commaSeparatedLines).forEachRow(
            problems: problems,
            header: { line, fields in
                var seen: Set<String> = []
                for (k, field) in fields.enumerated() {
                    let name = field.trimmed
                    guard columns.contains(name) else {
                        problems.add(
                            line: line, column: field.column, "",
                            "unknown column '\(name)': expected device, timestamp and optionally session_seconds")
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
                    problems.add(
                        line: line, column: 1, "",
                        "missing column '\(name)': expected a header naming device, timestamp and optionally session_seconds"
                    )
                }
            },
            row: { line, fields in
                // The device: consecutive rows of one device are common, so compare bytes first.
                let deviceField = fields[deviceColumn]
                var device = lastDevice
                if lastDevice < 0 || deviceField.bytes != lastDeviceBytes {
                    let id = deviceField.trimmed
                    guard !id.isEmpty else {
                        problems.add(
                            line: line, column: deviceField.column, "device", "empty device id: expected a device id")
                        return
                    }
                    // `u\u{200B}1` would be another device than `u1` that looks the same.
                    if let hidden = id.unicodeScalars.first(where: \.isInvisible) {
                        problems.add(
                            line: line, column: deviceField.column, "device",
                            "device id '\(id)' holds an invisible character U+\(String(hidden.value, radix: 16, uppercase: true)): "
                                + "expected visible characters only")
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
                        problems.add(
                            line: line, column: timeField.column, "timestamp",
                            "\(text) is out of range: expected seconds from 0 to less than \(Int(maxSeconds)) (36500 days)"
                        )
                    } else {
                        time = Clock.ticks(seconds: seconds)
                    }
                } else if let local = LocalDateTime.parse(text) {
                    thisForm = .iso8601
                    time = local
                } else {
                    problems.add(
                        line: line, column: timeField.column, "timestamp",
                        "'\(text)' is not a timestamp: \(expectedTimestamp)")
                }
                if let thisForm {
                    if let form, form != thisForm {
                        problems.add(
                            line: line, column: timeField.column, "timestamp",
                            "'\(text)' is \(thisForm == .seconds ? "in seconds" : "an ISO 8601 date-time") but line \(formLine) is \(form == .seconds ? "in seconds" : "an ISO 8601 date-time"): expected one form in the whole file"
                        )
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
                                problems.add(
                                    line: line, column: field.column, "session_seconds",
                                    "\(value) is out of range: expected seconds from 0 to 86400")
                                sessionOK = false
                            } else {
                                session = Clock.ticks(seconds: seconds)
                            }
                        } else {
                            problems.add(
                                line: line, column: field.column, "session_seconds",
                                "'\(value)' is not a number: expected seconds from 0 to 86400, or nothing to draw the session"
                            )
                            sessionOK = false
                        }
                    }
                }
                guard let time else { return }
                let before = previous[Int(device)]
                if time < before.time {
                    problems.add(
                        line: line, column: timeField.column, "timestamp",
                        "\(text) is earlier than the previous open of device '\(order[Int(device)])' (line \(before.line)): expected each device's opens in time order"
                    )
                    return
                }
                previous[Int(device)] = (time, line)
                if sessionOK { rows.append((device, time, session)) }
            })

        if !any {
            problems.add(
                .init(
                    location: .file(file), path: "",
                    message:
                        "empty file: expected a header line 'device,timestamp,session_seconds' and one open per line"))
        } else if order.isEmpty && problems.isEmpty {
            problems.add(
                .init(location: .file(file), path: "", message: "no opens: expected at least one line after the header")
            )
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
        // At most `maxOpensPerDay` opens in any device's day (each device's opens are in
        // time order here).
        for d in 0..<order.count where starts[d + 1] - starts[d] > maxOpensPerDay {
            var first = starts[d]
            for k in starts[d]..<starts[d + 1] {
                let day = opens[k].time.floorDiv(Clock.day)
                while opens[first].time.floorDiv(Clock.day) < day { first += 1 }
                if k - first + 1 > maxOpensPerDay {
                    throw TraceError(problems: [
                        .init(
                            location: .file(file), path: "",
                            message:
                                "device '\(order[d])' opens the app more than \(maxOpensPerDay) times on day \(day): expected at most \(maxOpensPerDay) opens a device-day (docs/limits.md)"
                        )
                    ])
                }
            }
        }
        let trace = OpensTrace(
            file: file, sha256: SHA256.hex(data), form: form, deviceIDs: order, starts: starts, opens: opens)
        guard trace.days <= 36_500 else {
            throw TraceError(problems: [
                .init(
                    location: .file(file), path: "",
                    message: "the trace spans \(trace.days) days: expected at most 36500")
            ])
        }
        return trace
    }
}
