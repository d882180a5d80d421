import BGBench
import Foundation

/// The command line front-end: turns arguments into a command, runs it, and maps the
/// outcome to an exit code. Output goes to the given streams so tests read it exactly.
public enum CommandLineTool {
    /// Runs bgbench with real standard output and error; returns the exit code.
    public static func main(arguments: [String]) -> Int32 {
        // The commands that write folders or files end cleanly on SIGINT and SIGTERM
        // (Interruption); the others (plot runs python3, which must get the signals
        // itself) keep the default action.
        var command = Command.Name.run
        if case .value(let word)? = tokenize(arguments).first { command = Command.Name(rawValue: word) ?? .help }
        if [.run, .sweep, .frontier, .merge, .check, .bench].contains(command) { Interruption.install() }
        var out = StandardStream.output, err = StandardStream.error
        return run(arguments: arguments, output: &out, errors: &err)
    }

    public static func run<Out: TextOutputStream, Err: TextOutputStream>(
        arguments: [String], output: inout Out, errors: inout Err
    ) -> Int32 {
        // The command, and whether it was named (`bgbench --help` is the full help,
        // `bgbench run --help` the usage of run).
        var command = Command.Name.run, named = false
        do {
            var tokens = tokenize(arguments)
            if case .value(let word) = tokens.first {
                guard let name = Command.Name(rawValue: word) else {
                    var message = "unknown command '\(word)': expected one of \(Command.names.joined(separator: ", "))"
                    if let close = closest(to: word, in: Command.names) { message += " (did you mean '\(close)'?)" }
                    throw CLIError.usage(message)
                }
                command = name
                named = true
                tokens.removeFirst()
            }
            switch command {
            case .run: try Command.run(tokens, arguments: arguments, output: &output, errors: &errors)
            case .list: try Command.list(tokens, output: &output)
            case .bench: try Command.bench(tokens, output: &output)
            case .check: try Command.check(tokens, output: &output)
            case .scenario: try Command.scenario(tokens, output: &output)
            case .validate: try Command.validate(tokens, output: &output)
            case .convertLSApp: try Command.convertLSApp(tokens, output: &output)
            case .sweep: try Command.sweep(tokens, arguments: arguments, output: &output)
            case .frontier: try Command.frontier(tokens, arguments: arguments, output: &output)
            case .merge: try Command.merge(tokens, arguments: arguments, output: &output)
            case .plot: try Command.plot(tokens, output: &output)
            case .help: try Command.helpCommand(tokens, output: &output)
            }
            return 0
        } catch is HelpRequested {
            output.write(named ? Command.usage(of: command.rawValue) : Command.help)
            return 0
        } catch let error as CLIError {
            errors.write("error: \(escapingControls(error.message))\n")
            if error.hint { errors.write("see 'bgbench --help'\n") }
            return error.code
        } catch {
            errors.write("error: \(escapingControls("\(error)"))\n")
            return 70  // EX_SOFTWARE: a bug, reported rather than trapped
        }
    }
}

/// Standard output and error as text streams.
struct StandardStream: TextOutputStream {
    let handle: FileHandle
    static var output: StandardStream { StandardStream(handle: .standardOutput) }
    static var error: StandardStream { StandardStream(handle: .standardError) }
    mutating func write(_ string: String) { handle.write(Data(string.utf8)) }
}

/// `text` with every control character but the line breaks between messages written as
/// `\u{1B}`: names, values and file contents quoted in a message cannot move the cursor,
/// change colours or hide text on the user's terminal.
func escapingControls(_ text: String) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
        let v = scalar.value
        if v != 0x0A && (v < 0x20 || (0x7F...0x9F).contains(v)) {
            out += "\\u{" + String(v, radix: 16, uppercase: true) + "}"
        } else {
            out.unicodeScalars.append(scalar)
        }
    }
    return out
}
