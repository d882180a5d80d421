import Foundation
import Testing
import BGBenchTestSupport
@testable import BGBench

/// pareto-pairs.csv (issue 24 item 2, "a paired dominance test between neighbours"): which
/// pairs are tested, their paired intervals against hand-computed ones, the verdicts, and
/// the sweep's file against paired-points.csv's comparison of the same two points.
@Suite struct ParetoPairsTests {
    typealias C = SweepReport.ParetoCandidate

    /// Student-t 0.975 quantiles (R: `qt(0.975, df)`).
    static let t3 = 3.182446305284263, t2 = 4.302652729749464

    /// World w1: frontier 0 (10 J, 50 %), 1 (20 J, 60 %), 3 (40 J, 70 %) and 5, the same
    /// configuration as 3; 2 dominated by 1 only; 4 by 0 and 1, nearest in energy 1; 7 by
    /// 0 only. World w2 has one point: nothing to pair.
    @Test func pairsAreNeighboursThenNearestDominator() {
        let candidates = [
            C(world: ["w1"], fresh: 0.50, energy: 10), C(world: ["w1"], fresh: 0.60, energy: 20),
            C(world: ["w1"], fresh: 0.55, energy: 25), C(world: ["w1"], fresh: 0.70, energy: 40),
            C(world: ["w1"], fresh: 0.45, energy: 30), C(world: ["w1"], fresh: 0.70, energy: 40),
            C(world: ["w2"], fresh: 0.40, energy: 5), C(world: ["w1"], fresh: 0.48, energy: 12),
        ]
        let front = SweepReport.pareto(candidates)
        #expect(front == [true, true, false, true, false, true, true, false])
        let pairs = ParetoPairs.pairs(candidates, front: front, identity: [0, 1, 2, 3, 4, 3, 6, 7])
        #expect(
            pairs == [
                .init(point: 1, reference: 0, relation: .neighbours),
                .init(point: 3, reference: 1, relation: .neighbours),
                .init(point: 2, reference: 1, relation: .dominated),
                .init(point: 4, reference: 1, relation: .dominated),
                .init(point: 7, reference: 0, relation: .dominated),
            ])
    }

    /// Four devices, the same opens under both arms, 2 counted days. Energy: the paired
    /// t-interval of the per-device-day differences (5, 3, −1, 5): mean 3, sd √8, so
    /// 3 ± t₃·√2. Fresh opens: the ratio of the differences dᵢ = (1, 1, −1, 3) over
    /// Σopens = 50, D = 0.08, with variance n/(n−1)·Σ(dᵢ − D·openᵢ)²/(Σopens)².
    @Test func differenceIsThePairedIntervalByHand() throws {
        // Per device, arm-major: opens, fresh opens, background energy (J) under a, then b.
        let rows: [[Double]] = [
            [10, 6, 30, 10, 5, 20], [20, 12, 50, 20, 11, 44], [5, 2, 10, 5, 3, 12], [15, 9, 40, 15, 6, 30],
        ]
        let m = JointMoments(arms: 2, quantities: SweepPlan.jointQuantities, rows: rows)
        let (fresh, energy) = ParetoPairs.difference(m, arm: 0, minus: 1, days: 2)
        let e = try #require(energy), f = try #require(fresh)

        let perDay = rows.map { ($0[2] - $0[5]) / 2 }
        let mean = perDay.reduce(0, +) / 4
        let sd = (perDay.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / 3).squareRoot()
        #expect(mean == 3 && sd == 8.0.squareRoot())
        let half = Self.t3 * sd / 2
        #expect(abs(e.policy - 16.25) < 1e-12 && abs(e.baseline - 13.25) < 1e-12)
        #expect(abs(e.difference.value - 3) < 1e-9)
        #expect(abs(e.difference.low! - (3 - half)) < 1e-7 && abs(e.difference.high! - (3 + half)) < 1e-7)

        let opens = rows.map { $0[0] }, d = rows.map { $0[1] - $0[4] }
        let total = opens.reduce(0, +), D = d.reduce(0, +) / total
        #expect(total == 50 && abs(D - 0.08) < 1e-15)
        let sum = zip(d, opens).map { ($0 - D * $1) * ($0 - D * $1) }.reduce(0, +)
        let freshHalf = Self.t3 * (4.0 / 3 * sum / (total * total)).squareRoot()
        #expect(abs(sum - 5.6) < 1e-12)
        #expect(abs(f.policy - 0.58) < 1e-12 && abs(f.baseline - 0.5) < 1e-12)
        #expect(abs(f.difference.value - 0.08) < 1e-12)
        #expect(abs(f.difference.low! - (0.08 - freshHalf)) < 1e-8)
        #expect(abs(f.difference.high! - (0.08 + freshHalf)) < 1e-8)
        // And the other way round: the same interval, negated.
        let back = try #require(ParetoPairs.difference(m, arm: 1, minus: 0, days: 2).fresh)
        #expect(abs(back.difference.high! + (0.08 - freshHalf)) < 1e-8)
    }

    /// Three seeds' differences 0.02, 0.05, 0.08: mean 0.05, sd 0.03, 0.05 ± t₂·0.03/√3;
    /// a seed without an estimate leaves none.
    @Test func acrossSeedsIsStudentTOfThePerSeedDifferences() throws {
        let perSeed = [0.02, 0.05, 0.08].enumerated().map { i, d in
            PairedEstimate(policy: 0.6 + Double(i) / 100, baseline: 0.55, difference: Estimate(d, low: d, high: d))
        }
        let across = try #require(ParetoPairs.acrossSeeds(perSeed))
        let half = Self.t2 * 0.03 / 3.0.squareRoot()
        #expect(abs(across.difference.value - 0.05) < 1e-15)
        #expect(abs(across.difference.low! - (0.05 - half)) < 1e-12)
        #expect(abs(across.difference.high! - (0.05 + half)) < 1e-12)
        #expect(abs(across.policy - 0.61) < 1e-12 && abs(across.baseline - 0.55) < 1e-12)
        #expect(ParetoPairs.acrossSeeds([perSeed[0], nil]) == nil)
    }

    /// Neighbours hold when the point is significantly fresher and costlier; a dominated
    /// point when it is significantly less fresh or costlier.
    @Test(arguments: [
        (ParetoPairs.Relation.neighbours, (0.01, 0.03), (1.0, 2.0), true as Bool?),
        (.neighbours, (-0.01, 0.03), (1.0, 2.0), false),
        (.neighbours, (0.01, 0.03), (-1.0, 2.0), false),
        (.dominated, (-0.03, -0.01), (-1.0, 1.0), true),
        (.dominated, (-0.03, 0.01), (0.5, 1.0), true),
        (.dominated, (-0.03, 0.01), (-0.5, 1.0), false),
    ])
    func verdicts(
        _ relation: ParetoPairs.Relation, _ fresh: (Double, Double), _ energy: (Double, Double), _ expected: Bool?
    ) {
        let f = Estimate((fresh.0 + fresh.1) / 2, low: fresh.0, high: fresh.1)
        let e = Estimate((energy.0 + energy.1) / 2, low: energy.0, high: energy.1)
        #expect(ParetoPairs.significant(relation, fresh: f, energy: e) == expected)
        #expect(ParetoPairs.significant(relation, fresh: Estimate(f.value), energy: e) == nil)
    }

    static let sweep = [
        "sweep", "--policy", "fixed", "--set", "policies.fixed.interval=15m,30m,1h,2h,4h", "--devices", "64",
        "--days", "4",
    ]

    /// A sweep writes pareto-pairs.csv (the table's header after its axis); each pair's
    /// per-seed difference is the one paired-points.csv gives for the same two points, and
    /// the terminal names every pair that is not significant.
    @Test func sweepPairsAgreeWithPointPairs() throws {
        let out = freshFolder("pareto-pairs"), points = freshFolder("pareto-points")
        defer { for f in [out, points] { try? FileManager.default.removeItem(atPath: f) } }
        let swept = bgbench(Self.sweep + ["--out", out])
        #expect(swept.code == 0, "\(swept.errors)")
        let text = try String(contentsOfFile: out + "/pareto-pairs.csv", encoding: .utf8)
        #expect(
            text.prefix { $0 != "\n" }.split(separator: ",").map(String.init)
                == ["policies.fixed.interval"] + ReportFile.paretoPairs.header!)
        let rows = try csvRecords(out + "/pareto-pairs.csv")
        // Five points of one policy in one world: four pairs, one each but the frontier's lowest.
        #expect(rows.count == 4)
        let summary = try csvRecords(out + "/summary.csv").filter { $0["archetype"] == "all" }
        let onFront = Set(summary.filter { $0["pareto"] == "true" }.map { $0["policies.fixed.interval"]! })
        for row in rows {
            let reference = String(row["reference"]!.dropFirst("policies.fixed.interval=".count))
            #expect(onFront.contains(reference), "\(row)")
            #expect(onFront.contains(row["policies.fixed.interval"]!) == (row["relation"] == "neighbours"))
        }
        let weak = rows.filter { $0["significant"] == "false" }
        #expect(swept.output.contains("pareto-pairs.csv: \(weak.count) of 4 frontier pairs not significant"))
        for row in weak {
            #expect(
                swept.output.contains(
                    "fixed at policies.fixed.interval=\(row["policies.fixed.interval"]!) − fixed at \(row["reference"]!)"
                ),
                "\(swept.output)")
        }

        // The first pair's reference as the sweep's baseline point: the same comparison.
        let first = rows[0]
        let paired = bgbench(Self.sweep + ["--baseline-point", first["reference"]!, "--out", points, "--quiet"])
        #expect(paired.code == 0, "\(paired.errors)")
        let same = try csvRecords(points + "/paired-points.csv").filter {
            $0["policies.fixed.interval"] == first["policies.fixed.interval"]
        }
        for metric in [MetricTable.freshOpenRate.name, MetricTable.backgroundEnergy.name] {
            let p = try #require(same.first { $0["metric"] == metric })
            for (mine, theirs) in [("_difference", "difference"), ("_difference_ci_low", "difference_ci_low")] {
                let a = Double(first[metric + mine]!)!, b = Double(p[theirs]!)!
                #expect(abs(a - b) <= 1e-9 * max(1, abs(b)), "\(metric)\(mine): \(a) vs \(b)")
            }
        }
    }
}
