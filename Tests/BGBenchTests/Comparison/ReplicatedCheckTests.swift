import Foundation
import Testing
@testable import BGBench
@testable import BGHarness
@testable import BGBenchCLI
import BGBenchTestSupport
import BGNumerics

/// `check` and `check --ab` on replicated runs (issue 24 item 1): each side's value is the
/// mean over its seeds; the same seeds give each seed's difference and a Student-t test
/// across the seeds, different seeds a Welch test across the seeds. The expectations are
/// worked out here from summary.csv's per-seed rows with written-out t quantiles and, for
/// two degrees of freedom, the closed-form t distribution — never through the harness.
@Suite struct ReplicatedCheckTests {
    /// Three seeds, two policies, 120 devices × 5 days: milliseconds per run.
    static let replicated = [
        "--policy", "adaptive,fixed", "--days", "5", "--devices", "120", "--replications", "3", "--quiet",
    ]
    /// t(0.975, 2).
    static let t975dof2 = 4.302652729911275

    func report(_ arguments: [String]) -> String {
        let out = freshPath("replicated")
        let result = bgbench(arguments + ["--out", out])
        #expect(result.code == 0, "\(result.errors)")
        return out
    }

    /// summary.csv's value of `metric` for each seed of policy × archetype `all`, in seed order.
    func perSeed(_ folder: String, _ policy: String, _ metric: String) throws -> [Double] {
        let table = try CSVTable(parsing: String(contentsOfFile: folder + "/summary.csv", encoding: .utf8))
        let p = table.index(of: "policy")!, a = table.index(of: "archetype")!, m = table.index(of: metric)!
        return try table.rows.filter { $0[p] == policy && $0[a] == "all" }.map { try #require(Double($0[m])) }
    }

    func mean(_ x: [Double]) -> Double { x.reduce(0, +) / Double(x.count) }
    func sampleSD(_ x: [Double]) -> Double {
        let m = mean(x)
        return (x.map { ($0 - m) * ($0 - m) }.reduce(0, +) / Double(x.count - 1)).squareRoot()
    }

    /// The two-sided p-value of t with 2 degrees of freedom: 1 − |t| / √(2 + t²).
    func twoSidedP2(_ t: Double) -> Double { 1 - abs(t) / (2 + t * t).squareRoot() }

    /// A/B of two configurations over seeds 1–3: A and B are the seed means, the interval is
    /// d̄ ± t(0.975, 2)·s_d/√3 of the per-seed differences; no devices.csv needed.
    @Test func abAcrossSeedsByHand() throws {
        let a = report(Self.replicated), b = report(Self.replicated + ["--set", "population.bar_off_share=0.4"])
        defer { for f in [a, b] { try? FileManager.default.removeItem(atPath: f) } }
        let result = bgbench(["check", "--ab", "--baseline", a, "--current", b])
        #expect(result.code == 0, "\(result.errors)")
        #expect(
            result.output.hasPrefix(
                "A/B: A '\(a)', B '\(b)': adaptive,fixed, 120 devices × 5 days, seeds 1–3 in both: A and B are means over the 3 seeds, intervals paired across seeds (each seed's B − A, Student-t with 2 degrees of freedom); no verdict\n"
            ))
        let differences = try RunComparison.abDifferences(
            baseline: ReportFolder(path: a, role: "baseline"), current: ReportFolder(path: b, role: "current"))
        for (policy, metric) in [
            ("adaptive", "fresh_open_rate"), ("fixed", "runs_per_day"), ("fixed", "staleness_p95_s"),
        ] {
            let va = try perSeed(a, policy, metric), vb = try perSeed(b, policy, metric)
            #expect(va.count == 3 && vb.count == 3)
            let d = zip(vb, va).map { $0 - $1 }
            let half = Self.t975dof2 * sampleSD(d) / 3.0.squareRoot()
            let found = try #require(
                differences.first { $0.policy == policy && $0.archetype == "all" && $0.metric == metric })
            let interval = try #require(found.interval)
            #expect(abs(found.baseline! - mean(va)) <= 1e-12 * abs(mean(va)))
            #expect(abs(found.current! - mean(vb)) <= 1e-12 * abs(mean(vb)))
            #expect(abs(interval.low - (mean(d) - half)) <= 1e-9 * max(1, half), "\(metric)")
            #expect(abs(interval.high - (mean(d) + half)) <= 1e-9 * max(1, half), "\(metric)")
            let p = twoSidedP2(mean(d) / (sampleSD(d) / 3.0.squareRoot()))
            #expect(abs(found.pValue! - p) < 1e-9, "\(metric)")
        }
    }

    /// A planted regression over the same six seeds: the baseline ran with half the users
    /// without Background App Refresh, the current with the default 15 % (the hashes made
    /// to agree, as after a code change that keeps the parameters), so the current spends
    /// more energy in every seed. Paired across the seeds, each p-value as worked out by
    /// hand; the energy rise is a regression after Holm over the whole family, and the gate fails.
    @Test func regressionCheckAcrossSeeds() throws {
        let six = Self.replicated.map { $0 == "3" ? "6" : $0 }
        let b = report(six + ["--set", "population.bar_off_share=0.5"]), c = report(six)
        defer { for f in [b, c] { try? FileManager.default.removeItem(atPath: f) } }
        try Self.makeSameConfiguration(b, c)
        let result = bgbench(["check", "--baseline", b, "--current", c])
        #expect(
            result.output.hasPrefix(
                "baseline '\(b)', current '\(c)': scenario default, policies adaptive,fixed, 120 devices × 5 days, seeds 1–6 in both: paired t-tests across the 6 seeds (each seed's difference); values are means over the seeds\n"
            ), "\(result.output)")
        let comparisons = try RunComparison.compare(
            baseline: ReportFolder(path: b, role: "baseline"), current: ReportFolder(path: c, role: "current"))
        for metric in ["fresh_open_rate", "staleness_mean_s", "background_energy_j_per_day"] {
            let vb = try perSeed(b, "fixed", metric), vc = try perSeed(c, "fixed", metric)
            #expect(vb.count == 6 && vc.count == 6)
            let d = zip(vc, vb).map { $0 - $1 }
            let t = mean(d) / (sampleSD(d) / 6.0.squareRoot())
            let found = try #require(
                comparisons.first { $0.policy == "fixed" && $0.archetype == "all" && $0.metric == metric })
            #expect(found.test == .pairedSeeds)
            #expect(abs(found.baseline! - mean(vb)) <= 1e-12 * abs(mean(vb)))
            #expect(abs(found.current! - mean(vc)) <= 1e-12 * abs(mean(vc)))
            let p = 2 * Distribution.studentTUpperTail(abs(t), degreesOfFreedom: 5)
            #expect(abs(found.pValue! - p) <= 1e-9 * max(p, 1e-300) + 1e-15, "\(metric)")
        }
        #expect(result.code == 1, "\(result.output)")
        #expect(
            result.output.split(separator: "\n").contains {
                $0.hasPrefix("default   fixed") && $0.contains(" all ") && $0.contains(" background_energy_j_per_day ")
                    && $0.hasSuffix("  regression")
            }, "\(result.output)")
    }

    /// Different seed sets (1–3 against 4–6) of one configuration: Welch across the seeds,
    /// no regression; against the same folder copied: nothing moves.
    @Test func independentReplicatedRunsUseWelch() throws {
        let b = report(Self.replicated), c = report(Self.replicated + ["--seed", "4"])
        defer { for f in [b, c] { try? FileManager.default.removeItem(atPath: f) } }
        let result = bgbench(["check", "--baseline", b, "--current", c])
        #expect(result.code == 0, "\(result.output)")
        #expect(result.output.contains(", seeds 1–3 and 4–6: independent replications, Welch t-tests across seeds;"))
        let comparisons = try RunComparison.compare(
            baseline: ReportFolder(path: b, role: "baseline"), current: ReportFolder(path: c, role: "current"))
        let found = try #require(
            comparisons.first { $0.policy == "adaptive" && $0.archetype == "all" && $0.metric == "fresh_open_rate" })
        #expect(found.test == .welchSeeds)
        // Welch by hand: se² = s²/3 each side; with equal variances the degrees of freedom
        // are 4, so check the t statistic through the p-value's bounds instead of a CDF:
        // the same t gives the same p for the same degrees of freedom.
        let vb = try perSeed(b, "adaptive", "fresh_open_rate"), vc = try perSeed(c, "adaptive", "fresh_open_rate")
        let se = (sampleSD(vb) * sampleSD(vb) / 3 + sampleSD(vc) * sampleSD(vc) / 3).squareRoot()
        let t = (mean(vc) - mean(vb)) / se
        let dof = pow(se * se, 2) / (pow(sampleSD(vb), 4) / 9 / 2 + pow(sampleSD(vc), 4) / 9 / 2)
        #expect(
            abs(found.pValue! - 2 * Distribution.studentTUpperTail(abs(t), degreesOfFreedom: dof)) < 1e-9)
    }

    /// A replicated run against the merge of its two shards: the issue's refusal ("a second
    /// row for policy fixed") is gone; nothing moves, and --ab says every difference is 0.
    @Test func aMergedReplicatedRunChecksAgainstTheWholeRun() throws {
        let folder = freshFolder("replicated-merge")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let whole = report(Self.replicated + ["--per-device"])
        defer { try? FileManager.default.removeItem(atPath: whole) }
        for k in 0..<2 {
            let shard = bgbench(Self.replicated + ["--per-device", "--shard", "\(k)/2", "--out", folder + "/s\(k)"])
            #expect(shard.code == 0, "\(shard.errors)")
        }
        #expect(bgbench(["merge", "--out", folder + "/m", folder + "/s0", folder + "/s1"]).code == 0)
        let check = bgbench(["check", "--baseline", whole, "--current", folder + "/m"])
        #expect(check.code == 0, "\(check.output)\(check.errors)")
        #expect(
            check.output.contains(", seeds 1–3 in both: paired t-tests across the 3 seeds (each seed's difference);"))
        #expect(check.output.contains("nothing moved beyond its tolerance"))
        let ab = bgbench(["check", "--ab", "--baseline", whole, "--current", folder + "/m"])
        #expect(ab.code == 0, "\(ab.errors)")
        #expect(ab.output.contains("no metric differs\n"))
    }

    /// One run against three seeds: no test, and the output says why; --ab refuses.
    @Test func oneSeedAgainstReplicationsIsUntested() throws {
        let b = report(Self.replicated.filter { $0 != "--replications" && $0 != "3" })
        let c = report(Self.replicated)
        defer { for f in [b, c] { try? FileManager.default.removeItem(atPath: f) } }
        let result = bgbench(["check", "--baseline", b, "--current", c])
        #expect(result.code == 0)
        #expect(
            result.output.contains(
                ", seed 1 and seeds 1–3: one run against replications, no test (give both the same --replications); values are means over the seeds\n"
            ), "\(result.output)")
        let ab = bgbench(["check", "--ab", "--baseline", b, "--current", c])
        #expect(ab.code == 65)
        #expect(
            ab.errors
                == "error: A '\(b)' has seed 1 and B '\(c)' seeds 1–3: --ab needs the same seeds in both (the same users)\n"
        )
    }

    /// As CheckTests' planted regression: run.json's scenario hash and scenario.json become
    /// the baseline's, as after a code change that keeps the parameters.
    static func makeSameConfiguration(_ b: String, _ c: String) throws {
        func sha(_ folder: String) throws -> String {
            let json = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/run.json")))
                    as? [String: Any])
            return try #require(json["resolved_scenario_sha256"] as? String)
        }
        let run = try String(contentsOfFile: c + "/run.json", encoding: .utf8)
        try run.replacingOccurrences(of: try sha(c), with: try sha(b)).write(
            toFile: c + "/run.json", atomically: true, encoding: .utf8)
        try keepParameters(b, c)
    }
}
