import BGBench
import BGNumerics
import Foundation

/// What `check` concludes about one metric of one summary row.
public enum Verdict: String, Sendable, CaseIterable {
    /// Worse beyond tolerance and significant.
    case regression
    /// Better beyond tolerance and significant.
    case improvement
    /// Within tolerance.
    case unchanged
    /// Beyond tolerance with a p-value, but not significant after Holm–Bonferroni over the
    /// check's family: a large change the test cannot tell from chance (issue 12).
    case notSignificant = "not significant after Holm"
    /// A metric with no bad direction.
    case neutral
    /// Beyond tolerance with no test: a quantile, or a value only one run has.
    case untested
}

/// The test that gave a comparison its p-value.
public enum ComparisonTest: String, Sendable {
    /// Same seed, scenario and fleet: device by device on devices.csv.
    case paired = "paired t"
    /// Different seeds, standard errors from summary.csv's interval half-widths.
    case welchSummary = "Welch t (summary.csv intervals)"
    /// Different seeds, a metric without an interval: standard errors from devices.csv.
    case welchDevices = "Welch t (devices.csv)"
    /// The same R ≥ 2 seeds: each seed's difference, Student-t across the seeds.
    case pairedSeeds = "paired t across seeds"
    /// Different seeds, at least two on each side: Welch t on the per-seed values.
    case welchSeeds = "Welch t across seeds"
}

/// How `check` and `check --ab` compare two folders, decided by the seeds of their
/// summary.csv rows (a replicated run has a row per seed).
public enum ComparisonDesign: Sendable, Equatable, CustomStringConvertible {
    /// One seed, the same in both: the same users and feed, device by device (devices.csv).
    case pairedDevices(seed: String)
    /// One seed each, different: independent runs, Welch t-tests on the fleet estimates.
    case independentRuns(baseline: String, current: String)
    /// The same R ≥ 2 seeds in both: each seed's difference (the same users and feed in
    /// that seed), then the mean and the Student-t interval across the seeds, R − 1
    /// degrees of freedom (as paired.csv's across-seed rows).
    case pairedSeeds([String])
    /// Different seed sets, at least two seeds on each side: Welch t-tests on the per-seed
    /// values (each seed one independent replication).
    case welchSeeds(baseline: [String], current: [String])
    /// One seed on one side and several on the other: no test (rerun both with the same
    /// `--replications`).
    case untestable(baseline: [String], current: [String])

    init(baseline b: [String], current c: [String]) {
        switch (b.count, c.count) {
        case (1, 1): self = b == c ? .pairedDevices(seed: b[0]) : .independentRuns(baseline: b[0], current: c[0])
        case (2..., 2...): self = b == c ? .pairedSeeds(b) : .welchSeeds(baseline: b, current: c)
        default: self = .untestable(baseline: b, current: c)
        }
    }

    /// The seeds, as check's header line names them.
    public static func list(_ seeds: [String]) -> String {
        if seeds.count > 2, let first = Int(seeds[0]), seeds.indices.allSatisfy({ Int(seeds[$0]) == first + $0 }) {
            return "\(seeds[0])–\(seeds.last!)"
        }
        return seeds.joined(separator: ",")
    }

    /// "seed 1" or "seeds 1–3".
    public static func named(_ seeds: [String]) -> String {
        (seeds.count == 1 ? "seed " : "seeds ") + list(seeds)
    }

    /// What check prints about the design, after the folders' names.
    public var description: String {
        switch self {
        case .pairedDevices(let seed): "seed \(seed) in both: paired t-tests, device by device"
        case .independentRuns(let b, let c): "seeds \(b) and \(c): independent replications, Welch t-tests"
        case .pairedSeeds(let seeds):
            "seeds \(Self.list(seeds)) in both: paired t-tests across the \(seeds.count) seeds (each seed's difference)"
        case .welchSeeds(let b, let c):
            "seeds \(Self.list(b)) and \(Self.list(c)): independent replications, Welch t-tests across seeds"
        case .untestable(let b, let c):
            "\(Self.named(b)) and \(Self.named(c)): one run against replications, no test "
                + "(give both the same --replications)"
        }
    }

    /// Whether values are the means over several seeds.
    public var acrossSeeds: Bool {
        switch self {
        case .pairedDevices, .independentRuns: false
        case .pairedSeeds, .welchSeeds, .untestable: true
        }
    }
}

