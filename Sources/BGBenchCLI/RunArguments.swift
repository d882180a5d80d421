import BGBench
import Foundation

/// The run options: what to simulate, how big, where to write. `run` takes them all (and
/// `--version`), `sweep` all of them, `frontier` all but the per-device files; each is
/// declared once, in ``options``, and parsed and checked here for all three.
struct RunArguments {
    /// `--policy`; ``finish()`` reads `all` from the registry once, so a run's policies do
    /// not change under it.
    var policyChoice = PolicyChoice.named(["adaptive"])
    var policies: [String] { policyChoice.names }
    var options = RunOptions()
    var scenarioFile: String?
    var overrides: [String] = []
    var out = "Reports/latest"
    var quiet = false
    /// Replace `out` even when it holds files that are not a bgbench report.
    var force = false
    /// `--yes`: start a job the estimate says is beyond the machine or its caps.
    var yes = false
    /// `--estimate`: print the job's estimate and stop.
    var estimateOnly = false
    var traceFile: String?
    /// Independent replications (`--replications`): seeds `seed`, `seed + 1`, ...
    var replications = 1
    /// `--baseline-policy`: the policy paired.csv compares every other with.
    var baseline: String?
    private var daysGiven = false, devicesGiven = false

    /// `--days`; given, it wins over an opens trace's span.
    var days: Int {
        get { options.days }
        set { options.days = newValue; daysGiven = true }
    }
    /// `--devices`; given with `--opens-trace`, it must be the trace's device count.
    var devices: Int {
        get { options.devices }
        set { options.devices = newValue; devicesGiven = true }
    }

    static var options: [Option<RunArguments>] {
        [
            .value(
                "policy", "NAME[,NAME...]", expected: "'all' or policy names separated by commas",
                help: "policies to compare, or 'all' (every one but schedule, which needs a plan file)",
                shownDefault: { $0.policyChoice.shown }
            ) { values, text, _ in
                values.policyChoice = try Command.parsePolicies(text)
            },
            .integer("days", "D", \.days, in: 1...36500, help: "days to simulate"),
            .integer("devices", "N", \.devices, in: 1...100_000_000, help: "devices in the fleet"),
            .integer("seed", "S", \.options.seed, in: 0...UInt64.max, help: "run seed"),
            .threads(\.options.threads),
            .text(
                "scenario", "FILE|NAME", \.scenarioFile, expected: "a scenario file or a preset's name",
                help: "scenario JSON, or a preset's name (bgbench list); a file at that path wins",
                defaultText: "the built-in default scenario, the same as preset 'default'"),
            .value(
                "set", "PATH=VALUE", expected: "PATH=VALUE",
                help: "override one scenario field by its JSON path, e.g. --set policies.fixed.interval=30m",
                repeatable: true
            ) { values, text, _ in values.overrides.append(text) },
            .text(
                "opens-trace", "FILE", \.traceFile, expected: "a trace CSV file",
                help:
                    "replay the opens of a trace CSV instead of drawing them (Datasets/README.md, \"Traces\"): one device "
                    + "per trace device, --days defaults to the trace's span"),
            .integer(
                "warmup-days", "W", \.options.warmupDays, in: 0...36499,
                help: "leave the first W days out of every metric (fewer than --days)"),
            .text(
                "out", "DIR", \.out, expected: "a folder",
                help: "report folder, replaced whole when the command has written every file"),
            .flag(
                "force", \.force,
                help:
                    "replace --out whole, whatever it holds (without it, only the files of bgbench's own earlier report "
                    + "of the same kind are replaced: Reports/README.md)"),
            .flag(
                "check-invariants", \.options.checksInvariants,
                help:
                    "check every device's counts against their identities (requests, runs, denials, opens) and stop at "
                    + "the first broken one: a soak's checking mode"),
            .flag(
                "allow-external", \.options.allowsExternal,
                help:
                    "let the external policy start the program its scenario names (policies.external.command; "
                    + "docs/protocol.md): without it, a scenario never starts a process"),
            .flag("per-device", \.options.keepDevices, help: "also write devices.csv: every device's totals"),
            .integer(
                "trace-devices", "K", \.options.traceDevices, in: 1...1000,
                help: "also write events.csv: every event of the first K devices with its reason code",
                showsDefault: false),
            .text(
                "baseline-policy", "NAME", \.baseline, expected: "a policy name",
                help: "the policy the others are compared with, device by device (paired.csv, the terminal's paired "
                    + "table; written whenever more than one policy runs)",
                defaultText: "fixed when it runs, else the first policy"),
            .integer(
                "replications", "R", \.replications, in: 1...1000,
                help: "run R independent seeds (S, S+1, ...) and write replications.csv: each metric across the seeds"),
            .flag("quiet", \.quiet, help: "no progress line or estimate (both are drawn only on a terminal)"),
            .flag(
                "estimate", \.estimateOnly,
                help:
                    "print the job's estimate (device-days, wall time on this machine, peak memory, file sizes) and stop "
                    + "without simulating or writing"),
            .flag(
                "yes", \.yes,
                help:
                    "start even when the estimate says the job needs more memory, disk or time than this machine has, "
                    + "or exceeds a cap (docs/limits.md, \"Before a job starts\")"),
            .value(
                "shard", "K/N|auto[/N]", expected: "K/N, auto or auto/N",
                help:
                    "simulate only shard K (0...N-1) of the fleet: its blocks of 64 devices (a sweep: of every point's "
                    + "fleet); --out also gets shard.state, which 'bgbench merge' adds up (run, sweep, frontier and suite; "
                    + "Scripts/cluster/). auto: K and N from a Slurm array task or a Kubernetes Indexed Job (N from /N or "
                    + "BGBENCH_SHARD_COUNT)",
                environment: ["SLURM_ARRAY_TASK_*", "JOB_COMPLETION_INDEX", "BGBENCH_SHARD_COUNT"]
            ) { values, text, environment in
                values.options.shard = try shard(text, environment: environment)
            },
        ]
    }

