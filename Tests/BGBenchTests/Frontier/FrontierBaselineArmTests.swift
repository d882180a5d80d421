import Foundation
import Testing
@testable import BGBench
@testable import BGHarness
import BGBenchTestSupport

/// `frontier --baseline-policy 'fixed[interval=30m]'` (issue 24 item 2, "a knob value as
/// the baseline"): one arm of a knob is what every arm is compared with.
@Suite struct FrontierBaselineArmTests {
    static let arms = [
        "frontier", "--policy", "fixed,adaptive", "--knob", "fixed=15m,30m,1h", "--knob", "adaptive=15m,1h",
    ]
    static let common = arms + ["--devices", "64", "--days", "4", "--quiet"]

    /// The arm is first and not repeated; each arm's paired difference from it in
    /// frontier.csv is the value difference of summary.csv's two rows, and equals what
    /// `sweep --baseline-point policies.fixed.interval=30m` gives for fixed at 1 h (the same
    /// users, feed and device-by-device comparison).
    @Test func knobArmIsTheBaseline() throws {
        let out = freshFolder("frontier-arm"), sweep = freshFolder("frontier-arm-sweep")
        defer { for f in [out, sweep] { try? FileManager.default.removeItem(atPath: f) } }
        let result = bgbench(Self.common + ["--baseline-policy", "fixed[interval=30m]", "--out", out])
        #expect(result.code == 0, "\(result.errors)")
        #expect(result.output.contains("baseline fixed[interval=30m]: fresh_open_rate "), "\(result.output)")
        let rows = try csvRecords(out + "/frontier.csv")
        #expect(
            rows.map { $0["arm"]! } == [
                "fixed[interval=30m]", "fixed[interval=15m]", "fixed[interval=1h]", "adaptive[min_interval=15m]",
                "adaptive[min_interval=1h]",
            ])
        #expect(Set(rows.map { $0["baseline"]! }) == ["fixed[interval=30m]"])
        #expect(rows[0]["fresh_open_rate_difference"] == "")
        let summary = try csvRecords(out + "/summary.csv").filter { $0["archetype"] == "all" }
        func fresh(_ arm: String) throws -> Double {
            let row = try #require(summary.first { $0["policy"] == arm })
            return try #require(Double(row["fresh_open_rate"]!))
        }
        for row in rows.dropFirst() {
            let d = try #require(Double(row["fresh_open_rate_difference"]!))
            #expect(abs(d - (try fresh(row["arm"]!) - fresh("fixed[interval=30m]"))) < 1e-12, "\(row["arm"]!)")
        }
        let matched = try csvRecords(out + "/frontier-matched.csv")
        #expect(Set(matched.map { $0["baseline"]! }) == ["fixed[interval=30m]"])
        let own = try #require(matched.first { $0["policy"] == "fixed" && $0["measure"] == "at_baseline_energy" })
        #expect(own["reference"] == "fixed[interval=30m]" && own["difference"] == "0")

        let swept = bgbench([
            "sweep", "--policy", "fixed", "--set", "policies.fixed.interval=15m,30m,1h", "--baseline-point",
            "policies.fixed.interval=30m", "--devices", "64", "--days", "4", "--quiet", "--out", sweep,
        ])
        #expect(swept.code == 0, "\(swept.errors)")
        let pair = try #require(
            try csvRecords(sweep + "/paired-points.csv").first {
                $0["policies.fixed.interval"] == "1h" && $0["metric"] == "fresh_open_rate"
            })
        let arm = try #require(rows.first { $0["arm"] == "fixed[interval=1h]" })
        for (mine, theirs) in [
            ("fresh_open_rate_difference", "difference"), ("fresh_open_rate_difference_ci_low", "difference_ci_low"),
            ("fresh_open_rate_difference_ci_high", "difference_ci_high"),
        ] {
            let a = Double(arm[mine]!)!, b = Double(pair[theirs]!)!
            #expect(abs(a - b) <= 1e-12, "\(mine): \(a) vs \(b)")
        }
    }

    @Test func armsThatDoNotExistAreOneLineEach() {
        let base = Self.arms + ["--days", "1", "--devices", "4", "--quiet", "--out", freshPath("never")]
        let cases: [(String, String)] = [
            (
                "fixed[interval=45m]",
                "error: invalid value 'fixed[interval=45m]' for '--baseline-policy': no such arm; fixed's arms are fixed[interval=15m], fixed[interval=30m], fixed[interval=1h]"
            ),
            (
                "fixed[period=30m]",
                "error: invalid value 'fixed[period=30m]' for '--baseline-policy': no such arm; fixed's arms are fixed[interval=15m], fixed[interval=30m], fixed[interval=1h]"
            ),
            (
                "kde[bandwidth=1h]",
                "error: invalid value 'kde[bandwidth=1h]' for '--baseline-policy': policy 'kde' is not among the policies run (fixed, adaptive)"
            ),
            (
                "fixed[30m]",
                "error: invalid value 'fixed[30m]' for '--baseline-policy': expected a policy run, or one arm of a policy's knob as POLICY[KNOB=VALUE]"
            ),
        ]
        for (value, message) in cases {
            let r = bgbench(base + ["--baseline-policy", value])
            #expect(r.code == 64, "\(value)")
            #expect(r.errors.split(separator: "\n").first.map(String.init) == message, "\(value)")
        }
        let none = bgbench(
            ["frontier", "--policy", "fixed,none", "--baseline-policy", "none[x=1]", "--days", "1", "--devices", "4"]
                + ["--quiet", "--out", freshPath("never")])
        #expect(none.code == 64)
        #expect(
            none.errors.split(separator: "\n").first
                == "error: invalid value 'none[x=1]' for '--baseline-policy': policy 'none' has no aggressiveness knob, so no arms"
        )
    }
}
