import BGBench
import BGHarness
import Foundation

/// `bgbench conformance -- PROGRAM [ARGS...]`: the external-policy protocol's conformance
/// suite (docs/protocol.md, "Conformance"). The policy the command line names goes through
/// a fixed list of checks on small runs of the library's pipeline (`Runner`, `ReportWriter`,
/// `ShardMerge`: what `run`, `--shard` and `merge` do, in this process), one line each as
/// it completes: `ok`, `FAIL` and why (a run's error is the line that run would stop with,
/// naming the device, the simulated time and the message), `skip` when an earlier failure
/// leaves nothing to check, `info` for the speed, which is reported, not judged.
struct ConformanceCommand: CommandDefinition {
    static let name = "conformance"
    static let synopsis = """
        bgbench conformance -- PROGRAM [ARGS...]
                                     check a policy of the external protocol
                                     (docs/protocol.md): handshake, platforms,
                                     determinism, device independence, end of input;
                                     its speed
        """
    static let discussion: String? = """
        conformance: PROGRAM and ARGS are the policy's command, as policies.external.command
        would list them; naming it here allows it to start (no --allow-external). After
        '--', ARGS may hold options of the policy's own. One line per check: ok, FAIL and
        why, or skip; the speed is reported, not judged. Exit 0 when every check passes, 1
        when one fails, 64 without a program (docs/protocol.md, "Conformance").
        """
    static let defaults: [String] = []
    static let endsCleanlyOnSignals = true

    static func positional(_ word: String, _ command: inout [String]) throws { command.append(word) }

    static func run<Out: TextOutputStream>(_ command: [String], _ invocation: Invocation, output: inout Out) throws {
        guard !command.isEmpty else {
            throw CLIError.usage("'conformance' needs the policy's command: bgbench conformance -- PROGRAM [ARGS...]")
        }
        let suite = Conformance(command: command, commandLine: ["bgbench"] + invocation.arguments)
        // A check is skipped only when one before it failed.
        var failed: [Int] = []
        try suite.perform { number, verdict in
            let line = "\(verdict.word) \(number) \(Conformance.titles[number - 1]): \(verdict.text)"
            output.write(escapingControls(line) + "\n")
            if case .fail = verdict { failed.append(number) }
        }
        guard failed.isEmpty else {
            let list =
                failed.count == 1 ? "check \(failed[0])" : "checks " + failed.map(String.init).joined(separator: ", ")
            throw CLIError(
                message: "conformance: \(list) failed (above; docs/protocol.md, \"Conformance\")", code: 1, hint: false)
        }
        output.write("conformance: every check passed\n")
    }
}

/// The checks of docs/protocol.md, "Conformance", on one policy command: each run is the
/// `external` policy alone on the built-in default scenario (with a check's settings),
/// seed 1, every device's row kept.
struct Conformance {
    let command: [String]
    /// run.json's `command_line` of the shard folders check 3 writes.
    let commandLine: [String]

    static let titles = [
        "handshake", "runs to the end", "determinism", "device independence", "end of input", "speed",
    ]

    /// One check's outcome: its line's word and text.
    enum Verdict {
        case ok(String), fail(String), skip(String), info(String)

        var word: String {
            switch self {
            case .ok: "ok  "
            case .fail: "FAIL"
            case .skip: "skip"
            case .info: "info"
            }
        }

        var text: String {
            switch self {
            case .ok(let t), .fail(let t), .skip(let t), .info(let t): t
            }
        }
    }

    /// Check 2's runs, each of `small` size: every platform family, and a fleet that often
    /// has a low battery, Low Power Mode on or no network.
    static let families: [(label: String, settings: [String])] = [
        ("ios-bgtask", ["platform.name=ios-bgtask"]),
        ("android-workmanager", ["platform.name=android-workmanager"]),
        (
            "ios-bgtask with legacy ios-fetch devices",
            ["population.legacy_ios_share=0.5", "platform.ios_fetch.minimum_interval=15m"]
        ),
        (
            "low battery, Low Power Mode and offline spells",
            [
                "device.battery_wh=2", "population.low_power_share=0.3", "network.offline_spells_per_day=24",
                "network.offline_mean=30m",
            ]
        ),
    ]
    static let small = (devices: 32, days: 3)
    /// Checks 3 and 4: two blocks of devices (`Fleet.blockSize`), so two threads and two
    /// shards each have one.
    static let fleet = (devices: 100, days: 3)
    /// Check 6.
    static let timed = (devices: 100, days: 7)

