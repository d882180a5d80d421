import BGBench
import CSyscalls
import Foundation

/// `bgbench bench` runs each (workload, thread count) in a child process of its own, so the
/// peak memory it reports is that workload's alone: the parent re-executes its own binary
/// as `bgbench bench --run-workload NAME --devices D --threads N --repeats R`; the child
/// runs the repeats and prints one result line; the parent reads it and takes the child's
/// peak resident memory from `wait4`'s rusage. Benchmarks/README.md documents the line.
///
/// A child never outlives its parent: the parent names itself in the child's environment
/// (`parentVariable`) and the child asks the kernel for SIGTERM when that parent ends
/// (`endWithParent`), so a parent stopped by SIGTERM, SIGINT or even SIGKILL leaves no
/// workload running on.
enum BenchProcess {
    /// The start of the child's result line.
    static let marker = "bgbench-bench-result"
    /// The environment variable that gives a child its parent's process id.
    static let parentVariable = "BGBENCH_BENCH_PARENT"

    /// In a child started by `spawn`: SIGTERM when the parent ends (the child's own
    /// handler then exits 143, as `run` does), and exit 143 at once, with one line saying
    /// why, if it already has. Nothing when the variable is absent or not a process id
    /// (the subcommand run by hand or in a test).
    static func endWithParent() {
        guard let value = ProcessInfo.processInfo.environment[parentVariable], let parent = pid_t(value) else { return }
        if bgbench_end_with_parent(parent) == 1 {
            let line =
                "error: bench: the bench process that started this workload (\(parentVariable)=\(parent)) has ended\n"
            _ = line.withCString { write(2, $0, strlen($0)) }
            exit(ExitCode.terminated.rawValue)
        }
    }

    /// The child: runs `workload` `repeats` times on `threads` threads and returns its
    /// result line, e.g. `bgbench-bench-result workload=r1/fixed devices=20000 days=365
    /// threads=1 repeats=3 median_s=14.812345678 events=525600000`.
    static func runChild(_ workload: BenchTable.Workload, threads: Int, repeats: Int) throws -> String {
        endWithParent()
        let loaded =
            workload.scenario == "default"
            ? ScenarioLoader.builtInDefault()
            : try readingInput {
                try ScenarioLoader.load(
                    json: EmbeddedFiles.preset(named: workload.scenario)!, file: "preset:\(workload.scenario)")
            }
        let request = RunRequest(
            scenario: loaded, policies: [workload.policy],
            options: RunOptions(devices: workload.devices, days: workload.days, seed: 1, threads: threads))
        var times: [Double] = [], events = 0.0
        for _ in 0..<repeats {
            let report = try Runner.run(request)
            times.append(report.wallSeconds)
            events = report.events
        }
        let median = times.sorted()[times.count / 2]
        return
            "\(marker) workload=\(workload.name) devices=\(workload.devices) days=\(workload.days) threads=\(threads) "
            + "repeats=\(repeats) median_s=\(median) events=\(Int(events))\n"
    }

