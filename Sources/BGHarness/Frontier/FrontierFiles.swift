import BGBench
import BGNumerics

/// The files of a frontier folder (Reports/README.md, "A frontier folder"): summary.csv,
/// paired.csv and (replicated) replications.csv as a run writes them with one row per arm,
/// frontier.csv, frontier-matched.csv, scenario.json and run.json (with the arms).
public enum FrontierFiles {
    /// The metrics frontier.csv shows for each arm after its quality axis, each with its
    /// paired difference (the columns of `ReportFile.frontier`'s header).
    public static let metrics = MetricTable.defaultHeadline

    /// Every file, in writing order, run.json last with the manifest of the others.
    public static func files(_ report: FrontierReport) -> [(String, String)] {
        let run = report.run
        var summary = CSVWriter("")
        summary.row(SummarySchema.header)
        for row in ReportWriter.summaryRows(run) { summary.row(row) }
        var files: [(String, String)] = [
            (ReportFile.summary.name, summary.output),
            (ReportFile.frontier.name, frontierCSV(report)),
            (ReportFile.frontierMatched.name, matchedCSV(report)),
            (ReportFile.paired.name, SeriesReports.pairedCSV(run, baseline: report.arms[0].label)),
        ]
        if run.request.replications > 1 {
            files.append((ReportFile.replications.name, SeriesReports.replicationsCSV(run)))
        }
        files.append((ReportFile.paretoPairs.name, report.paretoPairs().csv))
        files.append((ReportFile.scenario.name, report.request.scenario.resolvedJSON(policies: uniquePolicies(report))))
        files.append(
            (
                ReportFile.long.name,
                LongTable.frontierCSV(files) { label in
                    let arm = report.arms.first { $0.label == label }
                    return LongTable.frontierFields(policy: arm?.policy ?? label, knob: arm?.knob, value: arm?.value)
                }
            ))
        if run.request.options.shard != nil { files.append((ShardState.fileName, ShardState.text(report))) }
        let manifest = ReportWriter.manifest(files)
        let arms = report.arms.map {
            RunManifest.FrontierArm(label: $0.label, policy: $0.policy, knob: $0.knob, value: $0.value)
        }
        let frontier = RunManifest.Frontier(
            baseline: report.arms[0].label, arms: arms, quality: report.quality.metric.name,
            comparisons: report.request.comparisons.isEmpty
                ? nil : report.request.comparisons.map { [$0.policy, $0.reference] },
            energyLevels: report.request.energyLevels,
            energyRange: report.request.energyRange.map { [$0.lowerBound, $0.upperBound] })
        files.append(
            (
                ReportFile.run.name,
                ReportWriter.runJSON(
                    run, manifest: manifest, frontier: frontier,
                    resolvedSha256: report.request.scenario.resolvedSha256(policies: uniquePolicies(report)))
            ))
        return files
    }

    /// shard.state of a whole frontier (shard 0 of 1): what `bgbench suite`'s task cache
    /// keeps, read back by ``ShardMerge/merge(_:threads:started:rowsInto:critical:)``.
    public static func shardState(_ report: FrontierReport) -> String { ShardState.text(report) }

    static func uniquePolicies(_ report: FrontierReport) -> [String] {
        var seen: Set<String> = []
        return report.arms.map(\.policy).filter { seen.insert($0).inserted }
    }

