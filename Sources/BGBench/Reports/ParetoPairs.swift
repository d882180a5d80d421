/// pareto-pairs.csv (`bgbench sweep`): how sure each freshness–energy frontier mark of the
/// fleet is (Reports/README.md, "Pareto pairs"). In each world, each frontier point is
/// compared with its neighbour on the frontier (the next one up in energy), and each
/// dominated point with the frontier point that dominates it nearest in energy, device by
/// device: both ran on the same users and feed, so the paired difference in fresh-open
/// rate and in J/day carries no between-user noise. Per seed the device-clustered
/// delta-method interval (``JointMoments/estimate(_:)``, the interval of
/// ``Estimators/pairedRatio(_:scale:)``), replicated also the Student-t interval of the
/// per-seed differences across the seeds (``Estimators/mean(_:scale:)``).
public enum ParetoPairs {
    /// How the two points of a pair stand.
    public enum Relation: String, Sendable {
        /// Two frontier points next to each other in energy: `point` the one that spends
        /// more, `reference` the other. The marks hold when `point` is significantly fresher
        /// and significantly costlier: a trade-off, neither dominating the other.
        case neighbours
        /// `point` is off the frontier, `reference` on it and dominating it. The missing
        /// mark holds when `point` is significantly less fresh or significantly costlier.
        case dominated
    }

    /// One pair, by index into the candidates: `point` minus `reference`.
    public struct Pair: Sendable, Equatable {
        public var point: Int
        public var reference: Int
        public var relation: Relation
        public init(point: Int, reference: Int, relation: Relation) {
            self.point = point; self.reference = reference; self.relation = relation
        }
    }

    /// The pairs to test among `candidates` (with their frontier marks, ``SweepReport/pareto(_:)``):
    /// per world, in order of first appearance, its frontier by energy (then freshness,
    /// then order), each point paired with the next one up; then each dominated candidate
    /// with the frontier candidate of its world that dominates it, the nearest in energy
    /// (the first on a tie). Candidates with the same `identity` are one configuration
    /// simulated once (identical results, `adaptive` at every point of a sweep of
    /// `policies.fixed.interval`): only the first of them is paired. Non-finite candidates
    /// are left out.
    public static func pairs(_ candidates: [SweepReport.ParetoCandidate], front: [Bool], identity: [Int]) -> [Pair] {
        var worlds: [[String]] = []
        for c in candidates where !worlds.contains(c.world) { worlds.append(c.world) }
        func finite(_ i: Int) -> Bool { candidates[i].fresh.isFinite && candidates[i].energy.isFinite }
        var out: [Pair] = []
        for world in worlds {
            let members = candidates.indices.filter { candidates[$0].world == world && finite($0) }
            let onFront = members.filter { front[$0] }.sorted { a, b in
                let x = candidates[a], y = candidates[b]
                if x.energy != y.energy { return x.energy < y.energy }
                if x.fresh != y.fresh { return x.fresh < y.fresh }
                return a < b
            }
            var seen: Set<Int> = []
            let distinct = onFront.filter { seen.insert(identity[$0]).inserted }
            for (a, b) in zip(distinct, distinct.dropFirst()) {
                out.append(Pair(point: b, reference: a, relation: .neighbours))
            }
            for d in members where !front[d] && seen.insert(identity[d]).inserted {
                let c = candidates[d]
                let dominating = distinct.filter { f in
                    candidates[f].fresh >= c.fresh && candidates[f].energy <= c.energy
                }
                guard
                    let f = dominating.min(by: {
                        abs(candidates[$0].energy - c.energy) < abs(candidates[$1].energy - c.energy)
                    })
                else { continue }
                out.append(Pair(point: d, reference: f, relation: .dominated))
            }
        }
        return out
    }

    /// Arm `a` minus arm `b` in one seed from the arms' joint moments of
    /// ``SweepPlan/jointQuantities``: the fresh-open rate (Σ fresh opens / Σ opens) and
    /// background energy per device-day (`days` counted days), each with the two arms'
    /// values and the difference's device-clustered 95 % interval; nil where undefined.
    public static func difference(_ m: JointMoments, arm a: Int, minus b: Int, days: Int)
        -> (fresh: PairedEstimate?, energy: PairedEstimate?)
    {
        let perDay = 1 / Double(max(1, days))
        func fresh(_ mu: [Double], _ arm: Int) -> Double {
            let opens = mu[m.index(arm: arm, .opens)]
            return opens > 0 ? mu[m.index(arm: arm, .freshOpens)] / opens : .nan
        }
        func energy(_ mu: [Double], _ arm: Int) -> Double { mu[m.index(arm: arm, .backgroundEnergy)] * perDay }
        func paired(_ f: @escaping ([Double], Int) -> Double) -> PairedEstimate? {
            m.estimate { mu in f(mu, a) - f(mu, b) }.map {
                PairedEstimate(policy: f(m.mean, a), baseline: f(m.mean, b), difference: $0)
            }
        }
        return (paired(fresh), paired(energy))
    }

