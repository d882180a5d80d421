import Foundation

/// The first line of a shard's shard.state, as JSON: what the shard is a part of
/// (everything that must be equal across the shards of one run, sweep or frontier) and how
/// it ran (Reports/README.md, "Shards").
public struct ShardHeader: Codable, Sendable, Equatable {
    /// One run (a sweep has one per point; a frontier's policies are its arms' labels).
    public struct Identity: Codable, Sendable, Equatable {
        public var scenarioFile: String?
        public var scenarioSha256: String
        public var scenarioOverrides: [String]
        /// The complete resolved scenario (every registered component), from which the
        /// merge rebuilds the run's scenario.
        public var resolvedScenario: String
        public var policies: [String]
        public var baselinePolicy: String?
        public var seed: UInt64
        public var replications: Int
        public var devices: Int
        public var days: Int
        public var warmupDays: Int
        public var perDevice: Bool
        public var traceDevices: Int
        public var opensTrace: OpensTraceIdentity?
        /// What each external policy's handshake declared, by policy name (absent when
        /// none ran): shards whose processes declared another policy or version do not merge.
        public var externalPolicies: [String: ExternalPolicyIdentity]? = nil
    }

    /// A sweep's axes (path and values), its `--set` options and each point's values.
    public struct Sweep: Codable, Sendable, Equatable {
        public var paths: [String]
        public var values: [[String]]
        public var specs: [String]
        public var points: [[String]]
    }

    /// A frontier's request beyond its run: policies, baseline, knob values, energies.
    public struct Frontier: Codable, Sendable, Equatable {
        public var policies: [String]
        public var baselinePolicy: String?
        public var knobValues: [String: [String]]
        /// The quality axis (a summary.csv metric): it decides which sums the shard keeps.
        public var quality: String
        /// `--compare A,B` pairs, each [A, B].
        public var comparisons: [[String]]
        public var energyLevels: [Double]
        public var energyRange: [Double]?
        /// The policies whose own point is an arm beside their knob's (a suite task's
        /// scored policies and `prophet`); absent when none.
        public var points: [String]?
        package init(
            policies: [String], baselinePolicy: String?, knobValues: [String: [String]], quality: String,
            comparisons: [[String]], energyLevels: [Double], energyRange: [Double]?, points: [String] = []
        ) {
            self.policies = policies; self.baselinePolicy = baselinePolicy; self.knobValues = knobValues
            self.quality = quality; self.comparisons = comparisons
            self.energyLevels = energyLevels; self.energyRange = energyRange
            self.points = points.isEmpty ? nil : points
        }
    }

    /// A suite shard's suite (`bgbench suite --shard K/N`): the definition it ran, whole,
    /// and what the call chose; its runs are the tasks' frontiers, in task order
    /// (``ShardHeader/frontiers``).
    public struct Suite: Codable, Sendable, Equatable {
        /// Where the definition came from (`suite:v1`, or a file's path).
        public var file: String
        /// The definition's bytes, from which the merge scores; its SHA-256 names it.
        public var definition: String
        public var sha256: String
        public var quick: Bool
        public var tasks: [String]
        public var policies: [String]
        /// The `--set policies....` overrides the policies were scored with.
        public var overrides: [String]
        package init(
            file: String, definition: String, sha256: String, quick: Bool, tasks: [String], policies: [String],
            overrides: [String]
        ) {
            self.file = file; self.definition = definition; self.sha256 = sha256; self.quick = quick
            self.tasks = tasks; self.policies = policies; self.overrides = overrides
        }
    }

    public var bgbenchVersion: String
    public var gitCommit: String
    public var formatVersion: Int
    /// What made the shard.
    public var kind: ReportKind
    public var runs: [Identity]
    public var sweep: Sweep?
    public var frontier: Frontier?
    /// A suite shard's suite and each task's frontier (one per run).
    public var suite: Suite?
    public var frontiers: [Frontier]?
    public var shard: Int
    public var shards: Int
    /// How the shard ran (a merged run.json's `execution.shards` lists them).
    public var host: String
    public var wallSeconds: Double
    public var threads: Int
    public var commandLine: [String]
    /// SHA-256 (hex) of the payload's bytes (the second line, base64-decoded), checked by
    /// `bgbench merge` before it decodes them: damage to the sums is caught even where the
    /// folder's manifest was rewritten to match (format 2; nil in a format 1 header).
    public var payloadSha256: String?
    /// devices.csv and events.csv as the shard streamed them into its folder (format 6):
    /// size, SHA-256, header bytes and each result's bytes, which `bgbench merge` puts
    /// together result by result in shard order; nil when the shard wrote neither, or kept
    /// its rows in the payload (a frontier's).
    public var rows: [RowSpool.Written]?

    /// 2: the header carries `payload_sha256`; 3: the tallies hold `denied_light_doze`
    /// (one more quantity in every accumulator); 4: each paired tally carries its
    /// archetypes' moments (paired-archetypes.csv) and a sweep's groups their joint sums;
    /// 6: a run's or sweep's devices.csv and events.csv rows are streamed into the shard's
    /// own files (``rows``), not carried in the payload.
    /// The merge refuses any other format.
    public static let formatVersion = 6

