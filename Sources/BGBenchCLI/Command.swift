import BGBench
import Foundation

/// bgbench's commands.
enum Command {
    static let names = ["run", "sweep", "plot", "list", "scenario", "validate", "convert-lsapp", "bench", "check", "help"]

    static let help = """
    bgbench: simulate background app refresh on a fleet of virtual phones and score
    freshness at each open against energy, timeout kills and throttling.

    usage: bgbench [run] [options]      simulate, print a summary, write reports
           bgbench sweep --set PATH=V1,V2,... [--set ...] [run options]
                                        the cartesian grid of the values, every point
                                        on the same seed, into one summary.csv with a
                                        column per parameter and a Pareto column
           bgbench plot DIR             draw a report folder as PNG files (python3,
                                        matplotlib, pandas)
           bgbench list                 policies, platforms and scenarios
           bgbench scenario [--scenario FILE] [--set PATH=VALUE ...] [--policy NAME[,NAME...]]
                            [--complete | --markdown]
                                        print the resolved scenario of a run of --policy
                                        (default: adaptive): the parameters it uses
           bgbench validate FILE        check a scenario JSON or an opens trace CSV and
                                        report every problem at once
           bgbench convert-lsapp IN.tsv [--app NAME] --out OUT.csv
                                        turn an LSApp-style TSV log into an opens trace:
                                        one app's opens, or every app's
           bgbench bench [--quick] [--memory] [--repeats N] [--threads T] [--csv FILE]
                         [--baseline FILE]
                                        the speed benchmark (device-days/s, events/s, memory);
                                        exit 1 below 85 % of a --baseline CSV's device-days/s
           bgbench check --baseline FILE_OR_DIR --current DIR [--tolerance METRIC=PCT ...]
                         [--junit FILE] [--exact] [--update]
                                        compare a run's reports with a baseline's (CI): exit 1
                                        on a significant regression, or any difference with
                                        --exact; --update makes the current run the baseline
           bgbench --help | --version

    run options:
      --policy NAME[,NAME...]  policies to compare, or 'all' (default: adaptive)
      --days D                 days to simulate, 1...36500 (default: 30)
      --devices N              devices in the fleet, 1...100000000 (default: 1000)
      --seed S                 run seed, 0...2^64-1 (default: 1)
      --threads T              worker threads, 0 = all cores (default: 0)
      --scenario FILE          scenario JSON (default: the built-in default scenario,
                               the same as Datasets/scenarios/default.json)
      --set PATH=VALUE         override one scenario field by its JSON path, e.g.
                               --set policies.fixed.interval=30m (repeatable)
      --opens-trace FILE       replay the opens of a trace CSV instead of drawing
                               them (Datasets/README.md, "Traces"): one device per
                               trace device, --days defaults to the trace's span
      --warmup-days W          leave the first W days out of every metric (default: 0)
      --out DIR                report folder (default: Reports/latest)
      --per-device             also write devices.csv: every device's totals
      --trace-devices K        also write events.csv: every event of the first K
                               devices with its reason code (1...1000)
      --baseline-policy NAME   also write paired.csv: each other policy minus NAME,
                               device by device, with 95 % intervals
      --replications R         run R independent seeds (S, S+1, ...) and write
                               replications.csv: each metric across the seeds
      --quiet                  no progress line (it is drawn only on a terminal)

    check options (README.md, "In CI"):
      --baseline FILE_OR_DIR   the baseline: a report folder (or a file in one), or a
                               folder of report folders, matched with --current's by name
      --current DIR            the report folder (or folder of them) to check
      --tolerance METRIC=PCT   a change of METRIC (a summary.csv column) within PCT % of
                               the baseline is no change (default: 1; repeatable)
      --junit FILE             also write JUnit XML, a test case per metric
      --exact                  any difference in any number fails (needs the same seed)
      --update                 copy the current run's report files over the baseline

    validate: FILE is a scenario if it ends in .json, a trace if it ends in .csv, else
    a scenario if its first character other than a space is '{'; exit 0 and one 'ok:'
    line when it is valid, 65 and an 'error:' line per problem when not.

    convert-lsapp options:
      --app NAME               only this app's opens (default: every app's open counts)
      --out FILE               the trace CSV to write (required)

    exit codes: 0 done, 64 usage error, 65 bad scenario, trace or LSApp data, 66 cannot
    read an input file or report folder, 69 plot's Python packages missing, 73 cannot
    write reports.
    check and bench --baseline: 1 a regression, a difference (--exact) or a slowdown; 65 a
    baseline that does not match or parse; 66 a missing report folder or file.

    """

    // MARK: run

