import BGBench

/// The options of `run`; `sweep` takes the first twelve (``shared``).
enum RunOption: String, CommandOption {
    case policy, days, devices, seed, threads, scenario, set
    case warmupDays = "warmup-days"
    case out, quiet
    case opensTrace = "opens-trace"
    case force
    case checkInvariants = "check-invariants"
    // `run` only.
    case perDevice = "per-device"
    case traceDevices = "trace-devices"
    case baselinePolicy = "baseline-policy"
    case replications, version

    /// What to simulate, how big, where to write: the options `run` and `sweep` share.
    static let shared: [RunOption] = [.policy, .days, .devices, .seed, .threads, .scenario, .set, .warmupDays, .out, .quiet,
                                      .opensTrace, .force, .checkInvariants]

    var isFlag: Bool { self == .quiet || self == .perDevice || self == .version || self == .force || self == .checkInvariants }
    var isRepeatable: Bool { self == .set }
}

/// The options `run` and `sweep` share (``RunOption/shared``), as read.
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
        case .perDevice, .traceDevices, .baselinePolicy, .replications, .version: return false
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
    }
}
