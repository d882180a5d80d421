import Foundation
import Testing
@testable import BGBench
@testable import BGBenchCLI

/// `bgbench bench` (issue 15, points 4 and 6): the ratios it derives, the CSV it writes, and
/// one run of the real executable through its child processes. Speed itself is never asserted.
@Suite struct BenchTests {
    typealias Workload = BenchTable.Workload

    static func workload(_ name: String, devices: Int = 1000, days: Int = 10) -> Workload {
        let parts = name.split(separator: "/").map(String.init)
        return Workload(name: name, scenario: parts[0], policy: parts[1], devices: devices, days: days)
    }

    static func measurement(
        _ name: String, threads: Int, seconds: Double, events: Double = 1_000_000,
        devices: Int = 1000
    ) -> BenchTable.Measurement {
        BenchTable.Measurement(
            workload: workload(name, devices: devices), threads: threads, repeats: 3,
            medianSeconds: seconds, events: events, peakMB: 30)
    }

    /// Speedup: the row's rate over the 1-thread row's (blank on the 1-thread row); × fixed:
    /// the row's time over default/fixed's at the same thread count (default scenario only).
    @Test func ratiosOnHandBuiltRows() {
        let rows = BenchTable.rows([
            Self.measurement("r1/fixed", threads: 1, seconds: 4),
            Self.measurement("r1/fixed", threads: 2, seconds: 2.5),
            Self.measurement("default/fixed", threads: 1, seconds: 2),
            Self.measurement("default/fixed", threads: 2, seconds: 1),
            Self.measurement("default/nhpp", threads: 1, seconds: 4.2),
            Self.measurement("default/nhpp", threads: 2, seconds: 2),
            Self.measurement("default/usage", threads: 2, seconds: 1.5),
        ])
        func rounded(_ x: Double?) -> Double? { x.map { ($0 * 1e9).rounded() / 1e9 } }
        #expect(rows.map { rounded($0.speedup) } == [nil, 1.6, nil, 2, nil, 2.1, nil])
        #expect(rows.map { rounded($0.vsFixed) } == [nil, nil, 1, 1, 2.1, 2, 1.5])
        // 1000 devices × 10 days = 10,000 device-days in 4 s; 10^6 events.
        #expect(rows[0].deviceDaysPerSecond == 2500)
        #expect(rows[0].eventsPerSecond == 250_000)
        #expect(rows[0].eventsPerDeviceDay == 100)
        #expect(rows[1].nsPerEvent == 5000)  // 2.5 s × 2 threads / 10^6 events
        // Without default/fixed there is no × fixed; without 1 thread no speedup.
        let alone = BenchTable.rows([Self.measurement("default/kde", threads: 2, seconds: 1)])
        #expect(alone[0].speedup == nil && alone[0].vsFixed == nil)
    }

