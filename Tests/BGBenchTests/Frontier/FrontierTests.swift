import Foundation
import Testing
@testable import BGBench
@testable import BGHarness
@testable import BGBenchCLI
import BGBenchTestSupport

@Suite struct FrontierTests {

    func temporary(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("bgbench-\(name)-\(UUID().uuidString)").path
    }

    /// A CSV header's column numbers by name.
    static func columns(_ header: [String]) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: header.enumerated().map { ($1, $0) })
    }

    func rows(_ path: String) throws -> [[String]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
            .map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    }

    /// A curve through (0, 0), (10, 1), (20, 1): read off by hand.
    @Test func interpolationAndAreaHaveKnownAnswers() {
        let curve = FrontierCurve(points: [(0, 0), (10, 1), (20, 1)])
        #expect(curve.value(at: 5) == 0.5)
        #expect(curve.value(at: 10) == 1)
        #expect(curve.value(at: 15) == 1)
        #expect(curve.value(at: 0) == 0 && curve.value(at: 20) == 1)
        // No extrapolation.
        #expect(curve.value(at: -0.1) == nil && curve.value(at: 20.5) == nil)
        #expect(
            curve.position(of: -1) == .below && curve.position(of: 21) == .above && curve.position(of: 3) == .inside)
        // Triangle 0–10 (area 5) plus rectangle 10–20 (area 10).
        #expect(curve.area(from: 0, to: 20) == 15)
        // 5–10: trapezoid (0.5 + 1) / 2 × 5 = 3.75; 10–15: 5.
        #expect(curve.area(from: 5, to: 15) == 8.75)
        #expect(curve.area(from: -1, to: 15) == nil && curve.area(from: 5, to: 25) == nil)
        #expect(FrontierCurve(points: [(3, 0.4)]).value(at: 3) == nil)
        let other = FrontierCurve(points: [(5, 0.2), (30, 0.9)])
        #expect(FrontierCurve.commonRange([curve, other]) == 5...20)
        #expect(FrontierCurve.commonRange([curve, FrontierCurve(points: [(25, 0), (30, 1)])]) == nil)
    }

    /// The delta method on a difference of two arms' means is the paired t-interval, and
    /// merging blocks gives the moments of all devices at once.
    @Test func jointMomentsGiveThePairedInterval() throws {
        // Two arms, one quantity: device i's (a, b).
        let rows: [[Double]] = [[3, 1], [5, 4], [2, 2], [7, 3], [4, 4], [6, 1]]
        let whole = JointMoments(arms: 2, quantities: [.opens], rows: rows)
        // Sums of the last devices merged into those of the first: the same moments, exactly.
        var first = JointSums(arms: 2, quantities: [.opens]), last = first
        for row in rows[0..<2] { first.add(row) }
        for row in rows[2...] { last.add(row) }
        first.merge(last)
        let merged = JointMoments(first)
        #expect(merged == whole)
        #expect(whole.mean == [4.5, 2.5] && whole.comoment(0, 0) == 17.5 && whole.comoment(0, 1) == 2.5)  // by hand
        // d = 2, 1, 0, 4, 0, 5: mean 2, sample sd √(34/5 − ... ) computed by hand below.
        let d = rows.map { $0[0] - $0[1] }
        let mean = d.reduce(0, +) / 6
        let sd = (d.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / 5).squareRoot()
        let half = 2.570581835636314 * sd / 6.0.squareRoot()  // t(0.975, 5)
        let e = try #require(merged.estimate { $0[0] - $0[1] })
        #expect(e.value == 2)
        #expect(abs(e.low! - (2 - half)) < 1e-6 && abs(e.high! - (2 + half)) < 1e-6)
    }

    /// fixed at 15 min (its default) and 1 h, and `none`, on 96 devices × 14 days: the arm
    /// at the baseline's own value is the baseline device by device (zero difference, zero
    /// width); threads do not matter; each arm's summary row is the plain run's.
    @Test func smallFrontier() throws {
        let one = temporary("frontier1"), two = temporary("frontier2"), plain = temporary("plain")
        defer { for p in [one, two, plain] { try? FileManager.default.removeItem(atPath: p) } }
        let common = [
            "frontier", "--policy", "fixed,none", "--knob", "fixed=15m,1h", "--devices", "96", "--days", "14",
            "--quiet",
        ]
        let a = bgbench(common + ["--threads", "1", "--out", one])
        #expect(a.code == 0, "\(a.errors)")
        let b = bgbench(common + ["--threads", "2", "--out", two])
        #expect(b.code == 0, "\(b.errors)")
        for file in ["summary.csv", "frontier.csv", "frontier-matched.csv", "paired.csv", "scenario.json"] {
            #expect(
                FileManager.default.contents(atPath: one + "/" + file)
                    == FileManager.default.contents(atPath: two + "/" + file), "\(file)")
        }
        // A frontier folder is a report folder `check` trusts and compares.
        #expect(bgbench(["check", "--exact", "--baseline", one, "--current", two]).code == 0)

        let frontier = try rows(one + "/frontier.csv")
        #expect(frontier[0] == ReportFile.frontier.header)
        #expect(frontier.dropFirst().map { $0[2] } == ["fixed", "fixed[interval=15m]", "fixed[interval=1h]", "none"])
        let same = frontier[2]
        for metric in FrontierFiles.metrics {
            let k = frontier[0].firstIndex(of: metric + "_difference")!
            #expect(same[k] == "0" && same[k + 1] == "0" && same[k + 2] == "0", "\(metric)")
            #expect(same[k - 1] == frontier[1][k - 1], "\(metric)")
        }
        // `none` makes no runs: its J/day difference is minus the baseline's, excluding zero.
        let energy = frontier[0].firstIndex(of: "background_energy_j_per_day")!
        #expect(Double(frontier[4][energy]) == 0 && Double(frontier[4][energy + 1])! == -Double(frontier[1][energy])!)
        #expect(Double(frontier[4][energy + 3])! < 0)

        // At the baseline's own J/day fixed's curve passes through the baseline's point.
        let matched = try rows(one + "/frontier-matched.csv")
        #expect(matched[0] == ReportFile.frontierMatched.header)
        let m = Self.columns(matched[0])
        let at = try #require(
            matched.first { $0[m["policy"]!] == "fixed" && $0[m["measure"]!] == "at_baseline_energy" })
        #expect(at[m["difference"]!] == "0" && at[m["status"]!] == "ok")
        #expect(matched.dropFirst().allSatisfy { $0[m["quality"]!] == "fresh_open_rate" })
        #expect(
            matched.filter { $0[m["policy"]!] == "none" }.allSatisfy {
                $0[m["status"]!] == "single_point" && $0[m["value"]!].isEmpty
            })

        // The arm at 1 h is byte for byte the plain run of fixed at 1 h.
        let run = bgbench([
            "--policy", "fixed", "--set", "policies.fixed.interval=1h", "--devices", "96", "--days", "14",
            "--quiet", "--out", plain,
        ])
        #expect(run.code == 0, "\(run.errors)")
        let plainRows = try rows(plain + "/summary.csv").dropFirst()
        let armRows = try rows(one + "/summary.csv").dropFirst().filter { $0[1] == "fixed[interval=1h]" }
        #expect(plainRows.count == armRows.count && !armRows.isEmpty)
        for (p, f) in zip(plainRows, armRows) {
            #expect(Array(p[2...]) == Array(f[2...]))
        }

        // `bgbench plot` draws the curves of a frontier folder too.
        let plot = bgbench(["plot", one])
        #expect(plot.code == 0, "\(plot.errors)")
        let png = try Data(contentsOf: URL(fileURLWithPath: one + "/frontier-curves.png"))
        #expect(png.count > 10_000 && png.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
    }

    /// Replicated: a row per arm across the seeds after the per-seed rows, the arm at the
    /// baseline's own value still exactly the baseline, and replications.csv written.
    @Test func replicatedFrontierAddsRowsAcrossSeeds() throws {
        let out = temporary("frontier-rep")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = bgbench([
            "frontier", "--policy", "fixed", "--knob", "fixed=15m,2h", "--devices", "32", "--days", "7",
            "--replications", "2", "--quiet", "--out", out,
        ])
        #expect(result.code == 0, "\(result.errors)")
        #expect(result.output.contains("2 seeds (means and intervals across seeds)"))
        #expect(FileManager.default.fileExists(atPath: out + "/replications.csv"))
        let frontier = try rows(out + "/frontier.csv")
        #expect(
            frontier.dropFirst().map { [$0[2], $0[6], $0[7]] } == [
                ["fixed", "1", "devices"], ["fixed[interval=15m]", "1", "devices"],
                ["fixed[interval=2h]", "1", "devices"],
                ["fixed", "2", "devices"], ["fixed[interval=15m]", "2", "devices"],
                ["fixed[interval=2h]", "2", "devices"],
                ["fixed", "", "seeds"], ["fixed[interval=15m]", "", "seeds"], ["fixed[interval=2h]", "", "seeds"],
            ])
        let k = frontier[0].firstIndex(of: "fresh_open_rate_difference")!
        #expect(Array(frontier[8][k...(k + 2)]) == ["0", "0", "0"])
        let matched = try rows(out + "/frontier-matched.csv")
        let m = Self.columns(matched[0])
        let across = try #require(
            matched.first { $0[m["interval"]!] == "seeds" && $0[m["measure"]!] == "at_baseline_energy" })
        #expect(across[m["seed"]!] == "" && across[m["difference"]!] == "0" && across[m["status"]!] == "ok")
    }

    /// Arms may differ only under `policies` and `platform`: a fleet pass never joins two
    /// populations.
    @Test func armsThatDifferOutsidePoliciesAreRefused() {
        var other = Scenario()
        other.population.barOffShare = 0.5
        let fixed = PolicyRegistry.named("fixed")!
        #expect(throws: SimulationError.armsDiffer(arm: 1)) {
            try Fleet.simulate(
                arms: [FleetArm(policy: fixed, scenario: Scenario()), FleetArm(policy: fixed, scenario: other)],
                baseline: 0, options: RunOptions(devices: 4, days: 1), feed: NewsFeed(times: []))
        }
        #expect(
            SimulationError.armsDiffer(arm: 1).description
                == "arm 1's scenario differs from arm 0's outside `policies` and `platform`: expected arms that meet the same users (differ only in policy and platform parameters)"
        )
    }

    /// The API a test of `prophet` calls: one policy's curve minus another's at matched energy.
    @Test func differenceBetweenCurvesIsZeroForAPolicyAgainstItself() throws {
        let request = FrontierRequest(
            scenario: ScenarioLoader.builtInDefault(), policies: ["fixed"],
            knobValues: ["fixed": ["5m", "15m", "2h"]], options: RunOptions(devices: 64, days: 7))
        let report = try Frontier.run(request)
        let e = try #require(report.difference("fixed", minus: "fixed", atEnergy: nil))
        #expect(e.value == 0)
    }

    /// The built-in policies with a knob, as the messages list them (fixed, adaptive, usage,
    /// histogram, nhpp, bayes, kde, logistic, push, schedule; a new built-in policy with a knob joins them).
    static let withKnob = PolicyRegistry.builtIn.filter { $0.parameters?.knob != nil }.map(\.name).joined(
        separator: ", ")

    /// A message without the policies other tests register at run time.
    static func withoutRegistered(_ text: String) -> String {
        let builtIn = Set(PolicyRegistry.builtIn.map(\.name))
        return PolicyRegistry.all.filter { !builtIn.contains($0.name) }.reduce(text) {
            $0.replacingOccurrences(of: ", \($1.name)", with: "")
        }
    }

    @Test(arguments: [
        (
            ["--knob", "fixed"],
            "error: invalid value 'fixed' for '--knob': expected POLICY=V1,V2,... (a policy with a knob: \(Self.withKnob))\n"
        ),
        (
            ["--knob", "fixd=1h"],
            "error: unknown policy 'fixd' for '--knob': expected one of \(Self.withKnob) (did you mean 'fixed'?)\n"
        ),
        (
            ["--knob", "none=1"],
            "error: invalid value 'none=1' for '--knob': policy 'none' has no aggressiveness knob (policies with one: \(Self.withKnob))\n"
        ),
        (
            ["--knob", "fixed=15m,,1h"],
            "error: invalid value 'fixed=15m,,1h' for '--knob': expected POLICY=V1,V2,... with no empty value\n"
        ),
        (["--knob", "fixed=15m,15m"], "error: invalid value 'fixed=15m,15m' for '--knob': value '15m' given twice\n"),
        // Two spellings of one value, found by the arms' loaded scenarios (issue 25 item 8).
        (
            ["--knob", "fixed=15m,1h,900s", "--policy", "fixed"],
            "error: invalid value 'fixed=15m,1h,900s' for '--knob': '15m' and '900s' are the same value\n"
        ),
        (
            ["--knob", "fixed=abc"],
            "error: invalid value 'abc' for '--knob fixed': expected a duration such as 90, \"90s\", \"15m\", \"2h\" or \"1d\"\n"
        ),
        (
            ["--knob", "kde=0.1", "--policy", "fixed"],
            "error: invalid value 'kde=0.1' for '--knob': policy 'kde' is not among the policies run (fixed)\n"
        ),
        (
            ["--energy-range", "20,10"],
            "error: invalid value '20,10' for '--energy-range': expected LOW,HIGH in J/day with LOW < HIGH\n"
        ),
    ])
    func badOptionsAreUsageErrors(_ arguments: [String], _ message: String) {
        let out = temporary("frontier-bad")
        let result = bgbench(["frontier", "--devices", "4", "--days", "1", "--out", out] + arguments)
        #expect(result.code == 64)
        #expect(Self.withoutRegistered(result.errors) == message + "see 'bgbench --help'\n")
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
