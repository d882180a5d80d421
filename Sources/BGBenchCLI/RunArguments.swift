import BGBench

/// The options `run` and `sweep` share: what to simulate, how big, where to write.
struct RunArguments {
    static let known = ["policy", "days", "devices", "seed", "threads", "scenario", "set", "warmup-days", "out", "quiet"]
    static let flags: Set<String> = ["quiet"]

    var policies = ["adaptive"]
    var options = RunOptions()
    var scenarioFile: String?
    var overrides: [String] = []
    var out = "Reports/latest"
    var warmup = 0
    var quiet = false

    /// Takes one of the shared options; false when `name` is not one of them.
    mutating func take(_ name: String, _ value: String?) throws -> Bool {
        switch name {
        case "policy":
            policies = try Command.parsePolicies(required(value, for: name, expected: "a policy name"))
        case "days":
            options.days = try integer(required(value, for: name, expected: "a positive integer"),
                                       for: name, in: 1...36500, expected: "an integer from 1 to 36500")
        case "devices":
            options.devices = try integer(required(value, for: name, expected: "a positive integer"),
                                          for: name, in: 1...100_000_000, expected: "an integer from 1 to 100000000")
        case "seed":
            options.seed = try integer(required(value, for: name, expected: "a non-negative integer"),
                                       for: name, in: 0...UInt64.max, expected: "an integer from 0 to 18446744073709551615")
        case "threads":
            options.threads = try integer(required(value, for: name, expected: "a non-negative integer"),
                                          for: name, in: 0...1024, expected: "an integer from 0 to 1024")
        case "warmup-days":
            warmup = try integer(required(value, for: name, expected: "a non-negative integer"),
                                 for: name, in: 0...36499, expected: "an integer from 0 to 36499")
        case "scenario": scenarioFile = try required(value, for: name, expected: "a scenario file")
        case "set": overrides.append(try required(value, for: name, expected: "PATH=VALUE"))
        case "out": out = try required(value, for: name, expected: "a folder")
        case "quiet": quiet = true
        default: return false
        }
        return true
    }

    /// Checks what only the whole command line can tell.
    mutating func finish() throws {
        guard warmup < options.days else {
            throw CLIError.usage("invalid value '\(warmup)' for '--warmup-days': expected an integer from 0 to \(options.days - 1) (fewer than --days)")
        }
        options.warmupDays = warmup
    }
}
