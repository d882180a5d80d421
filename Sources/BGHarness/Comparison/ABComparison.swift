import BGBench
import BGNumerics
import Foundation

/// One metric of one summary row in `bgbench check --ab`: configuration A (the baseline
/// folder) against configuration B (the current folder), on the same users.
public struct ABDifference: Sendable {
    public var scenario: String
    public var policy: String
    public var archetype: String
    public var metric: String
    public var baseline: Double?
    public var current: Double?
    /// current − baseline, in the metric's unit; nil when either is missing.
    public var difference: Double? {
        guard let b = baseline, let c = current else { return nil }
        return c - b
    }
    /// The paired 95 % interval of the difference (device by device with one seed, across
    /// the seeds when replicated); nil for a quantile with one seed or too few devices.
    public var interval: (low: Double, high: Double)?
    /// Two-sided paired t-test p-value of "no difference" (no correction: A/B has no verdict).
    public var pValue: Double?
}

extension RunComparison {
    /// Why two folders cannot be an A/B pair: they must have met the same users (the same
    /// seed, devices, days, warm-up, opens trace and policies); the scenario may differ.
    public static func abMismatches(_ b: ReportFolder, _ c: ReportFolder) -> [String] {
        mismatches(b, c, [.schema, .seed, .policies, .opensTrace, .devices, .days, .warmupDays])
    }

    /// Every metric of every summary row, B minus A with its paired interval: device i is
    /// the same user (same seed) under two configurations, so the difference is taken device
    /// by device on devices.csv, which both folders must have. The interval is that of the
    /// paired test of `check` (``pairedP``): d = θ_B − θ_A, SE = √(Σ(uᵢᴮ − uᵢᴬ)² / (N(N−1))),
    /// d ± t(0.975, n − 1)·SE, put on summary.csv's scale by the ratio of the summary value to
    /// the devices.csv estimate (1 per open, 1/counted days per device-day). An archetype row
    /// takes each run's devices of that archetype (the same users when the configurations
    /// do not change the population). Quantiles get no interval.
    ///
    /// Replicated folders (the same R ≥ 2 seeds, ``ComparisonDesign/pairedSeeds(_:)``): A
    /// and B are the means over the seeds, and the interval is that of each seed's
    /// difference, d̄ ± t(0.975, R − 1)·s_d/√R, for every metric (quantiles included: each
    /// seed's value is one replication); no devices.csv is needed.
    public static func abDifferences(baseline: ReportFolder, current: ReportFolder) throws(ReportFolderError)
        -> [ABDifference]
    {
        let bs = try SummaryRows(baseline), cs = try SummaryRows(current)
        switch ComparisonDesign(baseline: bs.seeds, current: cs.seeds) {
        case .pairedDevices: break
        case .pairedSeeds: return try abAcrossSeeds(bs, cs)
        default:
            throw .invalid(
                "A '\(baseline.path)' has \(ComparisonDesign.named(bs.seeds)) and B '\(current.path)' "
                    + "\(ComparisonDesign.named(cs.seeds)): --ab needs the same seeds in both (the same users)")
        }
        for (folder, name) in [(baseline, "baseline"), (current, "current")] where !folder.has("devices.csv") {
            throw .missing(
                "\(name) '\(folder.path)' has no devices.csv: --ab compares device by device; make both with --per-device"
            )
        }
        let db = try DeviceTable(try baseline.table("devices.csv")!, path: baseline.file("devices.csv"))
        let dc = try DeviceTable(try current.table("devices.csv")!, path: current.file("devices.csv"))
        var out: [ABDifference] = []
        for (key, bRows, cRows) in try bs.matched(with: cs) {
            let bRow = bRows[0], cRow = cRows[0]
            for name in bs.metricColumns {
                var d = ABDifference(
                    scenario: bRow.scenario, policy: key.policy, archetype: key.archetype, metric: name,
                    baseline: try bs.value(bRow, name), current: try cs.value(cRow, name))
                if let metric = CheckMetrics.named(name), let difference = d.difference,
                    let t = try paired(db, dc, policy: key.policy, archetype: key.archetype, source: metric.source)
                {
                    // The summary's scale over the estimate's (exact for every metric's
                    // source: 1 per open, 1/D per device-day, the battery's % per joule).
                    let scale: Double
                    if let v = d.baseline, t.baseline != 0 {
                        scale = v / t.baseline
                    } else if let v = d.current, t.current != 0 {
                        scale = v / t.current
                    } else {
                        scale = (t.current - t.baseline) == 0 ? 0 : difference / (t.current - t.baseline)
                    }
                    let half = Distribution.studentTQuantile(0.975, degreesOfFreedom: t.dof) * t.se * abs(scale)
                    d.interval = (difference - half, difference + half)
                    d.pValue = pValue(t.current - t.baseline, se: t.se, dof: t.dof)
                }
                out.append(d)
            }
        }
        return out
    }

    /// `abDifferences` for replicated folders with the same seeds.
    static func abAcrossSeeds(_ bs: SummaryRows, _ cs: SummaryRows) throws(ReportFolderError) -> [ABDifference] {
        var out: [ABDifference] = []
        for (key, bRows, cRows) in try bs.matched(with: cs) {
            for name in bs.metricColumns {
                let b = try bs.values(bRows, name), c = try cs.values(cRows, name)
                var d = ABDifference(
                    scenario: bRows[0].scenario, policy: key.policy, archetype: key.archetype, metric: name,
                    baseline: b.map(SeedStatistics.mean), current: c.map(SeedStatistics.mean))
                if CheckMetrics.named(name) != nil, let b, let c {
                    let t = SeedStatistics.paired(b, c)
                    let half = Distribution.studentTQuantile(0.975, degreesOfFreedom: t.dof) * t.se
                    d.interval = (t.mean - half, t.mean + half)
                    d.pValue = pValue(t.mean, se: t.se, dof: t.dof)
                }
                out.append(d)
            }
        }
        return out
    }
}
