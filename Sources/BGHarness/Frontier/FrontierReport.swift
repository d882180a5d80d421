import BGBench
import BGNumerics

/// The outcome of a frontier: every arm's results (a ``RunReport`` whose policies are the
/// arms' labels, so summary.csv, paired.csv and replications.csv are written as for a run)
/// and, per seed, the arms' cross moments for the matched-energy figures.
public struct FrontierReport: Sendable {
    public var request: FrontierRequest
    public var arms: [FrontierArm]
    public var run: RunReport
    /// Per seed, in seed order: the exact sums (what a shard keeps) and the moments.
    public let jointSums: [JointSums]
    public let joint: [JointMoments]

    public init(request: FrontierRequest, arms: [FrontierArm], run: RunReport, jointSums: [JointSums]) {
        self.request = request; self.arms = arms; self.run = run
        self.jointSums = jointSums
        joint = jointSums.map(JointMoments.init)
    }

    public var seeds: [UInt64] { run.request.seeds }

    /// One figure read off the curves (a row of frontier-matched.csv).
    public struct Matched: Sendable {
        public enum Measure: String, Sendable, CaseIterable {
            /// The quality at the baseline's own J/day, minus the baseline's.
            case atBaselineEnergy = "at_baseline_energy"
            /// The quality at a fixed J/day, minus the baseline policy's curve there.
            case atFixedEnergy = "at_fixed_energy"
            /// The area under the curve over the common energy range, minus the baseline policy's.
            case area
        }
        public var policy: String
        public var measure: Measure
        /// The matched J/day (nil for an area).
        public var energy: Double?
        /// The area's energy range.
        public var range: ClosedRange<Double>?
        public var value: Estimate?
        /// What the difference is taken from: the baseline's point (`fixed`) or its curve (`fixed[curve]`).
        public var reference: String
        public var difference: Estimate?
        /// `ok`, or why a value or difference is missing (Reports/README.md, frontier-matched.csv).
        public var status: String
    }

    // MARK: reading the means

    /// The request's quality axis: what every matched figure is a value of.
    public var quality: FrontierAxis { request.resolvedQuality }

    func energy(_ mu: [Double], _ m: JointMoments, arm: Int) -> Double {
        FrontierAxis.energy.value(mu, m, arm: arm, days: run.countedDays)
    }

    func quality(_ mu: [Double], _ m: JointMoments, arm: Int) -> Double {
        quality.value(mu, m, arm: arm, days: run.countedDays)
    }

    /// The arms on a policy's curve (its knob values), in order of energy at the seed's means.
    public func curveArms(_ policy: String, seed s: Int) -> [Int] {
        let m = joint[s]
        let arms = self.arms.indices.filter { self.arms[$0].policy == policy && self.arms[$0].knob != nil }
        return arms.enumerated().sorted { a, b in
            let ea = energy(m.mean, m, arm: a.element), eb = energy(m.mean, m, arm: b.element)
            return ea != eb ? ea < eb : a.offset < b.offset
        }.map(\.element)
    }

    func curve(_ mu: [Double], _ m: JointMoments, arms: [Int]) -> FrontierCurve {
        FrontierCurve(points: arms.map { (energy(mu, m, arm: $0), quality(mu, m, arm: $0)) })
    }

    /// The policies with a curve (two or more knob values).
    func curvePolicies(seed s: Int) -> [String] { request.policies.filter { curveArms($0, seed: s).count >= 2 } }

    /// The energy range of the areas at the means `mu`: the request's; else the range the
    /// baseline policy's own curve spans (each policy's area is compared with its area
    /// there); else, the baseline policy having no curve, the range every curve spans.
    func areaRange(_ mu: [Double], _ m: JointMoments, seed s: Int) -> ClosedRange<Double>? {
        if let range = request.energyRange { return range }
        let reference = curveArms(request.resolvedBaseline, seed: s)
        if reference.count >= 2, let range = curve(mu, m, arms: reference).range, range.lowerBound < range.upperBound {
            return range
        }
        return FrontierCurve.commonRange(curvePolicies(seed: s).map { curve(mu, m, arms: curveArms($0, seed: s)) })
    }

    // MARK: the figures

