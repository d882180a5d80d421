import Foundation
import Testing
import BGBenchTestSupport
@testable import BGBench
@testable import BGHarness

/// `bgbench suite --compare A B` (docs/suite.md, "Comparing scorecards") on scorecard folders
/// written by hand: B − A paired across seeds when the seeds match, Welch's t when they do
/// not (the intervals from scipy's `stats.t.ppf`), and the refusals with their exact lines.
@Suite struct ScorecardComparisonTests {
    /// A scorecard folder with one task `news`, one policy and the given per-seed headline
    /// differences (and gaps closed to oracle at half of them).
    static func folder(
        policy: String = "kde", version: String = "1", sha256: String = String(repeating: "a", count: 64),
        scope: String = "full", commit: String = "c1", seeds: [UInt64], differences: [Double],
        basis: String = "matched_energy"
    ) throws -> String {
        let path = freshFolder("scorecard-\(policy)")
        let json = """
            {
              "bgbench" : {"git_commit" : "\(commit)", "gsl" : "2.7", "version" : "0.1.0"},
              "policies" : ["\(policy)"],
              "suite" : {"name" : "bgbench-suite", "quick" : \(scope == "quick"), "scope" : "\(scope)",
                         "sha256" : "\(sha256)", "tasks" : ["news"], "version" : "\(version)"}
            }
            """
        var csv = ReportFile.scorecardHeader.joined(separator: ",") + "\n"
        let mean = differences.reduce(0, +) / Double(differences.count)
        csv +=
            "\(version),\(scope),news,\(policy),headline_difference,fresh_open_rate,,\(mean),0,0,ratio,seeds,\(basis)\n"
        for (s, d) in zip(seeds, differences) {
            csv +=
                "\(version),\(scope),news,\(policy),headline_difference,fresh_open_rate,\(s),\(d),,,ratio,none,\(basis)\n"
        }
        csv += "\(version),\(scope),news,\(policy),gap_closed_oracle,fresh_open_rate,,\(mean / 2),0,0,ratio,seeds,ok\n"
        for (s, d) in zip(seeds, differences) {
            csv +=
                "\(version),\(scope),news,\(policy),gap_closed_oracle,fresh_open_rate,\(s),\(d / 2),,,ratio,none,ok\n"
        }
        csv +=
            "\(version),\(scope),news,\(policy),gap_closed_prophet,fresh_open_rate,,,,,ratio,none,gap_not_significant\n"
        try Data(json.utf8).write(to: URL(fileURLWithPath: path + "/scorecard.json"))
        try Data(csv.utf8).write(to: URL(fileURLWithPath: path + "/scorecard.csv"))
        return path
    }

    func row(_ o: ScorecardComparison.Outcome, _ quantity: String) throws -> ScorecardComparison.Row {
        try #require(o.rows.first { $0.quantity == quantity })
    }

    @Test func sameSeedsArePaired() throws {
        // B − A seed by seed: 0.1, 0.2, 0.0; mean 0.1, sd 0.1, half-width
        // qt(0.975, 2) × 0.1 / √3 = 0.24841377117503302.
        let a = try Self.folder(seeds: [1, 2, 3], differences: [0.1, 0.2, 0.3])
        let b = try Self.folder(policy: "usage", seeds: [1, 2, 3], differences: [0.2, 0.4, 0.3])
        defer { for f in [a, b] { try? FileManager.default.removeItem(atPath: f) } }
        let o = try ScorecardComparison.compare(
            ScorecardFolder(path: a, role: "A"), ScorecardFolder(path: b, role: "B"))
        #expect(o.warnings.isEmpty)
        let h = try row(o, "headline_difference")
        #expect(h.policyA == "kde" && h.policyB == "usage" && h.metric == "fresh_open_rate")
        #expect(h.status == "paired_seeds")
        let d = try #require(h.difference)
        #expect(abs(d.value - 0.1) < 1e-12)
        #expect(abs(d.low! - -0.14841377117503302) < 1e-12 && abs(d.high! - 0.348413771175033) < 1e-12)
        // The gaps closed, at half the differences: half the interval.
        let g = try #require(try row(o, "gap_closed_oracle").difference)
        #expect(abs(g.low! - -0.14841377117503302 / 2) < 1e-12)
        // Undefined in both: no difference, and why.
        let p = try row(o, "gap_closed_prophet")
        #expect(p.difference == nil && p.status == "undefined (A gap_not_significant, B gap_not_significant)")
    }

