import Foundation

/// One axis of a sweep: a scenario parameter by its JSON path and its values as typed.
public struct SweepAxis: Sendable, Equatable {
    public var path: String
    public var values: [String]
    public init(path: String, values: [String]) { self.path = path; self.values = values }

    /// A design axis (a parameter under `policies.`: what the app's designer chooses);
    /// every other axis describes the world the app runs in (an environment axis).
    public var isDesign: Bool { path.hasPrefix("policies.") }
}

/// The report folder of `bgbench sweep` (Reports/README.md, "Sweeps"): every point of the
/// grid is a full run, and every file such a run writes (``ReportWriter/reportFiles(_:)``)
/// becomes one file of the sweep, each row led by the point's values (one column per axis).
/// Beside them `long.csv` (every figure in long form), one `scenario-K.json` per point and
/// run.json with the sweep's provenance and the manifest of the folder.
/// Add each point's run in grid order with ``add(_:report:)``; ``folder(extra:)`` renders
/// the folder. A whole sweep's devices.csv and events.csv are streamed into its staging
/// folder instead (``RowSpool``, ``SweepPlan/run(progress:rows:)``): set ``streamed``
/// before adding the points.
public struct SweepReport {
    public let axes: [SweepAxis]
    /// The `--set` options as typed (run.json's `scenario_overrides`).
    public let specs: [String]
    private(set) var points: [Point] = []
    private var base: RunManifest?
    /// The device-days and events simulated (run.json's rates): a sweep simulates each
    /// distinct configuration once (`SweepPlan`), fewer than its points'; nil for those.
    public var simulated: (deviceDays: Int, events: Double)?
    /// paired-points.csv's text (`--baseline-point`; ``PointPairs``), nil without it.
    public var pointPairs: String?
    /// pareto-pairs.csv's text (``ParetoPairs``), nil when no group kept its joint sums.
    public var paretoPairs: String?
    /// The files a ``RowSpool`` wrote into the folder (devices.csv, events.csv): the points'
    /// runs leave them out, and the manifest lists them where the points' files have them.
    public var streamed: [RowSpool.Written] = []

    struct Point {
        var values: [String]
        var overrides: [String]
        var resolvedSha256: String
        /// The run's files (ReportWriter.reportFiles) but summary.csv, whose rows are kept as fields.
        var files: [(String, String)]
        var summary: [[String]]
        var deviceDays: Int
        var events: Double
        var wallSeconds: Double
    }

    public init(axes: [SweepAxis], specs: [String]) { self.axes = axes; self.specs = specs }

    /// Adds the next point of the grid (`values`: one per axis) with its run.
    public mutating func add(_ values: [String], report: RunReport) {
        let r = report.request
        if base == nil { base = ReportWriter.runManifest(report, manifest: []) }
        points.append(
            Point(
                values: values, overrides: r.scenario.overrides,
                resolvedSha256: r.scenario.resolvedSha256(policies: r.policies),
                files: ReportWriter.reportFiles(report, streamed: Set(streamed.map(\.name))).filter {
                    $0.0 != ReportFile.summary.name
                },
                summary: ReportWriter.summaryRows(report), deviceDays: report.deviceDays,
                events: report.events, wallSeconds: report.wallSeconds))
    }

    /// The name of point K's resolved scenario (K from 1, in grid order).
    public static func scenarioFile(_ k: Int) -> String {
        ReportFile.scenarioPoint.name.replacingOccurrences(of: "K", with: String(k))
    }

    /// The sweep's `resolved_scenario_sha256`: SHA-256 of its points' resolved-scenario
    /// hashes, one per line in grid order; two sweeps have the same one when every point
    /// resolves to the same scenario.
    static func combinedSha256(_ hashes: [String]) -> String {
        SHA256.hex(Array(hashes.map { $0 + "\n" }.joined().utf8))
    }

