import BGBench
import Foundation

/// What `bgbench bench` measures and derives: the workloads, one measurement per
/// (workload, thread count) as a child process reports it, and the rows of the bench CSV
/// with their ratios (speedup over one thread, time against `default/fixed`). Pure
/// arithmetic, so tests check it on hand-built measurements.
enum BenchTable {
    struct Workload: Equatable {
        /// `scenario/policy`, the name `--workloads` and the CSV use.
        var name: String
        /// A preset's name (EmbeddedFiles), or "default" for the built-in default scenario.
        var scenario: String
        var policy: String
        var devices: Int
        var days: Int
        var deviceDays: Int { devices * days }
    }

    /// The learning policies of issue 15's target 3, each run on the default scenario.
    static let learningPolicies = ["usage", "histogram", "nhpp", "bayes", "kde", "logistic"]

    /// Every workload `bench` runs by default, in the order it runs them (365 days, seed 1).
    static let workloads: [Workload] =
        [Workload(name: "r1/fixed", scenario: "r1", policy: "fixed", devices: 20_000, days: 365)]
        + (["fixed", "adaptive"] + learningPolicies).map {
            Workload(name: "default/\($0)", scenario: "default", policy: $0, devices: 4_000, days: 365)
        }

    /// `--memory`: R1 with 100,000 devices × 365 days, once.
    static let memory = Workload(name: "r1/memory", scenario: "r1", policy: "fixed", devices: 100_000, days: 365)

    /// The workload the learning policies' time is compared with.
    static let fixedName = "default/fixed"

    /// What a child process measured: the median wall time of its repeats and the events
    /// of one run (every repeat simulates the same events); the parent adds the peak memory.
    struct Measurement: Equatable {
        var workload: Workload
        var threads: Int
        var repeats: Int
        var medianSeconds: Double
        var events: Double
        var peakMB: Double
    }

    /// One row of the bench CSV.
    struct Row: Equatable {
        var measurement: Measurement
        /// This row's device-days/s over the same workload's 1-thread row's; nil on the
        /// 1-thread row and when no 1-thread row ran.
        var speedup: Double?
        /// This row's median time over `default/fixed`'s at the same thread count; nil
        /// outside the default scenario and when `default/fixed` did not run.
        var vsFixed: Double?

        var workload: Workload { measurement.workload }
        var threads: Int { measurement.threads }
        var deviceDaysPerSecond: Double { Double(workload.deviceDays) / measurement.medianSeconds }
        var eventsPerSecond: Double { measurement.events / measurement.medianSeconds }
        var eventsPerDeviceDay: Double { measurement.events / Double(workload.deviceDays) }
        /// Per thread: wall time × threads / events.
        var nsPerEvent: Double { measurement.medianSeconds * 1e9 * Double(threads) / measurement.events }
    }

    /// The rows of `measurements`, in their order, with their ratios.
    static func rows(_ measurements: [Measurement]) -> [Row] {
        measurements.map { m in
            let single = measurements.first { $0.workload.name == m.workload.name && $0.threads == 1 }
            let fixed = measurements.first { $0.workload.name == fixedName && $0.threads == m.threads }
            var row = Row(measurement: m)
            if m.threads != 1, let single {
                row.speedup =
                    (Double(m.workload.deviceDays) / m.medianSeconds)
                    / (Double(single.workload.deviceDays) / single.medianSeconds)
            }
            if m.workload.scenario == "default", let fixed {
                row.vsFixed = m.medianSeconds / fixed.medianSeconds
            }
            return row
        }
    }

    static let columns = [
        "workload", "scenario", "policy", "devices", "days", "device_days", "threads", "repeats",
        "median_s", "device_days_per_s", "events_per_s", "events_per_device_day", "ns_per_event",
        "peak_mb", "speedup", "vs_fixed",
    ]

    /// What `--csv` may overwrite: a bench CSV (its header).
    static let fileKind = OutputGuard.FileKind.csv(
        "a bench CSV of bgbench (first line \(columns[0]),...)",
        header: columns.joined(separator: ","))

    static func csv(_ rows: [Row]) -> String {
        var csv = CSVWriter("")
        csv.row(columns)
        for r in rows {
            let m = r.measurement, w = r.workload
            csv.row([
                w.name, w.scenario, w.policy, String(w.devices), String(w.days), String(w.deviceDays),
                String(r.threads), String(m.repeats), SummaryTable.fixed(m.medianSeconds, 3),
                SummaryTable.fixed(r.deviceDaysPerSecond, 0), SummaryTable.fixed(r.eventsPerSecond, 0),
                SummaryTable.fixed(r.eventsPerDeviceDay, 1), SummaryTable.fixed(r.nsPerEvent, 1),
                SummaryTable.fixed(m.peakMB, 1), r.speedup.map { SummaryTable.fixed($0, 3) } ?? "",
                r.vsFixed.map { SummaryTable.fixed($0, 3) } ?? "",
            ])
        }
        return csv.output
    }

