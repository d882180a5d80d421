import Foundation
import Testing
import BGBenchTestSupport
@testable import BGBench
@testable import BGHarness

/// A frontier's Pareto marks with their uncertainty and its pareto-pairs.csv (issue 24):
/// membership and a pair computed by hand, then a frontier folder against its own
/// frontier.csv.
@Suite struct FrontierParetoTests {
    typealias C = SweepReport.ParetoCandidate

    /// Student-t 0.975 quantiles (R: `qt(0.975, df)`).
    static let t1 = 12.706204736174707, t3 = 3.182446305284263

    /// Four arms over three seeds (fresh-open rate, J/day). Seed 1: A and B on the
    /// frontier, C dominated by B, D by A. Seed 2: every arm on it (D the cheapest, C the
    /// freshest, A and B between). Seed 3: D has no opens (the worst), C dominated by B.
    /// So A and B are on it in 3 seeds of 3, C and D in 1. Pooled: A (0.5, 10), B
    /// (0.5767, 20.67), C (0.5667, 25) dominated by B, D (0.425 of its two seeds, 11)
    /// dominated by A.
    @Test func membershipByHand() {
        let seeds: [[C]] = [
            [
                C(world: [], fresh: 0.50, energy: 10), C(world: [], fresh: 0.60, energy: 20),
                C(world: [], fresh: 0.55, energy: 25), C(world: [], fresh: 0.40, energy: 12),
            ],
            [
                C(world: [], fresh: 0.50, energy: 10), C(world: [], fresh: 0.52, energy: 22),
                C(world: [], fresh: 0.58, energy: 24), C(world: [], fresh: 0.45, energy: 9),
            ],
            [
                C(world: [], fresh: 0.50, energy: 10), C(world: [], fresh: 0.61, energy: 20),
                C(world: [], fresh: 0.57, energy: 26), C(world: [], fresh: .nan, energy: 12),
            ],
        ]
        let m = ParetoPairs.membership(seeds)
        #expect(m.inSeed == [[true, true, false, false], [true, true, true, true], [true, true, false, false]])
        #expect(m.share == [1, 1, 1.0 / 3, 1.0 / 3])
        #expect(m.pooled == [true, true, false, false])
        // One seed: the share is the mark.
        let one = ParetoPairs.membership([seeds[1]])
        #expect(one.share == [1, 1, 1, 1] && one.pooled == [true, true, true, true])
    }

