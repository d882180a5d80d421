import Foundation
import Testing
import BGBenchTestSupport
@testable import BGBench

/// `sweep --baseline-point` (issue 24 item 2): each point's policies minus the same
/// policies at its reference point, device by device (paired-points.csv), as two runs
/// compared with `check --ab` give them, and across seeds with a Student-t interval.
@Suite struct SweepPairsTests {
    static let sweep = [
        "sweep", "--policy", "fixed,adaptive", "--set", "platform.name=ios-bgtask,android-workmanager",
        "--set", "policies.fixed.interval=30m,2h", "--baseline-point", "platform.name=ios-bgtask",
        "--devices", "64", "--days", "4", "--quiet",
    ]

    /// The paired difference android − iOS of fixed at 30 min equals `check --ab` on two
    /// runs of those points (the same users and feed: one seed); the reference points
    /// themselves have no rows.
    @Test func pointPairsAgreeWithCheckAB() throws {
        let out = freshFolder("sweep-pairs"), a = freshFolder("ab-ios"), b = freshFolder("ab-android")
        defer { for f in [out, a, b] { try? FileManager.default.removeItem(atPath: f) } }
        let swept = bgbench(Self.sweep + ["--out", out])
        #expect(swept.code == 0, "\(swept.errors)")
        // The header the file table declares, after the axes; check reads the folder back.
        let text = try String(contentsOfFile: out + "/paired-points.csv", encoding: .utf8)
        #expect(
            text.prefix { $0 != "\n" }.split(separator: ",").map(String.init)
                == ["platform.name", "policies.fixed.interval"] + ReportFile.pointPairs.header!)
        let copy = freshPath("sweep-pairs-copy")
        defer { try? FileManager.default.removeItem(atPath: copy) }
        try FileManager.default.copyItem(atPath: out, toPath: copy)
        let exact = bgbench(["check", "--exact", "--baseline", out, "--current", copy])
        #expect(exact.code == 0, "\(exact.errors)")
        let rows = try csvRecords(out + "/paired-points.csv")
        // 2 intervals × 2 policies compared with iOS, 25 paired metrics each, one seed.
        #expect(Set(rows.map { $0["platform.name"]! }) == ["android-workmanager"])
        #expect(Set(rows.map { $0["reference"]! }) == ["platform.name=ios-bgtask"])
        #expect(Set(rows.map { $0["interval_kind"]! }) == ["devices"])
        let fresh = try #require(
            rows.first {
                $0["policies.fixed.interval"] == "30m" && $0["policy"] == "fixed" && $0["metric"] == "fresh_open_rate"
            })
        #expect(fresh["devices"] == "64" && fresh["seed"] == "1")

        let run = ["--policy", "fixed,adaptive", "--set", "policies.fixed.interval=30m", "--per-device"]
        let small = ["--devices", "64", "--days", "4", "--quiet"]
        #expect(bgbench(run + ["--set", "platform.name=ios-bgtask", "--out", a] + small).code == 0)
        #expect(bgbench(run + ["--set", "platform.name=android-workmanager", "--out", b] + small).code == 0)
        let ab = bgbench(["check", "--ab", "--baseline", a, "--current", b])
        let line = try #require(
            ab.output.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }.first {
                $0.count > 4 && $0[1] == "fixed" && $0[2] == "all" && $0[3] == "fresh_open_rate"
            }, "\(ab.output)")
        // check prints six significant digits: B − A and its interval "[low, high]".
        func six(_ s: String?) -> String { String(format: "%+g", Double(s!)!) }
        #expect(line[6] == six(fresh["difference"]))
        #expect(line[7] == "[" + String(format: "%g", Double(fresh["difference_ci_low"]!)!) + ",")
        #expect(line[8] == String(format: "%g", Double(fresh["difference_ci_high"]!)!) + "]")
        #expect(line[4] == String(format: "%g", Double(fresh["reference_value"]!)!))
        #expect(line[5] == String(format: "%g", Double(fresh["point_value"]!)!))
    }

    /// With two seeds, each pair gets a row across the seeds: the mean of the two per-seed
    /// differences, with the Student-t interval on 1 degree of freedom (t = 12.7062).
    @Test func acrossSeedsIsStudentTOfThePerSeedDifferences() throws {
        let out = freshFolder("sweep-pairs-seeds")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let swept = bgbench(Self.sweep + ["--replications", "2", "--out", out])
        #expect(swept.code == 0, "\(swept.errors)")
        let rows = try csvRecords(out + "/paired-points.csv").filter {
            $0["policies.fixed.interval"] == "2h" && $0["policy"] == "adaptive" && $0["metric"] == "runs_per_day"
        }
        #expect(rows.map { $0["seed"]! } == ["1", "2", ""])
        #expect(rows.map { $0["interval_kind"]! } == ["devices", "devices", "seeds"])
        let d = rows[0..<2].map { Double($0["difference"]!)! }
        let mean = (d[0] + d[1]) / 2, half = 12.7062 * abs(d[0] - d[1]) / 2
        let across = rows[2]
        #expect(abs(Double(across["difference"]!)! - mean) <= 1e-12 * max(1, abs(mean)))
        #expect(abs(Double(across["difference_ci_low"]!)! - (mean - half)) <= 1e-4 * max(1, half))
        #expect(abs(Double(across["difference_ci_high"]!)! - (mean + half)) <= 1e-4 * max(1, half))
    }

    @Test func badBaselinePointsAreOneLineEach() {
        let base = Array(Self.sweep.prefix(7)) + ["--devices", "4", "--days", "1", "--out", freshPath("never")]
        let cases: [([String], String)] = [
            (
                ["--baseline-point", "platform.nme=ios-bgtask"],
                "error: invalid value 'platform.nme=ios-bgtask' for '--baseline-point': 'platform.nme' is not a swept parameter (the axes: platform.name, policies.fixed.interval)"
            ),
            (
                ["--baseline-point", "platform.name=ios-fetch"],
                "error: invalid value 'platform.name=ios-fetch' for '--baseline-point': 'ios-fetch' is not one of platform.name's values (ios-bgtask, android-workmanager)"
            ),
            (
                ["--baseline-point", "platform.name=ios-bgtask", "--baseline-point", "platform.name=ios-bgtask"],
                "error: '--baseline-point' given twice for parameter 'platform.name'"
            ),
            (
                ["--set", "population.bar_off_share=0,1", "--baseline-point", "population.bar_off_share=0"],
                "error: invalid value 'population.bar_off_share=0' for '--baseline-point': points that differ in 'population.bar_off_share' meet different users or content, so they cannot be compared device by device; expected a swept parameter under 'policies.' or 'platform.'"
            ),
            (
                ["--baseline-point", "platform.name"],
                "error: invalid value 'platform.name' for '--baseline-point': expected PATH=VALUE with PATH a swept parameter"
            ),
            (
                ["--baseline-point", "platform.name=ios-bgtask", "--shard", "0/2"],
                "error: '--baseline-point' cannot be used with '--shard': the points' device-by-device comparisons are not in shard.state; run the sweep whole"
            ),
        ]
        for (extra, message) in cases {
            let r = bgbench(base + extra)
            #expect(r.code == 64, "\(extra)")
            #expect(r.errors.split(separator: "\n").first.map(String.init) == message, "\(extra)")
        }
    }
}