    @Test func otherSeedsAreWelch() throws {
        // A 0.1, 0.2, 0.3 on seeds 1–3; B 0.3, 0.5, 0.4 on seeds 4–6: difference 0.2,
        // Welch–Satterthwaite 4 degrees of freedom, interval 0.2 ∓ qt(0.975, 4) × √(0.02/3).
        let a = try Self.folder(seeds: [1, 2, 3], differences: [0.1, 0.2, 0.3])
        let b = try Self.folder(seeds: [4, 5, 6], differences: [0.3, 0.5, 0.4])
        defer { for f in [a, b] { try? FileManager.default.removeItem(atPath: f) } }
        let o = try ScorecardComparison.compare(
            ScorecardFolder(path: a, role: "A"), ScorecardFolder(path: b, role: "B"))
        let h = try row(o, "headline_difference")
        #expect(h.policyA == "kde" && h.policyB == "kde" && h.status == "welch_seeds")
        let d = try #require(h.difference)
        #expect(abs(d.value - 0.2) < 1e-12)
        #expect(abs(d.low! - -0.026695793552751895) < 1e-12 && abs(d.high! - 0.4266957935527519) < 1e-12)
    }

    @Test func differentBasesAndBuildsAreSaid() throws {
        let a = try Self.folder(seeds: [1, 2], differences: [0.1, 0.2])
        let b = try Self.folder(commit: "c2", seeds: [1, 2], differences: [0.1, 0.2], basis: "point")
        defer { for f in [a, b] { try? FileManager.default.removeItem(atPath: f) } }
        let o = try ScorecardComparison.compare(
            ScorecardFolder(path: a, role: "A"), ScorecardFolder(path: b, role: "B"))
        #expect(
            o.warnings == [
                "warning: A was scored by bgbench 0.1.0 (commit c1), B by 0.1.0 (commit c2): the model may differ, and its change is in every difference below"
            ])
        let h = try row(o, "headline_difference")
        #expect(h.difference == nil && h.status == "bases_differ (A matched_energy, B point)")
    }

    @Test func otherSuitesAreRefused() throws {
        let a = try Self.folder(seeds: [1, 2], differences: [0.1, 0.2])
        let v2 = try Self.folder(version: "2", seeds: [1, 2], differences: [0.1, 0.2])
        let edited = try Self.folder(
            sha256: String(repeating: "b", count: 64), seeds: [1, 2], differences: [0.1, 0.2])
        let quick = try Self.folder(scope: "quick", seeds: [1, 2], differences: [0.1, 0.2])
        defer { for f in [a, v2, edited, quick] { try? FileManager.default.removeItem(atPath: f) } }
        func refusal(_ b: String) -> String? {
            do {
                _ = try ScorecardComparison.compare(
                    ScorecardFolder(path: a, role: "A"), ScorecardFolder(path: b, role: "B"))
                return nil
            } catch { return error.description }
        }
        #expect(
            refusal(v2)
                == "scorecards of different suites: A '\(a)' is bgbench-suite v1, B '\(v2)' is bgbench-suite v2; only scorecards of one suite version are compared"
        )
        #expect(
            refusal(edited)
                == "scorecards of suite v1 with different definitions: A's SHA-256 aaaaaaaaaaaa…, B's bbbbbbbbbbbb… (a changed definition is a new version)"
        )
        #expect(
            refusal(quick)
                == "scorecard A '\(a)' is full and B '\(quick)' is quick: a quick scorecard is compared only with a quick one"
        )
    }

    @Test func commandLine() throws {
        let a = try Self.folder(seeds: [1, 2, 3], differences: [0.1, 0.2, 0.3])
        let b = try Self.folder(policy: "usage", seeds: [1, 2, 3], differences: [0.2, 0.4, 0.3])
        let empty = freshFolder("not-a-scorecard")
        defer { for f in [a, b, empty] { try? FileManager.default.removeItem(atPath: f) } }
        let r = bgbench(["suite", "--compare", a, b])
        #expect(r.code == 0, "\(r.errors)")
        let lines = r.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "B − A, per task (95 % intervals across seeds; rates in percentage points)")
        // 10 pts, the half-width 24.8 to two significant digits: no decimals.
        #expect(
            lines.contains {
                $0.hasPrefix("news  kde → usage  fresh_open_rate") && $0.contains("10 pts [-15, 35]")
                    && $0.hasSuffix("paired_seeds")
            })
        let one = bgbench(["suite", "--compare", a])
        #expect(
            one.code == 64 && one.errors.hasPrefix("error: '--compare' needs two scorecard folders, A and B; got 1\n"))
        let missing = bgbench(["suite", "--compare", a, empty])
        #expect(missing.code == 66)
        #expect(
            missing.errors.hasPrefix("error: no scorecard.json in scorecard B '\(empty)': not a scorecard folder\n"))
        let stray = bgbench(["suite", a])
        #expect(
            stray.code == 64
                && stray.errors.hasPrefix(
                    "error: unexpected argument '\(a)': 'suite' takes folders only with '--compare'\n")
        )
    }
}
