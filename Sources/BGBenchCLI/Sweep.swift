import BGBench
import Foundation

/// `bgbench sweep`: the cartesian grid of `--set PATH=V1,V2,...` axes, every point on the
/// same seed (so every point meets the same users and feed: common random numbers, and
/// differences between points are not noise). Every point is a full run with every run
/// option, each distinct configuration simulated once (SweepPlan); the folder holds each
/// file such a run writes with a column per swept parameter, long.csv, the points'
/// scenarios and run.json (SweepReport).
struct SweepCommand: CommandDefinition {
    struct Values {
        var run = RunArguments()
        /// `--baseline-point PATH=VALUE`, each as typed.
        var references: [(path: String, value: String, text: String)] = []
    }

    static let name = "sweep"
    static let synopsis = """
        bgbench sweep --set PATH=V1,V2,... [--set ...] [run options]
                                     the cartesian grid of the values, every point a
                                     full run on the same seed, into one folder: every
                                     report file with a column per parameter, long.csv,
                                     a Pareto column within each world, run.json
        """
    static let discussion: String? = """
        sweep: a --set with a comma-separated list of values is an axis of the grid.
        Parameters under 'policies.' are design axes, the others environment axes:
        summary.csv's pareto column compares only rows of the same environment values and
        archetype (Reports/README.md, "Sweeps"). A policy whose parameters an axis does
        not change is simulated once and shared by the points (byte-identical results).
        With --baseline-point, each point's policies are compared device by device with
        the same policies at its reference point: the point with the named axes at the
        values given and every other axis as its own (paired-points.csv); the named axes
        must be under 'policies.' or 'platform.', which change neither users nor content.
        The terminal shows a line per point and policy: the fleet's headline metrics
        (means over the seeds) and the Pareto mark; then which of the fleet's frontier
        marks are not significant: each frontier point against its neighbour on the
        frontier and each dominated point against the point dominating it, device by
        device (pareto-pairs.csv).
        """
    static let defaults: Values = {
        var values = Values()
        values.run.out = "Reports/sweep"
        return values
    }()
    static var options: [Option<Values>] {
        [
            .value(
                "baseline-point", "PATH=VALUE",
                expected: "PATH=VALUE with PATH a swept parameter and VALUE one of its values",
                help: "compare every point with the point that has PATH at VALUE (paired-points.csv)", repeatable: true
            ) { values, text, _ in
                guard let eq = text.firstIndex(of: "="), eq != text.startIndex, text.index(after: eq) != text.endIndex
                else {
                    throw CLIError.usage(
                        "invalid value '\(text)' for '--baseline-point': expected PATH=VALUE with PATH a swept parameter"
                    )
                }
                values.references.append((String(text[..<eq]), String(text[text.index(after: eq)...]), text))
            }
        ]
    }
    static var runOptions: [Option<Values>] { RunArguments.options.map { $0.lifted(\Values.run) } }
    static let endsCleanlyOnSignals = true
    /// The most points a sweep takes without `--yes` (docs/limits.md, "Caps").
    static let maxPoints = 10_000

