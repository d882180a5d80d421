import Foundation
import Testing
import BGBenchTestSupport
@testable import BGBench

/// `bgbench suite` from the command line (docs/suite.md): a tiny suite scored and checked
/// against a plain run of the same points (summary.csv, another code path), the same
/// scorecard on one and two threads, and the run rules' refusals with their exact lines.
@Suite struct SuiteCommandTests {
    /// One task, 64 devices × 6 days (1 of warm-up) × 2 seeds: kde against fixed.
    static func tinySuite() throws -> String {
        let path = freshPath("tiny-suite") + ".json"
        try Data(SuiteScoringTestsText.tiny.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func scoresAgreeWithARunOfTheSamePoints() throws {
        let suite = try Self.tinySuite(), out = freshFolder("suite-out"), run = freshFolder("suite-run")
        defer { for f in [suite, out, run] { try? FileManager.default.removeItem(atPath: f) } }
        let scored = bgbench(["suite", "--suite", suite, "--policy", "kde", "--no-cache", "--out", out, "--quiet"])
        #expect(scored.code == 0, "\(scored.errors)")
        #expect(scored.output.hasPrefix("suite test: 1 task, 1 policy against fixed; "), "\(scored.output)")
        let files = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        #expect(files == ["run.json", "scorecard.csv", "scorecard.json", "scorecard.md"])
        // The points of fixed, kde, oracle and prophet are each a run of that policy on the
        // same users and feed (common random numbers): the suite's numbers must be theirs.
        let plain = bgbench([
            "--scenario", "news", "--policy", "fixed,kde,oracle,prophet", "--devices", "64", "--days", "6",
            "--warmup-days", "1", "--replications", "2", "--out", run, "--quiet",
        ])
        #expect(plain.code == 0, "\(plain.errors)")
        let summary = try csvRecords(run + "/summary.csv").filter { $0["archetype"] == "all" }
        func perSeed(_ policy: String, _ metric: String) -> [Double] {
            ["1", "2"].map { seed in Double(summary.first { $0["policy"] == policy && $0["seed"] == seed }![metric]!)! }
        }
        let card = try csvRecords(out + "/scorecard.csv")
        func row(_ quantity: String) throws -> [String: String] {
            try #require(card.first { $0["task"] == "news" && $0["policy"] == "kde" && $0["quantity"] == quantity })
        }
        func mean(_ xs: [Double]) -> Double { xs.reduce(0, +) / Double(xs.count) }
        let fresh = "fresh_open_rate", energy = "background_energy_j_per_day"
        #expect(abs(Double(try row("headline_policy")["value"]!)! - mean(perSeed("kde", fresh))) < 1e-12)
        #expect(abs(Double(try row("headline_fixed")["value"]!)! - mean(perSeed("fixed", fresh))) < 1e-12)
        #expect(abs(Double(try row("energy_policy")["value"]!)! - mean(perSeed("kde", energy))) < 1e-9)
        // The gap to oracle, seed by seed from summary.csv, when the suite finds it defined.
        let gap = try row("gap_closed_oracle")
        let (k, f, o) = (perSeed("kde", fresh), perSeed("fixed", fresh), perSeed("oracle", fresh))
        if gap["status"] == "ok" {
            let shares = (0..<2).map { (k[$0] - f[$0]) / (o[$0] - f[$0]) }
            #expect(abs(Double(gap["value"]!)! - mean(shares)) < 1e-9)
        } else {
            #expect(gap["status"] == "gap_not_significant")
        }
        // The verdict row and the aggregates are there; the constraint names its limit.
        #expect(["dominates", "dominated", "trades_off", "indistinguishable"].contains(try row("verdict")["status"]!))
        let kills = try row("constraint_max")
        #expect(kills["metric"] == "killed_per_day" && kills["status"]!.hasSuffix("(limit 0.05)"))
        #expect(card.contains { $0["task"] == "all" && $0["quantity"] == "median_gap_closed_oracle" })
        // scorecard.json pins the suite and the build.
        let json = try String(contentsOfFile: out + "/scorecard.json", encoding: .utf8)
        #expect(json.contains("\"version\" : \"test\""))
        #expect(json.contains("\"seeds\" : [\n        1,\n        2\n      ]"), "\(json)")
    }

    /// The same scorecard, byte for byte, on one and two threads (the execution block of
    /// scorecard.json and run.json's command line aside).
    @Test func threadsDoNotMoveTheScorecard() throws {
        let suite = try Self.tinySuite(), a = freshFolder("suite-t1"), b = freshFolder("suite-t2")
        defer { for f in [suite, a, b] { try? FileManager.default.removeItem(atPath: f) } }
        for (out, threads) in [(a, "1"), (b, "2")] {
            let r = bgbench([
                "suite", "--suite", suite, "--policy", "usage", "--threads", threads, "--no-cache", "--out", out,
                "--quiet",
            ])
            #expect(r.code == 0, "\(r.errors)")
        }
        for name in ["scorecard.csv", "scorecard.md"] {
            #expect(
                try Data(contentsOf: URL(fileURLWithPath: a + "/" + name))
                    == Data(contentsOf: URL(fileURLWithPath: b + "/" + name)))
        }
    }

    @Test(arguments: [
        (
            ["--policy", "oracle"],
            "error: invalid value 'oracle' for '--policy': oracle is a reference of the suite, not a policy it scores (docs/suite.md)"
        ),
        (
            ["--policy", "fixed"],
            "error: invalid value 'fixed' for '--policy': fixed is the suite's baseline, not a policy it scores (docs/suite.md)"
        ),
        (
            ["--set", "population.bar_off_share=0"],
            "error: invalid value 'population.bar_off_share=0' for '--set': the suite's run rules let only a policy's parameters change (policies.NAME.FIELD=VALUE; docs/suite.md, \"Run rules\")"
        ),
        (
            ["--task", "newz"],
            "error: unknown task 'newz' for '--task': expected task ids of suite 1: news, news-android, news-habits, fitness-sync, ecommerce, finance, messaging, news-bar-off, news-low-power, news-poor-network, news-no-overnight-charge (did you mean 'news'?)"
        ),
        // 'all' is every policy the suite scores: never the baseline or a reference.
        (
            ["--policy", "all", "--task", "newz"],
            "error: unknown task 'newz' for '--task': expected task ids of suite 1: news, news-android, news-habits, fitness-sync, ecommerce, finance, messaging, news-bar-off, news-low-power, news-poor-network, news-no-overnight-charge (did you mean 'news'?)"
        ),
        (
            ["--suite", "v9"],
            "error: no suite definition file or suite 'v9' for '--suite': expected a file or one of v1"
        ),
    ])
    func runRulesRefuse(arguments: [String], line: String) {
        let out = freshPath("suite-refused")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let r = bgbench(["suite"] + arguments + ["--out", out, "--quiet"])
        #expect(r.errors.split(separator: "\n").first.map(String.init) == line)
        #expect(r.code == (arguments[0] == "--suite" ? 66 : 64))
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}

/// The tiny definition, shared with SuiteScoringTests.
enum SuiteScoringTestsText {
    static let tiny = SuiteScoringTests.tiny
}
