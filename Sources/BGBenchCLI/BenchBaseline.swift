import BGBench
import Foundation

/// `bgbench bench --baseline FILE`: the slowdown rule. A workload is slower when its median
/// device-days/s falls below `threshold` × the baseline's median for the same workload on
/// the same thread count (rows matched by workload and threads; the device-days must agree).
/// Reads both bench CSV formats: today's (BenchTable.columns) and the one before issue 15
/// (workload, device_days, median_s, device_days_per_s, events_per_s, ns_per_event,
/// peak_mb, threads), by the columns they share. Benchmarks/README.md says why 15 %.
enum BenchBaseline {
    /// The current median rate must be at least this fraction of the baseline's.
    static let threshold = 0.85

    /// One row of a bench CSV (the CSV `bgbench bench` prints and `--csv` writes).
    struct Row: Equatable {
        var workload: String
        var deviceDays: Int
        var rate: Double
        var threads: Int
        var peakMB: Double
    }

    enum Verdict: String { case slower, same, faster, notCompared = "not compared" }

    struct Line: Equatable {
        var workload: String
        var threads: Int
        var baseline: Row?
        var current: Row?
        var verdict: Verdict
        var note: String
        /// current rate / baseline rate.
        var ratio: Double? {
            guard let b = baseline, let c = current, b.rate > 0 else { return nil }
            return c.rate / b.rate
        }
    }

    static let columns = ["workload", "device_days", "device_days_per_s", "threads", "peak_mb"]

    /// Parses a bench CSV; `path` names it in messages.
    static func parse(_ text: String, path: String) throws -> [Row] {
        let table: CSVTable
        do { table = try CSVTable(parsing: text) } catch {
            throw CLIError(message: "'\(path)' line \(error.line): \(error.message)", code: 65, hint: false)
        }
        let index = try columns.map { name in
            guard let i = table.index(of: name) else {
                throw CLIError(message: "'\(path)' is not a bench CSV: it has no column \(name)", code: 65, hint: false)
            }
            return i
        }
        return try zip(table.rows, table.lines).map { row, line in
            guard let deviceDays = Int(row[index[1]]), let rate = Double(row[index[2]]),
                let threads = Int(row[index[3]]),
                let peak = Double(row[index[4]])
            else {
                throw CLIError(
                    message:
                        "'\(path)' line \(line): expected numbers in device_days, device_days_per_s, threads and peak_mb",
                    code: 65, hint: false)
            }
            return Row(workload: row[index[0]], deviceDays: deviceDays, rate: rate, threads: threads, peakMB: peak)
        }
    }

    /// One line per current row, then the baseline's rows that did not run now. A current row
    /// whose workload the baseline has on other threads only is set against that row (not compared).
    static func compare(baseline: [Row], current: [Row]) -> [Line] {
        var lines = current.map { c -> Line in
            func line(_ b: Row?, _ verdict: Verdict, _ note: String) -> Line {
                Line(workload: c.workload, threads: c.threads, baseline: b, current: c, verdict: verdict, note: note)
            }
            guard let b = baseline.first(where: { $0.workload == c.workload && $0.threads == c.threads }) else {
                if let other = baseline.first(where: { $0.workload == c.workload }) {
                    return line(other, .notCompared, "threads \(other.threads) vs \(c.threads)")
                }
                return line(nil, .notCompared, "not in the baseline")
            }
            if b.deviceDays != c.deviceDays {
                return line(b, .notCompared, "device-days \(b.deviceDays) vs \(c.deviceDays)")
            }
            let ratio = b.rate > 0 ? c.rate / b.rate : .infinity
            return line(b, ratio < threshold ? .slower : ratio > 1 / threshold ? .faster : .same, "")
        }
        // A baseline row no current row was matched or set against.
        for b in baseline where !lines.contains(where: { $0.baseline == b }) {
            lines.append(
                Line(
                    workload: b.workload, threads: b.threads, baseline: b, current: nil, verdict: .notCompared,
                    note: "not run now"))
        }
        return lines
    }

    static func render(_ lines: [Line], path: String) -> String {
        var out =
            "\nagainst '\(path)' (slower: below \(Int((threshold * 100).rounded())) % of the baseline's device-days/s):\n"
        out += "workload           threads   baseline/s    current/s  ratio  base MB   now MB  verdict\n"
        for l in lines {
            func rate(_ r: Row?) -> String { r.map { SummaryTable.fixed($0.rate, 0) } ?? "-" }
            func mb(_ r: Row?) -> String { r.map { SummaryTable.fixed($0.peakMB, 1) } ?? "-" }
            let fields = [
                rate(l.baseline), rate(l.current),
                (l.verdict == .notCompared ? nil : l.ratio).map { SummaryTable.fixed($0, 3) } ?? "-", mb(l.baseline),
                mb(l.current),
            ]
            out +=
                l.workload.padding(toLength: 18, withPad: " ", startingAt: 0) + " "
                + zip([String(l.threads)] + fields, [7, 12, 12, 6, 8, 8]).map {
                    String(repeating: " ", count: max(0, $1 - $0.count)) + $0
                }.joined(separator: " ")
                + "  " + l.verdict.rawValue + (l.note.isEmpty ? "" : " (\(l.note))") + "\n"
        }
        return out
    }

    /// Reads the baseline file before any workload runs, so a bad path fails at once.
    static func load(_ path: String) throws -> [Row] {
        let data: [UInt8]
        do { data = try InputFile.read(path, limit: InputFile.Limit.benchBaseline) } catch {
            throw error.tooLarge
                ? CLIError(message: "'\(path)': the bench baseline is \(error.reason)", code: 65, hint: false)
                : CLIError(message: "cannot read bench baseline '\(path)': \(error.reason)", code: 66, hint: false)
        }
        guard let text = String(validating: data, as: UTF8.self) else {
            throw CLIError(message: "'\(path)': not UTF-8 text", code: 65, hint: false)
        }
        return try parse(text, path: path)
    }

    /// The exit: 1 (with the slower workloads named) when any workload is slower; 65 when
    /// nothing could be compared.
    static func verdict(_ lines: [Line], path: String) throws {
        let slower = lines.filter { $0.verdict == .slower }
        if !slower.isEmpty {
            throw CLIError(
                message: "slower than the baseline: "
                    + slower.map {
                        "\($0.workload) on \($0.threads) thread\($0.threads == 1 ? "" : "s") at \(SummaryTable.fixed($0.ratio ?? 0, 3)) × its device-days/s"
                    }.joined(separator: ", ") + " (threshold \(SummaryTable.fixed(threshold, 2)))", code: 1, hint: false
            )
        }
        guard lines.contains(where: { $0.verdict != .notCompared }) else {
            throw CLIError(
                message:
                    "no workload of bench baseline '\(path)' matches this run (same workload, threads and device-days)",
                code: 65, hint: false)
        }
    }
}

extension Command {
    /// Writes a file the command was asked for (bench's --csv; check's --junit and
    /// --update) whole or not at all; 73 when it cannot be written.
    static func write(_ text: String, to path: String) throws {
        // Under the interruption lock: a signal waits until the file is in place, so no
        // temporary file is left behind.
        try Interruption.critical { _ in
            do {
                try ReportWriter.writeAtomically(text, to: path)
            } catch let error as ReportError {
                throw CLIError.cannotCreate(error.description)
            }
        }
    }
}
