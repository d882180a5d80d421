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
        } else if argument.count == 2 && argument.hasPrefix("-") && argument != "--"
            && !argument.dropFirst().allSatisfy(\.isNumber)
        {
            tokens.append(.option(name: String(argument.dropFirst()), value: nil))
        } else {
            tokens.append(.value(argument))
        }
    }
    return tokens
}

/// A command-line failure: its message (one line, without the `error: ` prefix) and exit
/// code (`ExitCode`: 64 usage, 65 bad data, 66 no input, 73 cannot create output, ...).
/// Messages name the thing that is wrong and say what was expected.
struct CLIError: Error, Equatable {
    var message: String
    var code: ExitCode
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
        let usage = problems.allSatisfy { $0.location.isOverride }
        let unreadable = problems.allSatisfy { $0.location == .none }
        self.init(
            message: lines.joined(separator: "\nerror: "), code: usage ? .usage : unreadable ? .noInput : .data)
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