    /// Every file of the sweep's folder to write as (name, text), run.json last with the
    /// manifest; `extra` files (a shard's shard.state) just before it; and every file's name
    /// in writing order, the ``streamed`` ones included (the manifest's, then run.json).
    public func folder(extra: [(String, String)] = []) -> (files: [(String, String)], names: [String]) {
        guard let first = points.first, var manifest = base else { return ([], []) }
        var files: [(String, String)] = [(ReportFile.summary.name, summaryCSV())]
        for (name, _) in first.files where name.hasSuffix(".csv") {
            var text = CSVWriter("")
            text.row(axes.map(\.path))
            var out =
                String(text.output.dropLast()) + "," + String(Self.records(first.files.first { $0.0 == name }!.1)[0])
                + "\n"
            for point in points {
                let prefix = point.values.map(CSVWriter<String>.quote).joined(separator: ",") + ","
                let records = Self.records(point.files.first { $0.0 == name }!.1)
                for record in records.dropFirst() { out += prefix + record + "\n" }
            }
            files.append((name, out))
        }
        if let pointPairs { files.append((ReportFile.pointPairs.name, pointPairs)) }
        if let paretoPairs { files.append((ReportFile.paretoPairs.name, paretoPairs)) }
        files.append(
            (
                ReportFile.long.name,
                LongTable.sweepCSV(axes: axes, points: points.map { ($0.values, $0.summary, $0.files) })
            ))
        for (k, point) in points.enumerated() {
            files.append((Self.scenarioFile(k + 1), point.files.first { $0.0 == ReportFile.scenario.name }!.1))
        }
        // Every point's report carries the whole sweep's (or merge's) wall time.
        let wall = points.map(\.wallSeconds).max() ?? 0
        let deviceDays = points.reduce(0) { $0 + $1.deviceDays }, events = points.reduce(0) { $0 + $1.events }
        manifest.scenarioOverrides = specs
        manifest.resolvedScenarioSha256 = Self.combinedSha256(points.map(\.resolvedSha256))
        manifest.deviceDays = deviceDays
        manifest.events = Int(events)
        manifest.execution.wallSeconds = wall
        manifest.execution.deviceDaysPerSecond = Double(simulated?.deviceDays ?? deviceDays) / max(wall, 1e-9)
        manifest.execution.eventsPerSecond = (simulated?.events ?? events) / max(wall, 1e-9)
        manifest.scenario = nil
        manifest.sweep = SweepManifest(
            axes: axes.map { .init(path: $0.path, values: $0.values, kind: $0.isDesign ? "design" : "environment") },
            points: points.enumerated().map { k, p in
                .init(
                    index: k + 1, values: p.values, overrides: p.overrides, resolvedScenarioSha256: p.resolvedSha256,
                    scenarioFile: Self.scenarioFile(k + 1))
            })
        files += extra
        // Where the points' files have devices.csv and events.csv: right after server.csv
        // (scenario.json, after it in a run, is each point's scenario-K.json here).
        manifest.manifest = ReportWriter.manifest(files, written: streamed, after: ReportFile.server.name)
        files.append((ReportFile.run.name, ReportWriter.encode(manifest)))
        return (files, manifest.manifest.map(\.name) + [ReportFile.run.name])
    }

    /// The records of a CSV text (RFC 4180: a line end inside quotes belongs to the
    /// field), each without its line end.
    static func records(_ text: String) -> [Substring] {
        var out: [Substring] = []
        var quoted = false
        var start = text.startIndex, i = text.startIndex
        while i < text.endIndex {
            let c = text[i]
            if c == "\"" {
                quoted.toggle()
            } else if c == "\n" && !quoted {
                out.append(text[start..<i])
                start = text.index(after: i)
            }
            i = text.index(after: i)
        }
        if start < text.endIndex { out.append(text[start...]) }
        return out
    }

    // MARK: summary.csv and the Pareto column

