import BGBench
import Foundation

/// The options of `run`; `sweep` takes every one but `--version` (``shared``), so each
/// point of a sweep is a full run.
enum RunOption: String, CommandOption {
    case policy, days, devices, seed, threads, scenario, set
    case warmupDays = "warmup-days"
    case out, quiet
    case opensTrace = "opens-trace"
    case force
    case checkInvariants = "check-invariants"
    case perDevice = "per-device"
    case traceDevices = "trace-devices"
    case baselinePolicy = "baseline-policy"
    case replications
    case shard
    // `run` only.
    case version

    /// What to simulate, how big, where to write: the options `run` and `sweep` share.
    static let shared: [RunOption] = allCases.filter { $0 != .version }

    var isFlag: Bool { self == .quiet || self == .perDevice || self == .version || self == .force || self == .checkInvariants }
    var isRepeatable: Bool { self == .set }
}

/// The options `run` and `sweep` share (``RunOption/shared``), as read: the one place
/// both commands parse and check them.
struct RunArguments {
    var policies = ["adaptive"]
    var options = RunOptions()
    var scenarioFile: String?
    var overrides: [String] = []
    var out = "Reports/latest"
    var warmup = 0
    var quiet = false
    /// Replace `out` even when it holds files that are not a bgbench report.
    var force = false
    var traceFile: String?
    /// Independent replications (`--replications`): seeds `seed`, `seed + 1`, ...
    var replications = 1
    /// `--baseline-policy`: the policy paired.csv compares every other with.
    var baseline: String?
    /// `--shard`: K/N, auto or auto/N, resolved by `finish()` into `options.shard`.
    var shard: String?
    private var daysGiven = false, devicesGiven = false

    /// Takes one of the shared options; false when `option` is not one of them.
    mutating func take(_ option: RunOption, _ value: String?) throws -> Bool {
        let name = option.rawValue
        switch option {
        case .policy:
            policies = try Command.parsePolicies(required(value, for: name, expected: "a policy name"))
        case .days:
            options.days = try integer(required(value, for: name, expected: "a positive integer"),
                                       for: name, in: 1...36500, expected: "an integer from 1 to 36500")
            daysGiven = true
        case .devices:
            options.devices = try integer(required(value, for: name, expected: "a positive integer"),
                                          for: name, in: 1...100_000_000, expected: "an integer from 1 to 100000000")
            devicesGiven = true
        case .seed:
            options.seed = try integer(required(value, for: name, expected: "a non-negative integer"),
                                       for: name, in: 0...UInt64.max, expected: "an integer from 0 to 18446744073709551615")
        case .threads:
            options.threads = try integer(required(value, for: name, expected: "a non-negative integer"),
                                          for: name, in: 0...1024, expected: "an integer from 0 to 1024")
        case .warmupDays:
            warmup = try integer(required(value, for: name, expected: "a non-negative integer"),
                                 for: name, in: 0...36499, expected: "an integer from 0 to 36499")
        case .scenario: scenarioFile = try required(value, for: name, expected: "a scenario file")
        case .set: overrides.append(try required(value, for: name, expected: "PATH=VALUE"))
        case .out:
            out = try required(value, for: name, expected: "a folder")
            guard !out.isEmpty else { throw CLIError.usage("invalid value '' for '--out': expected a folder") }
        case .opensTrace: traceFile = try required(value, for: name, expected: "a trace CSV file")
        case .quiet: quiet = true
        case .force: force = true
        case .checkInvariants: options.checksInvariants = true
        case .replications:
            replications = try integer(required(value, for: name, expected: "a positive integer"),
                                       for: name, in: 1...1000, expected: "an integer from 1 to 1000")
        case .perDevice: options.keepDevices = true
        case .traceDevices:
            options.traceDevices = try integer(required(value, for: name, expected: "a positive integer"),
                                               for: name, in: 1...1000, expected: "an integer from 1 to 1000")
        case .baselinePolicy: baseline = try required(value, for: name, expected: "a policy name")
        case .shard: shard = try required(value, for: name, expected: "K/N, auto or auto/N")
        case .version: return false
        }
        return true
    }

