import BGBench

/// How a policy scores on one task (docs/suite.md, "Scoring a task"): against `fixed`
/// at matched energy, the share of the `fixed` → `oracle` and `fixed` → `prophet` gaps it
/// closes, and its constraints. Every interval is across the task's seeds (every device of
/// a seed reads one feed, so devices are not independent across seeds' feeds).
public struct TaskScore: Sendable, Equatable {
    public var task: String
    public var policy: String
    /// The task's headline metric: the quality axis of the comparison.
    public var headline: String
    /// The task's seeds, in order: what the per-seed values below are indexed by.
    public var seeds: [UInt64]
    /// The policy's and `fixed`'s points: headline and J/day, means across seeds.
    public var policyQuality: Estimate
    public var baselineQuality: Estimate
    public var policyEnergy: Estimate
    public var baselineEnergy: Estimate
    /// How the policy met `fixed`: its curve read at `fixed`'s J/day, or its own point.
    public var basis: Basis
    /// The policy minus `fixed` in the headline (at matched energy or at the points), and
    /// in J/day at the points (nil at matched energy, where it is zero by construction).
    public var qualityDifference: Estimate
    public var energyDifference: Estimate?
    /// The two differences seed by seed (what `suite --compare` pairs across scorecards).
    public var qualityDifferencePerSeed: [Double]
    public var energyDifferencePerSeed: [Double]?
    public var verdict: Verdict
    public var gapOracle: GapShare
    public var gapProphet: GapShare
    public var constraints: [ConstraintResult]

    public enum Basis: String, Sendable, Equatable {
        case matchedEnergy = "matched_energy"
        case point
    }

    /// Where the policy stands against `fixed`, from the signs of the two differences'
    /// intervals (``SuiteScoring/verdict(quality:energy:)``).
    public enum Verdict: String, Sendable, Equatable, CaseIterable {
        case dominates
        case dominated
        case tradesOff = "trades_off"
        case indistinguishable
    }

    public struct ConstraintResult: Sendable, Equatable {
        public var constraint: SuiteConstraint
        public var value: Estimate
        public var passed: Bool
    }
}

/// A share of a gap closed: its per-seed values and their mean with a Student-t interval,
/// or why it is undefined.
public enum GapShare: Sendable, Equatable {
    case defined(mean: Estimate, perSeed: [Double])
    /// The bound is not better than `fixed` beyond its interval across seeds (the gap
    /// itself is noise), or a seed's gap is exactly zero.
    case undefined(reason: String)

    public var mean: Estimate? { if case .defined(let m, _) = self { m } else { nil } }
    public var perSeed: [Double]? { if case .defined(_, let s) = self { s } else { nil } }
}

/// The arithmetic of scoring, as pure functions of per-seed values (SuiteScoringTests
/// checks each against numbers worked by hand).
public enum SuiteScoring {
    /// The mean of per-seed values with its 95 % Student-t interval (n − 1 degrees of freedom).
    public static func acrossSeeds(_ values: [Double]) -> Estimate {
        var m = Moments(n: Double(values.count), sy: 0, syy: 0, sxy: 0, sx: 0, sxx: 0)
        for v in values { m.sy += v; m.syy += v * v }
        return Estimators.mean(m)
    }

    /// +1 when the interval lies above zero, −1 below, 0 when it holds zero (or is missing).
    public static func sign(_ e: Estimate) -> Int {
        guard let low = e.low, let high = e.high else { return 0 }
        return low > 0 ? 1 : high < 0 ? -1 : 0
    }

    /// The verdict from the headline's difference (higher is better) and the energy's
    /// (lower is better; nil at matched energy): dominates when neither is significantly
    /// worse and one is significantly better, dominated the other way round, trades off
    /// when one is better and the other worse, indistinguishable when neither differs.
    public static func verdict(quality: Estimate, energy: Estimate?) -> TaskScore.Verdict {
        let q = sign(quality), e = energy.map { -sign($0) } ?? 0
        switch (q, e) {
        case (0, 0): return .indistinguishable
        case _ where q >= 0 && e >= 0: return .dominates
        case _ where q <= 0 && e <= 0: return .dominated
        default: return .tradesOff
        }
    }

