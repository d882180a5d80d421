import BGBench
import Foundation

/// `bgbench bench`: fixed workloads (BenchTable), each on one thread and on every core,
/// each in a child process of its own (BenchProcess) that runs the repeats; prints, per
/// workload and thread count, the medians of device-days/s, events/s and ns/event and the
/// child's peak memory, then the speedups, each default-scenario policy's time over
/// `fixed`'s and a line per target of issue 15. Speed lives here, never in tests: shared
/// machines are noisy, so compare medians and ratios.
extension Command {
    enum BenchOption: String, CommandOption {
        case quick, memory, workloads, repeats, threads, baseline, csv, force
        /// Internal (Benchmarks/README.md): the child process's subcommand, and the device
        /// count of every workload (the tests' tiny workloads).
        case runWorkload = "run-workload", devices
        var isFlag: Bool { self == .quick || self == .memory || self == .force }
        static let hidden: [BenchOption] = [.runWorkload, .devices]
        /// The options `bgbench bench --help` lists.
        static var documented: [BenchOption] { allCases.filter { !hidden.contains($0) } }
    }

    static func bench<Out: TextOutputStream>(_ tokens: [Token], output: inout Out) throws {
        var quick = false, memory = false, force = false
        var repeats = 3
        var threads: Int?, devices: Int?
        var baselineFile: String?, csvFile: String?, child: String?
        var selected: [BenchTable.Workload]?
        var given: [BenchOption] = []
        var parser = OptionParser(tokens, command: "bench")
        try parser.parse(
            option: { (option: BenchOption, value) in
                let name = option.rawValue
                given.append(option)
                switch option {
                case .quick: quick = true
                case .memory: memory = true
                case .workloads: selected = try benchWorkloads(named: required(value, for: name, expected: "workload names separated by commas"))
                case .baseline: baselineFile = try required(value, for: name, expected: "a bench CSV file")
                case .csv: csvFile = try required(value, for: name, expected: "a file")
                case .force: force = true
                case .runWorkload: child = try required(value, for: name, expected: "a workload name")
                case .repeats:
                    repeats = try integer(required(value, for: name, expected: "a positive integer"),
                                          for: name, in: 1...100, expected: "an integer from 1 to 100")
                case .threads:
                    threads = try integer(required(value, for: name, expected: "a non-negative integer"),
                                          for: name, in: 0...1024, expected: "an integer from 0 to 1024")
                case .devices:
                    devices = try integer(required(value, for: name, expected: "a positive integer"),
                                          for: name, in: 1...10_000_000, expected: "an integer from 1 to 10000000")
                }
            },
            positional: { throw CLIError.unexpected($0, command: "bench") })
        let resolved = threads.map { $0 == 0 ? System.coreCount : $0 }

        if let child {
            for option in given where ![.runWorkload, .devices, .threads, .repeats].contains(option) {
                throw CLIError.usage("'--run-workload' cannot be combined with '--\(option.rawValue)'")
            }
            guard var workload = (BenchTable.workloads + [BenchTable.memory]).first(where: { $0.name == child }) else {
                throw CLIError.usage("unknown workload '\(child)' for '--run-workload': expected one of "
                                     + (BenchTable.workloads + [BenchTable.memory]).map(\.name).joined(separator: ", "))
            }
            workload.devices = devices ?? workload.devices
            output.write(try BenchProcess.runChild(workload, threads: resolved ?? System.coreCount, repeats: repeats))
            return
        }
        if memory, selected != nil { throw CLIError.usage("'--memory' cannot be combined with '--workloads'") }
        if force && csvFile == nil { throw CLIError.usage("'--force' needs '--csv'") }
        if let csvFile {
            try OutputGuard.checkFile(csvFile, option: "--csv", kind: BenchTable.fileKind,
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
        if let csvFile { try write(csv, to: csvFile) }
        if let baseline, let baselineFile {
            let lines = BenchBaseline.compare(baseline: baseline, current: try BenchBaseline.parse(csv, path: "(this run)"))
            output.write(BenchBaseline.render(lines, path: baselineFile))
            try BenchBaseline.verdict(lines, path: baselineFile)
        }
    }

    /// `--workloads NAME,NAME`: those workloads, in bench's own order.
    static func benchWorkloads(named list: String) throws -> [BenchTable.Workload] {
        let valid = BenchTable.workloads.map(\.name)
        var names: [String] = []
        for name in list.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
            guard !name.isEmpty else {
                throw CLIError.usage("invalid value '\(list)' for '--workloads': expected workload names separated by commas")
            }
            guard valid.contains(name) else {
                var message = "unknown workload '\(name)' for '--workloads': expected one of \(valid.joined(separator: ", "))"
                if let close = closest(to: name, in: valid) { message += " (did you mean '\(close)'?)" }
                throw CLIError.usage(message)
            }
            guard !names.contains(name) else { throw CLIError.usage("workload '\(name)' given twice in '--workloads'") }
            names.append(name)
        }
        return BenchTable.workloads.filter { names.contains($0.name) }
    }
}
