import BGBench

/// A suite's outcome for the policies scored in one call: every task's score and, per
/// policy, the aggregate (docs/suite.md, "The aggregate"), with what makes it reproducible.
public struct Scorecard: Sendable {
    public var suite: SuiteDefinition
    /// Whether the tasks ran at the `--quick` sizes.
    public var quick: Bool
    public var tasks: [SuiteTask]
    public var policies: [String]
    /// In task order, then policy order.
    public var scores: [TaskScore]

    public init(suite: SuiteDefinition, quick: Bool, tasks: [SuiteTask], policies: [String], scores: [TaskScore]) {
        self.suite = suite; self.quick = quick; self.tasks = tasks; self.policies = policies; self.scores = scores
    }

    /// What a scorecard can be compared with (docs/suite.md, "Run rules"): every task of
    /// the suite at its sizes (`full`), the quick subset at its sizes (`quick`, comparable
    /// with other quick scorecards only), or tasks chosen by `--task` (`partial`: its
    /// aggregates are over those tasks and comparable with no other scorecard's).
    public enum Scope: String, Sendable, Equatable {
        case full, quick, partial
    }

    public var scope: Scope {
        let ids = Set(tasks.map(\.id))
        return quick
            ? (ids == Set(suite.quick.tasks) ? .quick : .partial)
            : (ids == Set(suite.tasks.map(\.id)) ? .full : .partial)
    }

    /// One policy's summary over the tasks.
    public struct Aggregate: Sendable, Equatable {
        public var policy: String
        /// Tasks by verdict, in `TaskScore.Verdict.allCases` order.
        public var verdicts: [TaskScore.Verdict: Int]
        /// The median over tasks of each task's mean share of the gap closed, with its
        /// seed-level bootstrap 95 % interval (nil: no task has the share defined).
        public var medianGapOracle: Estimate?
        public var medianGapProphet: Estimate?
        /// Tasks where the share is defined, out of all.
        public var gapOracleTasks: Int
        public var gapProphetTasks: Int
        /// Tasks where every constraint holds.
        public var constraintsPassed: Int
        public var tasks: Int
    }

    public func aggregate(_ policy: String) -> Aggregate {
        let mine = scores.filter { $0.policy == policy }
        var verdicts: [TaskScore.Verdict: Int] = [:]
        for v in TaskScore.Verdict.allCases { verdicts[v] = mine.filter { $0.verdict == v }.count }
        let oracle = mine.compactMap(\.gapOracle.perSeed), prophet = mine.compactMap(\.gapProphet.perSeed)
        return Aggregate(
            policy: policy, verdicts: verdicts,
            medianGapOracle: Self.bootstrapMedian(
                oracle, resamples: suite.bootstrapResamples, seed: suite.bootstrapSeed),
            medianGapProphet: Self.bootstrapMedian(
                prophet, resamples: suite.bootstrapResamples, seed: suite.bootstrapSeed),
            gapOracleTasks: oracle.count, gapProphetTasks: prophet.count,
            constraintsPassed: mine.filter { $0.constraints.allSatisfy(\.passed) }.count, tasks: mine.count)
    }

    /// The median over tasks of the per-task means of `perSeed` (one array of per-seed
    /// shares a task), with a percentile interval from `resamples` seed-level bootstrap
    /// replicates: each replicate draws every task's seeds with replacement (its own
    /// count), takes each task's mean and their median. The draws come from one stream
    /// seeded by `seed`, tasks in order, so the interval is the same on every run.
    public static func bootstrapMedian(_ perSeed: [[Double]], resamples: Int, seed: UInt64) -> Estimate? {
        guard !perSeed.isEmpty else { return nil }
        func mean(_ xs: [Double]) -> Double { xs.reduce(0, +) / Double(xs.count) }
        let point = median(perSeed.map(mean))
        var random = RandomStream(seed: seed, device: 0, purpose: .bootstrap)
        var replicates: [Double] = []
        replicates.reserveCapacity(resamples)
        var means = [Double](repeating: 0, count: perSeed.count)
        for _ in 0..<resamples {
            for (t, shares) in perSeed.enumerated() {
                var sum = 0.0
                for _ in shares.indices { sum += shares[random.index(below: shares.count)] }
                means[t] = sum / Double(shares.count)
            }
            replicates.append(median(means))
        }
        replicates.sort()
        return Estimate(point, low: quantile(replicates, 0.025), high: quantile(replicates, 0.975))
    }

    static func median(_ xs: [Double]) -> Double { quantile(xs.sorted(), 0.5) }

    /// The quantile of sorted values by linear interpolation between order statistics
    /// (Hyndman and Fan's type 7, R's default).
    static func quantile(_ sorted: [Double], _ p: Double) -> Double {
        let h = Double(sorted.count - 1) * p
        let i = Int(h.rounded(.down))
        return i + 1 < sorted.count ? sorted[i] + (h - Double(i)) * (sorted[i + 1] - sorted[i]) : sorted[i]
    }
}
