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
    /// Every metric of every summary row of the baseline, with its p-value (before
    /// ``decide(_:alpha:)``). The folders must have passed ``mismatches(_:_:exact:)``.
    /// Same seed: paired t-tests on devices.csv, which both folders must have. Different
    /// seeds: Welch t-tests, standard errors from summary.csv's intervals, or from
    /// devices.csv for a metric without an interval when both folders have it.
    public static func compare(
        baseline: ReportFolder, current: ReportFolder, role: (String, String) = ("baseline", "current"),
        tolerances: [String: Double] = [:]
    ) throws(ReportFolderError) -> [MetricComparison] {
        let paired = pairs(baseline, current)
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
        let bs = try SummaryRows(baseline), cs = try SummaryRows(current)
        var out: [MetricComparison] = []
        for (key, bRow, cRow) in try bs.matched(with: cs) {
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
