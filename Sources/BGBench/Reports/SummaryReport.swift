/// The results of one policy over the fleet.
public struct PolicyResult: Sendable {
    public var policy: String
    /// The seed of this replication.
    public var seed: UInt64
    public var result: FleetResult
    /// Seconds the fleet's workers spent simulating this policy's blocks, summed over
    /// workers (the policies of a seed run side by side, block by block).
    public var wallSeconds: Double
    /// The worker threads the fleet run started.
    public var workers: Int
    /// The device-by-device comparison with the run's baseline policy (same seed); nil for
    /// the baseline itself and for a run without one.
    public var paired: PairedTally?
    /// The fleet totals.
    public var tally: FleetTally { result.fleet }
    public init(
        policy: String, seed: UInt64, result: FleetResult, wallSeconds: Double, workers: Int = 1,
        paired: PairedTally? = nil
    ) {
        self.policy = policy; self.seed = seed; self.result = result; self.wallSeconds = wallSeconds
        self.workers = workers; self.paired = paired
    }
}

/// One column of summary.csv: its name, unit and definition (Reports/README.md is written
/// from the same words) and how it is computed. Columns with `interval` are followed by
/// `<name>_ci_low` and `<name>_ci_high`.
public struct SummaryColumn: Sendable {
    public let name: String
    public let unit: String
    public let definition: String
    public let interval: Bool
    /// Followed by `<name>_unstable` (a quantile).
    public let flagsUnstable: Bool
    /// The estimate as the metric's kind gives it (the interval not yet cut to the support).
    let compute: @Sendable (FleetEstimates, SummaryContext) -> Estimate
    let support: ClosedRange<Double>
    let unstable: @Sendable (FleetEstimates) -> Bool?
}

/// What a summary column may need beyond the tally.
struct SummaryContext {
    /// Battery capacity in joules (for % of battery).
    var batteryJoules: Double
}

/// summary.csv: one row per scenario × policy, every metric of MODEL.md §9 the simulator
/// produces so far. The columns are ``MetricTable``'s metrics, in its order (stable).
public enum SummarySchema {
    public static let identity = [
        "scenario", "policy", "archetype", "platform", "seed", "devices", "days", "warmup_days", "device_days",
    ]

    public static let metrics: [SummaryColumn] = MetricTable.metrics.map { m in
        SummaryColumn(
            name: m.name, unit: m.unit, definition: m.definition, interval: m.interval,
            flagsUnstable: m.flagsUnstable, compute: { e, c in m.kind.estimate(e, batteryJoules: c.batteryJoules) },
            support: m.support, unstable: { e in m.unstable(e) })
    }

    /// The header of summary.csv.
    public static var header: [String] {
        identity
            + metrics.flatMap {
                $0.interval
                    ? [$0.name, $0.name + "_ci_low", $0.name + "_ci_high"]
                    : $0.flagsUnstable ? [$0.name, $0.name + "_unstable"] : [$0.name]
            }
    }

    /// The metric fields of one row.
    static func fields(_ tally: FleetTally, days: Int, context: SummaryContext) -> [String] {
        let estimates = FleetEstimates(tally: tally, days: days)
        return metrics.flatMap { column -> [String] in
            let e = column.compute(estimates, context).within(column.support)
            if column.interval {
                return [CSVNumber.format(e.value), CSVNumber.format(e.low), CSVNumber.format(e.high)]
            }
            if column.flagsUnstable {
                return [CSVNumber.format(e.value), SeriesReports.mark(column.unstable(estimates))]
            }
            return [CSVNumber.format(e.value)]
        }
    }
}