    /// One point × policy × archetype of the sweep (its rows of every seed).
    struct Key: Hashable { var point: Int; var policy: String; var archetype: String }

    /// Whether each point × policy × archetype is on the freshness–energy frontier of its
    /// world (the values pooled over the seeds), in grid order; and, per seed, whether its
    /// row is on the frontier of its world among that seed's rows; and the pooled
    /// candidates, one per key.
    func paretoFlags() -> (
        keys: [Key], front: [Key: Bool], inSeed: [SeedKey: Bool], candidates: [ParetoCandidate]
    ) {
        let header = SummarySchema.header
        let policy = header.firstIndex(of: "policy")!, archetype = header.firstIndex(of: "archetype")!
        let seed = header.firstIndex(of: "seed")!
        let fresh = header.firstIndex(of: MetricTable.freshOpenRate.name)!
        let energy = header.firstIndex(of: MetricTable.backgroundEnergy.name)!
        // Pooled over seeds: one candidate per point × policy × archetype.
        var keys: [Key] = [], sums: [Key: (f: Double, nf: Double, e: Double, ne: Double)] = [:]
        var seedKeys: [SeedKey] = [], seedCandidates: [ParetoCandidate] = []
        let environment = axes.indices.filter { !axes[$0].isDesign }
        for (k, point) in points.enumerated() {
            for row in point.summary {
                let key = Key(point: k, policy: row[policy], archetype: row[archetype])
                if sums[key] == nil { keys.append(key); sums[key] = (0, 0, 0, 0) }
                let f = Double(row[fresh]).flatMap { $0.isFinite ? $0 : nil }
                let e = Double(row[energy]).flatMap { $0.isFinite ? $0 : nil }
                if let f { sums[key]!.f += f; sums[key]!.nf += 1 }
                if let e { sums[key]!.e += e; sums[key]!.ne += 1 }
                seedKeys.append(SeedKey(key: key, seed: row[seed]))
                seedCandidates.append(
                    ParetoCandidate(
                        world: environment.map { point.values[$0] } + [key.archetype, row[seed]],
                        fresh: f ?? -.infinity, energy: e ?? .infinity))
            }
        }
        let candidates = keys.map { key -> ParetoCandidate in
            let s = sums[key]!
            return ParetoCandidate(
                world: environment.map { points[key.point].values[$0] } + [key.archetype],
                fresh: s.nf > 0 ? s.f / s.nf : -.infinity, energy: s.ne > 0 ? s.e / s.ne : .infinity)
        }
        return (
            keys, Dictionary(uniqueKeysWithValues: zip(keys, Self.pareto(candidates))),
            Dictionary(uniqueKeysWithValues: zip(seedKeys, Self.pareto(seedCandidates))), candidates
        )
    }

    /// One row of summary.csv: a point × policy × archetype and its seed.
    struct SeedKey: Hashable { var key: Key; var seed: String }

    /// summary.csv: the point's values, the run's summary.csv row, then `pareto` (pooled
    /// over the seeds) and `pareto_in_seed` (among the rows of the row's seed).
    func summaryCSV() -> String {
        let header = SummarySchema.header
        let policy = header.firstIndex(of: "policy")!, archetype = header.firstIndex(of: "archetype")!
        let seed = header.firstIndex(of: "seed")!
        let (_, front, inSeed, _) = paretoFlags()
        var csv = CSVWriter("")
        csv.row(axes.map(\.path) + header + Self.paretoColumns)
        for (k, point) in points.enumerated() {
            for row in point.summary {
                let key = Key(point: k, policy: row[policy], archetype: row[archetype])
                csv.row(
                    point.values + row + [
                        front[key]! ? "true" : "false", inSeed[SeedKey(key: key, seed: row[seed])]! ? "true" : "false",
                    ])
            }
        }
        return csv.output
    }

    /// The columns a sweep's summary.csv ends in.
    public static let paretoColumns = ["pareto", "pareto_in_seed"]