    /// The verdict lines: target 3 on the fewest threads measured, target 4 only on runs of
    /// 10^6 device-days and more.
    @Test func verdictLines() {
        let small = BenchTable.rows([
            Self.measurement("default/fixed", threads: 1, seconds: 2),
            Self.measurement("default/fixed", threads: 2, seconds: 1.1),
            Self.measurement("default/nhpp", threads: 1, seconds: 4.2),
            Self.measurement("default/logistic", threads: 1, seconds: 3),
            Self.measurement("default/adaptive", threads: 1, seconds: 1),
        ])
        #expect(
            BenchTable.learningVerdict(small)
                == "target: learning policies at most 1.5 × fixed's time: 1 of 2 within on 1 thread (nhpp 2.10, logistic 1.50)"
        )
        #expect(
            BenchTable.scalingVerdict(small)
                == "target: speedup at least 0.95 × threads (1.9 on 2) for runs of 10^6 device-days or more: not judged (every run is below 10^6 device-days)"
        )
        let big = BenchTable.rows([
            Self.measurement("r1/fixed", threads: 1, seconds: 10, devices: 1000),
            Self.measurement("r1/fixed", threads: 2, seconds: 5.2, devices: 1000),
            Self.measurement("default/fixed", threads: 1, seconds: 10, devices: 100_000),
            Self.measurement("default/fixed", threads: 2, seconds: 5.2, devices: 100_000),
        ])
        #expect(
            BenchTable.scalingVerdict(big)
                == "target: speedup at least 0.95 × threads (1.9 on 2) for runs of 10^6 device-days or more: 1 of 1 within (default/fixed 1.92 on 2)"
        )
        #expect(
            BenchTable.learningVerdict(big)
                == "target: learning policies at most 1.5 × fixed's time: not measured (needs default/fixed and a learning policy)"
        )
    }

    /// The CSV bench writes, exactly, and read back by `--baseline`.
    @Test func csvText() throws {
        let rows = BenchTable.rows([
            Self.measurement("default/fixed", threads: 1, seconds: 2),
            Self.measurement("default/fixed", threads: 2, seconds: 1.25),
        ])
        let csv = BenchTable.csv(rows)
        #expect(
            csv == """
                workload,scenario,policy,devices,days,device_days,threads,repeats,median_s,device_days_per_s,events_per_s,events_per_device_day,ns_per_event,peak_mb,speedup,vs_fixed
                default/fixed,default,fixed,1000,10,10000,1,3,2.000,5000,500000,100.0,2000.0,30.0,,1.000
                default/fixed,default,fixed,1000,10,10000,2,3,1.250,8000,800000,100.0,2500.0,30.0,1.600,1.000

                """)
        let parsed = try BenchBaseline.parse(csv, path: "new.csv")
        #expect(
            parsed == [
                BenchBaseline.Row(workload: "default/fixed", deviceDays: 10000, rate: 5000, threads: 1, peakMB: 30),
                BenchBaseline.Row(workload: "default/fixed", deviceDays: 10000, rate: 8000, threads: 2, peakMB: 30),
            ])
    }

    /// Today's CSV against the format before issue 15 (Benchmarks/results-2026-11-29.csv,
    /// 2 threads): rows matched by workload and threads.
    @Test func newCSVAgainstOldBaseline() throws {
        let old = try BenchBaseline.load(TestSupport.packageRoot.path + "/Benchmarks/results-2026-11-29.csv")
        #expect(old.map(\.threads) == [2, 2, 2, 2])
        let current = try BenchBaseline.parse(
            BenchTable.csv(
                BenchTable.rows([
                    BenchTable.Measurement(
                        workload: BenchTable.workloads[0], threads: 1, repeats: 3, medianSeconds: 14.6, events: 5e8,
                        peakMB: 30),
                    BenchTable.Measurement(
                        workload: BenchTable.workloads[0], threads: 2, repeats: 3, medianSeconds: 7.3, events: 5e8,
                        peakMB: 30),
                    BenchTable.Measurement(
                        workload: BenchTable.workloads[1], threads: 2, repeats: 3, medianSeconds: 5.84, events: 3e8,
                        peakMB: 30),
                ])), path: "now.csv")
        let lines = BenchBaseline.compare(baseline: old, current: current)
        #expect(lines.map(\.workload) == ["r1/fixed", "r1/fixed", "default/fixed", "default/adaptive", "default/nhpp"])
        #expect(lines.map(\.threads) == [1, 2, 2, 2, 2])
        #expect(lines.map(\.verdict) == [.notCompared, .same, .slower, .notCompared, .notCompared])
        #expect(lines.map(\.note) == ["threads 2 vs 1", "", "", "not run now", "not run now"])
        #expect(
            throws: CLIError(
                message:
                    "slower than the baseline: default/fixed on 2 threads at 0.790 × its device-days/s (threshold 0.85)",
                code: 1, hint: false)
        ) {
            try BenchBaseline.verdict(lines, path: "old.csv")
        }
    }

    /// The child's subcommand, in-process: one result line, its fields as asked.
    @Test func childResultLine() {
        var output = "", errors = ""
        let code = CommandLineTool.run(
            arguments: [
                "bench", "--run-workload", "default/fixed", "--devices", "2", "--threads", "1",
                "--repeats", "1",
            ], output: &output, errors: &errors)
        #expect(code == 0 && errors == "")
        #expect(
            output.hasPrefix(
                "bgbench-bench-result workload=default/fixed devices=2 days=365 threads=1 repeats=1 median_s="))
        let m = BenchProcess.parseResult(
            output, workload: Self.workload("default/fixed", devices: 2, days: 365), threads: 1, peakMB: 1)
        #expect(m != nil && m!.events > 2 * 365 * 50)  // the default scenario has about 217 events per device-day
        #expect(
            BenchProcess.parseResult(
                output, workload: Self.workload("default/fixed", devices: 3, days: 365), threads: 1, peakMB: 1) == nil)
    }

    /// The real executable, run as `bgbench` through PATH from a folder outside the
    /// checkout: each workload and thread count in its own child process (found through
    /// /proc/self/exe), the CSV written and readable as a baseline.
    @Test func endToEndThroughChildProcesses() throws {
        let binary = try ResourcesTests.builtBinary()
        let folder = try ResourcesTests.temporaryFolder("bench")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try ResourcesTests.run(
            [
                "bgbench", "bench", "--workloads", "default/nhpp,default/fixed", "--devices", "2",
                "--repeats", "1", "--csv", "b.csv",
            ],
            in: folder, path: URL(fileURLWithPath: binary).deletingLastPathComponent().path)
        #expect(result.code == 0, "\(result.errors)")
        #expect(result.errors == "")
        let threads = Array(Set([1, System.coreCount])).sorted()
        let csv = try String(contentsOfFile: folder + "/b.csv", encoding: .utf8)
        #expect(result.output.hasSuffix("\n" + csv))
        let table = try CSVTable(parsing: csv)
        #expect(table.header == BenchTable.columns)
        let column = { (name: String) in table.rows.map { $0[table.index(of: name)!] } }
        #expect(column("workload") == threads.map { _ in "default/fixed" } + threads.map { _ in "default/nhpp" })
        #expect(column("threads") == (threads + threads).map(String.init))
        #expect(column("device_days") == Array(repeating: "730", count: 2 * threads.count))
        // Each child's own peak: a few tens of MB, not zero and not the test process's.
        for peak in column("peak_mb").compactMap(Double.init) { #expect(peak > 5 && peak < 500) }
        #expect(column("peak_mb").count == 2 * threads.count)
        #expect(column("vs_fixed")[0] == "1.000")
        #expect(result.output.contains("target: learning policies at most 1.5 × fixed's time: "))
        #expect(try BenchBaseline.parse(csv, path: "b.csv").count == 2 * threads.count)
    }

    /// A child that fails is named with its workload and thread count, its exit code or
    /// signal, and its own error line; one that exits 0 without a result line is a failure
    /// too. Real child processes (a shell), the bench's own spawn and wait.
    @Test func failingChildrenAreNamed() throws {
        let w = Self.workload("r1/fixed", devices: 5)
        func outcome(_ script: String, threads: Int = 1) throws -> CLIError? {
            let (status, output, rss) = try BenchProcess.spawn("/bin/sh", ["sh", "-c", script])
            do {
                _ = try BenchProcess.measurement(
                    status: status, output: output, workload: w, threads: threads, maxRSS: rss)
                return nil
            } catch let error as CLIError { return error }
        }
        // The child's exit code is bench's when README's table has it, else 70; a signal
        // other than SIGINT or SIGTERM (a crash, the OOM killer) is 70 too.
        #expect(
            try outcome("echo 'error: the scenario is broken' >&2; exit 65")
                == CLIError(
                    message: "bench: workload r1/fixed on 1 thread failed with exit code 65: the scenario is broken",
                    code: .data, hint: false))
        #expect(
            try outcome("exit 3")
                == CLIError(
                    message: "bench: workload r1/fixed on 1 thread failed with exit code 3", code: .software,
                    hint: false))
        #expect(
            try outcome("kill -KILL $$", threads: 2)
                == CLIError(
                    message: "bench: workload r1/fixed on 2 threads was ended by signal 9", code: .software, hint: false
                ))
        #expect(
            try outcome("kill -TERM $$")
                == CLIError(
                    message: "bench: workload r1/fixed on 1 thread was ended by signal 15", code: .terminated,
                    hint: false
                ))
        #expect(
            try outcome("echo all good")
                == CLIError(
                    message: "bench: workload r1/fixed on 1 thread printed no result line", code: 70, hint: false))
        // A result line for another workload is no result.
        #expect(
            try outcome(
                "echo 'bgbench-bench-result workload=r1/fixed devices=6 days=10 threads=1 repeats=1 median_s=1 events=9'"
            )
                == CLIError(
                    message: "bench: workload r1/fixed on 1 thread printed no result line", code: 70, hint: false))
        #expect(
            try outcome(
                "echo 'bgbench-bench-result workload=r1/fixed devices=5 days=10 threads=1 repeats=1 median_s=1 events=9'"
            ) == nil)
    }

    /// A workload's child never outlives bench: stopped by SIGTERM, bench exits 143 and its
    /// child ends with it; killed outright (SIGKILL, no handler runs), its child still ends.
    @Test(arguments: [SIGTERM, SIGKILL])
    func childEndsWithItsParent(_ signal: Int32) throws {
        let binary = try ResourcesTests.builtBinary()
        let folder = try ResourcesTests.temporaryFolder("bench-signal")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let parent = Process()
        parent.executableURL = URL(fileURLWithPath: binary)
        // Minutes of work: it is stopped long before.
        parent.arguments = [
            "bench", "--workloads", "r1/fixed", "--devices", "1000000", "--repeats", "1", "--threads", "1",
        ]
        parent.currentDirectoryURL = URL(fileURLWithPath: folder)
        parent.standardOutput = FileHandle.nullDevice
        parent.standardError = FileHandle.nullDevice
        try parent.run()
        var child: pid_t?
        let deadline = Date().addingTimeInterval(20)
        while child == nil && Date() < deadline {
            child = Self.children(of: parent.processIdentifier).first
            if child == nil { usleep(20_000) }
        }
        let running = try #require(child, "bench started no child process within 20 s")
        kill(parent.processIdentifier, signal)
        parent.waitUntilExit()
        if signal == SIGTERM {
            #expect(parent.terminationReason == .exit && parent.terminationStatus == 143)
        } else {
            #expect(parent.terminationReason == .uncaughtSignal && parent.terminationStatus == SIGKILL)
        }
        let gone = Date().addingTimeInterval(10)
        while Self.isRunning(running) && Date() < gone { usleep(20_000) }
        #expect(!Self.isRunning(running), "the workload's child \(running) still runs after its parent ended")
        if Self.isRunning(running) { kill(running, SIGKILL) }
    }

    /// A child whose named parent is not its parent (that bench has ended) stops at once:
    /// exit 143 and one line saying why, no workload run.
    @Test func childOfAnEndedBenchStops() throws {
        let binary = try ResourcesTests.builtBinary()
        let child = Process()
        child.executableURL = URL(fileURLWithPath: binary)
        child.arguments = ["bench", "--run-workload", "r1/fixed", "--devices", "2", "--repeats", "1"]
        var environment = ProcessInfo.processInfo.environment
        environment[BenchProcess.parentVariable] = "1"  // init: never this test's child's parent
        child.environment = environment
        let out = Pipe(), err = Pipe()
        child.standardOutput = out
        child.standardError = err
        try child.run()
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        #expect(child.terminationStatus == 143)
        #expect(output == "")
        #expect(
            errors == "error: bench: the bench process that started this workload (BGBENCH_BENCH_PARENT=1) has ended\n")
    }

    /// The processes whose parent is `parent` (from /proc/PID/stat: the field after the
    /// command's closing parenthesis is the state, the next the parent's id).
    static func children(of parent: pid_t) -> [pid_t] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return names.compactMap { name in
            guard let pid = pid_t(name), let fields = statFields(pid), fields.count > 1 else { return nil }
            return pid_t(fields[1]) == parent ? pid : nil
        }
    }

    /// Whether `pid` is alive: it exists and is no zombie (a process adopted by a PID 1 that
    /// does not reap stays a zombie after it ends).
    static func isRunning(_ pid: pid_t) -> Bool {
        guard let state = statFields(pid)?.first else { return false }
        return state != "Z" && state != "X"
    }

    static func statFields(_ pid: pid_t) -> [Substring]? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ")
    }
}