    /// Policy a's curve minus policy b's at `energy` (nil: the baseline's own J/day) in
    /// seed `s` (an index into `seeds`), with its device-clustered delta-method interval;
    /// b may be the baseline's point (`request.resolvedBaseline` with `point: true`). nil
    /// where a curve does not reach the energy.
    public func difference(
        _ a: String, minus b: String, atEnergy energy: Double? = nil, point: Bool = false,
        seed s: Int = 0
    ) -> Estimate? {
        let m = joint[s]
        let armsA = curveArms(a, seed: s), armsB = curveArms(b, seed: s)
        return m.estimate { mu in
            let e = energy ?? self.energy(mu, m, arm: 0)
            guard let fa = curve(mu, m, arms: armsA).value(at: e) else { return .nan }
            if point { return fa - quality(mu, m, arm: 0) }
            return curve(mu, m, arms: armsB).value(at: e).map { fa - $0 } ?? .nan
        }
    }

    /// Every matched figure of seed `s`, policy by policy in the request's order.
    public func matched(seed s: Int) -> [Matched] {
        let m = joint[s]
        let baseline = request.resolvedBaseline
        let refArms = curveArms(baseline, seed: s)
        let hasReference = refArms.count >= 2
        let refLabel = "\(baseline)[curve]"
        let mean = m.mean
        let eb = energy(mean, m, arm: 0)
        let range = areaRange(mean, m, seed: s)
        var rows: [Matched] = []
        for policy in request.policies {
            let arms = curveArms(policy, seed: s)
            guard arms.count >= 2 else {
                for measure in Matched.Measure.allCases {
                    rows.append(
                        Matched(
                            policy: policy, measure: measure, energy: nil, range: nil, value: nil,
                            reference: measure == .atBaselineEnergy ? self.arms[0].label : refLabel, difference: nil,
                            status: "single_point"))
                }
                continue
            }
            let own = curve(mean, m, arms: arms)
            // At the baseline's J/day, against its point.
            let position = own.position(of: eb)
            rows.append(
                Matched(
                    policy: policy, measure: .atBaselineEnergy, energy: eb, range: nil,
                    value: position == .inside
                        ? m.estimate { mu in curve(mu, m, arms: arms).value(at: energy(mu, m, arm: 0)) ?? .nan } : nil,
                    reference: self.arms[0].label,
                    difference: position == .inside ? difference(policy, minus: baseline, point: true, seed: s) : nil,
                    status: position.rawValue))
            // At fixed J/day, against the baseline policy's curve.
            let reference = curve(mean, m, arms: refArms)
            for level in request.energyLevels {
                let p = own.position(of: level)
                var status = p.rawValue
                var diff: Estimate?
                if p == .inside {
                    if !hasReference {
                        status = "no_reference_curve"
                    } else if reference.position(of: level) != .inside {
                        status = "reference_" + reference.position(of: level).rawValue
                    } else {
                        diff = difference(policy, minus: baseline, atEnergy: level, seed: s)
                    }
                }
                rows.append(
                    Matched(
                        policy: policy, measure: .atFixedEnergy, energy: level, range: nil,
                        value: p == .inside
                            ? m.estimate { mu in curve(mu, m, arms: arms).value(at: level) ?? .nan } : nil,
                        reference: refLabel, difference: diff, status: status))
            }
            // The area over the common range, against the baseline policy's.
            guard let range else {
                rows.append(
                    Matched(
                        policy: policy, measure: .area, energy: nil, range: nil, value: nil, reference: refLabel,
                        difference: nil, status: "no_common_range"))
                continue
            }
            let p =
                own.position(of: range.lowerBound) == .below
                ? FrontierCurve.Position.below : own.position(of: range.upperBound)
            let area = { (mu: [Double], arms: [Int]) -> Double in
                guard let r = self.areaRange(mu, m, seed: s) else { return .nan }
                return self.curve(mu, m, arms: arms).area(from: r.lowerBound, to: r.upperBound) ?? .nan
            }
            var status = p.rawValue
            var diff: Estimate?
            if p == .inside {
                if !hasReference {
                    status = "no_reference_curve"
                } else if reference.area(from: range.lowerBound, to: range.upperBound) == nil {
                    status = "reference_out_of_range"
                } else {
                    diff = m.estimate { mu in area(mu, arms) - area(mu, refArms) }
                }
            }
            rows.append(
                Matched(
                    policy: policy, measure: .area, energy: nil, range: range,
                    value: p == .inside ? m.estimate { mu in area(mu, arms) } : nil,
                    reference: refLabel, difference: diff, status: status))
        }
        for comparison in request.comparisons { rows += compared(comparison, seed: s) }
        return rows
    }