    /// The header of a shard made of `requests` (a run's one, a sweep's points').
    init(
        kind: ReportKind, requests: [RunRequest], wallSeconds: Double, threads: Int, commandLine: [String],
        payloadSha256: String
    ) {
        bgbenchVersion = BuildInfo.version
        gitCommit = BuildInfo.gitCommit
        formatVersion = Self.formatVersion
        self.kind = kind
        runs = requests.map(Self.identity)
        let part = requests.first?.options.part ?? .whole
        shard = part.index
        shards = part.count
        host = ProcessInfo.processInfo.hostName
        self.wallSeconds = wallSeconds
        self.threads = threads
        self.commandLine = commandLine
        self.payloadSha256 = payloadSha256
    }

    static func identity(_ r: RunRequest) -> Identity {
        Identity(
            scenarioFile: r.scenario.file, scenarioSha256: r.scenario.sha256, scenarioOverrides: r.scenario.overrides,
            resolvedScenario: r.scenario.resolvedJSON, policies: r.policies, baselinePolicy: r.baselinePolicy,
            seed: r.options.seed, replications: r.replications, devices: r.options.devices, days: r.options.days,
            warmupDays: r.options.warmupDays, perDevice: r.options.keepDevices, traceDevices: r.options.traceDevices,
            opensTrace: r.opensTraceIdentity)
    }

    /// The JSON line.
    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return String(decoding: try! encoder.encode(self), as: UTF8.self)
    }

    package static func parse(_ line: Substring) throws -> ShardHeader {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(ShardHeader.self, from: Data(line.utf8))
    }

    /// Run k of the header, rebuilt as the whole run (no shard): its scenario loaded from
    /// the resolved JSON.
    package func request(_ k: Int) throws -> RunRequest {
        let i = runs[k]
        var loaded = try ScenarioLoader.load(
            json: i.resolvedScenario, file: i.scenarioFile ?? "(built-in default)", overrides: [])
        loaded.file = i.scenarioFile
        loaded.sha256 = i.scenarioSha256
        loaded.overrides = i.scenarioOverrides
        let options = RunOptions(
            devices: i.devices, days: i.days, seed: i.seed, threads: threads, warmupDays: i.warmupDays,
            keepDevices: i.perDevice, traceDevices: i.traceDevices)
        var request = RunRequest(
            scenario: loaded, policies: i.policies, options: options, commandLine: commandLine,
            baselinePolicy: i.baselinePolicy, replications: i.replications)
        request.opensTraceIdentity = i.opensTrace
        return request
    }

    /// The first way in which another shard's header is of another run, as "its FIELD is
    /// X, expected Y"; nil when both are parts of the same.
    package func difference(from other: ShardHeader) -> String? {
        func text<T>(_ v: T?) -> String { v.map { "\($0)" } ?? "none" }
        var fields: [(String, String, String)] = [
            ("bgbench version", bgbenchVersion, other.bgbenchVersion), ("commit", gitCommit, other.gitCommit),
            ("shard format", "\(formatVersion)", "\(other.formatVersion)"),
            ("command", kind.rawValue, other.kind.rawValue),
            ("number of runs", "\(runs.count)", "\(other.runs.count)"),
        ]
        if kind == .sweep {
            fields.append(
                (
                    "sweep", sweep == other.sweep ? "" : "grid \(text(sweep?.specs.joined(separator: " ")))",
                    sweep == other.sweep ? "" : "\(text(other.sweep?.specs.joined(separator: " ")))"
                ))
        }
        if kind == .suite {
            func part(_ s: Suite?, _ text: (Suite) -> String) -> String { s.map(text) ?? "none" }
            fields += [
                ("suite's SHA-256", part(suite) { $0.sha256 }, part(other.suite) { $0.sha256 }),
                (
                    "suite's scope", part(suite) { $0.quick ? "quick" : "full" },
                    part(other.suite) { $0.quick ? "quick" : "full" }
                ),
                (
                    "suite's tasks", part(suite) { $0.tasks.joined(separator: ",") },
                    part(other.suite) { $0.tasks.joined(separator: ",") }
                ),
                (
                    "suite's policies", part(suite) { $0.policies.joined(separator: ",") },
                    part(other.suite) { $0.policies.joined(separator: ",") }
                ),
                (
                    "suite's policy overrides", part(suite) { $0.overrides.joined(separator: " ") },
                    part(other.suite) { $0.overrides.joined(separator: " ") }
                ),
                (
                    "tasks' frontiers", frontiers == other.frontiers ? "" : "\(frontiers?.count ?? 0) frontiers",
                    frontiers == other.frontiers ? "" : "others"
                ),
            ]
        }
        if kind == .frontier {
            func list(_ f: Frontier?, _ part: (Frontier) -> String) -> String { f.map(part) ?? "none" }
            fields += [
                (
                    "frontier's policies", list(frontier) { $0.policies.joined(separator: ",") },
                    list(other.frontier) { $0.policies.joined(separator: ",") }
                ),
                ("frontier's baseline policy", text(frontier?.baselinePolicy), text(other.frontier?.baselinePolicy)),
                (
                    "frontier's knob values", list(frontier) { "\($0.knobValues.sorted { $0.key < $1.key })" },
                    list(other.frontier) { "\($0.knobValues.sorted { $0.key < $1.key })" }
                ),
                ("frontier's quality axis", list(frontier) { $0.quality }, list(other.frontier) { $0.quality }),
                (
                    "frontier's comparisons", list(frontier) { "\($0.comparisons)" },
                    list(other.frontier) { "\($0.comparisons)" }
                ),
                (
                    "frontier's energy levels", list(frontier) { "\($0.energyLevels)" },
                    list(other.frontier) { "\($0.energyLevels)" }
                ),
                (
                    "frontier's energy range", list(frontier) { "\($0.energyRange ?? [])" },
                    list(other.frontier) { "\($0.energyRange ?? [])" }
                ),
                (
                    "frontier's own points", list(frontier) { ($0.points ?? []).joined(separator: ",") },
                    list(other.frontier) { ($0.points ?? []).joined(separator: ",") }
                ),
            ]
        }
        for (a, b) in zip(runs, other.runs) {
            let (sa, sb) = (a.comparedScenario, b.comparedScenario)
            fields += [
                ("external handshake", text(a.externalPoliciesText), text(b.externalPoliciesText)),
                (
                    "scenario", sa == sb ? "" : "resolved scenario (\(text(a.scenarioFile)))",
                    sa == sb ? "" : "that of \(text(b.scenarioFile))"
                ),
                ("scenario file", text(a.scenarioFile), text(b.scenarioFile)),
                ("scenario SHA-256", a.scenarioSha256, b.scenarioSha256),
                (
                    "overrides", a.comparedOverrides.joined(separator: " "),
                    b.comparedOverrides.joined(separator: " ")
                ),
                ("policies", a.policies.joined(separator: ","), b.policies.joined(separator: ",")),
                ("baseline policy", text(a.baselinePolicy), text(b.baselinePolicy)), ("seed", "\(a.seed)", "\(b.seed)"),
                ("replications", "\(a.replications)", "\(b.replications)"), ("devices", "\(a.devices)", "\(b.devices)"),
                ("days", "\(a.days)", "\(b.days)"), ("warm-up days", "\(a.warmupDays)", "\(b.warmupDays)"),
                ("per-device rows", "\(a.perDevice)", "\(b.perDevice)"),
                ("traced devices", "\(a.traceDevices)", "\(b.traceDevices)"),
                ("opens trace", text(a.opensTrace?.sha256), text(b.opensTrace?.sha256)),
            ]
        }
        guard let (name, x, y) = fields.first(where: { $0.1 != $0.2 }) else { return nil }
        return "its \(name) is \(x.isEmpty ? "''" : x), expected \(y.isEmpty ? "''" : y)"
    }
}