    /// frontier.csv: one row per arm and seed (`interval` = `devices`: the paired
    /// device-clustered interval of that seed) and, replicated, one per arm across the seeds
    /// (`seeds`: the mean and the Student-t interval of the per-seed paired differences).
    public static func frontierCSV(_ report: FrontierReport) -> String {
        let run = report.run
        let name = run.request.scenario.scenario.name
        let baseline = report.arms[0].label
        let battery = run.request.scenario.scenario.device.batteryWh * 3600
        let quality = report.quality.metric
        let metricRows = ([quality.name] + metrics).map { metric in
            (MetricTable.named(metric)!, MetricTable.pairedMetrics.firstIndex { $0.metric.name == metric }!)
        }
        var csv = CSVWriter("")
        csv.row(ReportFile.frontier.header!)
        func identity(_ arm: FrontierArm) -> [String] {
            [name, arm.policy, arm.label, arm.knob ?? "", arm.value ?? "", baseline]
        }
        // The Pareto marks: on the means over the seeds, in the row's seed, the seeds' share.
        let pareto = report.paretoMembership
        func marks(_ i: Int, seed s: Int?) -> [String] {
            [
                SeriesReports.mark(pareto.pooled[i]), s.map { SeriesReports.mark(pareto.inSeed[$0][i]) } ?? "",
                CSVNumber.format(pareto.share[i]),
            ]
        }
        for r in run.results {
            let i = report.arms.firstIndex { $0.label == r.policy }!, arm = report.arms[i]
            let s = report.seeds.firstIndex(of: r.seed)!
            let estimates = FleetEstimates(tally: r.tally, days: run.countedDays)
            let paired = r.policy == baseline ? nil : SeriesReports.pairedEstimates(run, r)
            var row = identity(arm) + [String(r.seed), "devices", String(r.tally.devices), quality.name]
            for (metric, k) in metricRows {
                let d = paired?[k].difference
                row += [
                    CSVNumber.format(metric.kind.estimate(estimates, batteryJoules: battery).value),
                    CSVNumber.format(d?.value), CSVNumber.format(d?.low), CSVNumber.format(d?.high),
                ]
            }
            csv.row(row + marks(i, seed: s))
        }
        guard run.request.replications > 1 else { return csv.output }
        for (i, arm) in report.arms.enumerated() {
            let runs = run.results.filter { $0.policy == arm.label }
            let paired = arm.label == baseline ? nil : SeriesReports.pairedAcrossSeeds(run, policy: arm.label)
            var row = identity(arm) + ["", "seeds", String(runs.first?.tally.devices ?? 0), quality.name]
            for (metric, k) in metricRows {
                let values = runs.map {
                    metric.kind.estimate(FleetEstimates(tally: $0.tally, days: run.countedDays), batteryJoules: battery)
                        .value
                }
                let d = paired?[k].mean
                row += [
                    CSVNumber.format(values.reduce(0, +) / Double(max(1, values.count))),
                    CSVNumber.format(d?.value), CSVNumber.format(d?.low), CSVNumber.format(d?.high),
                ]
            }
            csv.row(row + marks(i, seed: nil))
        }
        return csv.output
    }

    /// frontier-matched.csv: per seed (`devices`) and, replicated, across seeds (`seeds`),
    /// each policy's quality (the request's axis, named in the `quality` column) at the
    /// baseline's J/day and at the fixed levels, and the area under its curve over the
    /// common energy range, with their differences.
    public static func matchedCSV(_ report: FrontierReport) -> String {
        let name = report.run.request.scenario.scenario.name
        let baseline = report.arms[0].label
        var csv = CSVWriter("")
        csv.row(ReportFile.frontierMatched.header!)
        var blocks = report.seeds.indices.map { (String(report.seeds[$0]), "devices", report.matched(seed: $0)) }
        if report.seeds.count > 1 { blocks.append(("", "seeds", report.matchedAcrossSeeds())) }
        for (seed, interval, rows) in blocks {
            for m in rows {
                let excludes = m.difference.flatMap { d in d.low.map { $0 > 0 || d.high! < 0 } }
                csv.row([
                    name, m.policy, baseline, seed, interval, report.quality.metric.name, m.measure.rawValue,
                    CSVNumber.format(m.energy),
                    CSVNumber.format(m.range?.lowerBound), CSVNumber.format(m.range?.upperBound),
                    CSVNumber.format(m.value?.value), CSVNumber.format(m.value?.low), CSVNumber.format(m.value?.high),
                    m.reference, CSVNumber.format(m.difference?.value), CSVNumber.format(m.difference?.low),
                    CSVNumber.format(m.difference?.high), SeriesReports.mark(excludes), m.status,
                ])
            }
        }
        return csv.output
    }
}

extension ShardState {
    /// shard.state of a frontier: its run of every arm and the joint sums per seed.
    static func text(_ report: FrontierReport) -> String {
        var state = ShardState(kind: .frontier)
        state.add(report.run)
        for sums in report.jointSums { state.add(sums) }
        state.frontier = header(report.request, quality: report.quality)
        return state.text(commandLine: report.request.commandLine)
    }

    /// shard.state of a suite's shard: each task's frontier run, then each task's joint
    /// sums per seed, in task order (what ``ShardMerge`` reads back per task).
    package static func text(suite: ShardHeader.Suite, tasks: [FrontierReport], commandLine: [String]) -> String {
        var state = ShardState(kind: .suite)
        for report in tasks { state.add(report.run) }
        for report in tasks { for sums in report.jointSums { state.add(sums) } }
        state.suite = suite
        state.frontiers = tasks.map { header($0.request, quality: $0.quality) }
        return state.text(commandLine: commandLine)
    }

    /// The request of a frontier as its shards record it.
    static func header(_ r: FrontierRequest, quality: FrontierAxis) -> ShardHeader.Frontier {
        ShardHeader.Frontier(
            policies: r.policies, baselinePolicy: r.baselinePolicy, knobValues: r.knobValues,
            quality: quality.metric.name, comparisons: r.comparisons.map { [$0.policy, $0.reference] },
            energyLevels: r.energyLevels,
            energyRange: r.energyRange.map { [$0.lowerBound, $0.upperBound] }, points: r.points)
    }
}