    /// Parses the result line among a child's output (nil when there is none or it does not
    /// match the workload asked for).
    static func parseResult(_ output: String, workload: BenchTable.Workload, threads: Int, peakMB: Double) -> BenchTable
        .Measurement?
    {
        guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix(marker + " ") }) else { return nil }
        var fields: [String: String] = [:]
        for pair in line.split(separator: " ").dropFirst() {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        guard fields["workload"] == workload.name, fields["devices"] == String(workload.devices),
            fields["days"] == String(workload.days), fields["threads"] == String(threads),
            let repeats = fields["repeats"].flatMap(Int.init), let median = fields["median_s"].flatMap(Double.init),
            let events = fields["events"].flatMap(Double.init), median > 0, events > 0
        else { return nil }
        return BenchTable.Measurement(
            workload: workload, threads: threads, repeats: repeats, medianSeconds: median,
            events: events, peakMB: peakMB)
    }

    /// This process's own executable (/proc/self/exe: right whether bgbench was installed,
    /// called through a link or from another folder).
    static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if n > 0 { return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        return Bundle.main.executablePath
    }

    /// Runs one workload in a child process and returns what it measured. A child that
    /// fails: one error naming the workload, with the child's exit code (128 + the signal
    /// that ended it; 70 when it exited 0 without a result line).
    static func measure(_ workload: BenchTable.Workload, threads: Int, repeats: Int) throws -> BenchTable.Measurement {
        guard let executable = executablePath() else {
            throw CLIError(
                message: "bench: cannot find this program's own executable to run workload \(workload.name)", code: 70,
                hint: false)
        }
        let arguments = [
            "bgbench", "bench", "--run-workload", workload.name, "--devices", String(workload.devices),
            "--threads", String(threads), "--repeats", String(repeats),
        ]
        let (status, output, maxRSS) = try spawn(executable, arguments)
        return try measurement(status: status, output: output, workload: workload, threads: threads, maxRSS: maxRSS)
    }

    /// What a finished child measured, or the error that says how it failed (see `measure`).
    static func measurement(
        status: (code: Int32, signal: Int32), output: String, workload: BenchTable.Workload,
        threads: Int, maxRSS: Int
    ) throws -> BenchTable.Measurement {
        let what = "workload \(workload.name) on \(threads) thread\(threads == 1 ? "" : "s")"
        let message =
            output.split(separator: "\n").first { $0.hasPrefix("error: ") }.map { ": " + $0.dropFirst(7) } ?? ""
        // A workload interrupted ends bench as interrupted; one that crashed (a trap, the
        // kernel's OOM killer) is an unexpected error. Its own exit code is bench's.
        if status.signal != 0 {
            throw CLIError(
                message: "bench: \(what) was ended by signal \(status.signal)\(message)",
                code: status.signal == SIGINT ? .interrupted : status.signal == SIGTERM ? .terminated : .software,
                hint: false)
        }
        if status.code != 0 {
            throw CLIError(
                message: "bench: \(what) failed with exit code \(status.code)\(message)",
                code: ExitCode(rawValue: status.code) ?? .software, hint: false)
        }
        guard let m = parseResult(output, workload: workload, threads: threads, peakMB: Double(maxRSS) / 1024) else {
            throw CLIError(message: "bench: \(what) printed no result line", code: 70, hint: false)
        }
        return m
    }

    /// Starts `path` with `arguments` (standard output and error into one pipe, the
    /// signal mask cleared, this process named as its parent in its environment), reads
    /// everything it writes, and waits for it: its exit code or signal, its output, and
    /// its peak resident memory in KiB (ru_maxrss). Call it from the main thread: the
    /// kernel's parent-death signal follows the thread that started the child.
    static func spawn(_ path: String, _ arguments: [String]) throws -> (
        status: (code: Int32, signal: Int32), output: String, maxRSS: Int
    ) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw CLIError(message: "bench: cannot create a pipe", code: 71, hint: false) }
        // Neither end leaks into the child beyond its standard output and error.
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var environment = ProcessInfo.processInfo.environment
        environment[parentVariable] = String(getpid())
        let spawned = Spawn.start(
            path, arguments: arguments, searchPath: false, actions: [.dup(fds[1], to: 1), .dup(fds[1], to: 2)],
            environment: environment)
        close(fds[1])
        let pid: pid_t
        switch spawned {
        case .success(let started): pid = started
        case .failure(let error):
            close(fds[0])
            throw CLIError(message: "bench: cannot start '\(path)': \(error.text)", code: 71, hint: false)
        }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = read(fds[0], &buffer, buffer.count)
            if n > 0 { data.append(contentsOf: buffer[..<n]) } else if n == 0 || errno != EINTR { break }
        }
        close(fds[0])
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        // The wait status: the low 7 bits are the signal that ended the child (0: it exited),
        // the next byte its exit code.
        let signal = status & 0x7F, code = (status >> 8) & 0xFF
        return ((code, signal), String(decoding: data, as: UTF8.self), Int(usage.ru_maxrss))
    }
}