extension ShardHeader.Identity {
    /// `NAME: POLICY VERSION [knob K]` per external policy, for a message; nil when none ran.
    var externalPoliciesText: String? {
        externalPolicies.map { $0.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "; ") }
    }

    /// The resolved scenario as shards compare it: without the commands of the external
    /// policies that ran. A command says where its program lies on one machine; what it
    /// is, the handshake says (`externalPolicies`, compared on its own), so shards of one
    /// run given another path on each node merge (docs/protocol.md, "Shards").
    var comparedScenario: String {
        guard let ran = externalPolicies?.keys, !ran.isEmpty,
            var root = try? JSONSerialization.jsonObject(with: Data(resolvedScenario.utf8)) as? [String: Any],
            var policies = root["policies"] as? [String: Any]
        else { return resolvedScenario }
        for name in ran {
            guard var external = policies[name] as? [String: Any] else { continue }
            external["command"] = nil
            policies[name] = external
        }
        root["policies"] = policies
        guard let data = try? JSONSerialization.data(withJSONObject: root, options: [.sortedKeys]) else {
            return resolvedScenario
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// The `--set` overrides as shards compare them: without those of the commands above.
    var comparedOverrides: [String] {
        guard let ran = externalPolicies?.keys, !ran.isEmpty else { return scenarioOverrides }
        let commands = Set(ran.map { "policies.\($0).command" })
        return scenarioOverrides.filter {
            !commands.contains(
                $0.split(separator: "=", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? "")
        }
    }
}

/// The replayed opens trace, as run.json records it (the merge has no trace to read).
public struct OpensTraceIdentity: Codable, Sendable, Equatable {
    public var file: String
    public var sha256: String
    public var timestamps: String
    public var devices: Int
    public var opens: Int
    public init(_ t: OpensTrace) {
        file = t.file; sha256 = t.sha256; timestamps = t.form.rawValue; devices = t.deviceCount; opens = t.opens.count
    }
}
