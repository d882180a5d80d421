import BGBench

/// A frontier's Pareto marks and pareto-pairs.csv (Reports/README.md, "A frontier folder"):
/// every arm, of every policy, is a point of one world (the frontier has no environment
/// axis), marked on the freshness–energy frontier as a sweep's summary.csv marks its
/// points: per seed, on the means over the seeds, and the share of the seeds in which it
/// is on it (frontier.csv's `pareto`, `pareto_in_seed`, `pareto_share`). The marks are
/// tested device by device as a sweep's are (``ParetoPairs``), from the arms' joint
/// moments, which keep opens and fresh opens whatever the quality axis.
extension FrontierReport {
    /// Each arm's fresh-open rate and background J/day in each seed (`[s][arm]`):
    /// frontier.csv's values, a missing one non-finite.
    public var paretoCandidates: [[SweepReport.ParetoCandidate]] {
        let battery = run.request.scenario.scenario.device.batteryWh * 3600
        return seeds.map { seed in
            arms.map { arm in
                let r = run.results.first { $0.policy == arm.label && $0.seed == seed }!
                let e = FleetEstimates(tally: r.tally, days: run.countedDays)
                return SweepReport.ParetoCandidate(
                    world: [], fresh: MetricTable.freshOpenRate.kind.estimate(e, batteryJoules: battery).value,
                    energy: MetricTable.backgroundEnergy.kind.estimate(e, batteryJoules: battery).value)
            }
        }
    }

    /// The arms' Pareto marks per seed, on the means over the seeds, and their shares.
    public var paretoMembership: ParetoPairs.Membership { ParetoPairs.membership(paretoCandidates) }

    /// pareto-pairs.csv of the frontier's arms and the terminal's verdicts.
    public func paretoPairs() -> ParetoPairs.Output {
        let membership = paretoMembership
        let perSeed = paretoCandidates
        let pooled = arms.indices.map { i in
            SweepReport.ParetoCandidate(
                world: [], fresh: Self.meanOfFinite(perSeed.map { $0[i].fresh }),
                energy: Self.meanOfFinite(perSeed.map { $0[i].energy }))
        }
        return Self.paretoPairs(
            scenario: run.request.scenario.scenario.name, labels: arms.map(\.label), pooled: pooled,
            front: membership.pooled, identity: Self.sameConfiguration(joint), joint: joint, seeds: seeds,
            days: run.countedDays)
    }

    static func meanOfFinite(_ values: [Double]) -> Double {
        let finite = values.filter(\.isFinite)
        return finite.isEmpty ? .nan : finite.reduce(0, +) / Double(finite.count)
    }

    /// For each arm, the first arm with the same per-device means of every quantity in
    /// every seed: one configuration run twice (the baseline's point and its policy's arm
    /// at the scenario's own knob value), paired once.
    static func sameConfiguration(_ joint: [JointMoments]) -> [Int] {
        guard let first = joint.first else { return [] }
        let q = first.quantities.count
        return (0..<first.arms).map { a in
            (0...a).first { b in
                joint.allSatisfy { m in (0..<q).allSatisfy { m.mean[a * q + $0] == m.mean[b * q + $0] } }
            }!
        }
    }

    /// pareto-pairs.csv from the arms' pooled candidates and marks: the pairs of
    /// ``ParetoPairs/pairs(_:front:identity:)``, each arm minus its reference arm in every
    /// seed (`joint[s]`), and across the seeds when there are several. `policy` and
    /// `reference_policy` are the arms' labels; `reference` is empty (the labels name the
    /// knob values).
    static func paretoPairs(
        scenario: String, labels: [String], pooled: [SweepReport.ParetoCandidate], front: [Bool],
        identity: [Int], joint: [JointMoments], seeds: [UInt64], days: Int
    ) -> ParetoPairs.Output {
        var csv = CSVWriter("")
        csv.row(ReportFile.paretoPairs.header!)
        var verdicts: [ParetoPairs.Verdict] = []
        for pair in ParetoPairs.pairs(pooled, front: front, identity: identity) {
            let lead = [scenario, labels[pair.point], "", labels[pair.reference], pair.relation.rawValue]
            let v = ParetoPairs.appendRows(
                &csv, lead: lead, relation: pair.relation, seeds: seeds, devices: joint.map { Int($0.n) },
                perSeed: joint.map { ParetoPairs.difference($0, arm: pair.point, minus: pair.reference, days: days) })
            verdicts.append(
                ParetoPairs.Verdict(
                    point: labels[pair.point], reference: labels[pair.reference], relation: pair.relation,
                    fresh: v.fresh, energy: v.energy, significant: v.significant))
        }
        return ParetoPairs.Output(csv: csv.output, verdicts: verdicts)
    }
}
