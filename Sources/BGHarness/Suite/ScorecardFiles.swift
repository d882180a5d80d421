import BGBench
import Foundation

/// A scorecard folder's files (Reports/README.md, "A scorecard folder"): scorecard.csv
/// (tidy: one row per task × policy × quantity, and the aggregates as task `all`),
/// scorecard.md (the tables for a paper or a README) and scorecard.json (what ran: the
/// suite's version and hash, bgbench's version and commit, every task's fleet and seeds,
/// the policies' parameters; its `execution` object is the only part that depends on the
/// machine).
public enum ScorecardFiles {
    /// What the folder records beyond the scores: the command and the machine.
    public struct Execution: Sendable {
        /// One shard of a merged scorecard: where and how it ran.
        public struct Shard: Encodable, Sendable {
            public var shard: String, host: String, wallSeconds: Double, threads: Int, commandLine: [String]
            public init(shard: String, host: String, wallSeconds: Double, threads: Int, commandLine: [String]) {
                self.shard = shard; self.host = host; self.wallSeconds = wallSeconds; self.threads = threads
                self.commandLine = commandLine
            }
        }
        public var commandLine: [String]
        public var threads: Int
        public var wallSeconds: Double
        public var host: String
        /// The tasks read from the task cache rather than run by this call (docs/suite.md,
        /// "The task cache").
        public var cachedTasks: [String]
        /// A merged scorecard's shards, in shard order (nil: one process).
        public var shards: [Shard]?
        public init(
            commandLine: [String], threads: Int, wallSeconds: Double, host: String, cachedTasks: [String] = [],
            shards: [Shard]? = nil
        ) {
            self.commandLine = commandLine; self.threads = threads; self.wallSeconds = wallSeconds; self.host = host
            self.cachedTasks = cachedTasks; self.shards = shards
        }
    }

    /// Per task: its frontier's identity (the resolved scenario's hash and each scored
    /// policy's parameters in it, and an external policy's handshake).
    public struct TaskRecord: Sendable {
        public var task: SuiteTask
        public var seeds: [UInt64]
        public var resolvedScenarioSha256: String
        public var policyParameters: [String: String]
        public var external: [String: ExternalPolicyIdentity]
        public init(
            task: SuiteTask, seeds: [UInt64], resolvedScenarioSha256: String, policyParameters: [String: String],
            external: [String: ExternalPolicyIdentity]
        ) {
            self.task = task; self.seeds = seeds; self.resolvedScenarioSha256 = resolvedScenarioSha256
            self.policyParameters = policyParameters; self.external = external
        }
    }

    /// Every file in writing order, then run.json: the manifest every report folder has
    /// (its kind, and each file's size and SHA-256, so that a later command replaces the
    /// folder only while it holds what bgbench wrote; Reports/README.md).
    public static func files(_ card: Scorecard, records: [TaskRecord], overrides: [String], execution: Execution)
        -> [(String, String)]
    {
        let files = [
            (ReportFile.scorecardCSV.name, csv(card)), (ReportFile.scorecardMarkdown.name, markdown(card)),
            (ReportFile.scorecardJSON.name, json(card, records: records, overrides: overrides, execution: execution)),
        ]
        return files + [(ReportFile.run.name, runJSON(card, files: files, commandLine: execution.commandLine))]
    }

    struct RunJSON: Encodable {
        struct Suite: Encodable { var version: String, sha256: String, quick: Bool, scope: String }
        struct File: Encodable { var name: String, bytes: Int, sha256: String }
        struct Execution: Encodable { var commandLine: [String] }
        var schemaVersion = ReportWriter.schemaVersion
        var bgbenchVersion = BuildInfo.version
        var gitCommit = BuildInfo.gitCommit
        var suite: Suite
        /// A suite shard's `K/N` (its folder holds shard.state, not a scorecard).
        var shard: String?
        var manifest: [File]
        var execution: Execution
    }

    /// A suite shard's folder (`bgbench suite --shard K/N`): shard.state, which `bgbench
    /// merge` adds up into the scorecard, and run.json. No scorecard: scores of part of
    /// each fleet would read as the suite's.
    public static func shardFiles(
        _ suite: SuiteDefinition, quick: Bool, state: String, shard: Shard, commandLine: [String]
    ) -> [(String, String)] {
        let files = [(ReportFile.shardState.name, state)]
        let run = RunJSON(
            suite: .init(version: suite.version, sha256: suite.sha256, quick: quick, scope: "shard"),
            shard: shard.description, manifest: manifestEntries(files), execution: .init(commandLine: commandLine))
        return files + [(ReportFile.run.name, encoded(run))]
    }

