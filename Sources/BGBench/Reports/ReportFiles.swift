/// The kinds of report folder, by the command that makes them: a run's (a run, a shard, a
/// merged run), a sweep's and a frontier's. run.json says which (`ReportManifest`), and so
/// does a shard's header.
public enum ReportKind: String, Codable, Sendable, CaseIterable {
    case run, sweep, frontier
    /// `bgbench suite`'s scorecard folder.
    case suite
}

/// Every file bgbench writes into a report folder, once: its name, its format (a CSV's
/// header), the folders it is written in and when, who writes it, and how `check` and
/// `merge` read it back (ReportFilesTests checks that each folder kind writes exactly its
/// entries). `check`'s list and order of report files, the headers it
/// validates, plot's PNG names and the file table of Reports/README.md (between its
/// report-files markers) derive from it. A new report file is one entry here and its
/// writer (the function `writer` names), which puts `ReportFile.x.name` in its folder's
/// file list.
public struct ReportFile: Sendable, Equatable {
    /// The file's name; for a numbered family (a sweep's points), its pattern with `K`.
    public let name: String
    public let format: Format
    /// The folders it can be in (a merged folder is of its shards' kind; a shard folder is
    /// of its command's kind, with shard.state).
    public let folders: Set<ReportKind>
    /// When it is written: Reports/README.md's "when" column.
    public let when: String
    /// The function that writes it, for whoever changes it.
    public let writer: String
    public let readBack: ReadBack
    /// What it holds: Reports/README.md's "what" column.
    public let what: String

    public enum Format: Sendable, Equatable {
        /// RFC 4180 CSV with this header (a sweep's files lead with its axis columns).
        case csv(header: [String])
        case json
        /// Plain text (Markdown).
        case text
        /// A shard's sufficient statistics (ShardState).
        case state
        /// A figure `bgbench plot` draws, signed in a PNG text chunk (it comes after
        /// run.json, so no manifest lists it).
        case png
    }

    /// How the commands that read report folders read this file back.
    public enum ReadBack: Sendable, Equatable {
        /// `check` verifies it against the manifest, reads it (a CSV's header and numbers
        /// validated) and `check --exact` compares it byte for byte; `check --update`
        /// copies it.
        case compared
        /// run.json: read field by field (the build and execution fields aside).
        case runJSON
        /// `merge` adds it up (hashed; the other files of a shard are checked by size).
        case merged
        /// Not read back; replaced with the folder when bgbench's signature is on it.
        case drawn
    }

    /// Whether `name` is this file's (a family's pattern matches any number for `K`).
    public func matches(_ name: String) -> Bool {
        guard let k = self.name.firstIndex(of: "K") else { return name == self.name }
        let prefix = self.name[..<k], suffix = self.name[self.name.index(after: k)...]
        guard name.hasPrefix(prefix), name.hasSuffix(suffix), name.count > prefix.count + suffix.count else {
            return false
        }
        return name.dropFirst(prefix.count).dropLast(suffix.count).allSatisfy(\.isNumber)
    }

    /// The CSV header, nil for another format.
    public var header: [String]? { if case .csv(let header) = format { header } else { nil } }
}

extension ReportFile {
    static let runs: Set<ReportKind> = [.run, .sweep]
    static let every: Set<ReportKind> = [.run, .sweep, .frontier]