    /// Three arms on four devices, 2 counted days: arm 2 is arm 0 run twice (the baseline's
    /// point and its own knob value), so one pair: arm 1 (0.58, 16.25 J/day) over arm 0
    /// (0.5, 13.25) as neighbours. Seed 1 by hand: energy per device-day differences
    /// (5, 3, −1, 5), mean 3, sd √8, 3 ± t₃·√2; fresh-open differences dᵢ = (1, 1, −1, 3)
    /// over Σopens 50: 0.08 with variance 4/3 · Σ(dᵢ − 0.08·openᵢ)²/50² (Σ = 5.6). Seed 2
    /// is seed 1 with 8 J more per device under arm 1: energy 7; across the two seeds
    /// 5 ± t₁·sd/√2 with sd 2√2, so 5 ± 2t₁, not significant.
    @Test func pairsOverArmsByHand() throws {
        // Per device, arm-major: opens, fresh opens, background energy (J).
        let base: [[Double]] = [[10, 5, 20], [20, 11, 44], [5, 3, 12], [15, 6, 30]]
        let one: [[Double]] = [[10, 6, 30], [20, 12, 50], [5, 2, 10], [15, 9, 40]]
        let q = FrontierAxis.jointQuantities(quality: .defaultQuality)
        #expect(q == [.opens, .freshOpens, .backgroundEnergy])
        var rows1: [[Double]] = [], rows2: [[Double]] = []
        for i in 0..<4 {
            let more: [Double] = [one[i][0], one[i][1], one[i][2] + 8]
            rows1.append(base[i] + one[i] + base[i])
            rows2.append(base[i] + more + base[i])
        }
        let seed1 = JointMoments(arms: 3, quantities: q, rows: rows1)
        let seed2 = JointMoments(arms: 3, quantities: q, rows: rows2)
        let joint = [seed1, seed2]
        #expect(FrontierReport.sameConfiguration(joint) == [0, 1, 0])
        let pooled: [C] = [
            C(world: [], fresh: 0.5, energy: 13.25), C(world: [], fresh: 0.58, energy: 18.25),
            C(world: [], fresh: 0.5, energy: 13.25),
        ]
        let out = FrontierReport.paretoPairs(
            scenario: "s", labels: ["fixed", "fixed[interval=30m]", "fixed[interval=15m]"], pooled: pooled,
            front: [true, true, true], identity: FrontierReport.sameConfiguration(joint), joint: joint,
            seeds: [7, 8], days: 2)
        let lines: [[String]] = out.csv.split(separator: "\n").map { (line: Substring) -> [String] in
            line.split(separator: ",", omittingEmptySubsequences: false).map { String($0) }
        }
        #expect(lines[0] == ReportFile.paretoPairs.header!)
        #expect(lines.count == 4, "\(out.csv)")
        let rows: [[String: String]] = lines.dropFirst().map { (fields: [String]) -> [String: String] in
            Dictionary(uniqueKeysWithValues: zip(lines[0], fields))
        }
        for row in rows {
            #expect(row["policy"] == "fixed[interval=30m]" && row["reference_policy"] == "fixed")
            #expect(row["reference"] == "" && row["relation"] == "neighbours" && row["scenario"] == "s")
        }
        #expect(rows.map { $0["seed"]! } == ["7", "8", ""])
        #expect(rows.map { $0["interval_kind"]! } == ["devices", "devices", "seeds"])
        #expect(rows.map { $0["devices"]! } == ["4", "4", ""])
        func number(_ row: [String: String], _ column: String) -> Double { Double(row[column]!)! }
        let e = "background_energy_j_per_day", f = "fresh_open_rate"
        // Seed 1.
        let half = Self.t3 * 2.0.squareRoot()
        #expect(abs(number(rows[0], e) - 16.25) < 1e-12 && abs(number(rows[0], "reference_" + e) - 13.25) < 1e-12)
        #expect(abs(number(rows[0], e + "_difference") - 3) < 1e-9)
        #expect(abs(number(rows[0], e + "_difference_ci_low") - (3 - half)) < 1e-7)
        #expect(abs(number(rows[0], e + "_difference_ci_high") - (3 + half)) < 1e-7)
        let freshHalf = Self.t3 * (4.0 / 3 * 5.6 / 2500).squareRoot()
        #expect(abs(number(rows[0], f) - 0.58) < 1e-12 && abs(number(rows[0], "reference_" + f) - 0.5) < 1e-12)
        #expect(abs(number(rows[0], f + "_difference") - 0.08) < 1e-12)
        #expect(abs(number(rows[0], f + "_difference_ci_low") - (0.08 - freshHalf)) < 1e-8)
        #expect(rows[0]["significant"] == "false")
        // Seed 2: 8 J more per device is 4 J more per device-day.
        #expect(abs(number(rows[1], e + "_difference") - 7) < 1e-9)
        // Across the seeds.
        let across = 2 * Self.t1
        #expect(abs(number(rows[2], e + "_difference") - 5) < 1e-9)
        #expect(abs(number(rows[2], e + "_difference_ci_low") - (5 - across)) < 1e-7)
        #expect(abs(number(rows[2], e + "_difference_ci_high") - (5 + across)) < 1e-7)
        #expect(abs(number(rows[2], f + "_difference") - 0.08) < 1e-12)
        #expect(rows[2]["significant"] == "false")
        #expect(out.verdicts.count == 1 && out.verdicts[0].point == "fixed[interval=30m]")
        #expect(out.verdicts[0].energy.map { abs($0.value - 5) < 1e-9 } == true)
    }

    static let frontier = [
        "frontier", "--policy", "fixed,adaptive", "--baseline-policy", "fixed[interval=4h]", "--devices", "64",
        "--days", "4",
    ]

    /// Whether each of (fresh, energy) is on the frontier among them, by the definition.
    static func front(_ points: [(Double, Double)]) -> [Bool] {
        points.map { p in
            !points.contains { o in o.0 >= p.0 && o.1 <= p.1 && (o.0 > p.0 || o.1 < p.1) }
        }
    }