    static func run<Out: TextOutputStream, Err: TextOutputStream>(
        _ tokens: [Token], arguments: [String], output: inout Out, errors: inout Err
    ) throws {
        var common = RunArguments()
        var showHelp = false, showVersion = false
        var replications = 1
        var baseline: String?
        var parser = OptionParser(tokens)
        try parser.parse(
            known: RunArguments.known + ["per-device", "trace-devices", "baseline-policy", "replications", "help", "h", "version"],
            flags: RunArguments.flags.union(["help", "h", "version", "per-device"]), repeatable: ["set"],
            option: { name, value in
                if try common.take(name, value) { return }
                switch name {
                case "replications":
                    replications = try integer(required(value, for: name, expected: "a positive integer"),
                                               for: name, in: 1...1000, expected: "an integer from 1 to 1000")
                case "per-device": common.options.keepDevices = true
                case "trace-devices":
                    common.options.traceDevices = try integer(required(value, for: name, expected: "a positive integer"),
                                                              for: name, in: 1...1000, expected: "an integer from 1 to 1000")
                case "baseline-policy":
                    baseline = try required(value, for: name, expected: "a policy name")
                case "help", "h": showHelp = true
                default: showVersion = true
                }
            },
            positional: { throw CLIError.unexpected($0, command: "run") })
        if showHelp { output.write(help); return }
        if showVersion { output.write("bgbench \(BuildInfo.version) (commit \(BuildInfo.gitCommit), GSL \(BuildInfo.gslVersion))\n"); return }
        try common.finish()
        var options = common.options
        let policies = common.policies, out = common.out, quiet = common.quiet
        let scenarioFile = common.scenarioFile, overrides = common.overrides

        let loaded = try loadScenario(scenarioFile, overrides: overrides)
        // The shared feed is held in memory: 16 bytes an item.
        let feedItems = loaded.scenario.content.itemsPerDay * Double(options.days)
        guard feedItems <= 50_000_000 else {
            throw CLIError.usage("the feed would hold about \(Int(feedItems)) items (content.items_per_day × --days): expected at most 50000000")
        }
        if let baseline {
            guard policies.contains(baseline) else {
                throw CLIError.usage("invalid value '\(baseline)' for '--baseline-policy': expected one of the policies run (\(policies.joined(separator: ", ")))")
            }
            guard policies.count > 1 else {
                throw CLIError.usage("'--baseline-policy' needs at least one other policy in '--policy'")
            }
            options.keepDevices = true
        }
        let request = RunRequest(scenario: loaded, policies: policies, options: options,
                                 commandLine: ["bgbench"] + arguments, baselinePolicy: baseline,
                                 replications: replications)
        let progress = ProgressLine.make(total: options.deviceDays * policies.count * replications, quiet: quiet)
        var advance: (@Sendable (Int) -> Void)?
        if let progress { advance = { progress.advance($0) } }
        let report = try Runner.run(request, progress: advance)
        progress?.finish()
        output.write(SummaryTable.render(report))
        do {
            try ReportWriter.write(report, to: out)
        } catch let error as ReportError {
            throw CLIError.cannotCreate(error.description)
        }
        output.write("reports: \(out)/ (summary.csv, daily.csv, hourly.csv, server.csv\(options.keepDevices ? ", devices.csv" : "")\(options.traceDevices > 0 ? ", events.csv" : "")\(baseline != nil ? ", paired.csv" : "")\(replications > 1 ? ", replications.csv" : ""), scenario.json, run.json)\n")
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
            if let file { return try ScenarioLoader.load(file: file, overrides: overrides) }
            if overrides.isEmpty { return ScenarioLoader.builtInDefault() }
            // The built-in defaults with overrides: hashed like the defaults alone.
            return try ScenarioLoader.load(json: ScenarioLoader.builtInDefault().resolvedJSON,
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
            known: ["scenario", "set", "policy", "complete", "markdown"], flags: ["complete", "markdown"], repeatable: ["set"],
            option: { name, value in
                switch name {
                case "scenario": file = try required(value, for: name, expected: "a scenario file")
                case "policy": policies = try parsePolicies(required(value, for: name, expected: "a policy name"))
                case "complete": complete = true
                case "markdown": markdown = true
                default: overrides.append(try required(value, for: name, expected: "PATH=VALUE"))
                }
            },
            positional: { throw CLIError.unexpected($0, command: "scenario") })
        if markdown { return output.write(ParameterDocs.markdown()) }
        let loaded = try loadScenario(file, overrides: overrides)
        output.write(complete ? loaded.resolvedJSON : loaded.resolvedJSON(policies: policies))
    }

    // MARK: list

    static func list<Out: TextOutputStream>(_ tokens: [Token], output: inout Out) throws {
        if let token = tokens.first {
            switch token {
            case .value(let v): throw CLIError.usage("unexpected argument '\(v)': 'list' takes no arguments")
            case .option(let name, _):
                throw CLIError.usage("unknown option '\(OptionParser.shown(name))' for 'list'")
            }
        }
        output.write("policies:\n")
        for p in PolicyRegistry.all { output.write("  \(p.name.padding(toLength: 14, withPad: " ", startingAt: 0))\(p.summary)\n") }
        output.write("platforms:\n")
        for p in PlatformRegistry.all { output.write("  \(p.name.padding(toLength: 21, withPad: " ", startingAt: 0))\(p.summary)\n") }
        output.write("scenarios:\n")
        for (path, description) in Datasets.scenarios() {
            output.write("  \(path)\n      \(description)\n")
        }
    }
}

/// Finds the project's files (Datasets, Reports/plot.py): under the working directory,
/// or above the executable (which is built into <checkout>/.build/...).
enum Datasets {
    static func checkoutFile(_ relative: String) -> String? {
        var candidates = [URL(fileURLWithPath: FileManager.default.currentDirectoryPath)]
        var dir = URL(fileURLWithPath: CommandLine.arguments.first ?? ".").resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<5 { candidates.append(dir); dir = dir.deletingLastPathComponent() }
        return candidates.map { $0.appendingPathComponent(relative).path }.first { FileManager.default.fileExists(atPath: $0) }
    }

    static func folder() -> URL? { checkoutFile("Datasets/scenarios").map { URL(fileURLWithPath: $0) } }

    /// The scenario files with their descriptions, sorted by name.
    static func scenarios() -> [(String, String)] {
        guard let folder = folder(),
              let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return [] }
        return names.filter { $0.hasSuffix(".json") }.sorted().map { name in
            let path = folder.appendingPathComponent(name).path
            let description = (try? ScenarioLoader.load(file: path))?.scenario.description ?? "(does not load: run it to see why)"
            return (path, description)
        }
    }

    static func scenario(named name: String) -> String? {
        guard let folder = folder() else { return nil }
        let path = folder.appendingPathComponent(name).path
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }
}