    /// The share of the gap from `baseline` to `bound` that `policy` closes, seed by seed:
    /// (policy − baseline) / (bound − baseline), then its mean across seeds. Undefined
    /// when the gap's own interval across seeds does not lie above zero.
    public static func gapShare(policy: [Double], baseline: [Double], bound: [Double]) -> GapShare {
        precondition(policy.count == baseline.count && bound.count == baseline.count)
        let gaps = zip(bound, baseline).map { $0 - $1 }
        let gap = acrossSeeds(gaps)
        guard let low = gap.low, low > 0 else {
            return .undefined(reason: "gap_not_significant")
        }
        guard !gaps.contains(0) else { return .undefined(reason: "zero_gap_in_a_seed") }
        let shares = zip(zip(policy, baseline), gaps).map { ($0.0 - $0.1) / $1 }
        return .defined(mean: acrossSeeds(shares), perSeed: shares)
    }

    /// Whether a constraint holds at a mean.
    public static func passes(_ c: SuiteConstraint, _ value: Double) -> Bool {
        c.isMaximum ? value <= c.limit : value >= c.limit
    }
}

extension TaskScore {
    /// The bounds every policy is measured against; they are references, never scored.
    public static let bounds = [OraclePolicy.name, ProphetPolicy.name]

    /// The score of `policy` on `task` from the task's frontier (its arms: `fixed`'s
    /// point first, the policy's knob arms and its point, `oracle` and `prophet`).
    public static func score(_ report: FrontierReport, task: SuiteTask, policy: String) -> TaskScore {
        let run = report.run
        let battery = run.request.scenario.scenario.device.batteryWh * 3600
        let baseline = report.arms[0].label
        let headline = report.quality.metric
        let energy = FrontierAxis.energy.metric
        /// A metric of an arm's point, seed by seed in seed order.
        func perSeed(_ metric: Metric, _ label: String) -> [Double] {
            report.seeds.map { seed in
                let result = run.results.first { $0.policy == label && $0.seed == seed }!
                return metric.kind.estimate(
                    FleetEstimates(tally: result.tally, days: run.countedDays), batteryJoules: battery
                )
                .value
            }
        }
        let qP = perSeed(headline, policy), qF = perSeed(headline, baseline)
        let eP = perSeed(energy, policy), eF = perSeed(energy, baseline)
        // The policy's curve read at fixed's J/day, seed by seed; the points when a seed's
        // curve does not reach it (or the policy has no knob).
        let matched = report.seeds.indices.map { s in
            report.matched(seed: s).first {
                $0.policy == policy && $0.measure == .atBaselineEnergy && $0.reference == baseline
            }
        }
        let basis: Basis, dq: [Double], de: [Double]?
        let differences = matched.compactMap { $0?.status == "ok" ? $0?.difference?.value : nil }
        if differences.count == report.seeds.count, differences.allSatisfy(\.isFinite) {
            (basis, dq, de) = (.matchedEnergy, differences, nil)
        } else {
            (basis, dq, de) = (.point, zip(qP, qF).map { $0 - $1 }, zip(eP, eF).map { $0 - $1 })
        }
        let fresh = MetricTable.freshOpenRate
        let fP = perSeed(fresh, policy), fF = perSeed(fresh, baseline)
        let constraints = task.constraints.map { c in
            let value = SuiteScoring.acrossSeeds(perSeed(MetricTable.named(c.metric)!, policy))
            return ConstraintResult(constraint: c, value: value, passed: SuiteScoring.passes(c, value.value))
        }
        return TaskScore(
            task: task.id, policy: policy, headline: headline.name, seeds: report.seeds,
            policyQuality: SuiteScoring.acrossSeeds(qP), baselineQuality: SuiteScoring.acrossSeeds(qF),
            policyEnergy: SuiteScoring.acrossSeeds(eP), baselineEnergy: SuiteScoring.acrossSeeds(eF),
            basis: basis, qualityDifference: SuiteScoring.acrossSeeds(dq),
            energyDifference: de.map(SuiteScoring.acrossSeeds), qualityDifferencePerSeed: dq,
            energyDifferencePerSeed: de,
            verdict: SuiteScoring.verdict(
                quality: SuiteScoring.acrossSeeds(dq), energy: de.map(SuiteScoring.acrossSeeds)),
            gapOracle: SuiteScoring.gapShare(policy: fP, baseline: fF, bound: perSeed(fresh, OraclePolicy.name)),
            gapProphet: SuiteScoring.gapShare(policy: fP, baseline: fF, bound: perSeed(fresh, ProphetPolicy.name)),
            constraints: constraints)
    }
}