/// One metric of one summary row (scenario × policy × archetype), baseline against current.
public struct MetricComparison: Sendable {
    public var scenario: String
    public var policy: String
    public var archetype: String
    public var metric: String
    public var direction: MetricDirection
    public var baseline: Double?
    public var current: Double?
    public var tolerancePercent: Double
    public var test: ComparisonTest?
    /// Two-sided p-value of "no change"; nil without a test.
    public var pValue: Double?
    /// Set by ``RunComparison/decide(_:alpha:)``.
    public var significant = false
    public var verdict: Verdict = .unchanged

    /// (current − baseline) / |baseline| in percent: 0 when both are 0, ±∞ from 0; nil
    /// when either is missing.
    public var changePercent: Double? {
        guard let b = baseline, let c = current else { return nil }
        if c == b { return 0 }
        if b == 0 { return c > 0 ? .infinity : -.infinity }
        return (c - b) / abs(b) * 100
    }

    /// Moved by more than the tolerance (a value only one run has counts as moved).
    public var beyondTolerance: Bool {
        if baseline == nil && current == nil { return false }
        guard let change = changePercent else { return true }
        return abs(change) > tolerancePercent
    }

    /// The change goes the bad way (false for neutral metrics).
    public var worse: Bool {
        guard let b = baseline, let c = current else { return false }
        switch direction {
        case .higherIsBetter: return c < b
        case .lowerIsBetter: return c > b
        case .neutral: return false
        }
    }

    /// Can be a regression or an improvement: has a direction and a test.
    var inFamily: Bool { direction != .neutral && pValue != nil && baseline != nil && current != nil }
}

extension RunComparison {
    /// How two folders are compared (``ComparisonDesign``), from their summary.csv seeds.
    public static func design(_ baseline: ReportFolder, _ current: ReportFolder) throws(ReportFolderError)
        -> ComparisonDesign
    {
        ComparisonDesign(baseline: try SummaryRows(baseline).seeds, current: try SummaryRows(current).seeds)
    }

    /// Every metric of every summary row of the baseline, with its p-value (before
    /// ``decide(_:alpha:)``). The folders must have passed ``mismatches(_:_:exact:)``.
    /// One seed each (``ComparisonDesign``): the same seed, paired t-tests on devices.csv,
    /// which both folders must have; different seeds, Welch t-tests, standard errors from
    /// summary.csv's intervals, or from devices.csv for a metric without an interval when
    /// both folders have it. Replicated runs: each side's value is the mean over its seeds;
    /// the same seeds, a paired t-test on the per-seed differences; different seeds (two
    /// or more each), a Welch t-test on the per-seed values.
    public static func compare(
        baseline: ReportFolder, current: ReportFolder, role: (String, String) = ("baseline", "current"),
        tolerances: [String: Double] = [:]
    ) throws(ReportFolderError) -> [MetricComparison] {
        let bs = try SummaryRows(baseline), cs = try SummaryRows(current)
        let design = ComparisonDesign(baseline: bs.seeds, current: cs.seeds)
        if design.acrossSeeds { return try acrossSeeds(bs, cs, design: design, tolerances: tolerances) }
        let paired = design == .pairedDevices(seed: bs.seeds[0])
        var deviceTables: (DeviceTable, DeviceTable)?
        if paired {
            for (folder, name) in [(baseline, role.0), (current, role.1)] where !folder.has("devices.csv") {
                throw .missing(
                    "\(name) '\(folder.path)' has no devices.csv: runs with the same seed are compared device by device; make both with --per-device"
                )
            }
        }
        if let b = try baseline.table("devices.csv"), let c = try current.table("devices.csv") {
            deviceTables = (
                try DeviceTable(b, path: baseline.file("devices.csv")),
                try DeviceTable(c, path: current.file("devices.csv"))
            )
        }
        var out: [MetricComparison] = []
        for (key, bRows, cRows) in try bs.matched(with: cs) {
            let bRow = bRows[0], cRow = cRows[0]
            for name in bs.metricColumns {
                let metric = CheckMetrics.named(name)
                var m = MetricComparison(
                    scenario: bRow.scenario, policy: key.policy, archetype: key.archetype, metric: name,
                    direction: metric?.direction ?? .neutral,
                    baseline: try bs.value(bRow, name), current: try cs.value(cRow, name),
                    tolerancePercent: tolerances[name] ?? metric?.tolerancePercent ?? 1)
                if let metric, m.baseline != nil, m.current != nil {
                    if paired, let tables = deviceTables {
                        let (db, dc) = tables
                        m.pValue = try pairedP(
                            db, dc, policy: key.policy, archetype: key.archetype, source: metric.source)
                        if m.pValue != nil { m.test = .paired }
                    } else if !paired {
                        if let se = try bs.standardError(bRow, name), let sc = try cs.standardError(cRow, name) {
                            m.pValue = welchP(difference: m.current! - m.baseline!, se, sc)
                            m.test = .welchSummary
                        } else if let tables = deviceTables,
                            let p = try welchDevicesP(
                                tables.0, tables.1, policy: key.policy, archetype: key.archetype, source: metric.source)
                        {
                            m.pValue = p
                            m.test = .welchDevices
                        }
                    }
                }
                out.append(m)
            }
        }
        return out
    }