    /// Checks what only the whole command line can tell, and loads the opens trace: it
    /// sets the fleet (one device per trace device; `--devices` may only repeat that
    /// number) and, without `--days`, the run's length (the trace's span in whole days).
    mutating func finish() throws {
        policyChoice = .named(policyChoice.names)
        if let traceFile {
            let trace = try readingInput { try OpensTraceLoader.load(file: traceFile) }
            if devicesGiven && options.devices != trace.deviceCount {
                throw CLIError.usage(
                    "invalid value '\(options.devices)' for '--devices': the trace '\(traceFile)' has \(trace.deviceCount) devices (leave --devices out with --opens-trace)"
                )
            }
            options.devices = trace.deviceCount
            if !daysGiven { options.days = trace.days }
            options.opensTrace = trace
        }
        guard options.warmupDays < options.days else {
            throw CLIError.usage(
                "invalid value '\(options.warmupDays)' for '--warmup-days': expected an integer from 0 to \(options.days - 1) (fewer than --days)"
            )
        }
        if let baseline {
            guard policies.contains(baseline) else {
                throw CLIError.usage(
                    "invalid value '\(baseline)' for '--baseline-policy': expected one of the policies run (\(policies.joined(separator: ", ")))"
                )
            }
            guard policies.count > 1 else {
                throw CLIError.usage("'--baseline-policy' needs at least one other policy in '--policy'")
            }
        }
    }

    /// `--shard K/N` (0 ≤ K < N), `auto` or `auto/N` (from the job engine's variables:
    /// `Shard.fromEnvironment`).
    static func shard(_ text: String, environment: [String: String]) throws -> Shard {
        if text == "auto" || text.hasPrefix("auto/") {
            var count: Int?
            if text != "auto" {
                guard let n = Int(text.dropFirst(5)), n >= 1 else {
                    throw CLIError.usage(
                        "invalid value '\(text)' for '--shard': expected K/N, auto or auto/N with N a positive integer")
                }
                count = n
            }
            do { return try Shard.fromEnvironment(environment, count: count) } catch {
                throw CLIError.usage(error.description)
            }
        }
        guard let shard = Shard.parse(text) else {
            throw CLIError.usage(
                "invalid value '\(text)' for '--shard': expected K/N with 0 <= K < N (e.g. 0/4), auto or auto/N")
        }
        return shard
    }

    /// The run of one loaded scenario with these options (a sweep makes one per point);
    /// refuses a feed too large to hold in memory.
    func request(_ loaded: LoadedScenario, commandLine: [String]) throws -> RunRequest {
        // The shared feed is held in memory: 16 bytes an item.
        let feedItems = loaded.scenario.content.itemsPerDay * Double(options.days)
        guard feedItems <= 50_000_000 else {
            throw CLIError.usage(
                "the feed would hold about \(Int(feedItems)) items (content.items_per_day × --days): expected at most 50000000"
            )
        }
        return RunRequest(
            scenario: loaded, policies: policies, options: options, commandLine: commandLine,
            baselinePolicy: baseline, replications: replications)
    }

    /// The files the run reads (a scenario given as a file, not a preset's name; the
    /// opens trace): never an output.
    var inputs: [OutputGuard.Input] {
        var inputs: [OutputGuard.Input] = []
        if let scenarioFile, FileManager.default.fileExists(atPath: scenarioFile) {
            inputs.append(.init(path: scenarioFile, role: "--scenario"))
        }
        if let traceFile { inputs.append(.init(path: traceFile, role: "--opens-trace")) }
        return inputs
    }

    /// The folder pipeline of a command that runs these options into `--out`, reporting
    /// `work` device-days of progress.
    func pipeline(_ kind: ReportKind, work: Int, job: ReportPipeline.Job? = nil) -> ReportPipeline {
        ReportPipeline(
            out: out, force: force, kind: kind, inputs: inputs, progressTotal: work, quiet: quiet,
            shard: options.shard.map { ($0, options.devices) }, job: job, yes: yes, estimateOnly: estimateOnly)
    }

    /// The job's shape for the estimate: `passes` fleet passes' arms per seed, `results`
    /// results kept per seed, calibrated on `scenario`'s `policies`.
    func job(passes: [Int], results: Int, scenario: Scenario, policies: [String]) -> ReportPipeline.Job {
        let seed = options.seed
        var shape = JobShape(
            devices: options.part.devices(of: options.devices).count, days: options.days,
            countedDays: options.days - options.warmupDays, seeds: replications, passes: passes,
            results: results,
            workers: Fleet.workers(
                threads: options.resolvedThreads,
                blocks: options.part.blocks(devices: options.devices).count),
            keepDevices: options.keepDevices, traceDevices: options.traceDevices, shard: options.shard != nil)
        // A run or sweep, whole or shard, streams devices.csv and events.csv (RunCommand.spool;
        // a frontier writes neither).
        shape.streamsRows = true
        return ReportPipeline.Job(
            shape: shape,
            calibrate: {
                try JobEstimate.calibrate(
                    scenario: scenario, policies: policies, seed: seed, traces: options.traceDevices > 0)
            })
    }

    /// The device-days a run of one scenario simulates (for the progress line): its shard's.
    var workPerScenario: Int {
        options.part.devices(of: options.devices).count * options.days * policies.count * replications
    }
}
