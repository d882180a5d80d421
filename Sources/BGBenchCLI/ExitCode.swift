/// Every exit code bgbench ends with, declared once (sysexits.h's where one fits). README's
/// table "exit code | meaning" lists exactly these, and ExitCodeTests compares the two and
/// runs a command line for each code it can bring about.
public enum ExitCode: Int32, CaseIterable, Sendable {
    /// Done (`check --ab`: the comparison was made).
    case done = 0
    /// `check`: a regression (or any difference with `--exact`); `bench --baseline`: too slow.
    case failed = 1
    /// EX_USAGE: a bad option or value, a bad `--set` (its flag named).
    case usage = 64
    /// EX_DATAERR: a scenario, a trace, a report folder that cannot be trusted.
    case data = 65
    /// EX_NOINPUT: an input file or folder that cannot be read, or is missing.
    case noInput = 66
    /// EX_UNAVAILABLE: `plot`'s python3 with matplotlib and pandas is missing.
    case unavailable = 69
    /// EX_SOFTWARE: a bug, or an unexpected error (a workload's process that crashed).
    case software = 70
    /// EX_OSERR: `bench` could not make a pipe or start a workload's process.
    case osError = 71
    /// EX_CANTCREAT: the reports cannot be written, or would replace what bgbench did not write.
    case cannotCreate = 73
    /// EX_TEMPFAIL: another bgbench is writing the same report folder.
    case busy = 75
    /// EX_PROTOCOL: an `external` policy's process could not start, or broke the protocol
    /// (docs/protocol.md): it exited, wrote a malformed, out-of-order or impossible
    /// answer, or did not answer in time.
    case protocolError = 76
    /// 128 + SIGINT: interrupted; every output as it was.
    case interrupted = 130
    /// 128 + SIGTERM: terminated; every output as it was.
    case terminated = 143
}

/// `code: 65` where a `CLIError` is made reads as `.data`: a number that is no case traps, and
/// ExitCodeTests checks that every such number in the sources is a case.
extension ExitCode: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int32) {
        guard let code = ExitCode(rawValue: value) else { preconditionFailure("exit code \(value) is not declared") }
        self = code
    }
}