    public static let summary = ReportFile(
        name: "summary.csv", format: .csv(header: SummarySchema.header), folders: every, when: "always",
        writer: "ReportWriter.summaryCSV", readBack: .compared,
        what: "the results: one row per policy × archetype (`all` for the fleet)")
    public static let daily = ReportFile(
        name: "daily.csv", format: .csv(header: SeriesReports.dailyHeader), folders: runs, when: "always",
        writer: "SeriesReports.dailyCSV", readBack: .compared, what: "day × policy: the learning curves over the run")
    public static let hourly = ReportFile(
        name: "hourly.csv", format: .csv(header: SeriesReports.hourlyHeader), folders: runs, when: "always",
        writer: "SeriesReports.hourlyCSV", readBack: .compared, what: "hour of day × policy: the diurnal picture")
    public static let server = ReportFile(
        name: "server.csv", format: .csv(header: SeriesReports.serverHeader), folders: runs, when: "always",
        writer: "SeriesReports.serverCSV", readBack: .compared,
        what: "the fleet's requests per minute of the UTC day: mean and peak")
    public static let devices = ReportFile(
        name: "devices.csv", format: .csv(header: SeriesReports.devicesHeader), folders: runs, when: "`--per-device`",
        writer: "SeriesReports.devicesCSV", readBack: .compared, what: "device × policy: every device's totals")
    public static let events = ReportFile(
        name: "events.csv", format: .csv(header: SeriesReports.eventsHeader), folders: runs,
        when: "`--trace-devices K`",
        writer: "SeriesReports.eventsCSV", readBack: .compared,
        what: "every event of the first K devices, each with its reason code")
    public static let paired = ReportFile(
        name: "paired.csv", format: .csv(header: SeriesReports.pairedHeader), folders: every,
        when:
            "more than one policy (baseline: `fixed` when it runs, else the first listed; `--baseline-policy NAME` chooses); a frontier: always",
        writer: "SeriesReports.pairedCSV", readBack: .compared,
        what:
            "each policy minus the baseline policy, device by device, every metric that splits by device, with 95 % intervals"
    )
    public static let pairedArchetypes = ReportFile(
        name: "paired-archetypes.csv", format: .csv(header: SeriesReports.pairedArchetypesHeader), folders: runs,
        when: "as paired.csv (not in a frontier folder)", writer: "SeriesReports.pairedArchetypesCSV",
        readBack: .compared,
        what:
            "paired.csv within each archetype: each policy minus the baseline policy over the archetype's devices, per seed and across seeds, with 95 % intervals (\"paired-archetypes.csv\" below)"
    )
    public static let replications = ReportFile(
        name: "replications.csv", format: .csv(header: SeriesReports.replicationsHeader), folders: every,
        when: "`--replications R`, R ≥ 2", writer: "SeriesReports.replicationsCSV", readBack: .compared,
        what:
            "every fleet metric across independent seeds: mean, sd, interval; and each policy minus the baseline across the seeds"
    )
    public static let frontier = ReportFile(
        name: "frontier.csv",
        // The quality axis (named in `quality_metric`), then each default headline metric
        // (`FrontierFiles.metrics`), each with its paired difference.
        format: .csv(
            header: [
                "scenario", "policy", "arm", "knob", "knob_value", "baseline", "seed", "interval", "devices",
                "quality_metric",
            ]
                + (["quality"] + MetricTable.defaultHeadline).flatMap {
                    [$0, $0 + "_difference", $0 + "_difference_ci_low", $0 + "_difference_ci_high"]
                } + ["pareto", "pareto_in_seed", "pareto_share"]),
        folders: [.frontier],
        when: "`bgbench frontier` (\"A frontier folder\" below)", writer: "FrontierFiles.frontierCSV",
        readBack: .compared,
        what: "each arm (policy × knob value) against the baseline's point")
    public static let frontierMatched = ReportFile(
        name: "frontier-matched.csv",
        format: .csv(header: [
            "scenario", "policy", "baseline", "seed", "interval", "quality", "measure", "energy_j_per_day",
            "energy_low_j_per_day",
            "energy_high_j_per_day", "value", "value_ci_low", "value_ci_high", "reference", "difference",
            "difference_ci_low",
            "difference_ci_high", "excludes_zero", "status",
        ]),
        folders: [.frontier],
        when: "`bgbench frontier`", writer: "FrontierFiles.matchedCSV", readBack: .compared,
        what:
            "each policy's quality (the fresh-open rate, or `--quality`) at matched energy and the area under its curve"
    )
    public static let pointPairs = ReportFile(
        name: "paired-points.csv", format: .csv(header: PointPairs.header), folders: [.sweep],
        when: "`bgbench sweep --baseline-point PATH=VALUE`", writer: "PointPairs.csv", readBack: .compared,
        what:
            "each policy at each point minus the same policy at its reference point, device by device, with 95 % intervals (\"Points compared\" below)"
    )
    public static let paretoPairs = ReportFile(
        name: "pareto-pairs.csv", format: .csv(header: ParetoPairs.header), folders: [.sweep, .frontier],
        when:
            "`bgbench sweep` of at most \(SweepPlan.maxJointArms) distinct configurations meeting the same users; `bgbench frontier`: always",
        writer: "SweepReport.paretoPairs, FrontierReport.paretoPairs", readBack: .compared,
        what:
            "each frontier point of the fleet (a frontier's: arm) minus its neighbour on the frontier, and each dominated point minus the frontier point dominating it: fresh-open rate and J/day, device by device, with 95 % intervals (\"Pareto pairs\" below)"
    )
    public static let long = ReportFile(
        name: "long.csv", format: .csv(header: LongTable.header), folders: every, when: "always",
        writer: "LongTable", readBack: .compared,
        what:
            "every figure of summary.csv, paired.csv and replications.csv in long (tidy) form, one row each, with its unit and the kind of its interval (\"long.csv\" below)"
    )
    public static let scenario = ReportFile(
        name: "scenario.json", format: .json, folders: [.run, .frontier], when: "always",
        writer: "LoadedScenario.resolvedJSON",
        readBack: .compared,
        what:
            "the resolved scenario of the run: the parameters of the components it uses (the run's policies, its platform, its content kind; docs/scenario.md, \"`bgbench scenario`\"); what `bgbench scenario --policy P,...` prints; it loads back with `--scenario`"
    )
    public static let scenarioPoint = ReportFile(
        name: "scenario-K.json", format: .json, folders: [.sweep], when: "`bgbench sweep`: one per point",
        writer: "SweepReport.folder", readBack: .compared,
        what: "point K's resolved scenario (K = 1, 2, ... in grid order)")
    public static let shardState = ReportFile(
        name: "shard.state", format: .state, folders: every.union([.suite]), when: "`--shard K/N`",
        writer: "ShardState.text", readBack: .merged,
        what:
            "a shard's sufficient statistics: what `bgbench merge` adds up (\"Shards\" below); a suite's shard folder holds it and run.json only, each task's frontier in turn"
    )
    public static let scorecardCSV = ReportFile(
        name: "scorecard.csv", format: .csv(header: scorecardHeader), folders: [.suite], when: "`bgbench suite`",
        writer: "ScorecardFiles.csv", readBack: .compared,
        what:
            "a suite's scores in tidy form: one row per task × policy × quantity (the points, the difference from `fixed` at matched energy or at the points, the verdict, the gaps closed, each constraint) across seeds, the differences and gaps also seed by seed (`seed`), then the aggregates as task `all`; `scope` says what it can be compared with (docs/suite.md)"
    )
    public static let scorecardMarkdown = ReportFile(
        name: "scorecard.md", format: .text, folders: [.suite], when: "`bgbench suite`",
        writer: "ScorecardFiles.markdown", readBack: .compared,
        what: "the scorecard's tables, ready for a paper or a README")
    public static let scorecardJSON = ReportFile(
        name: "scorecard.json", format: .json, folders: [.suite], when: "`bgbench suite`",
        writer: "ScorecardFiles.json", readBack: .compared,
        what:
            "what was scored: the suite's version and SHA-256, bgbench's version and commit, every task's fleet, seeds and resolved scenario's SHA-256, the policies' parameters and an external policy's handshake; the host and wall time"
    )
    /// scorecard.csv's columns (`ScorecardFiles.csv` writes them).
    public static let scorecardHeader = [
        "suite_version", "scope", "task", "policy", "quantity", "metric", "seed", "value", "ci_low", "ci_high", "unit",
        "interval", "status",
    ]
    public static let run = ReportFile(
        name: "run.json", format: .json, folders: every.union([.suite]), when: "always", writer: "ReportWriter.runJSON",
        readBack: .runJSON,
        what: "what ran and how fast, and the manifest of every other file (name, size, SHA-256); written last")
    public static let headlinePNG = ReportFile(
        name: "headline.png", format: .png, folders: [.run, .frontier], when: "`bgbench plot`",
        writer: "Reports/plot.py",
        readBack: .drawn,
        what: "the headline metrics: each policy's paired difference from the baseline (\"Plots\" below)")
    public static let frontierPNG = ReportFile(
        name: "frontier.png", format: .png, folders: every, when: "`bgbench plot`", writer: "Reports/plot.py",
        readBack: .drawn,
        what: "the quality (first headline metric) against background energy per device-day, with paired intervals")
    public static let dailyPNG = ReportFile(
        name: "daily.png", format: .png, folders: [.run], when: "`bgbench plot`", writer: "Reports/plot.py",
        readBack: .drawn, what: "the learning curves of the headline metrics as paired differences from the baseline")
    public static let hourlyPNG = ReportFile(
        name: "hourly.png", format: .png, folders: [.run], when: "`bgbench plot`", writer: "Reports/plot.py",
        readBack: .drawn,
        what: "the share of opens by hour of the day, and the headline metrics by hour, weighted by that share")
    public static let frontierCurvesPNG = ReportFile(
        name: "frontier-curves.png", format: .png, folders: [.frontier], when: "`bgbench plot`",
        writer: "Reports/plot.py",
        readBack: .drawn,
        what: "each policy's curve through its knob values against the baseline, with paired intervals")
    public static let stalenessPNG = ReportFile(
        name: "staleness.png", format: .png, folders: [.run], when: "`bgbench plot`", writer: "Reports/plot.py",
        readBack: .drawn, what: "the distribution of staleness at opens, an ECDF per policy")
    public static let energyPNG = ReportFile(
        name: "energy.png", format: .png, folders: [.run], when: "`bgbench plot`", writer: "Reports/plot.py",
        readBack: .drawn, what: "energy per device-day by what spends it, and the work behind it, per policy")
    public static let scorecardPNG = ReportFile(
        name: "scorecard.png", format: .png, folders: [.suite], when: "`bgbench plot`", writer: "Reports/plot.py",
        readBack: .drawn,
        what: "per task, the share of the gaps to oracle and prophet each policy closes, and its verdict against fixed")

    /// Every report file, in the order `check --exact` compares them and `check --update`
    /// copies them (run.json last, as it marks a complete folder), the figures after.
    public static let all: [ReportFile] = [
        summary, daily, hourly, server, devices, events, paired, pairedArchetypes, replications, frontier,
        frontierMatched, pointPairs,
        paretoPairs, long,
        scenario,
        scenarioPoint, shardState, scorecardCSV, scorecardMarkdown, scorecardJSON, run, headlinePNG, frontierPNG,
        dailyPNG, hourlyPNG, frontierCurvesPNG, stalenessPNG,
        energyPNG, scorecardPNG,
    ]

    /// The entry whose name (or pattern) `name` is.
    public static func named(_ name: String) -> ReportFile? { all.first { $0.matches(name) } }

    /// Reports/README.md's table of files (between its report-files markers).
    public static func markdownTable() -> String {
        var out = "| file | what | when | folders |\n|---|---|---|---|\n"
        for file in all {
            let folders = ReportKind.allCases.filter(file.folders.contains).map(\.rawValue).joined(separator: ", ")
            out += "| `\(file.name)` | \(file.what) | \(file.when) | \(folders) |\n"
        }
        return out
    }
}