    static func manifestEntries(_ files: [(String, String)]) -> [RunJSON.File] {
        files.map { name, text in
            let bytes = Array(text.utf8)
            return RunJSON.File(name: name, bytes: bytes.count, sha256: SHA256.hex(bytes))
        }
    }

    static func encoded(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return String(decoding: try! encoder.encode(value), as: UTF8.self) + "\n"
    }

    /// A scorecard folder's run.json: its kind (the `suite` member), bgbench's build and
    /// the manifest; scorecard.json holds what ran.
    static func runJSON(_ card: Scorecard, files: [(String, String)], commandLine: [String]) -> String {
        let run = RunJSON(
            suite: .init(
                version: card.suite.version, sha256: card.suite.sha256, quick: card.quick, scope: card.scope.rawValue),
            manifest: manifestEntries(files), execution: .init(commandLine: commandLine))
        return encoded(run)
    }

    // MARK: scorecard.csv

    public static func csv(_ card: Scorecard) -> String {
        var w = CSVWriter("")
        w.row(ReportFile.scorecardHeader)
        let version = card.suite.version, scope = card.scope.rawValue
        func row(
            _ task: String, _ policy: String, _ quantity: String, _ metric: String, _ e: Estimate?, unit: String,
            interval: String, status: String, seed: UInt64? = nil
        ) {
            w.row([
                version, scope, task, policy, quantity, metric, seed.map(String.init) ?? "", CSVNumber.format(e?.value),
                CSVNumber.format(e?.low), CSVNumber.format(e?.high), unit, e?.low == nil ? "none" : interval, status,
            ])
        }
        /// A quantity's per-seed values, one row each after its row across seeds.
        func perSeed(
            _ s: TaskScore, _ quantity: String, _ metric: String, _ values: [Double]?, unit: String, status: String
        ) {
            for (seed, v) in zip(s.seeds, values ?? []) {
                row(
                    s.task, s.policy, quantity, metric, Estimate(v), unit: unit, interval: "none", status: status,
                    seed: seed)
            }
        }
        for s in card.scores {
            let headlineUnit = MetricTable.named(s.headline)?.unit ?? ""
            let energy = FrontierAxis.energy.metric.name
            row(
                s.task, s.policy, "headline_policy", s.headline, s.policyQuality, unit: headlineUnit, interval: "seeds",
                status: "ok")
            row(
                s.task, s.policy, "headline_fixed", s.headline, s.baselineQuality, unit: headlineUnit,
                interval: "seeds", status: "ok")
            row(
                s.task, s.policy, "energy_policy", energy, s.policyEnergy, unit: "J/day", interval: "seeds",
                status: "ok")
            row(
                s.task, s.policy, "energy_fixed", energy, s.baselineEnergy, unit: "J/day", interval: "seeds",
                status: "ok")
            row(
                s.task, s.policy, "headline_difference", s.headline, s.qualityDifference, unit: headlineUnit,
                interval: "seeds", status: s.basis.rawValue)
            perSeed(
                s, "headline_difference", s.headline, s.qualityDifferencePerSeed, unit: headlineUnit,
                status: s.basis.rawValue)
            row(
                s.task, s.policy, "energy_difference", energy, s.energyDifference, unit: "J/day", interval: "seeds",
                status: s.basis.rawValue)
            perSeed(s, "energy_difference", energy, s.energyDifferencePerSeed, unit: "J/day", status: s.basis.rawValue)
            row(s.task, s.policy, "verdict", s.headline, nil, unit: "", interval: "none", status: s.verdict.rawValue)
            for (quantity, gap) in [("gap_closed_oracle", s.gapOracle), ("gap_closed_prophet", s.gapProphet)] {
                switch gap {
                case .defined(let mean, let values):
                    row(
                        s.task, s.policy, quantity, MetricTable.freshOpenRate.name, mean, unit: "ratio",
                        interval: "seeds",
                        status: "ok")
                    perSeed(s, quantity, MetricTable.freshOpenRate.name, values, unit: "ratio", status: "ok")
                case .undefined(let reason):
                    row(
                        s.task, s.policy, quantity, MetricTable.freshOpenRate.name, nil, unit: "ratio",
                        interval: "none",
                        status: reason)
                }
            }
            for c in s.constraints {
                row(
                    s.task, s.policy, c.constraint.isMaximum ? "constraint_max" : "constraint_min", c.constraint.metric,
                    c.value, unit: MetricTable.named(c.constraint.metric)?.unit ?? "", interval: "seeds",
                    status: "\(c.passed ? "passed" : "failed") (limit \(CSVNumber.format(c.constraint.limit)))")
            }
        }
        for policy in card.policies {
            let a = card.aggregate(policy)
            for v in TaskScore.Verdict.allCases {
                row(
                    "all", policy, "tasks_\(v.rawValue)", "", Estimate(Double(a.verdicts[v] ?? 0)), unit: "tasks",
                    interval: "none", status: "ok")
            }
            row(
                "all", policy, "tasks_constraints_passed", "", Estimate(Double(a.constraintsPassed)), unit: "tasks",
                interval: "none", status: "ok")
            for (quantity, median, defined) in [
                ("median_gap_closed_oracle", a.medianGapOracle, a.gapOracleTasks),
                ("median_gap_closed_prophet", a.medianGapProphet, a.gapProphetTasks),
            ] {
                row(
                    "all", policy, quantity, MetricTable.freshOpenRate.name, median, unit: "ratio",
                    interval: "bootstrap_seeds",
                    status: median == nil ? "no_task_defined" : "ok (\(defined) of \(a.tasks) tasks)")
            }
        }
        return w.output
    }