    static func run<Out: TextOutputStream>(_ values: Values, _ invocation: Invocation, output: inout Out) throws {
        var common = values.run
        try common.finish()
        let axes = try common.overrides.map(Command.parseAxis)
        guard !axes.isEmpty else {
            throw CLIError.usage("'sweep' needs at least one '--set PATH=V1,V2,...' to sweep over")
        }
        if let twice = axes.map(\.path).enumerated().first(where: { i, p in axes[..<i].contains { $0.path == p } }) {
            throw CLIError.usage(
                "parameter '\(twice.element)' given twice in '--set': expected each swept parameter once, with all its values"
            )
        }
        try refuseRepeatedValues(axes, specs: common.overrides)
        let size = axes.reduce(1.0) { $0 * Double($1.values.count) }
        guard size <= Double(Self.maxPoints) || common.yes else {
            throw CLIError.usage(
                "the sweep has \(Int(size)) points (the product of its axes' value counts), more than the \(Self.maxPoints) a sweep takes without --yes (docs/limits.md, \"Caps\")"
            )
        }
        // The sweep is estimated from its axes' value counts and its first point alone
        // (SweepPlan.passes), and refused or shown before any other point is loaded and
        // planned: a sweep of 10⁶ points is priced at once (issue 25, probe 3.10), and one
        // beyond the machine is refused in seconds, not after its points are planned.
        let commandLine = ["bgbench"] + invocation.arguments
        let first = try common.request(
            Command.loadScenario(common.scenarioFile, overrides: axes.map { "\($0.path)=\($0.values[0])" }),
            commandLine: commandLine)
        var job = common.job(
            passes: SweepPlan.passes(axes: axes, policies: common.policies),
            results: Int(min(size, 1e15)) * common.policies.count, scenario: first.scenario.scenario,
            policies: common.policies)
        // Every point is loaded and planned, and held to the end (JobEstimate.pointBytes).
        job.shape.points = Int(min(size, 1e15))
        if common.estimateOnly { return output.write(try common.pipeline(.sweep, work: 0, job: job).admit(job)) }
        let references = try referencePoints(values.references, axes: axes, shard: common.options.shard)
        // Every point is loaded (and so validated) and planned before anything runs, after
        // the estimate, with a line on a terminal while it goes (minutes for 10⁶ points).
        func planPoints() throws -> (points: [[String]], requests: [RunRequest], plan: SweepPlan) {
            let points = Command.grid(axes)
            let planning = ProgressLine.make(
                total: points.count, quiet: common.quiet, lead: "planning: ", unit: "points")
            defer { planning?.finish() }
            var requests: [RunRequest] = []
            requests.reserveCapacity(points.count)
            for point in points {
                let overrides = zip(axes, point).map { "\($0.path)=\($1)" }
                requests.append(
                    try common.request(
                        Command.loadScenario(common.scenarioFile, overrides: overrides), commandLine: commandLine))
                planning?.advance(1)
            }
            try refuseRepeatedValues(axes, specs: common.overrides, points: points, scenarios: requests.map(\.scenario))
            let indices = references.map { r in points.indices.map(r.index) }
            return (points, requests, try SweepPlan(points: requests, references: indices))
        }
        // The sweep draws its own progress lines: the points planned, then the device-days.
        var pipeline = common.pipeline(.sweep, work: 0, job: job)
        pipeline.progressTotal = nil
        try pipeline.run(output: &output) { (_, staging: ReportPipeline.Staging) in
            let (points, requests, plan) = try planPoints()
            let progress = ProgressLine.make(total: plan.simulatedDeviceDays, quiet: common.quiet)
            defer { progress?.finish() }
            var advance: (@Sendable (Int) -> Void)?
            if let progress { advance = { progress.advance($0) } }
            // devices.csv and events.csv go into the staging folder as the devices finish,
            // each point's rows led by its values.
            let spool = try RunCommand.spool(
                staging, options: requests[0].options, columns: axes.map(\.path),
                results: zip(points, requests).flatMap { $1.rowLabels(lead: $0) })
            let run = try RunCommand.streamed(staging) { try plan.run(progress: advance, rows: spool) }
            var report = SweepReport(axes: axes, specs: common.overrides)
            report.streamed = try RunCommand.streamed(staging) { try spool?.finish() ?? [] }
            var state = ShardState(kind: .sweep)
            for (point, pointReport) in zip(points, run.reports) {
                report.add(point, report: pointReport)
                if common.options.shard != nil { state.add(pointReport) }
            }
            report.simulated = run.simulated
            // A shard's groups' joint sums after its points' results (SweepPlan.jointGroups' layout).
            if common.options.shard != nil { for group in run.joint { for sums in group.sums { state.add(sums) } } }
            state.rows = report.streamed
            if let references {
                report.pointPairs = PointPairs.csv(
                    axes: axes, values: points,
                    reference: points.indices.map { references.index($0) == nil ? "" : references.name },
                    reports: run.reports,
                    comparisons: run.comparisons)
            }
            let pareto = report.paretoPairs(reports: run.reports, joint: run.joint)
            report.paretoPairs = pareto?.csv
            let shardFiles =
                common.options.shard == nil
                ? []
                : [
                    (
                        ShardState.fileName,
                        ShardState.text(sweep: axes, specs: common.overrides, points: points, reports: state)
                    )
                ]
            let seeds =
                common.replications > 1
                ? "seeds \(common.options.seed)–\(common.options.seed + UInt64(common.replications) - 1)"
                : "seed \(common.options.seed)"
            let shared =
                run.arms < points.count * common.policies.count
                ? " (\(run.arms) distinct configurations simulated per seed)" : ""
            let folder = report.folder(extra: shardFiles)
            return .init(
                files: folder.files,
                text: SweepTable.render(
                    report, headline: requests[0].scenario.scenario.report.headline,
                    replications: common.replications)
                    + (pareto.map { SweepTable.paretoLines($0.verdicts, replications: common.replications) } ?? "")
                    + "\(points.count) points × \(common.policies.count) policies\(shared), \(seeds): \(SummaryTable.fixed(run.wallSeconds, 2)) s\n",
                seconds: run.wallSeconds, deviceDays: run.simulated.deviceDays, names: folder.names)
        }
    }
}