    /// Runs the checks in order, handing each verdict to `report` as it is reached.
    func perform(_ report: (Int, Verdict) -> Void) throws {
        let handshake: ExternalProtocol.Handshake
        do {
            let timeout = ExternalParameters().timeout.ticks / Clock.millisecond
            handshake = try ExternalProtocol.handshake(of: command, timeoutMS: Int(timeout))
        } catch {
            report(1, .fail("\(error)"))
            for n in 2...Self.titles.count { report(n, .skip("no handshake")) }
            return
        }
        report(1, .ok(Self.describe(handshake)))
        var ended: [ExternalTraffic] = []
        report(2, try runsToTheEnd(&ended))
        let (determinism, independence) = try determinismAndIndependence(&ended)
        report(3, determinism)
        report(4, independence)
        report(5, Self.endOfInput(ended))
        report(6, try speed())
    }

    /// What the handshake declared.
    static func describe(_ h: ExternalProtocol.Handshake) -> String {
        let callbacks = h.callbackNames.isEmpty ? "none (start only)" : h.callbackNames.joined(separator: ", ")
        let denials = h.grid > 0 ? "the grid rule, every \(h.grid) µs" : "none"
        return "protocol 1, name \"\(h.name)\", version \"\(h.version)\", knob \(h.knob.isEmpty ? "none" : h.knob); "
            + "callbacks: \(callbacks); denial rule: \(denials)"
            + (h.batches ? "; batching: frames of a block's devices" : "")
    }

    /// A run of the policy: `devices` × `days` of the default scenario with `settings`.
    func simulate(_ settings: [String], _ size: (devices: Int, days: Int), threads: Int = 1, shard: Shard? = nil)
        throws -> RunReport
    {
        let commandSetting = "policies.external.command=" + JSONValue.array(command.map { .string($0) }).text
        let loaded = try Command.loadScenario(nil, overrides: [commandSetting] + settings)
        var options = RunOptions(devices: size.devices, days: size.days, seed: 1, threads: threads, keepDevices: true)
        options.allowsExternal = true
        options.shard = shard
        return try Runner.run(
            RunRequest(scenario: loaded, policies: [ExternalPolicies.first], options: options, commandLine: commandLine)
        )
    }

    /// What the policy's processes did in a run.
    static func traffic(_ report: RunReport) -> ExternalTraffic { report.results[0].result.externalTraffic ?? .init() }

    /// Check 2: every family's run ends without a protocol error.
    func runsToTheEnd(_ ended: inout [ExternalTraffic]) throws -> Verdict {
        var messages = 0
        for family in Self.families {
            do {
                let traffic = Self.traffic(try simulate(family.settings, Self.small))
                ended.append(traffic)
                messages += traffic.messages
            } catch let error as ExternalPolicyError {
                return .fail("on \(family.label): \(error)")
            }
        }
        return .ok(
            Self.families.map(\.label).joined(separator: "; ")
                + " (\(Self.small.devices) devices × \(Self.small.days) days each, \(messages) messages)")
    }

