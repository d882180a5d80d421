import BGBench

/// `bgbench list`: the registered policies and platforms and the built-in scenarios.
struct ListCommand: CommandDefinition {
    static let name = "list"
    static let synopsis = """
        bgbench list                 policies, platforms and scenarios
        """
    static let defaults: Void = ()

    static func positional(_ word: String, _ values: inout Void) throws {
        throw CLIError.usage("unexpected argument '\(word)': 'list' takes no arguments")
    }

    static func run<Out: TextOutputStream>(_ values: Void, _ invocation: Invocation, output: inout Out) throws {
        output.write("policies:\n")
        for p in PolicyRegistry.all {
            output.write("  \(p.name.padding(toLength: 14, withPad: " ", startingAt: 0))\(p.summary)\n")
        }
        output.write("platforms:\n")
        for p in PlatformRegistry.all {
            output.write("  \(p.name.padding(toLength: 21, withPad: " ", startingAt: 0))\(p.summary)\n")
        }
        output.write("scenarios:\n")
        for (name, description) in EmbeddedFiles.presetDescriptions() {
            output.write("  \(name.padding(toLength: 14, withPad: " ", startingAt: 0))\(description)\n")
        }
    }
}
