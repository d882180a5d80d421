import BGNumerics
import Foundation

/// Which way a metric of summary.csv gets worse.
public enum MetricDirection: String, Sendable {
    /// Down is bad (a fall beyond tolerance is a regression).
    case higherIsBetter
    /// Up is bad.
    case lowerIsBetter
    /// Neither way is bad: the change is reported, never a regression.
    case neutral
}

/// One metric of summary.csv as `bgbench check` sees it: which way is bad, its default
/// tolerance, and where its per-device values are in devices.csv.
public struct CheckMetric: Sendable {
    /// How the metric is computed from devices.csv, for the statistical tests.
    public enum Source: Sendable, Equatable {
        /// Σ column / Σ opens over the devices (a ratio of totals).
        case perOpen(String)
        /// The mean of the column over the devices (per device-day: divided by the counted
        /// days, the same for both runs, so the tests need not divide).
        case perDevice(String)
        /// A quantile of the staleness histogram: no per-device values and no interval,
        /// so no test.
        case quantile
    }

    public let name: String
    public let direction: MetricDirection
    /// A change smaller than this, in percent of the baseline value, is no change.
    public let tolerancePercent: Double
    public let source: Source
}

/// The direction table: every metric of summary.csv, which way is bad, and its default
/// tolerance, derived from ``MetricTable`` (where each direction is argued).
public enum CheckMetrics {
    public static let table: [CheckMetric] = MetricTable.metrics.map { m in
        let source: CheckMetric.Source =
            switch m.kind {
            case .stalenessQuantile: .quantile
            case .perOpen(let q): .perOpen(q.label)
            // Per device-day, per server job, the battery share (the scale cancels in the
            // tests), a share of resolved tasks (the tests use its count per device).
            case .perDeviceDay(let q), .batteryPercentPerDay(let q), .perServerJob(let q), .share(let q, _):
                .perDevice(q.label)
            }
        return CheckMetric(name: m.name, direction: m.direction, tolerancePercent: m.tolerancePercent, source: source)
    }

    public static func named(_ name: String) -> CheckMetric? { table.first { $0.name == name } }
}