    /// The per-seed estimates' mean over the seeds with the Student-t interval of the
    /// differences across them (R − 1 degrees of freedom); nil when a seed has none.
    public static func acrossSeeds(_ perSeed: [PairedEstimate?]) -> PairedEstimate? {
        let all = perSeed.compactMap { $0 }
        guard all.count == perSeed.count, !all.isEmpty else { return nil }
        let n = Double(all.count)
        var m = Moments(n: n, sy: 0, syy: 0, sxy: 0, sx: 0, sxx: 0)
        for e in all { m.sy += e.difference.value; m.syy += e.difference.value * e.difference.value }
        return PairedEstimate(
            policy: all.reduce(0) { $0 + $1.policy } / n, baseline: all.reduce(0) { $0 + $1.baseline } / n,
            difference: Estimators.mean(m))
    }

    /// Whether the pair's relation holds beyond the intervals (``Relation``); nil without
    /// both intervals.
    public static func significant(_ relation: Relation, fresh: Estimate?, energy: Estimate?) -> Bool? {
        guard let fl = fresh?.low, let fh = fresh?.high, let el = energy?.low else { return nil }
        switch relation {
        case .neighbours: return fl > 0 && el > 0
        case .dominated: return fh < 0 || el > 0
        }
    }

    /// Pareto membership with its uncertainty: each candidate's mark on the frontier of its
    /// world among the values' means over the seeds (a seed without a value left out of the
    /// mean; none at all counts as the worst), its mark in each seed among that seed's
    /// candidates, and the share of the seeds in which it is on the frontier.
    public struct Membership: Sendable, Equatable {
        public var pooled: [Bool]
        /// Seed-major: `inSeed[s][i]`, candidate i in seed s.
        public var inSeed: [[Bool]]
        /// k/R: the seeds in which the candidate is on its seed's frontier, of all R.
        public var share: [Double]
    }

    /// The membership of candidates given per seed (`perSeed[s][i]`: candidate i in seed s;
    /// every seed the same candidates in the same order; a missing value non-finite).
    public static func membership(_ perSeed: [[SweepReport.ParetoCandidate]]) -> Membership {
        guard let first = perSeed.first else { return Membership(pooled: [], inSeed: [], share: []) }
        func mean(_ values: [Double]) -> Double? {
            let finite = values.filter(\.isFinite)
            return finite.isEmpty ? nil : finite.reduce(0, +) / Double(finite.count)
        }
        let pooled = first.indices.map { i in
            SweepReport.ParetoCandidate(
                world: first[i].world, fresh: mean(perSeed.map { $0[i].fresh }) ?? -.infinity,
                energy: mean(perSeed.map { $0[i].energy }) ?? .infinity)
        }
        let inSeed = perSeed.map { seed in
            SweepReport.pareto(
                seed.map {
                    SweepReport.ParetoCandidate(
                        world: $0.world, fresh: $0.fresh.isFinite ? $0.fresh : -.infinity,
                        energy: $0.energy.isFinite ? $0.energy : .infinity)
                })
        }
        let share = first.indices.map { i in Double(inSeed.filter { $0[i] }.count) / Double(perSeed.count) }
        return Membership(pooled: SweepReport.pareto(pooled), inSeed: inSeed, share: share)
    }

    /// One tested pair's rows of pareto-pairs.csv after `lead` (the file's columns up to
    /// `relation`): one per seed (`devices`: that seed's device-clustered interval) and,
    /// with more than one seed, one across them (`seeds`); the verdict's figures are the
    /// last row's, the decisive one.
    package static func appendRows(
        _ csv: inout CSVWriter<String>, lead: [String], relation: Relation, seeds: [UInt64], devices: [Int],
        perSeed: [(fresh: PairedEstimate?, energy: PairedEstimate?)]
    ) -> (fresh: Estimate?, energy: Estimate?, significant: Bool?) {
        func row(_ seed: String, _ kind: String, _ devices: String, _ f: PairedEstimate?, _ e: PairedEstimate?)
            -> (fresh: Estimate?, energy: Estimate?, significant: Bool?)
        {
            let significant = Self.significant(relation, fresh: f?.difference, energy: e?.difference)
            var fields = lead + [seed, kind, devices]
            for x in [f, e] {
                let numbers: [Double?] = [
                    x?.policy, x?.baseline, x?.difference.value, x?.difference.low, x?.difference.high,
                ]
                fields += numbers.map { CSVNumber.format($0) }
            }
            csv.row(fields + [SeriesReports.mark(significant)])
            return (f?.difference, e?.difference, significant)
        }
        var last: (fresh: Estimate?, energy: Estimate?, significant: Bool?) = (nil, nil, nil)
        for (s, seed) in seeds.enumerated() {
            last = row(String(seed), "devices", String(devices[s]), perSeed[s].fresh, perSeed[s].energy)
        }
        if perSeed.count > 1 {
            last = row("", "seeds", "", acrossSeeds(perSeed.map(\.fresh)), acrossSeeds(perSeed.map(\.energy)))
        }
        return last
    }