    static let header =
        "workload           threads  device-days  median s  device-days/s     events/s  ev/dd  ns/event  peak MB\n"

    /// One line of the table bench prints as each measurement arrives.
    static func line(_ m: Measurement) -> String {
        let r = Row(measurement: m)
        let fields = [
            String(m.threads), String(m.workload.deviceDays), SummaryTable.fixed(m.medianSeconds, 3),
            SummaryTable.fixed(r.deviceDaysPerSecond, 0), SummaryTable.fixed(r.eventsPerSecond, 0),
            SummaryTable.fixed(r.eventsPerDeviceDay, 1), SummaryTable.fixed(r.nsPerEvent, 1),
            SummaryTable.fixed(m.peakMB, 1),
        ]
        return m.workload.name.padding(toLength: 18, withPad: " ", startingAt: 0) + " "
            + zip(fields, [7, 12, 9, 14, 12, 6, 9, 8]).map { String(repeating: " ", count: max(0, $1 - $0.count)) + $0 }
            .joined(separator: " ") + "\n"
    }

    /// Issue 15's time target for a learning policy: at most this × `default/fixed`'s time.
    static let learningTarget = 1.5
    /// Its scaling target: all threads at least this × threads × the 1-thread rate (1.9 on
    /// 2 threads), judged on runs of at least `scalingMinimum` device-days.
    static let scalingPerThread = 0.95
    static let scalingMinimum = 1_000_000

    /// The ratios per workload and one verdict line per target; information, never an exit code.
    static func summary(_ rows: [Row]) -> String {
        var out = ""
        let ratios = rows.filter { $0.speedup != nil || ($0.vsFixed != nil && $0.workload.name != fixedName) }
        if !ratios.isEmpty {
            out += "\nworkload           threads  speedup  × fixed\n"
            for r in ratios {
                let fields = [
                    String(r.threads), r.speedup.map { SummaryTable.fixed($0, 3) } ?? "-",
                    r.vsFixed.map { SummaryTable.fixed($0, 3) } ?? "-",
                ]
                out +=
                    r.workload.name.padding(toLength: 18, withPad: " ", startingAt: 0) + " "
                    + zip(fields, [7, 8, 8]).map { String(repeating: " ", count: max(0, $1 - $0.count)) + $0 }
                    .joined(separator: " ") + "\n"
            }
        }
        out += "\n" + learningVerdict(rows) + "\n" + scalingVerdict(rows) + "\n"
        return out
    }

    /// Target 3: each learning policy's time over `default/fixed`'s, on the fewest threads measured.
    static func learningVerdict(_ rows: [Row]) -> String {
        let prefix = "target: learning policies at most \(SummaryTable.fixed(learningTarget, 1)) × fixed's time: "
        let learning = rows.filter { $0.vsFixed != nil && learningPolicies.contains($0.workload.policy) }
        guard let threads = learning.map(\.threads).min() else {
            return prefix + "not measured (needs default/fixed and a learning policy)"
        }
        let judged = learning.filter { $0.threads == threads }
        let within = judged.filter { $0.vsFixed! <= learningTarget }
        return prefix + "\(within.count) of \(judged.count) within on \(threads) thread\(threads == 1 ? "" : "s") ("
            + judged.map { "\($0.workload.policy) \(SummaryTable.fixed($0.vsFixed!, 2))" }.joined(separator: ", ") + ")"
    }

    /// Target 4: the speedup of every run of at least `scalingMinimum` device-days.
    static func scalingVerdict(_ rows: [Row]) -> String {
        let prefix =
            "target: speedup at least \(SummaryTable.fixed(scalingPerThread, 2)) × threads "
            + "(1.9 on 2) for runs of 10^6 device-days or more: "
        let scaled = rows.filter { $0.speedup != nil }
        guard !scaled.isEmpty else { return prefix + "not measured (needs 1 thread and more)" }
        let judged = scaled.filter { $0.workload.deviceDays >= scalingMinimum }
        guard !judged.isEmpty else { return prefix + "not judged (every run is below 10^6 device-days)" }
        let within = judged.filter { $0.speedup! >= scalingPerThread * Double($0.threads) }
        return prefix + "\(within.count) of \(judged.count) within ("
            + judged.map { "\($0.workload.name) \(SummaryTable.fixed($0.speedup!, 2)) on \($0.threads)" }.joined(
                separator: ", ") + ")"
    }
}