    /// Checks what only the whole command line can tell, and loads the opens trace: it
    /// sets the fleet (one device per trace device; `--devices` may only repeat that
    /// number) and, without `--days`, the run's length (the trace's span in whole days).
    mutating func finish() throws {
        if let traceFile {
            let trace = try readingInput { try OpensTraceLoader.load(file: traceFile) }
            if devicesGiven && options.devices != trace.deviceCount {
                throw CLIError.usage("invalid value '\(options.devices)' for '--devices': the trace '\(traceFile)' has \(trace.deviceCount) devices (leave --devices out with --opens-trace)")
            }
            options.devices = trace.deviceCount
            if !daysGiven { options.days = trace.days }
            options.opensTrace = trace
        }
        guard warmup < options.days else {
            throw CLIError.usage("invalid value '\(warmup)' for '--warmup-days': expected an integer from 0 to \(options.days - 1) (fewer than --days)")
        }
        options.warmupDays = warmup
        if let shard { options.shard = try Self.shard(shard, environment: ProcessInfo.processInfo.environment) }
        if let baseline {
            guard policies.contains(baseline) else {
                throw CLIError.usage("invalid value '\(baseline)' for '--baseline-policy': expected one of the policies run (\(policies.joined(separator: ", ")))")
            }
            guard policies.count > 1 else {
                throw CLIError.usage("'--baseline-policy' needs at least one other policy in '--policy'")
            }
        }
    }

    /// `--shard K/N` (0 ≤ K < N), `auto` or `auto/N` (from the job engine's variables:
    /// `Shard.fromEnvironment`).
    static func shard(_ text: String, environment: [String: String]) throws -> Shard {
        if text == "auto" || text.hasPrefix("auto/") {
            var count: Int?
            if text != "auto" {
                guard let n = Int(text.dropFirst(5)), n >= 1 else {
                    throw CLIError.usage("invalid value '\(text)' for '--shard': expected K/N, auto or auto/N with N a positive integer")
                }
                count = n
            }
            do { return try Shard.fromEnvironment(environment, count: count) } catch { throw CLIError.usage(error.description) }
        }
        guard let shard = Shard.parse(text) else {
            throw CLIError.usage("invalid value '\(text)' for '--shard': expected K/N with 0 <= K < N (e.g. 0/4), auto or auto/N")
        }
        return shard
    }

    /// The run of one loaded scenario with these options (a sweep makes one per point);
    /// refuses a feed too large to hold in memory.
    func request(_ loaded: LoadedScenario, commandLine: [String]) throws -> RunRequest {
        // The shared feed is held in memory: 16 bytes an item.
        let feedItems = loaded.scenario.content.itemsPerDay * Double(options.days)
        guard feedItems <= 50_000_000 else {
            throw CLIError.usage("the feed would hold about \(Int(feedItems)) items (content.items_per_day × --days): expected at most 50000000")
        }
        return RunRequest(scenario: loaded, policies: policies, options: options, commandLine: commandLine,
                          baselinePolicy: baseline, replications: replications)
    }

    /// The files the run reads (a scenario given as a file, not a preset's name; the
    /// opens trace): never an output.
    var inputs: [OutputGuard.Input] {
        var inputs: [OutputGuard.Input] = []
        if let scenarioFile, FileManager.default.fileExists(atPath: scenarioFile) {
            inputs.append(.init(path: scenarioFile, role: "--scenario"))
        }
        if let traceFile { inputs.append(.init(path: traceFile, role: "--opens-trace")) }
        return inputs
    }

    /// The folder pipeline of a command that runs these options into `--out`, reporting
    /// `work` device-days of progress.
    func pipeline(_ kind: ReportKind, work: Int) -> ReportPipeline {
        ReportPipeline(out: out, force: force, kind: kind, inputs: inputs, progressTotal: work, quiet: quiet,
                       shard: options.shard.map { ($0, options.devices) })
    }

    /// The device-days a run of one scenario simulates (for the progress line): its shard's.
    var workPerScenario: Int { options.part.devices(of: options.devices).count * options.days * policies.count * replications }
}
