import BGBench
import Foundation

/// The command line front-end: turns arguments into a command, runs it, and maps the
/// outcome to an exit code. Output goes to the given streams so tests read it exactly.
public enum CommandLineTool {
    /// Runs bgbench with real standard output and error; returns the exit code.
    public static func main(arguments: [String]) -> Int32 {
        if command(of: tokenize(arguments))?.command.endsCleanlyOnSignals ?? true { Interruption.install() }
        var out = StandardStream.output, err = StandardStream.error
        return run(arguments: arguments, output: &out, errors: &err)
    }

    public static func run<Out: TextOutputStream, Err: TextOutputStream>(
        arguments: [String], output: inout Out, errors: inout Err,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Int32 {
        // `bgbench --help` is the full help, `bgbench run --help` the usage of run.
        var named: String?
        do {
            let tokens = tokenize(arguments)
            guard let (command, rest) = command(of: tokens) else {
                guard case .value(let word) = tokens.first else {
                    preconditionFailure("a first token that names no command")
                }
                var message = "unknown command '\(word)': expected one of \(Command.names.joined(separator: ", "))"
                if let close = closest(to: word, in: Command.names) { message += " (did you mean '\(close)'?)" }
                throw CLIError.usage(message)
            }
            if rest.count < tokens.count { named = command.name }
            try command.execute(rest, Invocation(arguments: arguments, environment: environment), output: &output)
            return ExitCode.done.rawValue
        } catch is HelpRequested {
            output.write(named.map(Command.usage(of:)) ?? Command.help)
            return ExitCode.done.rawValue
        } catch let error as TraceError {
            // A policy's input read as its run starts (`schedule`'s plan): as any input file.
            let error = CLIError(problems: error.problems)
            errors.write("error: \(escapingControls(error.message))\n")
            if error.hint { errors.write("see 'bgbench --help'\n") }
            return error.code.rawValue
        } catch let error as ExternalPolicyError {
            // A partner process of the external policy (docs/protocol.md), or none allowed.
            errors.write("error: \(escapingControls(error.description))\n")
            return error.isUsage ? ExitCode.usage.rawValue : ExitCode.protocolError.rawValue
        } catch let error as CLIError {
            errors.write("error: \(escapingControls(error.message))\n")
            if error.hint { errors.write("see 'bgbench --help'\n") }
            return error.code.rawValue
        } catch {
            errors.write("error: \(escapingControls("\(error)"))\n")
            return ExitCode.software.rawValue  // a bug, reported rather than trapped
        }
    }

    /// The command the tokens name and the tokens after its name: a first bare word names
    /// it, and without one the command is `run`. Nil when the first word is no command.
    static func command(of tokens: [Token]) -> (command: any CommandDefinition.Type, rest: [Token])? {
        guard case .value(let word) = tokens.first else { return (RunCommand.self, tokens) }
        return Command.named(word).map { ($0, Array(tokens.dropFirst())) }
    }
}

/// Standard output and error as text streams: every line bgbench writes to the terminal
/// goes through ``write(_:)``. Standard output that cannot be written (a full disk,
/// `>/dev/full`) ends the process with one line on standard error and exit 73, what is
/// not yet in place removed and a report folder already in place kept (README, "Exit
/// codes"); a standard error that cannot be written is let be (nowhere to say so).
struct StandardStream: TextOutputStream {
    let descriptor: Int32
    static var output: StandardStream { StandardStream(descriptor: 1) }
    static var error: StandardStream { StandardStream(descriptor: 2) }

    mutating func write(_ string: String) {
        var bytes = Array(string.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else {
                guard descriptor != 2 else { return }
                let reason = written < 0 ? String(cString: strerror(errno)) : "nothing was written"
                Interruption.end(
                    code: ExitCode.cannotCreate.rawValue, line: "error: cannot write standard output: \(reason)\n")
            }
            bytes = bytes.dropFirst(written)
        }
    }
}

/// `text` with every control character but the line breaks between messages, and every
/// invisible character (``Unicode/Scalar/isInvisible``: zero-width, direction marks and
/// overrides, U+FEFF, the soft hyphen), written as `\u{1B}`: names, values and file
/// contents quoted in a message cannot move the cursor, change colours, reorder or hide
/// text on the user's terminal.
func escapingControls(_ text: String) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
        let v = scalar.value
        if v != 0x0A && (v < 0x20 || (0x7F...0x9F).contains(v)) || scalar.isInvisible {
            out += "\\u{" + String(v, radix: 16, uppercase: true) + "}"
        } else {
            out.unicodeScalars.append(scalar)
        }
    }
    return out
}
