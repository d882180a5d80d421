import BGBench
import Foundation

/// `bgbench [run]`: simulate every policy on one fleet, print a summary, write a report
/// folder (Reports/README.md). The command a bare `bgbench` runs.
struct RunCommand: CommandDefinition {
    struct Values {
        var run = RunArguments()
        var version = false
    }

    static let name = "run"
    static let synopsis = """
        bgbench [run] [options]      simulate, print a summary, write reports
        """
    static let defaults = Values()
    static var options: [Option<Values>] {
        RunArguments.options.map { $0.lifted(\Values.run) }
            + [
                .flag(
                    "version", \.version,
                    help: "print bgbench's version, the commit it was built from and GSL's version")
            ]
    }
    static let endsCleanlyOnSignals = true

    static func run<Out: TextOutputStream>(_ values: Values, _ invocation: Invocation, output: inout Out) throws {
        if values.version {
            return output.write(
                "bgbench \(BuildInfo.version) (commit \(BuildInfo.gitCommit), GSL \(BuildInfo.gslVersion))\n")
        }
        var common = values.run
        try common.finish()
        let loaded = try Command.loadScenario(common.scenarioFile, overrides: common.overrides)
        let request = try common.request(loaded, commandLine: ["bgbench"] + invocation.arguments)
        let job = common.job(
            passes: [common.policies.count], results: common.policies.count, scenario: loaded.scenario,
            policies: common.policies)
        try common.pipeline(.run, work: common.workPerScenario, job: job).run(output: &output) { progress, staging in
            let spool = try spool(staging, options: request.options, results: request.rowLabels())
            let report = try streamed(staging) { try Runner.run(request, progress: progress, rows: spool) }
            let written = try streamed(staging) { try spool?.finish() ?? [] }
            let folder = ReportWriter.folder(report, written: written)
            return .init(
                files: folder.files, text: SummaryTable.render(report),
                seconds: report.wallSeconds, deviceDays: report.simulatedDeviceDays, names: folder.names)
        }
    }

    /// The spool that writes devices.csv and events.csv into the staging folder as the
    /// devices finish (``RowSpool``; `columns` lead their headers, `results` are each
    /// result's leading fields in report order); nil when the job writes neither. A shard's
    /// spool starts at its first block; its shard.state records where each result's rows
    /// are, for the merge.
    static func spool(
        _ staging: ReportPipeline.Staging, options o: RunOptions, columns: [String] = [], results: [[String]]
    ) throws -> RowSpool? {
        let streams: [RowSpool.Stream] =
            (o.keepDevices ? [.devices] : []) + (o.traceDevices > 0 ? [.events] : [])
        guard !streams.isEmpty else { return nil }
        return try streamed(staging) {
            try RowSpool(
                folder: staging.path, streams: streams, columns: columns, results: results,
                firstBlock: o.part.blocks(devices: o.devices).lowerBound, critical: staging.critical)
        }
    }

    /// `body`'s result; a report file it cannot write is exit 73, named in the target folder.
    static func streamed<T>(_ staging: ReportPipeline.Staging, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as ReportError {
            guard case .cannotWrite(let name, let reason) = error else { throw error }
            throw CLIError.cannotCreate(
                "cannot write '\((staging.target as NSString).appendingPathComponent(name))': \(reason)")
        }
    }
}

extension Command {
    /// `--policy`'s value: 'all' or registered names, each once.
    static func parsePolicies(_ text: String) throws -> PolicyChoice {
        let known = PolicyRegistry.all.map { $0.name }
        if text == "all" { return .all }
        let names = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        if names.contains("all") {
            throw CLIError.usage(
                "invalid value '\(text)' for '--policy': expected 'all' alone or a list of policy names")
        }
        var seen: Set<String> = []
        for name in names {
            guard known.contains(name) else {
                var message =
                    "unknown policy '\(name)' for '--policy': expected one of \((known + ["all"]).joined(separator: ", "))"
                if let close = closest(to: name, in: known) { message += " (did you mean '\(close)'?)" }
                throw CLIError.usage(message)
            }
            guard seen.insert(name).inserted else { throw CLIError.usage("policy '\(name)' given twice in '--policy'") }
        }
        return .named(names)
    }

    /// The scenario of `--scenario` (a file or a preset's name; the built-in default
    /// without one) with the `--set` overrides.
    static func loadScenario(_ file: String?, overrides: [String]) throws -> LoadedScenario {
        // Every problem on its own line; a bad --set is a usage error (64), a file that
        // cannot be read is no input (66), bad data is 65.
        try readingInput {
            if let file { return try EmbeddedFiles.loadScenario(file, overrides: overrides) }
            if overrides.isEmpty { return ScenarioLoader.builtInDefault() }
            // The built-in defaults with overrides: hashed like the defaults alone.
            return try ScenarioLoader.load(
                json: ScenarioLoader.builtInDefaultText(),
                file: "(built-in default)", overrides: overrides)
        }
    }
}

/// `--policy`: every registered policy that needs no input file (`PolicyRegistry.inAll`:
/// all but `schedule`), or these. `all` is read from the registry when the
/// names are asked for, not when the option is parsed or a command's defaults are made,
/// so a policy registered in between (a library user's, a test's) is in it, and help
/// shows `all` whatever has been registered.
enum PolicyChoice: Equatable {
    case all
    case named([String])

    var names: [String] {
        switch self {
        case .all: PolicyRegistry.inAll.map(\.name)
        case .named(let names): names
        }
    }

    /// As `--policy` takes it.
    var shown: String {
        switch self {
        case .all: "all"
        case .named(let names): names.joined(separator: ",")
        }
    }
}
