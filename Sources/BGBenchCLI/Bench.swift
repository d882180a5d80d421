import BGBench
import Foundation

/// `bgbench bench`: fixed workloads, each run several times; prints medians of
/// device-days/s, events/s and ns/event, and the process's peak memory. Speed lives here,
/// never in tests: shared machines are noisy, so compare medians and ratios.
extension Command {
    struct Workload {
        var name: String
        /// A preset's name (EmbeddedFiles), nil for the built-in default.
        var scenarioFile: String?
        var policy: String
        var devices: Int
        var days: Int
    }

    enum BenchOption: String, CommandOption {
        case quick, memory, repeats, threads, baseline, csv
        var isFlag: Bool { self == .quick || self == .memory }
    }

    static func bench<Out: TextOutputStream>(_ tokens: [Token], output: inout Out) throws {
        var quick = false, memory = false
        var repeats = 3
        var threads = 0
        var baselineFile: String?, csvFile: String?
        var parser = OptionParser(tokens, command: "bench")
        try parser.parse(
            option: { (option: BenchOption, value) in
                let name = option.rawValue
                switch option {
                case .quick: quick = true
                case .memory: memory = true
                case .baseline: baselineFile = try required(value, for: name, expected: "a bench CSV file")
                case .csv: csvFile = try required(value, for: name, expected: "a file")
                case .repeats:
                    repeats = try integer(required(value, for: name, expected: "a positive integer"),
                                          for: name, in: 1...100, expected: "an integer from 1 to 100")
                case .threads:
                    threads = try integer(required(value, for: name, expected: "a non-negative integer"),
                                          for: name, in: 0...1024, expected: "an integer from 0 to 1024")
                }
            },
            positional: { throw CLIError.unexpected($0, command: "bench") })
        if let csvFile { try checkWritable(csvFile, option: "--csv") }
        let baseline = try baselineFile.map(BenchBaseline.load)
        let r1 = "r1"  // the built-in preset (EmbeddedFiles): bench runs from anywhere
        let scale = quick ? 10 : 1
        var workloads = [
            Workload(name: "r1/fixed", scenarioFile: r1, policy: "fixed", devices: 20_000 / scale, days: 365),
            Workload(name: "default/fixed", scenarioFile: nil, policy: "fixed", devices: 4_000 / scale, days: 365),
            Workload(name: "default/adaptive", scenarioFile: nil, policy: "adaptive", devices: 4_000 / scale, days: 365),
        ]
        // The statistical policy, where this build has it.
        if PolicyRegistry.named("nhpp") != nil {
            workloads.append(Workload(name: "default/nhpp", scenarioFile: nil, policy: "nhpp", devices: 4_000 / scale, days: 365))
        }
        if memory {
            workloads = [Workload(name: "r1/fixed memory", scenarioFile: r1, policy: "fixed", devices: 100_000, days: 365)]
            repeats = 1
        }
        output.write("workload             device-days  median s   device-days/s      events/s  ns/event  peak MB\n")
        var csv = CSVWriter("")
        csv.row(["workload", "device_days", "median_s", "device_days_per_s", "events_per_s", "ns_per_event", "peak_mb", "threads"])
        for w in workloads {
            let loaded = try w.scenarioFile.map { name in
                try readingInput { try ScenarioLoader.load(json: EmbeddedFiles.preset(named: name)!, file: "preset:\(name)") }
            } ?? ScenarioLoader.builtInDefault()
            let request = RunRequest(scenario: loaded, policies: [w.policy],
                                     options: RunOptions(devices: w.devices, days: w.days, seed: 1, threads: threads))
            var times: [Double] = []
            var events = 0.0, usedThreads = 0
            for _ in 0..<repeats {
                let report = try Runner.run(request)
                times.append(report.wallSeconds)
                events = report.events
                usedThreads = report.threads
            }
            let median = times.sorted()[times.count / 2]
            let deviceDays = Double(w.devices * w.days)
            let peak = peakMemoryMB()
            let fields = [w.name, String(Int(deviceDays)), SummaryTable.fixed(median, 3),
                          SummaryTable.fixed(deviceDays / median, 0), SummaryTable.fixed(events / median, 0),
                          SummaryTable.fixed(median * 1e9 / events * Double(usedThreads), 1), SummaryTable.fixed(peak, 1)]
            output.write(fields[0].padding(toLength: 20, withPad: " ", startingAt: 0) + " "
                         + zip(fields.dropFirst(), [11, 9, 15, 13, 9, 8]).map {
                             String(repeating: " ", count: max(0, $1 - $0.count)) + $0 }.joined(separator: " ") + "\n")
            csv.row(fields + [String(usedThreads)])
        }
        output.write("\n" + csv.output)
        if let csvFile { try write(csv.output, to: csvFile) }
        if let baseline, let baselineFile {
            let lines = BenchBaseline.compare(baseline: baseline, current: try BenchBaseline.parse(csv.output, path: "(this run)"))
            output.write(BenchBaseline.render(lines, path: baselineFile))
            try BenchBaseline.verdict(lines, path: baselineFile)
        }
    }

    /// The process's peak resident memory so far, in MB (getrusage's ru_maxrss is in KiB).
    static func peakMemoryMB() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_maxrss) / 1024
    }
}
