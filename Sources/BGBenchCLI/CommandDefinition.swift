import BGBench

/// A command, declared in its own file: its name, its usage lines, its options (each
/// declared once, ``Option``) and its body. `Command.all` registers it with one line;
/// parsing, `--help`, `bgbench --help` and docs/cli.md are derived from the declaration.
protocol CommandDefinition {
    /// What the options are taken into; ``defaults`` holds every option's default.
    associatedtype Values
    /// As typed after `bgbench`.
    static var name: String { get }
    /// Its lines of the usage block: the first starts with `bgbench`, and continuation
    /// lines stand as they will under "usage: ".
    static var synopsis: String { get }
    /// Where its options are documented, after the heading "NAME options" (nil: nowhere else).
    static var reference: String? { get }
    /// The text after its options: rules and exit codes that belong to it (nil: none).
    static var discussion: String? { get }
    static var defaults: Values { get }
    /// Its own options, in the order help lists them.
    static var options: [Option<Values>] { get }
    /// The run options it takes too (sweep, frontier): run's declarations, lifted.
    static var runOptions: [Option<Values>] { get }
    /// Whether SIGINT and SIGTERM end it cleanly (Interruption): the commands that write.
    /// The others keep the default action (plot's python3 must get the signals itself).
    static var endsCleanlyOnSignals: Bool { get }
    /// Takes a bare word of its command line (default: refused).
    static func positional(_ word: String, _ values: inout Values) throws
    static func run<Out: TextOutputStream>(_ values: Values, _ invocation: Invocation, output: inout Out) throws
}

extension CommandDefinition {
    static var reference: String? { nil }
    static var discussion: String? { nil }
    static var options: [Option<Values>] { [] }
    static var runOptions: [Option<Values>] { [] }
    static var endsCleanlyOnSignals: Bool { false }
    static func positional(_ word: String, _ values: inout Values) throws {
        throw CLIError.unexpected(word, command: name)
    }

    /// Parses the command's tokens (after its name) and runs it.
    static func execute<Out: TextOutputStream>(_ tokens: [Token], _ invocation: Invocation, output: inout Out) throws {
        var values = defaults
        try OptionParser.parse(
            tokens, command: name, options: options + runOptions, into: &values,
            environment: invocation.environment, positional: positional)
        try run(values, invocation, output: &output)
    }
}

/// What a command gets besides its options.
struct Invocation {
    /// Every argument after `bgbench` as typed (run.json's `command_line`).
    var arguments: [String]
    var environment: [String: String]
}

/// bgbench's commands.
enum Command {
    /// Every command, in the order `bgbench --help` lists them: one line each.
    static let all: [any CommandDefinition.Type] = [
        RunCommand.self,
        SweepCommand.self,
        FrontierCommand.self,
        SuiteCommand.self,
        MergeCommand.self,
        PlotCommand.self,
        ListCommand.self,
        ScenarioCommand.self,
        ValidateCommand.self,
        ConvertLSAppCommand.self,
        HabitsCommand.self,
        BenchCommand.self,
        CheckCommand.self,
        ConformanceCommand.self,
        HelpCommand.self,
    ]

    static let names = all.map { $0.name }

    static func named(_ name: String) -> (any CommandDefinition.Type)? { all.first { $0.name == name } }
}
