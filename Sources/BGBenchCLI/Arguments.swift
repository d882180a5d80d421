import BGBench

/// One token of the command line, remembering where it stood (argparse's SplitArguments).
enum Token: Equatable {
    /// `--name` or `--name=value` (value nil for the first form); `-h` is `h`.
    case option(name: String, value: String?)
    case value(String)
}

/// Splits argv into tokens. `--` makes everything after it a value.
func tokenize(_ arguments: [String]) -> [Token] {
    var tokens: [Token] = []
    var literal = false
    for argument in arguments {
        if literal { tokens.append(.value(argument)); continue }
        if argument == "--" { literal = true; continue }
        if argument.hasPrefix("--") {
            let body = argument.dropFirst(2)
            if let eq = body.firstIndex(of: "=") {
                tokens.append(.option(name: String(body[..<eq]), value: String(body[body.index(after: eq)...])))
            } else {
                tokens.append(.option(name: String(body), value: nil))
            }
        } else if argument.count == 2 && argument.hasPrefix("-") && argument != "--" && !argument.dropFirst().allSatisfy(\.isNumber) {
            tokens.append(.option(name: String(argument.dropFirst()), value: nil))
        } else {
            tokens.append(.value(argument))
        }
    }
    return tokens
}

/// A command-line failure: its message (one line, without the `error: ` prefix) and exit
/// code, from sysexits.h: 64 usage, 65 bad data, 66 no input, 73 cannot create output.
/// Messages name the thing that is wrong and say what was expected.
struct CLIError: Error, Equatable {
    var message: String
    var code: Int32
    /// Whether to add the `see 'bgbench --help'` hint line.
    var hint = true

    static func usage(_ message: String) -> CLIError { CLIError(message: message, code: 64) }
    static func data(_ message: String) -> CLIError { CLIError(message: message, code: 65) }
    static func cannotCreate(_ message: String) -> CLIError { CLIError(message: message, code: 73, hint: false) }
    /// A bare word where `command` takes only options.
    static func unexpected(_ word: String, command: String) -> CLIError {
        usage("unexpected argument '\(word)': '\(command)' takes only options")
    }
}

extension CLIError {
    /// Problems of an input file, one `error:` line each: 66 when the file cannot be read
    /// (the only problem without a place), 64 when every problem is a `--set` override,
    /// else 65 (bad data).
    init(problems: [ScenarioError.Problem]) {
        let lines = problems.map { String($0.description.dropFirst("error: ".count)) }
        let usage = problems.allSatisfy { $0.location == .override }
        let unreadable = problems.allSatisfy { $0.location == .none }
        self.init(message: lines.joined(separator: "\nerror: "), code: usage ? 64 : unreadable ? 66 : 65)
    }
}

/// Runs an input file's loader; its problems (a scenario's or a trace's) become one
/// CLIError with a line each.
func readingInput<T>(_ load: () throws -> T) throws -> T {
    do {
        return try load()
    } catch let error as ScenarioError {
        throw CLIError(problems: error.problems)
    } catch let error as TraceError {
        throw CLIError(problems: error.problems)
    }
}

/// The options of one command, by the name typed after `--` (`-` for one letter).
/// Commands switch over their own enum, so every option has its own branch.
protocol CommandOption: CaseIterable, RawRepresentable where RawValue == String {
    /// Takes no value.
    var isFlag: Bool { get }
    /// May be given more than once (each value is taken in turn).
    var isRepeatable: Bool { get }
}

extension CommandOption {
    var isRepeatable: Bool { false }
}

/// `--help` or `-h` among a command's options: `CommandLineTool` prints the command's
/// usage (exit 0) once every other option has been read without error.
struct HelpRequested: Error {}

/// The options a command accepts, bound from tokens in order. Each option may appear once
/// (repeatable ones collect every value); values are parsed and checked at once, so the
/// first bad token is the one reported. Every command accepts `--help` and `-h`.
struct OptionParser {
    private var tokens: [Token]
    private var index = 0
    private var seen: Set<String> = []
    /// The command the options belong to, named in messages.
    private let command: String

    init(_ tokens: [Token], command: String) {
        self.tokens = tokens
        self.command = command
    }

    /// An option as the user types it: `-h`, `--days`.
    static func shown(_ name: String) -> String { name.count == 1 ? "-\(name)" : "--\(name)" }