    /// A frontier folder, one seed and two: frontier.csv's marks are those its own values
    /// give, the share is the seeds' marks counted, and every pair's difference is the two
    /// arms' differences from the baseline in frontier.csv subtracted (against the
    /// baseline arm itself, with frontier.csv's interval).
    @Test(arguments: [1, 2]) func frontierFolderAgreesWithFrontierCSV(_ replications: Int) throws {
        let out = freshFolder("frontier-pareto-\(replications)")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = bgbench(Self.frontier + ["--replications", "\(replications)", "--out", out])
        try #require(result.code == 0, "\(result.errors)")
        let text = try String(contentsOfFile: out + "/pareto-pairs.csv", encoding: .utf8)
        #expect(text.prefix { $0 != "\n" }.split(separator: ",").map(String.init) == ReportFile.paretoPairs.header!)
        let rows = try csvRecords(out + "/frontier.csv")
        let e = "background_energy_j_per_day", f = "fresh_open_rate"
        func point(_ row: [String: String]) -> (Double, Double) { (Double(row[f]!)!, Double(row[e]!)!) }
        let seeds = Array(Set(rows.compactMap { $0["seed"]!.isEmpty ? nil : $0["seed"]! })).sorted()
        #expect(seeds.count == replications)
        var inSeed: [String: Int] = [:]
        for seed in seeds {
            let mine = rows.filter { $0["seed"] == seed }
            for (row, on) in zip(mine, Self.front(mine.map(point))) {
                #expect(row["pareto_in_seed"] == (on ? "true" : "false"), "\(row)")
                inSeed[row["arm"]!, default: 0] += on ? 1 : 0
            }
        }
        let pooledRows = replications > 1 ? rows.filter { $0["seed"] == "" } : rows
        let arms = Set(rows.map { $0["arm"]! })
        #expect(pooledRows.count == arms.count && arms.count > 8)
        for (row, on) in zip(pooledRows, Self.front(pooledRows.map(point))) {
            for r in rows where r["arm"] == row["arm"] {
                #expect(r["pareto"] == (on ? "true" : "false"), "\(r)")
                #expect(Double(r["pareto_share"]!)! == Double(inSeed[r["arm"]!]!) / Double(replications), "\(r)")
                if r["seed"] == "" { #expect(r["pareto_in_seed"] == "") }
            }
        }
        // The marks are not all alike: some arm is on the frontier in one seed and not in
        // the other, or on it in a seed and off the pooled frontier.
        if replications > 1 {
            #expect(rows.contains { $0["pareto_share"] == "0.5" })
            #expect(rows.contains { $0["pareto_in_seed"] != "" && $0["pareto_in_seed"] != $0["pareto"] })
        }
        let pairs = try csvRecords(out + "/pareto-pairs.csv")
        #expect(!pairs.isEmpty)
        #expect(pairs.filter { $0["interval_kind"] == "seeds" }.count == (replications > 1 ? pairs.count / 3 : 0))
        var againstBaseline = 0
        for pair in pairs where pair["interval_kind"] == "devices" {
            let p = try #require(rows.first { $0["arm"] == pair["policy"] && $0["seed"] == pair["seed"] })
            let r = try #require(rows.first { $0["arm"] == pair["reference_policy"] && $0["seed"] == pair["seed"] })
            for metric in [f, e] {
                func d(_ row: [String: String]) -> Double { Double(row[metric + "_difference"]!) ?? 0 }
                let expected = d(p) - d(r), got = Double(pair[metric + "_difference"]!)!
                #expect(abs(got - expected) <= 1e-9 * max(1, abs(expected)), "\(pair) \(metric)")
                #expect(pair[metric] == p[metric] && pair["reference_" + metric] == r[metric])
                if pair["reference_policy"] == "fixed[interval=4h]" {
                    for end in ["_difference_ci_low", "_difference_ci_high"] {
                        let a = Double(pair[metric + end]!)!, b = Double(p[metric + end]!)!
                        #expect(abs(a - b) <= 1e-9 * max(1, abs(b)), "\(pair) \(metric)\(end)")
                    }
                }
            }
            againstBaseline += pair["reference_policy"] == "fixed[interval=4h]" ? 1 : 0
        }
        #expect(againstBaseline > 0)
        let marked = pooledRows.filter { $0["pareto"] == "true" }.map { $0["arm"]! }
        let listed = marked.map { replications > 1 ? "\($0) \(inSeed[$0]!)/\(replications)" : $0 }
        #expect(
            result.output.contains(
                "Pareto frontier of fresh-open rate against J/day (frontier.csv's pareto"
                    + (replications > 1 ? "; k/2: the seeds in which the arm is on it, pareto_share" : "") + "): "
                    + listed.joined(separator: ", ") + "\n"), "\(result.output)")
        #expect(result.output.contains("pareto-pairs.csv: "))
    }
}