    // MARK: scorecard.md

    /// A share or rate in percent with one decimal; an interval in brackets.
    public static func percent(_ e: Estimate?, signed: Bool = false) -> String {
        guard let e, e.value.isFinite else { return "—" }
        func f(_ x: Double) -> String { String(format: signed ? "%+.1f" : "%.1f", x * 100) }
        guard let low = e.low, let high = e.high else { return f(e.value) }
        return "\(f(e.value)) [\(f(low)), \(f(high))]"
    }

    static func number(_ e: Estimate?, signed: Bool = false) -> String {
        guard let e, e.value.isFinite else { return "—" }
        func f(_ x: Double) -> String { String(format: signed ? "%+.2f" : "%.2f", x) }
        guard let low = e.low, let high = e.high else { return f(e.value) }
        return "\(f(e.value)) [\(f(low)), \(f(high))]"
    }

    public static func markdown(_ card: Scorecard) -> String {
        var out = "# Scorecard: \(card.suite.name) v\(card.suite.version)\(card.quick ? " (quick)" : "")\n\n"
        switch card.scope {
        case .full: break
        case .quick:
            out +=
                "**Quick subset** (\(card.tasks.count) of \(card.suite.tasks.count) tasks, smaller fleets, fewer seeds): comparable only with other quick scorecards of this suite version.\n\n"
        case .partial:
            out +=
                "**Not comparable**: tasks chosen with `--task` (\(card.tasks.map(\.id).joined(separator: ", "))); the aggregates are over these tasks only.\n\n"
        }
        out += "Suite SHA-256 `\(card.suite.sha256)`; bgbench \(BuildInfo.version) (commit \(BuildInfo.gitCommit)). "
        out += "Every interval is 95 %, across the task's seeds (the median's: a seed-level bootstrap). "
        out +=
            "Differences are the policy minus `fixed`; pts are percentage points; docs/suite.md explains every number.\n\n"
        out += "## Summary\n\n"
        out +=
            "| policy | dominates | trades off | indistinguishable | dominated | median gap closed to oracle, % | median gap closed to prophet, % | constraints met |\n"
        out += "|---|---:|---:|---:|---:|---:|---:|---:|\n"
        for policy in card.policies {
            let a = card.aggregate(policy)
            out +=
                "| \(policy) | \(a.verdicts[.dominates] ?? 0) | \(a.verdicts[.tradesOff] ?? 0) | \(a.verdicts[.indistinguishable] ?? 0) | \(a.verdicts[.dominated] ?? 0) | "
                + "\(percent(a.medianGapOracle)) (\(a.gapOracleTasks) of \(a.tasks)) | \(percent(a.medianGapProphet)) (\(a.gapProphetTasks) of \(a.tasks)) | \(a.constraintsPassed) of \(a.tasks) |\n"
        }
        out += "\n## Tasks\n\n"
        out +=
            "| task | policy | headline | policy − fixed | basis | J/day: policy − fixed | verdict | gap closed to oracle, % | to prophet, % | constraints |\n"
        out += "|---|---|---|---:|---|---:|---|---:|---:|---|\n"
        for s in card.scores {
            let ratio = MetricTable.named(s.headline)?.unit == "ratio"
            let dq =
                ratio ? percent(s.qualityDifference, signed: true) + " pts" : number(s.qualityDifference, signed: true)
            func gap(_ g: GapShare) -> String {
                switch g {
                case .defined(let mean, _): percent(mean)
                case .undefined(let reason): reason.replacingOccurrences(of: "_", with: " ")
                }
            }
            let failed = s.constraints.filter { !$0.passed }.map(\.constraint.metric)
            out +=
                "| \(s.task) | \(s.policy) | \(s.headline) | \(dq) | \(s.basis == .point ? "points" : "matched energy") | "
                + "\(s.energyDifference.map { number($0, signed: true) } ?? "0 (matched)") | \(s.verdict.rawValue.replacingOccurrences(of: "_", with: " ")) | "
                + "\(gap(s.gapOracle)) | \(gap(s.gapProphet)) | \(failed.isEmpty ? "met" : "failed: " + failed.joined(separator: ", ")) |\n"
        }
        if !card.suite.excluded.isEmpty {
            out += "\n## Left out of the suite\n\n"
            for line in card.suite.excluded { out += "- \(line)\n" }
        }
        return out
    }