extension SweepCommand {
    /// A value given twice on an axis, or two spellings of one value (`15m,900s`,
    /// `0.1,0.10`): two points would be one scenario, simulated twice and each other's
    /// equal on the Pareto frontier. Compared as the loader resolves them: two points
    /// whose loaded scenarios are the same.
    static func refuseRepeatedValues(
        _ axes: [SweepAxis], specs: [String], points: [[String]], scenarios: [LoadedScenario]
    ) throws {
        try refuseRepeatedValues(axes, specs: specs)
        var seen: [String: Int] = [:]
        for (j, loaded) in scenarios.enumerated() {
            guard let i = seen.updateValue(j, forKey: loaded.resolvedSha256) else { continue }
            let a = points[i].indices.first { points[i][$0] != points[j][$0] } ?? 0
            throw CLIError.usage(
                "invalid value '\(specs[a])' for '--set': '\(points[i][a])' and '\(points[j][a])' are the same value")
        }
    }

    /// A value given twice on an axis, from the axes alone (before any point is loaded).
    static func refuseRepeatedValues(_ axes: [SweepAxis], specs: [String]) throws {
        for (axis, spec) in zip(axes, specs) {
            var seen = Set<String>()
            if let twice = axis.values.first(where: { !seen.insert($0).inserted }) {
                throw CLIError.usage("invalid value '\(spec)' for '--set': value '\(twice)' given twice")
            }
        }
    }

    /// For `--baseline-point`, each point's reference point (its index in the grid,
    /// ``Command/grid(_:)``, from the point's; nil for a point that is its own reference)
    /// and the reference's name, `PATH=VALUE` of the named axes; nil without the option.
    /// Checked from the axes alone, before any point is loaded.
    static func referencePoints(
        _ specs: [(path: String, value: String, text: String)], axes: [SweepAxis], shard: Shard?
    ) throws -> (index: (Int) -> Int?, name: String)? {
        guard !specs.isEmpty else { return nil }
        guard shard == nil else {
            throw CLIError.usage(
                "'--baseline-point' cannot be used with '--shard': the points' device-by-device comparisons are not in shard.state; run the sweep whole"
            )
        }
        var fixed: [Int: String] = [:]
        for spec in specs {
            guard let a = axes.firstIndex(where: { $0.path == spec.path }) else {
                throw CLIError.usage(
                    "invalid value '\(spec.text)' for '--baseline-point': '\(spec.path)' is not a swept parameter (the axes: \(axes.map(\.path).joined(separator: ", ")))"
                )
            }
            guard axes[a].values.contains(spec.value) else {
                throw CLIError.usage(
                    "invalid value '\(spec.text)' for '--baseline-point': '\(spec.value)' is not one of \(spec.path)'s values (\(axes[a].values.joined(separator: ", ")))"
                )
            }
            guard spec.path.hasPrefix("policies.") || spec.path.hasPrefix("platform.") else {
                throw CLIError.usage(
                    "invalid value '\(spec.text)' for '--baseline-point': points that differ in '\(spec.path)' meet different users or content, so they cannot be compared device by device; expected a swept parameter under 'policies.' or 'platform.'"
                )
            }
            guard fixed.updateValue(spec.value, forKey: a) == nil else {
                throw CLIError.usage("'--baseline-point' given twice for parameter '\(spec.path)'")
            }
        }
        let name = fixed.keys.sorted().map { "\(axes[$0].path)=\(fixed[$0]!)" }.joined(separator: ";")
        // Point k's value on axis a is its digit k / stride[a] % count[a]; its reference has
        // the fixed axes' digits at their values' (the first, as a sweep's values are distinct).
        let counts = axes.map(\.values.count)
        let strides = counts.indices.map { a in counts[(a + 1)...].reduce(1, &*) }
        let digits = fixed.map { a, value in (axis: a, digit: axes[a].values.firstIndex(of: value)!) }
        return (
            { k in
                let r = digits.reduce(k) { r, d in
                    r + (d.digit - k / strides[d.axis] % counts[d.axis]) * strides[d.axis]
                }
                return r == k ? nil : r
            }, name
        )
    }
}

extension Command {
    typealias Axis = SweepAxis

    /// `PATH=V1,V2,...`: commas inside brackets or braces belong to a value (`[1,2]`).
    static func parseAxis(_ text: String) throws -> Axis {
        guard let eq = text.firstIndex(of: "="), eq != text.startIndex else {
            throw CLIError.usage("invalid value '\(text)' for '--set': expected PATH=V1,V2,...")
        }
        var values: [String] = [], current = "", depth = 0
        for ch in text[text.index(after: eq)...] {
            if ch == "[" || ch == "{" { depth += 1 }
            if ch == "]" || ch == "}" { depth -= 1 }
            if ch == "," && depth == 0 { values.append(current); current = "" } else { current.append(ch) }
        }
        values.append(current)
        guard !values.contains(where: \.isEmpty) else {
            throw CLIError.usage("invalid value '\(text)' for '--set': expected PATH=V1,V2,... with no empty value")
        }
        return SweepAxis(path: String(text[..<eq]), values: values)
    }

    /// The cartesian product of the axes' values, the last axis varying fastest.
    static func grid(_ axes: [Axis]) -> [[String]] {
        axes.reduce([[]]) { points, axis in points.flatMap { p in axis.values.map { p + [$0] } } }
    }
}