    /// Checks 3 and 4 on one set of runs of `fleet`: the whole run on one thread, again,
    /// on two threads, and as two shards (written as shard folders and merged); then the
    /// second shard's devices, which a fresh process serves first, against their rows in
    /// the whole run, where they come after the first shard's.
    func determinismAndIndependence(_ ended: inout [ExternalTraffic]) throws -> (Verdict, Verdict) {
        let halves = (0..<2).map { Shard(index: $0, count: 2)! }
        var label = "the run on one thread"
        let whole: RunReport, again: RunReport, twoThreads: RunReport, shards: [RunReport]
        do {
            whole = try simulate([], Self.fleet)
            label = "the same run again"
            again = try simulate([], Self.fleet)
            label = "the run on two threads"
            twoThreads = try simulate([], Self.fleet, threads: 2)
            label = "shard 0/2"
            let first = try simulate([], Self.fleet, shard: halves[0])
            label = "shard 1/2"
            shards = [first, try simulate([], Self.fleet, shard: halves[1])]
        } catch let error as ExternalPolicyError {
            return (.fail("\(label): \(error)"), .skip("check 3's runs did not finish"))
        }
        ended += ([whole, again, twoThreads] + shards).map(Self.traffic)
        let summary = ReportWriter.summaryCSV(whole)
        let repeatable = ReportWriter.summaryCSV(again) == summary
        var differences: [String] = []
        if !repeatable {
            differences.append(
                "two runs of the same scenario and seed give different summary.csv (draw from start's seed, not the clock)"
            )
        }
        if ReportWriter.summaryCSV(twoThreads) != summary {
            differences.append("--threads 1 and 2 give different summary.csv")
        }
        if ReportWriter.summaryCSV(try Self.merged(shards)) != summary {
            differences.append("2 shards merged give another summary.csv than the whole run")
        }
        let size = "\(Self.fleet.devices) devices × \(Self.fleet.days) days"
        let determinism: Verdict =
            differences.isEmpty
            ? .ok("summary.csv byte-identical run twice, on --threads 1 and 2, and as 2 shards merged (\(size))")
            : .fail(differences.joined(separator: "; "))
        guard repeatable else {
            return (determinism, .skip("the same run gives different rows (check 3): nothing to compare"))
        }
        // Device d's row is line d + 1 of the whole run's devices.csv (after the header).
        let inFleet = SeriesReports.devicesCSV(whole).split(separator: "\n")
        let alone = SeriesReports.devicesCSV(shards[1]).split(separator: "\n")
        let served = halves[1].devices(of: Self.fleet.devices), before = halves[0].devices(of: Self.fleet.devices)
        for (i, device) in served.enumerated() where alone[i + 1] != inFleet[device + 1] {
            return (
                determinism,
                .fail(
                    "device \(device)'s row of devices.csv differs when devices \(served.lowerBound)–\(served.upperBound - 1) "
                        + "are served by a fresh process (shard 1/2) from its row in the whole run, served after devices "
                        + "\(before.lowerBound)–\(before.upperBound - 1): the answers depend on other devices' messages "
                        + "(keep no state across devices: reset it at start)")
            )
        }
        return (
            determinism,
            .ok(
                "devices \(served.lowerBound)–\(served.upperBound - 1) give the same devices.csv rows served by a fresh "
                    + "process (shard 1/2) as after devices \(before.lowerBound)–\(before.upperBound - 1) in the whole run"
            )
        )
    }

    /// The shards' runs written as shard folders (in a temporary folder, removed after) and
    /// merged as `bgbench merge` merges them.
    static func merged(_ shards: [RunReport]) throws -> RunReport {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bgbench-conformance-\(UUID().uuidString)"
        ).path
        Interruption.track(folder)
        defer {
            try? FileManager.default.removeItem(atPath: folder)
            Interruption.untrack(folder)
        }
        let folders = shards.indices.map { (folder as NSString).appendingPathComponent("\($0)") }
        for (shard, path) in zip(shards, folders) { try ReportWriter.write(shard, to: path) }
        guard case .run(let report) = try ShardMerge.merge(folders).0 else {
            preconditionFailure("shards of a run merge into a run")
        }
        return report
    }

    /// Check 5: every process of the finished runs exited by itself once its fd 3 closed.
    static func endOfInput(_ ended: [ExternalTraffic]) -> Verdict {
        let processes = ended.reduce(0) { $0 + $1.processes }, killed = ended.reduce(0) { $0 + $1.killed }
        guard processes > 0 else { return .skip("no run finished") }
        guard killed == 0 else {
            return .fail(
                "\(killed) of \(processes) processes were still running 2 s after their fd 3 closed (bgbench kills them "
                    + "then): exit at the end of the input")
        }
        let slowest = ended.map(\.slowestExit).max() ?? 0
        return .ok(
            "the \(processes) processes of checks 2 and 3 exited by themselves when their fd 3 closed, the slowest "
                + "after \(SummaryTable.fixed(slowest, 3)) s")
    }

    /// Check 6: messages a second and the mean round trip of a run on one thread (batched:
    /// the frames, and each frame's round trip shared by its messages).
    func speed() throws -> Verdict {
        let report: RunReport
        do { report = try simulate([], Self.timed) } catch let error as ExternalPolicyError { return .fail("\(error)") }
        let t = Self.traffic(report)
        let rate = report.wallSeconds > 0 ? Double(t.messages) / report.wallSeconds : 0
        let roundTrip = t.messages > 0 ? t.roundTripSeconds / Double(t.messages) * 1e6 : 0
        return .info(
            "\(t.messages) messages\(t.frames > 0 ? " in \(t.frames) frames" : "") in \(SummaryTable.fixed(report.wallSeconds, 2)) s on one thread "
                + "(\(Self.timed.devices) devices × \(Self.timed.days) days): \(SummaryTable.fixed(rate, 0)) messages/s, "
                + "a round trip \(SummaryTable.fixed(roundTrip, 1)) µs on average (reported, not judged)")
    }
}