    /// One row of the terminal's overview: a point and a policy (archetype `all`).
    public struct OverviewRow: Sendable {
        /// The point's value of each axis.
        public var values: [String]
        public var policy: String
        /// Each asked metric: one seed's value with its interval over devices, or the mean
        /// over the seeds with its Student-t interval across them; nil where a seed has none.
        public var metrics: [Estimate?]
        /// On its world's freshness–energy frontier (summary.csv's `pareto`).
        public var pareto: Bool
        /// The seeds in which it is on its world's frontier (`pareto_in_seed`), of `seeds`.
        public var paretoSeeds: Int
        public var seeds: Int
    }

    /// Per point and policy, the fleet's (`all`) value of each of `metrics` (summary.csv
    /// names) with its interval, and its Pareto marks: what `bgbench sweep` prints.
    public func overview(_ metrics: [String]) -> [OverviewRow] {
        let header = SummarySchema.header
        let policy = header.firstIndex(of: "policy")!, archetype = header.firstIndex(of: "archetype")!
        let seed = header.firstIndex(of: "seed")!
        let columns = metrics.map { m in
            (header.firstIndex(of: m)!, header.firstIndex(of: m + "_ci_low"), MetricTable.named(m)?.support ?? 0...1)
        }
        let (keys, front, inSeed, _) = paretoFlags()
        return keys.filter { $0.archetype == "all" }.map { key in
            let rows = points[key.point].summary.filter { $0[policy] == key.policy && $0[archetype] == "all" }
            let values = columns.map { c, low, support -> Estimate? in
                let xs = rows.map { Double($0[c]) }
                guard !xs.isEmpty, xs.allSatisfy({ $0?.isFinite == true }) else { return nil }
                if xs.count == 1 {
                    return Estimate(
                        xs[0]!, low: low.flatMap { Double(rows[0][$0]) }, high: low.flatMap { Double(rows[0][$0 + 1]) })
                }
                var m = Moments(n: Double(xs.count), sy: 0, syy: 0, sxy: 0, sx: 0, sxx: 0)
                for x in xs { m.sy += x!; m.syy += x! * x! }
                return Estimators.mean(m).within(support)
            }
            return OverviewRow(
                values: points[key.point].values, policy: key.policy, metrics: values, pareto: front[key]!,
                paretoSeeds: rows.filter { inSeed[SeedKey(key: key, seed: $0[seed])]! }.count, seeds: rows.count)
        }
    }

    /// One design of one world, pooled: `world` names the world (the environment axes'
    /// values and the archetype); `fresh` is to be high, `energy` low.
    public struct ParetoCandidate: Equatable {
        public var world: [String]
        public var fresh: Double
        public var energy: Double
        public init(world: [String], fresh: Double, energy: Double) {
            self.world = world; self.fresh = fresh; self.energy = energy
        }
    }

    /// Whether each candidate is on the freshness–energy frontier of its own world: no
    /// other candidate of the same `world` has at least its freshness and at most its
    /// energy with one of the two strictly better. Candidates of other worlds never count.
    public static func pareto(_ candidates: [ParetoCandidate]) -> [Bool] {
        candidates.map { c in
            !candidates.contains { o in
                o.world == c.world && o.fresh >= c.fresh && o.energy <= c.energy
                    && (o.fresh > c.fresh || o.energy < c.energy)
            }
        }
    }
}

/// run.json's `sweep` object: the axes (with their kind) and every point in grid order.
struct SweepManifest: Encodable {
    struct Axis: Encodable {
        var path: String
        var values: [String]
        /// `design` (under `policies.`) or `environment`: the Pareto column's worlds.
        var kind: String
    }
    struct Point: Encodable {
        var index: Int
        var values: [String]
        var overrides: [String]
        var resolvedScenarioSha256: String
        var scenarioFile: String
    }
    var axes: [Axis]
    var points: [Point]
}
