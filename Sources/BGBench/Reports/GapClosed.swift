/// How much of the gap from the baseline to `oracle` a policy closes (issue 11 points 4 and
/// 6): the fresh-open rate's (policy − baseline) / (oracle − baseline), per seed, and its
/// mean across seeds with a Student-t interval. 0 is the baseline, 1 is `oracle` (which
/// knows every future open); `prophet`'s share is what any predictor of the intensity
/// could close, so the gap splits into learned (baseline → policy), learnable but not
/// learned (policy → prophet) and beyond prediction (prophet → oracle). Every device of a
/// seed reads one feed, so the interval is across seeds (Reports/README.md).
public enum GapClosed {
    /// The replications.csv metric name.
    public static let metric = "gap_closed"
    /// Its unit in the files (long.csv's `unit`): a share, 0 to 1 (the terminal prints it
    /// in percent, labelled).
    public static let unit = "ratio"
    /// The upper bound the gap is measured against.
    public static let bound = "oracle"

    /// The per-seed shares of `policy`; nil when the run has no `oracle` or no baseline,
    /// for those two themselves, or when a seed's gap is zero.
    public static func perSeed(_ report: RunReport, policy: String) -> [Double]? {
        guard let baseline = report.baselinePolicy, policy != baseline, policy != bound,
            report.request.policies.contains(bound)
        else { return nil }
        func rate(_ name: String, _ seed: UInt64) -> Double? {
            report.results.first { $0.policy == name && $0.seed == seed }
                .map { FleetEstimates(tally: $0.tally, days: report.countedDays).perOpen(.freshOpens).value }
        }
        var shares: [Double] = []
        for seed in report.request.seeds {
            guard let p = rate(policy, seed), let b = rate(baseline, seed), let o = rate(bound, seed), o != b else {
                return nil
            }
            shares.append((p - b) / (o - b))
        }
        return shares
    }

    /// The mean share across seeds with its 95 % Student-t interval (none for one seed),
    /// and the standard deviation across seeds.
    public static func estimate(_ report: RunReport, policy: String) -> (mean: Estimate, sd: Double, seeds: Int)? {
        guard let shares = perSeed(report, policy: policy) else { return nil }
        let n = Double(shares.count)
        var m = Moments(n: n, sy: 0, syy: 0, sxy: 0, sx: 0, sxx: 0)
        for s in shares { m.sy += s; m.syy += s * s }
        let sd = n > 1 ? (max(0, (m.syy - m.sy * m.sy / n) / (n - 1))).squareRoot() : Double.nan
        return (n > 1 ? Estimators.mean(m) : Estimate(m.sy / n), sd, shares.count)
    }
}