    /// The columns after the sweep's axis columns (the point's values).
    public static let header: [String] = {
        var out = [
            "scenario", "policy", "reference", "reference_policy", "relation", "seed", "interval_kind", "devices",
        ]
        for m in [MetricTable.freshOpenRate.name, MetricTable.backgroundEnergy.name] {
            let columns: [String] = [
                m, "reference_" + m, m + "_difference", m + "_difference_ci_low", m + "_difference_ci_high",
            ]
            out += columns
        }
        return out + ["significant"]
    }()

    /// One tested pair as the terminal shows it: the decisive intervals (across the seeds
    /// when replicated, else the seed's over devices).
    public struct Verdict: Sendable {
        /// `policy at path=value;...` of the design axes (and the environment's, as `in ...`).
        public var point: String
        public var reference: String
        public var relation: Relation
        public var fresh: Estimate?
        public var energy: Estimate?
        public var significant: Bool?
        public init(
            point: String, reference: String, relation: Relation, fresh: Estimate?, energy: Estimate?,
            significant: Bool?
        ) {
            self.point = point; self.reference = reference; self.relation = relation
            self.fresh = fresh; self.energy = energy; self.significant = significant
        }
    }

    /// The file and its verdicts.
    public struct Output: Sendable {
        public var csv: String
        public var verdicts: [Verdict]
        public init(csv: String, verdicts: [Verdict]) { self.csv = csv; self.verdicts = verdicts }
    }
}

extension SweepReport {
    /// pareto-pairs.csv for the fleet's (`all`) frontier marks of summary.csv's `pareto`
    /// column, from the groups' joint moments (`SweepRun.joint`); nil when no group kept
    /// them (every group of more than ``SweepPlan/maxJointArms`` arms, or of one).
    public func paretoPairs(reports: [RunReport], joint: [SweepRun.GroupJoint]) -> ParetoPairs.Output? {
        guard !joint.isEmpty else { return nil }
        let (keys, front, _, candidates) = paretoFlags()
        // The fleet's keys with an arm of a group that kept its joint sums.
        var chosen: [Int] = [], where_: [(group: Int, arm: Int)] = []
        for (i, key) in keys.enumerated() where key.archetype == "all" {
            guard let j = reports[key.point].request.policies.firstIndex(of: key.policy),
                let g = joint.firstIndex(where: { $0.points.contains(key.point) }),
                let arm = joint[g].arm(point: key.point, policy: j)
            else { continue }
            chosen.append(i)
            where_.append((g, arm))
        }
        let identity = where_.map { $0.group * (SweepPlan.maxJointArms + 1) + $0.arm }
        let pairs = ParetoPairs.pairs(
            chosen.map { candidates[$0] }, front: chosen.map { front[keys[$0]]! }, identity: identity
        ).filter { where_[$0.point].group == where_[$0.reference].group }
        var moments: [Int: [JointMoments]] = [:]
        let design = axes.indices.filter { axes[$0].isDesign }, environment = axes.indices.filter { !axes[$0].isDesign }
        func label(_ c: Int) -> String {
            let key = keys[chosen[c]], values = points[key.point].values
            let at = design.map { "\(axes[$0].path)=\(values[$0])" }.joined(separator: ";")
            let world = environment.map { "\(axes[$0].path)=\(values[$0])" }.joined(separator: ";")
            return key.policy + (at.isEmpty ? "" : " at " + at) + (world.isEmpty ? "" : " in " + world)
        }
        var csv = CSVWriter("")
        csv.row(axes.map(\.path) + ParetoPairs.header)
        var verdicts: [ParetoPairs.Verdict] = []
        for pair in pairs {
            let p = keys[chosen[pair.point]], r = keys[chosen[pair.reference]]
            let (g, a) = where_[pair.point], b = where_[pair.reference].arm
            let report = reports[p.point]
            if moments[g] == nil { moments[g] = joint[g].sums.map(JointMoments.init) }
            let reference = design.filter { points[p.point].values[$0] != points[r.point].values[$0] }
                .map { "\(axes[$0].path)=\(points[r.point].values[$0])" }.joined(separator: ";")
            let lead =
                points[p.point].values + [
                    report.request.scenario.scenario.name, p.policy, reference, r.policy, pair.relation.rawValue,
                ]
            let seeds = report.request.seeds
            let perSeed = seeds.indices.map {
                ParetoPairs.difference(moments[g]![$0], arm: a, minus: b, days: report.countedDays)
            }
            let v = ParetoPairs.appendRows(
                &csv, lead: lead, relation: pair.relation, seeds: seeds,
                devices: seeds.indices.map { Int(moments[g]![$0].n) }, perSeed: perSeed)
            verdicts.append(
                ParetoPairs.Verdict(
                    point: label(pair.point), reference: label(pair.reference), relation: pair.relation,
                    fresh: v.fresh, energy: v.energy, significant: v.significant))
        }
        return ParetoPairs.Output(csv: csv.output, verdicts: verdicts)
    }
}