    /// One policy's curve minus another's in seed `s` (`--compare A,B`): at the baseline's
    /// J/day, at each fixed level, and the areas over the request's energy range or else
    /// the range both curves span; `reference` is `B[curve]`.
    func compared(_ c: FrontierRequest.Comparison, seed s: Int) -> [Matched] {
        let m = joint[s], mean = m.mean
        let armsA = curveArms(c.policy, seed: s), armsB = curveArms(c.reference, seed: s)
        let label = "\(c.reference)[curve]"
        let levels: [Double?] = [nil] + request.energyLevels.map { $0 }
        func row(_ measure: Matched.Measure, _ energy: Double?, _ range: ClosedRange<Double>?, _ status: String)
            -> Matched
        {
            Matched(
                policy: c.policy, measure: measure, energy: energy, range: range, value: nil, reference: label,
                difference: nil, status: status)
        }
        guard armsA.count >= 2, armsB.count >= 2 else {
            let status = armsA.count < 2 ? "single_point" : "no_reference_curve"
            return levels.map { row($0 == nil ? .atBaselineEnergy : .atFixedEnergy, $0, nil, status) }
                + [row(.area, nil, nil, status)]
        }
        let a = curve(mean, m, arms: armsA), b = curve(mean, m, arms: armsB)
        var rows: [Matched] = []
        for level in levels {
            let e = level ?? energy(mean, m, arm: 0)
            let pa = a.position(of: e), pb = b.position(of: e)
            var out = row(level == nil ? .atBaselineEnergy : .atFixedEnergy, e, nil, pa.rawValue)
            if pa == .inside {
                out.value = m.estimate { mu in
                    self.curve(mu, m, arms: armsA).value(at: level ?? self.energy(mu, m, arm: 0)) ?? .nan
                }
                if pb == .inside {
                    out.difference = difference(c.policy, minus: c.reference, atEnergy: level, seed: s)
                } else {
                    out.status = "reference_" + pb.rawValue
                }
            }
            rows.append(out)
        }
        // The areas: over the request's range, else where both curves reach (at each mean).
        let range = { (mu: [Double]) -> ClosedRange<Double>? in
            self.request.energyRange
                ?? FrontierCurve.commonRange([self.curve(mu, m, arms: armsA), self.curve(mu, m, arms: armsB)])
        }
        guard let r = range(mean) else {
            rows.append(row(.area, nil, nil, "no_common_range"))
            return rows
        }
        let area = { (mu: [Double], arms: [Int]) -> Double in
            guard let r = range(mu) else { return .nan }
            return self.curve(mu, m, arms: arms).area(from: r.lowerBound, to: r.upperBound) ?? .nan
        }
        let p = a.position(of: r.lowerBound) == .below ? FrontierCurve.Position.below : a.position(of: r.upperBound)
        var out = row(.area, nil, r, p.rawValue)
        if p == .inside {
            out.value = m.estimate { mu in area(mu, armsA) }
            if b.area(from: r.lowerBound, to: r.upperBound) == nil {
                out.status = "reference_out_of_range"
            } else {
                out.difference = m.estimate { mu in area(mu, armsA) - area(mu, armsB) }
            }
        }
        rows.append(out)
        return rows
    }

    /// The matched figures across the seeds of a replicated frontier: each figure's mean
    /// over the seeds with a Student-t interval (R − 1 degrees of freedom), the headline
    /// interval then (every device of a seed reads one feed); a figure missing in any seed
    /// is missing, with that seed's status.
    public func matchedAcrossSeeds() -> [Matched] {
        let perSeed = seeds.indices.map { matched(seed: $0) }
        guard var rows = perSeed.first else { return [] }
        for i in rows.indices {
            let all = perSeed.map { $0[i] }
            rows[i].value = Self.acrossSeeds(all.map(\.value))
            rows[i].difference = Self.acrossSeeds(all.map(\.difference))
            rows[i].status = all.first(where: { $0.status != "ok" })?.status ?? "ok"
            // The matched energy and the area's range: their means over the seeds (empty when a seed has none).
            let energies = all.compactMap(\.energy)
            rows[i].energy = energies.count == all.count ? energies.reduce(0, +) / Double(all.count) : nil
            let ranges = all.compactMap(\.range)
            rows[i].range =
                ranges.count == all.count
                ? ranges.map(\.lowerBound).reduce(0, +) / Double(all.count)...ranges.map(\.upperBound).reduce(0, +)
                    / Double(all.count)
                : nil
        }
        return rows
    }

    /// The mean of per-seed values with a Student-t interval; nil when a seed has none.
    static func acrossSeeds(_ values: [Estimate?]) -> Estimate? {
        let finite = values.compactMap { $0?.value }.filter(\.isFinite)
        guard finite.count == values.count, !finite.isEmpty else { return nil }
        var m = Moments(n: Double(finite.count), sy: 0, syy: 0, sxy: 0, sx: 0, sxx: 0)
        for v in finite { m.sy += v; m.syy += v * v }
        return Estimators.mean(m)
    }
}
