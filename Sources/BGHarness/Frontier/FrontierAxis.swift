import BGBench

/// One axis of a frontier: a metric of summary.csv read from an arm's per-device means of
/// a few exact sums (``JointMoments``), so that every figure read off the curves gets its
/// device-clustered interval by the delta method. The quality axis is a parameter
/// (``quality(named:)``, `bgbench frontier --quality`); the cost axis is ``energy``.
public struct FrontierAxis: Sendable, Equatable {
    /// How the metric is read from the means: a ratio of two quantities' totals, a
    /// quantity per counted day, or a share a / (a + missed).
    enum Reading: Sendable, Equatable {
        case ratio(Quantity, over: Quantity)
        case perDay(Quantity)
        case share(Quantity, missed: Quantity)
    }

    public let metric: Metric
    let reading: Reading

    public static func == (a: Self, b: Self) -> Bool { a.metric.name == b.metric.name && a.reading == b.reading }

    /// The quantities whose means the value needs, denominator first.
    public var quantities: [Quantity] {
        switch reading {
        case .ratio(let q, let over): [over, q]
        case .perDay(let q): [q]
        case .share(let q, let missed): [q, missed]
        }
    }

    /// The cost axis of every frontier: background energy per device-day.
    public static let energy = FrontierAxis(metric: MetricTable.backgroundEnergy, reading: .perDay(.backgroundEnergy))

    /// What the quality axis is when nothing names it: the fresh-open rate.
    public static let defaultQuality = FrontierAxis(
        metric: MetricTable.freshOpenRate, reading: .ratio(.freshOpens, over: .opens))

    /// The quality axis of a scenario: the first metric of its `report.headline` when that
    /// can be one (a preset's question: fitness-sync's `server_on_time_rate`, finance's
    /// `processing_on_time_rate`), else ``defaultQuality``.
    public static func quality(for scenario: Scenario) -> FrontierAxis {
        scenario.report.headline.first.flatMap { try? quality(named: $0) } ?? defaultQuality
    }

    /// The quality axis `name` names: a rate where higher is better, read per open, per
    /// device-day, per server job or per resolved task.
    public static func quality(named name: String) throws(FrontierError) -> FrontierAxis {
        guard let metric = MetricTable.named(name) else {
            throw .badQuality(name, reason: "not a metric of summary.csv")
        }
        guard metric.direction == .higherIsBetter else {
            throw .badQuality(
                name, reason: "lower is better for it, and a quality axis needs a metric where higher is better")
        }
        switch metric.kind {
        case .perOpen(let q): return FrontierAxis(metric: metric, reading: .ratio(q, over: .opens))
        case .perDeviceDay(let q): return FrontierAxis(metric: metric, reading: .perDay(q))
        case .perServerJob(let q): return FrontierAxis(metric: metric, reading: .ratio(q, over: .serverJobs))
        case .share(let q, let missed): return FrontierAxis(metric: metric, reading: .share(q, missed: missed))
        case .batteryPercentPerDay, .stalenessQuantile:
            throw .badQuality(name, reason: "it is not a total of device counts the curves can be read from")
        }
    }

    /// The metrics `quality(named:)` accepts, in the table's order.
    public static var qualityNames: [String] {
        MetricTable.metrics.map(\.name).filter { (try? quality(named: $0)) != nil }
    }

    /// The axis's value for `arm` at the per-device means `mu` of `m`; NaN where it is
    /// undefined (no opens, no server jobs, no resolved task).
    func value(_ mu: [Double], _ m: JointMoments, arm: Int, days: Int) -> Double {
        switch reading {
        case .ratio(let q, let over):
            let d = mu[m.index(arm: arm, over)]
            return d > 0 ? mu[m.index(arm: arm, q)] / d : .nan
        case .perDay(let q):
            return mu[m.index(arm: arm, q)] / Double(max(1, days))
        case .share(let q, let missed):
            let a = mu[m.index(arm: arm, q)], b = mu[m.index(arm: arm, missed)]
            return a + b > 0 ? a / (a + b) : .nan
        }
    }

    /// The quantities a frontier's joint sums keep for a quality axis: its own, then the
    /// energy's, then the fresh-open rate's that pareto-pairs.csv pairs (the Pareto marks
    /// are on freshness and energy whatever the quality axis), each once (for the
    /// fresh-open rate: opens, fresh opens, background energy).
    static func jointQuantities(quality: FrontierAxis) -> [Quantity] {
        var out: [Quantity] = []
        for q in quality.quantities + energy.quantities + defaultQuality.quantities where !out.contains(q) {
            out.append(q)
        }
        return out
    }
}