    // MARK: scorecard.json

    struct Manifest: Encodable {
        struct Suite: Encodable {
            var name: String, version: String, sha256: String, quick: Bool, scope: String, tasks: [String]
            var bootstrapResamples: Int, bootstrapSeed: UInt64
        }
        struct Bgbench: Encodable { var version: String, gitCommit: String, gsl: String }
        struct Task: Encodable {
            var id: String, scenario: String, set: [String], population: String
            var devices: Int, days: Int, warmupDays: Int, seeds: [UInt64]
            var headline: String
            var resolvedScenarioSha256: String
            var policyParameters: [String: String]
            var externalPolicies: [String: ExternalPolicyIdentity]?
        }
        struct Execution: Encodable {
            var commandLine: [String], threads: Int, wallSeconds: Double, host: String, cachedTasks: [String]
            var shards: [ScorecardFiles.Execution.Shard]?
        }
        var schemaVersion = 1
        var suite: Suite
        var bgbench: Bgbench
        var policies: [String]
        var references: [String]
        /// The `--set policies....` overrides the policies were scored with.
        var policyOverrides: [String]
        var tasks: [Task]
        var execution: Execution
    }

    public static func json(_ card: Scorecard, records: [TaskRecord], overrides: [String], execution: Execution)
        -> String
    {
        let manifest = Manifest(
            suite: .init(
                name: card.suite.name, version: card.suite.version, sha256: card.suite.sha256, quick: card.quick,
                scope: card.scope.rawValue,
                tasks: card.tasks.map(\.id), bootstrapResamples: card.suite.bootstrapResamples,
                bootstrapSeed: card.suite.bootstrapSeed),
            bgbench: .init(version: BuildInfo.version, gitCommit: BuildInfo.gitCommit, gsl: BuildInfo.gslVersion),
            policies: card.policies, references: [FixedPolicy.name] + TaskScore.bounds, policyOverrides: overrides,
            tasks: records.map { r in
                let population: String
                switch r.task.population {
                case .model: population = "model"
                case .habits(let seed): population = "habits(seed=\(seed))"
                }
                return .init(
                    id: r.task.id, scenario: r.task.scenario, set: r.task.overrides, population: population,
                    devices: r.task.size.devices, days: r.task.size.days, warmupDays: r.task.size.warmupDays,
                    seeds: r.seeds, headline: card.scores.first { $0.task == r.task.id }?.headline ?? "",
                    resolvedScenarioSha256: r.resolvedScenarioSha256, policyParameters: r.policyParameters,
                    externalPolicies: r.external.isEmpty ? nil : r.external)
            },
            execution: .init(
                commandLine: execution.commandLine, threads: execution.threads, wallSeconds: execution.wallSeconds,
                host: execution.host, cachedTasks: execution.cachedTasks, shards: execution.shards))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return String(decoding: try! encoder.encode(manifest), as: UTF8.self) + "\n"
    }
}
