/// `bgbench help [COMMAND]`: the full help, or one command's usage.
struct HelpCommand: CommandDefinition {
    static let name = "help"
    static let synopsis = """
        bgbench help [COMMAND]       this help, or one command's usage
        """
    static let defaults: String? = nil

    static func positional(_ word: String, _ command: inout String?) throws {
        guard command == nil else {
            throw CLIError.usage("unexpected argument '\(word)': 'help' takes one command name")
        }
        guard Command.names.contains(word) else {
            var message =
                "unknown command '\(word)' for 'help': expected one of \(Command.names.joined(separator: ", "))"
            if let close = closest(to: word, in: Command.names) { message += " (did you mean '\(close)'?)" }
            throw CLIError.usage(message)
        }
        command = word
    }

    static func run<Out: TextOutputStream>(_ command: String?, _ invocation: Invocation, output: inout Out) throws {
        output.write(command.map(Command.usage(of:)) ?? Command.help)
    }
}
