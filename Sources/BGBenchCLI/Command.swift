import BGBench
import Foundation

/// bgbench's commands.
enum Command {
    /// The commands, as typed.
    enum Name: String, CaseIterable {
        case run, sweep, frontier, merge, plot, list, scenario, validate
        case convertLSApp = "convert-lsapp"
        case bench, check, help
    }

    static let names = Name.allCases.map(\.rawValue)

    // MARK: run

    static func run<Out: TextOutputStream, Err: TextOutputStream>(
        _ tokens: [Token], arguments: [String], output: inout Out, errors: inout Err
    ) throws {
        var common = RunArguments()
        var showVersion = false
        var parser = OptionParser(tokens, command: "run")
        try parser.parse(
            option: { (option: RunOption, value) in
                if try !common.take(option, value) { showVersion = true }  // `--version`, the one option of `run` only
            },
            positional: { throw CLIError.unexpected($0, command: "run") })
        if showVersion { output.write("bgbench \(BuildInfo.version) (commit \(BuildInfo.gitCommit), GSL \(BuildInfo.gslVersion))\n"); return }
        try common.finish()
        let loaded = try loadScenario(common.scenarioFile, overrides: common.overrides)
        let request = try common.request(loaded, commandLine: ["bgbench"] + arguments)
        try common.pipeline(.run, work: common.workPerScenario).run(output: &output) { progress in
            let report = try Runner.run(request, progress: progress)
            return .init(files: ReportWriter.files(report), text: SummaryTable.render(report),
                         seconds: report.wallSeconds, deviceDays: report.simulatedDeviceDays)
        }
    }

    static func parsePolicies(_ text: String) throws -> [String] {
        let known = PolicyRegistry.all.map { $0.name }
        if text == "all" { return known }
        let names = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        if names.contains("all") {
            throw CLIError.usage("invalid value '\(text)' for '--policy': expected 'all' alone or a list of policy names")
        }
        var seen: Set<String> = []
        for name in names {
            guard known.contains(name) else {
                var message = "unknown policy '\(name)' for '--policy': expected one of \((known + ["all"]).joined(separator: ", "))"
                if let close = closest(to: name, in: known) { message += " (did you mean '\(close)'?)" }
                throw CLIError.usage(message)
            }
            guard seen.insert(name).inserted else { throw CLIError.usage("policy '\(name)' given twice in '--policy'") }
        }
        return names
    }

    static func loadScenario(_ file: String?, overrides: [String]) throws -> LoadedScenario {
        // Every problem on its own line; a bad --set is a usage error (64), a file that
        // cannot be read is no input (66), bad data is 65.
        try readingInput {
            if let file { return try EmbeddedFiles.loadScenario(file, overrides: overrides) }
            if overrides.isEmpty { return ScenarioLoader.builtInDefault() }
            // The built-in defaults with overrides: hashed like the defaults alone.
            return try ScenarioLoader.load(json: ScenarioLoader.builtInDefaultText(),
                                           file: "(built-in default)", overrides: overrides)
        }
    }

    // MARK: scenario

    /// Prints the resolved scenario of a run of `--policy` (default: the run's default,
    /// `adaptive`; `all`: every registered policy) as JSON: the parameters of the
    /// components such a run uses, as scenario.json holds them. `--complete` prints every
    /// registered component's parameters (Datasets/scenarios/default.json is this with no
    /// other option); `--markdown` prints the generated parameter tables of docs/scenario.md.
    static func scenario<Out: TextOutputStream>(_ tokens: [Token], output: inout Out) throws {
        var file: String?
        var overrides: [String] = []
        var policies = RunArguments().policies
        var complete = false, markdown = false
        var parser = OptionParser(tokens, command: "scenario")
        try parser.parse(
            option: { (option: ScenarioOption, value) in
                switch option {
                case .scenario: file = try required(value, for: option.rawValue, expected: "a scenario file")
                case .set: overrides.append(try required(value, for: option.rawValue, expected: "PATH=VALUE"))
                case .policy: policies = try parsePolicies(required(value, for: option.rawValue, expected: "a policy name"))
                case .complete: complete = true
                case .markdown: markdown = true
                }
            },
            positional: { throw CLIError.unexpected($0, command: "scenario") })
        if markdown { return output.write(ParameterDocs.markdown()) }
        let loaded = try loadScenario(file, overrides: overrides)
        output.write(complete ? loaded.resolvedJSON : loaded.resolvedJSON(policies: policies))
    }

    /// The options of `scenario`.
    enum ScenarioOption: String, CommandOption {
        case scenario, set, policy, complete, markdown
        var isFlag: Bool { self == .complete || self == .markdown }
        var isRepeatable: Bool { self == .set }
    }

    // MARK: help

    /// `bgbench help [COMMAND]`: the full help, or one command's usage.
    static func helpCommand<Out: TextOutputStream>(_ tokens: [Token], output: inout Out) throws {
        var command: String?
        var parser = OptionParser(tokens, command: "help")
        try parser.parse(positional: { word in
            guard command == nil else { throw CLIError.usage("unexpected argument '\(word)': 'help' takes one command name") }
            guard names.contains(word) else {
                var message = "unknown command '\(word)' for 'help': expected one of \(names.joined(separator: ", "))"
                if let close = closest(to: word, in: names) { message += " (did you mean '\(close)'?)" }
                throw CLIError.usage(message)
            }
            command = word
        })
        output.write(command.map(usage(of:)) ?? help)
    }

    // MARK: list

    static func list<Out: TextOutputStream>(_ tokens: [Token], output: inout Out) throws {
        var parser = OptionParser(tokens, command: "list")
        try parser.parse(positional: { throw CLIError.usage("unexpected argument '\($0)': 'list' takes no arguments") })
        output.write("policies:\n")
        for p in PolicyRegistry.all { output.write("  \(p.name.padding(toLength: 14, withPad: " ", startingAt: 0))\(p.summary)\n") }
        output.write("platforms:\n")
        for p in PlatformRegistry.all { output.write("  \(p.name.padding(toLength: 21, withPad: " ", startingAt: 0))\(p.summary)\n") }
        output.write("scenarios:\n")
        for (name, description) in EmbeddedFiles.presetDescriptions() {
            output.write("  \(name.padding(toLength: 14, withPad: " ", startingAt: 0))\(description)\n")
        }
    }
}