    static let helpNames: Set<String> = ["help", "h"]

    /// Visits every token: `option(o, value)` for the options in `accepted` (value: the
    /// attached one or the next bare token; nil for flags or when none follows),
    /// `positional` for values. Throws ``HelpRequested`` at the end when `--help` or `-h`
    /// was among them.
    mutating func parse<Option: CommandOption>(_ accepted: [Option] = Array(Option.allCases),
                                               option: (Option, String?) throws -> Void,
                                               positional: (String) throws -> Void) throws {
        try parse(accepted, [NoOption](), option: option, own: { _, _ in }, positional: positional)
    }

    /// The same for a command that takes options of two kinds: options shared with other
    /// commands (`shared`, e.g. ``RunOption``'s) and its own (`own`), each kind to its own
    /// closure, in one pass, so each is declared once.
    mutating func parse<Shared: CommandOption, Own: CommandOption>(
        _ shared: [Shared], _ own: [Own], option: (Shared, String?) throws -> Void,
        own ownOption: (Own, String?) throws -> Void, positional: (String) throws -> Void) throws {
        var sharedByName: [String: Shared] = [:], ownByName: [String: Own] = [:]
        for o in shared { sharedByName[o.rawValue] = o }
        for o in own { ownByName[o.rawValue] = o }
        var help = false
        try parse(known: shared.map(\.rawValue) + own.map(\.rawValue) + ["help"],
                  isFlag: { sharedByName[$0]?.isFlag ?? ownByName[$0]?.isFlag ?? true },
                  isRepeatable: { sharedByName[$0]?.isRepeatable ?? ownByName[$0]?.isRepeatable ?? false },
                  option: { name, value in
                      if let o = sharedByName[name] { try option(o, value) }
                      else if let o = ownByName[name] { try ownOption(o, value) }
                      else { help = true }
                  }, positional: positional)
        if help { throw HelpRequested() }
    }

    /// For a command without options: every bare word goes to `positional`.
    mutating func parse(positional: (String) throws -> Void) throws {
        try parse([NoOption](), option: { _, _ in }, positional: positional)
    }

    private mutating func parse(known: [String], isFlag: (String) -> Bool, isRepeatable: (String) -> Bool,
                                option: (String, String?) throws -> Void,
                                positional: (String) throws -> Void) throws {
        while index < tokens.count {
            let token = tokens[index]
            index += 1
            switch token {
            case .value(let text):
                try positional(text)
            case .option(let name, let attached):
                guard known.contains(name) || Self.helpNames.contains(name) else {
                    var message = "unknown option '\(Self.shown(name))' for '\(command)'"
                    if let close = closest(to: name, in: known.filter { $0.count > 1 }) {
                        message += " (did you mean '--\(close)'?)"
                    }
                    throw CLIError.usage(message)
                }
                if !isRepeatable(name) {
                    guard seen.insert(name).inserted else { throw CLIError.usage("'\(Self.shown(name))' given twice") }
                }
                if isFlag(name) {
                    if attached != nil { throw CLIError.usage("'\(Self.shown(name))' takes no value") }
                    try option(name, nil)
                    continue
                }
                var value = attached
                if value == nil, index < tokens.count, case .value(let next) = tokens[index] {
                    value = next
                    index += 1
                }
                try option(name, value)
            }
        }
    }
}

/// The options of a command that takes none (but `--help`).
enum NoOption: CommandOption {
    typealias RawValue = String
    init?(rawValue: String) { nil }
    var rawValue: String { switch self {} }
    var isFlag: Bool { switch self {} }
    static var allCases: [NoOption] { [] }
}

/// The value of an option that needs one, or a usage error saying what was expected.
func required(_ value: String?, for option: String, expected: String) throws -> String {
    guard let value else { throw CLIError.usage("missing value for '--\(option)': expected \(expected)") }
    return value
}

/// The known word nearest to `word` within edit distance 2, for "did you mean".
func closest(to word: String, in candidates: [String]) -> String? {
    Suggestion.closest(to: word, in: candidates)
}

/// Parses an integer option value within a range, or says what was expected.
func integer<T: FixedWidthInteger>(_ text: String, for option: String, in range: ClosedRange<T>,
                                   expected: String) throws -> T {
    guard let value = T(text), range.contains(value) else {
        throw CLIError.usage("invalid value '\(text)' for '--\(option)': expected \(expected)")
    }
    return value
}
