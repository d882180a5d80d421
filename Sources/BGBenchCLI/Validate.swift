import BGBench
import Foundation

/// `bgbench validate FILE`: checks a scenario or an opens trace and reports every problem
/// at once (the loaders collect them), each with its file:line:column and JSON path or
/// column; one `ok:` line when the file is valid.
struct ValidateCommand: CommandDefinition {
    enum InputKind { case scenario, trace }

    static let name = "validate"
    static let synopsis = """
        bgbench validate FILE        check a scenario JSON or an opens trace CSV and
                                     report every problem at once
        """
    static let discussion: String? = """
        validate: FILE is a scenario if it ends in .json, a trace if it ends in .csv, else
        a scenario if its first character other than a space is '{'; exit 0 and one 'ok:'
        line when it is valid, 65 and an 'error:' line per problem when not.
        """
    static let defaults: String? = nil

    static func positional(_ word: String, _ file: inout String?) throws {
        guard file == nil else { throw CLIError.usage("unexpected argument '\(word)': 'validate' takes one file") }
        file = word
    }

    static func run<Out: TextOutputStream>(_ file: String?, _ invocation: Invocation, output: inout Out) throws {
        guard let file else { throw CLIError.usage("'validate' needs a file: a scenario JSON or a trace CSV") }
        // Read once: a FIFO or /dev/stdin cannot be read twice. The cap is that of the
        // kind the name or the first bytes show, as the command that uses the file reads it.
        let lower = file.lowercased()
        var kind: InputKind? = lower.hasSuffix(".json") ? .scenario : lower.hasSuffix(".csv") ? .trace : nil
        let data = try readingInput {
            try InputFile.read(
                file,
                limit: { head in
                    let sniffed = Self.kind(of: file, data: head)
                    kind = sniffed
                    return readLimit(sniffed)
                }, kind: kind.map { $0 == .scenario ? "scenario" : "trace" })
        }
        switch kind ?? Self.kind(of: file, data: data) {
        case .scenario:
            let s = try readingInput { try ScenarioLoader.load(data: Data(data), file: file) }.scenario
            let users =
                s.population.model == .routine
                ? "routine users"
                : "\(s.population.archetypes.count) archetype\(s.population.archetypes.count == 1 ? "" : "s")"
            output.write(
                "ok: \(escapingControls(file)): scenario '\(escapingControls(s.name))', platform \(s.platform.name), \(users)\n"
            )
        case .trace:
            let trace = try readingInput { try OpensTraceLoader.parse(bytes: data, file: file) }
            output.write(
                "ok: \(file): trace of \(trace.deviceCount) devices, \(trace.opens.count) opens over \(trace.days) days, "
                    + "timestamps in \(trace.form == .seconds ? "seconds" : "ISO 8601"), "
                    + "\(trace.sessionsGiven) of \(trace.opens.count) session lengths given\n")
        }
    }

    /// The most `validate` reads of a file of `kind`: the cap of the command that uses it
    /// (`--scenario`, `--opens-trace`), so a 1.5 GB .json is refused by its size at once,
    /// as `run --scenario` refuses it, not after 3 GB of reading (issue 25).
    static func readLimit(_ kind: InputKind) -> Int {
        kind == .scenario ? InputFile.Limit.scenario : InputFile.Limit.trace
    }

    /// A scenario if the name ends in .json, a trace if it ends in .csv, else a scenario
    /// if the first character other than white space is `{`, else a trace.
    static func kind(of file: String, data: [UInt8]) -> InputKind {
        let lower = file.lowercased()
        if lower.hasSuffix(".json") { return .scenario }
        if lower.hasSuffix(".csv") { return .trace }
        let first = data.prefix(4096).first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
        return first == UInt8(ascii: "{") ? .scenario : .trace
    }
}
