import BGBench
import Foundation

/// `bgbench bench`: fixed workloads (BenchTable), each on one thread and on every core,
/// each in a child process of its own (BenchProcess) that runs the repeats; prints, per
/// workload and thread count, the medians of device-days/s, events/s and ns/event and the
/// child's peak memory, then the speedups, each default-scenario policy's time over
/// `fixed`'s and a line per target of issue 15. Speed lives here, never in tests: shared
/// machines are noisy, so compare medians and ratios.
struct BenchCommand: CommandDefinition {
    struct Values {
        var quick = false, memory = false, force = false
        var repeats = 3
        var threads: Int?, devices: Int?
        var baselineFile: String?, csvFile: String?, child: String?
        var selected: [BenchTable.Workload]?
        /// `--threads`: nil runs each workload on one thread and on every core.
        var threadCount: Int {
            get { threads ?? 0 }
            set { threads = newValue }
        }
    }

    static let name = "bench"
    static let synopsis = """
        bgbench bench [--quick] [--workloads NAME,...] [--memory] [--repeats N] [--threads T]
                      [--csv FILE [--force]] [--baseline FILE]
                                     the speed benchmark: device-days/s, events/s, ns/event
                                     and peak memory per workload, on 1 thread and on all;
                                     exit 1 below 85 % of a --baseline CSV's device-days/s
        """
    static let reference: String? = "Benchmarks/README.md"
    static let defaults = Values()
    static var options: [Option<Values>] {
        [
            .flag("quick", \.quick, help: "a tenth of the devices of each workload"),
            .value(
                "workloads", "NAME,...", expected: "workload names separated by commas",
                help: "only these workloads: " + BenchTable.workloads.map(\.name).joined(separator: ", "),
                defaultText: "all"
            ) {
                values, text, _ in values.selected = try Command.benchWorkloads(named: text)
            },
            .flag("memory", \.memory, help: "R1 with 100,000 devices × 365 days, once"),
            .integer("repeats", "N", \.repeats, in: 1...100, help: "runs of each workload"),
            .threads(\.threadCount, help: "only this thread count, 0 = all cores", defaultText: "1 and all"),
            .text(
                "csv", "FILE", \.csvFile, expected: "a file",
                help: "also write the results as CSV (an existing FILE only if it is a bench CSV, never --baseline's)"),
            .flag("force", \.force, help: "overwrite --csv whatever it is (never an input)"),
            .text(
                "baseline", "FILE", \.baselineFile, expected: "a bench CSV file",
                help: "compare with a bench CSV made on this machine"),
            // Internal (Benchmarks/README.md): the child process's subcommand, and the device
            // count of every workload (the tests' tiny workloads).
            .value("run-workload", "NAME", expected: "a workload name", help: "", hidden: true) { values, text, _ in
                values.child = text
            },
            .integer("devices", "N", \.devices, in: 1...10_000_000, help: "").hidden,
        ]
    }
    static let endsCleanlyOnSignals = true

    static func run<Out: TextOutputStream>(_ values: Values, _ invocation: Invocation, output: inout Out) throws {
        let quick = values.quick, memory = values.memory, force = values.force, threads = values.threads
        let devices = values.devices, baselineFile = values.baselineFile, csvFile = values.csvFile
        let selected = values.selected
        var repeats = values.repeats
        let resolved = threads.map { $0 == 0 ? System.coreCount : $0 }

        if let child = values.child {
            // The child takes only the options the parent passes it.
            let others = [
                ("quick", values.quick), ("memory", values.memory), ("force", values.force),
                ("workloads", values.selected != nil), ("csv", csvFile != nil), ("baseline", baselineFile != nil),
            ]
            if let other = others.first(where: \.1) {
                throw CLIError.usage("'--run-workload' cannot be combined with '--\(other.0)'")
            }
            guard var workload = (BenchTable.workloads + [BenchTable.memory]).first(where: { $0.name == child }) else {
                throw CLIError.usage(
                    "unknown workload '\(child)' for '--run-workload': expected one of "
                        + (BenchTable.workloads + [BenchTable.memory]).map(\.name).joined(separator: ", "))
            }
            workload.devices = devices ?? workload.devices
            output.write(try BenchProcess.runChild(workload, threads: resolved ?? System.coreCount, repeats: repeats))
            return
        }
        if memory, selected != nil { throw CLIError.usage("'--memory' cannot be combined with '--workloads'") }
        if force && csvFile == nil { throw CLIError.usage("'--force' needs '--csv'") }
        if let csvFile {
            try OutputGuard.checkFile(
                csvFile, option: "--csv", kind: BenchTable.fileKind,
                inputs: baselineFile.map { [.init(path: $0, role: "--baseline")] } ?? [], force: force)
        }
        let baseline = try baselineFile.map(BenchBaseline.load)

        // What runs: each workload (a tenth of its devices with --quick) on one thread and
        // on every core, or on --threads alone; --memory: R1 × 100,000 devices, once.
        var workloads = (selected ?? BenchTable.workloads).map { w in
            var w = w
            w.devices = devices ?? max(1, w.devices / (quick ? 10 : 1))
            return w
        }
        var threadCounts = resolved.map { [$0] } ?? Array(Set([1, System.coreCount])).sorted()
        if memory {
            workloads = [BenchTable.memory]
            workloads[0].devices = devices ?? BenchTable.memory.devices
            threadCounts = [resolved ?? System.coreCount]
            repeats = 1
        }

        output.write(BenchTable.header)
        var measurements: [BenchTable.Measurement] = []
        for workload in workloads {
            for count in threadCounts {
                let m = try BenchProcess.measure(workload, threads: count, repeats: repeats)
                measurements.append(m)
                output.write(BenchTable.line(m))
            }
        }
        let rows = BenchTable.rows(measurements)
        let csv = BenchTable.csv(rows)
        output.write(BenchTable.summary(rows))
        output.write("\n" + csv)
        if let csvFile { try Command.write(csv, to: csvFile) }
        if let baseline, let baselineFile {
            let lines = BenchBaseline.compare(
                baseline: baseline, current: try BenchBaseline.parse(csv, path: "(this run)"))
            output.write(BenchBaseline.render(lines, path: baselineFile))
            try BenchBaseline.verdict(lines, path: baselineFile)
        }
    }

}

extension Command {
    /// `--workloads NAME,NAME`: those workloads, in bench's own order.
    static func benchWorkloads(named list: String) throws -> [BenchTable.Workload] {
        let valid = BenchTable.workloads.map(\.name)
        var names: [String] = []
        for name in list.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
            guard !name.isEmpty else {
                throw CLIError.usage(
                    "invalid value '\(list)' for '--workloads': expected workload names separated by commas")
            }
            guard valid.contains(name) else {
                var message =
                    "unknown workload '\(name)' for '--workloads': expected one of \(valid.joined(separator: ", "))"
                if let close = closest(to: name, in: valid) { message += " (did you mean '\(close)'?)" }
                throw CLIError.usage(message)
            }
            guard !names.contains(name) else { throw CLIError.usage("workload '\(name)' given twice in '--workloads'") }
            names.append(name)
        }
        return BenchTable.workloads.filter { names.contains($0.name) }
    }
}
