import BGBench
import Foundation

/// Turns an LSApp-style app usage log into an opens trace (Datasets/README.md, "Traces").
/// The input is tab-separated with a header naming at least `user_id`, `session_id`,
/// `timestamp`, `app_name` and `event_type` (LSApp: Aliannejadi et al., TOIS 2021); the
/// timestamp is a local date-time such as `2018-01-16 06:01:05`.
///
/// - An open is an `Opened` event: of one app (`app`), or of every app (each app's open
///   counts as an open of the app under study: the phone's app-use pattern).
/// - Its session length is the time to the next `Closed` of the same user, session and
///   app, when there is one before that app's next `Opened` in the session; else it is
///   left empty and the simulator draws it.
/// - Other event types (`User Interaction`, `Broken`) are skipped.
/// - Each user's events are taken in time order (ties in file order); users keep their
///   order of first appearance, and the trace lists each user's opens together.
public enum LSAppConverter {
    static let columns = ["user_id", "session_id", "timestamp", "app_name", "event_type"]

    public struct Output: Sendable {
        /// The trace CSV text.
        public var csv: String
        public var devices: Int
        public var opens: Int
        /// Opens whose session length came from a matching `Closed`.
        public var sessions: Int
        /// Sessions longer than a trace admits (a day), written without a length.
        public var overlongSessions: Int
    }

    /// The header of the opens trace it writes (OpensTraceReader's columns).
    public static let traceColumns = ["device", "timestamp", "session_seconds"]

    public static func convert(file: String, app: String?) throws -> Output {
        let data: Data
        do {
            data = Data(try InputFile.read(file, limit: InputFile.Limit.trace, kind: "LSApp log"))
        } catch {
            throw TraceError(problems: error.problems)
        }
        return try convert(data, file: file, app: app)
    }

    private struct Event {
        var user: Int32
        var time: SimTime
        var opened: Bool
        var key: String
        var line: Int
    }

    /// Converts LSApp bytes; `file` names them in messages. Throws TraceError with every
    /// problem found.
    public static func convert(_ data: Data, file: String, app: String?) throws -> Output {
        let problems = LineProblems(file: file)
        var index: [String: Int] = [:]
        var users: [String] = [], userIndex: [String: Int32] = [:]
        var events: [Event] = []
        let any = CSVReader(data, dialect: .tabSeparatedLines).forEachRow(
            problems: problems,
            header: { line, fields in
                for (k, field) in fields.enumerated() where index[field.trimmed] == nil { index[field.trimmed] = k }
                for name in columns where index[name] == nil {
                    problems.add(
                        line: line, column: 1, "",
                        "missing column '\(name)': expected a header naming user_id, session_id, timestamp, app_name and event_type, separated by tabs"
                    )
                }
            },
            row: { line, fields in
                func field(_ name: String) -> CSVReader.Field { fields[index[name]!] }
                let type = field("event_type").trimmed
                guard type == "Opened" || type == "Closed" else { return }
                let name = field("app_name").trimmed
                if let app, name != app { return }
                let user = field("user_id").trimmed
                guard !user.isEmpty else {
                    problems.add(
                        line: line, column: field("user_id").column, "user_id", "empty user id: expected a user id")
                    return
                }
                let stamp = field("timestamp")
                guard let time = LocalDateTime.parse(stamp.trimmed) else {
                    problems.add(
                        line: line, column: stamp.column, "timestamp",
                        "'\(stamp.trimmed)' is not a date-time: expected YYYY-MM-DD HH:MM:SS (ISO 8601, a space or T between date and time)"
                    )
                    return
                }
                let u: Int32
                if let known = userIndex[user] {
                    u = known
                } else {
                    u = Int32(users.count); userIndex[user] = u; users.append(user)
                }
                events.append(
                    Event(
                        user: u, time: time, opened: type == "Opened",
                        key: field("session_id").trimmed + "\u{1F}" + name, line: line))
            })
        if !any {
            problems.add(
                .init(
                    location: .file(file), path: "",
                    message:
                        "empty file: expected a header line naming user_id, session_id, timestamp, app_name and event_type"
                ))
        }
        let opensCount = events.reduce(0) { $0 + ($1.opened ? 1 : 0) }
        if problems.isEmpty && opensCount == 0 {
            problems.add(
                .init(
                    location: .file(file), path: "",
                    message: "no 'Opened' events" + (app.map { " of app '\($0)'" } ?? "")
                        + ": expected at least one open to convert"))
        }
        guard problems.isEmpty else { throw TraceError(problems: problems.all) }

        // Each user's events in time order; ties keep the file's order.
        let order = events.indices.sorted {
            (events[$0].user, events[$0].time, $0) < (events[$1].user, events[$1].time, $1)
        }
        var opens: [(user: Int32, time: SimTime, session: SimTime)] = []
        var pending: [String: Int] = [:]
        var currentUser: Int32 = -1
        var overlong = 0
        for i in order {
            let e = events[i]
            if e.user != currentUser { pending.removeAll(keepingCapacity: true); currentUser = e.user }
            if e.opened {
                pending[e.key] = opens.count
                opens.append((e.user, e.time, -1))
            } else if let open = pending.removeValue(forKey: e.key) {
                let session = e.time - opens[open].time
                // Longer than a trace admits (a close logged days later: the app was left
                // open, or a close went missing): written without a length, so that the
                // trace validates and the simulation draws the session.
                if session <= Clock.ticks(seconds: OpensTraceLoader.maxSessionSeconds) {
                    opens[open].session = session
                } else {
                    overlong += 1
                }
            }
        }
        // A user's opens must fit the longest run a trace may span (36,500 days, as --days):
        // else the trace would not validate (a year typed 4036 for 2018, say).
        var first: [Int32: Int] = [:], last: [Int32: Int] = [:]
        for i in order where events[i].opened {
            if first[events[i].user] == nil { first[events[i].user] = i }
            last[events[i].user] = i
        }
        for (user, a) in first.sorted(by: { $0.key < $1.key }) {
            let b = last[user]!
            let days = events[b].time.floorDiv(Clock.day) - events[a].time.floorDiv(Clock.day) + 1
            if days > 36_500 {
                problems.add(
                    line: events[b].line, column: 1, "timestamp",
                    "user '\(users[Int(user)])' opens the app over \(days) days (from line \(events[a].line) to this one): expected at most 36500, the longest run (docs/limits.md)"
                )
            }
        }
        guard problems.isEmpty else { throw TraceError(problems: problems.all) }
        var csv = CSVWriter("")
        csv.row(traceColumns)
        for open in opens {
            csv.row([
                users[Int(open.user)], LocalDateTime.format(open.time),
                open.session < 0 ? "" : CSVNumber.seconds(open.session),
            ])
        }
        return Output(
            csv: csv.output, devices: users.count, opens: opens.count,
            sessions: opens.reduce(0) { $0 + ($1.session >= 0 ? 1 : 0) }, overlongSessions: overlong)
    }
}