    /// `compare` for replicated runs: the means over the seeds, tested across the seeds.
    static func acrossSeeds(
        _ bs: SummaryRows, _ cs: SummaryRows, design: ComparisonDesign, tolerances: [String: Double]
    ) throws(ReportFolderError) -> [MetricComparison] {
        var out: [MetricComparison] = []
        for (key, bRows, cRows) in try bs.matched(with: cs) {
            for name in bs.metricColumns {
                let metric = CheckMetrics.named(name)
                let b = try bs.values(bRows, name), c = try cs.values(cRows, name)
                var m = MetricComparison(
                    scenario: bRows[0].scenario, policy: key.policy, archetype: key.archetype, metric: name,
                    direction: metric?.direction ?? .neutral, baseline: b.map(SeedStatistics.mean),
                    current: c.map(SeedStatistics.mean),
                    tolerancePercent: tolerances[name] ?? metric?.tolerancePercent ?? 1)
                if metric != nil, let b, let c {
                    switch design {
                    case .pairedSeeds:
                        let t = SeedStatistics.paired(b, c)
                        m.pValue = pValue(t.mean, se: t.se, dof: t.dof)
                        m.test = .pairedSeeds
                    case .welchSeeds:
                        m.pValue = welchP(
                            difference: SeedStatistics.mean(c) - SeedStatistics.mean(b), SeedStatistics.se(b),
                            SeedStatistics.se(c))
                        m.test = .welchSeeds
                    default: break
                    }
                }
                out.append(m)
            }
        }
        return out
    }
}

/// Statistics over per-seed values: each seed is one independent replication.
enum SeedStatistics {
    static func mean(_ x: [Double]) -> Double { x.reduce(0, +) / Double(x.count) }

    /// The standard error of the mean, s/√R, with R − 1 degrees of freedom (R ≥ 2).
    static func se(_ x: [Double]) -> (se: Double, dof: Double) {
        let m = mean(x), n = Double(x.count)
        let variance = x.reduce(0) { $0 + ($1 - m) * ($1 - m) } / (n - 1)
        return ((variance / n).squareRoot(), n - 1)
    }

    /// The per-seed differences c − b (the same seeds in the same order): their mean, its
    /// standard error and degrees of freedom.
    static func paired(_ b: [Double], _ c: [Double]) -> (mean: Double, se: Double, dof: Double) {
        let d = zip(c, b).map { $0 - $1 }
        let s = se(d)
        return (mean(d), s.se, s.dof)
    }
}

extension RunComparison {
    /// Sets `significant` and `verdict` for a whole family of comparisons (every run
    /// compared in one check). Significance is Holm's step-down Bonferroni at family-wise
    /// level `alpha` over the comparisons that can be a regression or an improvement
    /// (a direction, both values, a p-value): hundreds of metrics are tested at once, and a
    /// CI gate must not cry wolf on one of them by chance. Returns the family's size.
    @discardableResult
    public static func decide(_ comparisons: inout [MetricComparison], alpha: Double = 0.05) -> Int {
        let family = comparisons.indices.filter { comparisons[$0].inFamily }
            .sorted { comparisons[$0].pValue! < comparisons[$1].pValue! }
        for (rank, i) in family.enumerated() {
            guard comparisons[i].pValue! <= alpha / Double(family.count - rank) else { break }
            comparisons[i].significant = true
        }
        for i in comparisons.indices {
            let m = comparisons[i]
            comparisons[i].verdict =
                if m.direction == .neutral { .neutral } else if !m.beyondTolerance { .unchanged } else if !m.inFamily {
                    .untested
                } else if !m.significant { .notSignificant } else { m.worse ? .regression : .improvement }
        }
        return family.count
    }
}
