import Foundation
import Testing
@testable import BGBench
@testable import BGHarness
@testable import BGBenchCLI
import BGBenchTestSupport

/// `frontier --compare A,B` (issue 24 item 2): A's curve minus B's at matched energy, with
/// intervals, beside each policy against the baseline.
@Suite struct FrontierCompareTests {
    static let common = [
        "frontier", "--policy", "fixed,usage,kde", "--devices", "120", "--days", "7", "--energy-levels", "15,20",
        "--quiet",
    ]

    /// A − B read off the curves is each one's value there minus the other's (the values
    /// the baseline rows report at the same fixed energies), and B − A is its mirror image;
    /// the comparison survives sharding and merging byte for byte.
    @Test func curvesAgainstEachOther() throws {
        let folder = freshFolder("frontier-compare")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let ab = bgbench(Self.common + ["--compare", "usage,kde", "--out", folder + "/ab"])
        #expect(ab.code == 0, "\(ab.errors)")
        #expect(ab.output.contains("\nusage − kde, curve against curve: Δ pts at baseline J/day "))
        let ba = bgbench(Self.common + ["--compare", "kde,usage", "--out", folder + "/ba"])
        #expect(ba.code == 0, "\(ba.errors)")

        let rows = try csvRecords(folder + "/ab/frontier-matched.csv")
        let mirror = try csvRecords(folder + "/ba/frontier-matched.csv")
        // The baseline rows are the run without --compare's.
        #expect(rows.filter { $0["reference"] == "fixed" || $0["reference"] == "fixed[curve]" }.count == 3 * 4)
        var checked = 0
        for level in ["15", "20"] {
            let pair = try #require(
                rows.first { $0["reference"] == "kde[curve]" && $0["energy_j_per_day"] == level })
            let back = try #require(
                mirror.first { $0["reference"] == "usage[curve]" && $0["energy_j_per_day"] == level })
            #expect(pair["policy"] == "usage" && back["policy"] == "kde")
            guard pair["status"] == "ok" else {
                #expect(pair["difference"] == "")
                continue
            }
            func value(_ policy: String) throws -> Double {
                let row = try #require(
                    rows.first {
                        $0["policy"] == policy && $0["reference"] == "fixed[curve]" && $0["energy_j_per_day"] == level
                    })
                return try #require(Double(row["value"]!))
            }
            let d = try #require(Double(pair["difference"]!))
            #expect(abs(d - (try value("usage") - value("kde"))) < 1e-12)
            #expect(abs(Double(back["difference"]!)! + d) < 1e-15)
            #expect(abs(Double(back["difference_ci_low"]!)! + Double(pair["difference_ci_high"]!)!) < 1e-12)
            #expect(Double(pair["difference_ci_low"]!)! < d && d < Double(pair["difference_ci_high"]!)!)
            checked += 1
        }
        #expect(checked >= 1, "no fixed level inside both curves: pick others")
        let area = try #require(rows.first { $0["reference"] == "kde[curve]" && $0["measure"] == "area" })
        #expect(area["status"] == "ok" && !area["energy_low_j_per_day"]!.isEmpty)

        // Sharded and merged: the same folder.
        for k in 0..<2 {
            let shard = bgbench(
                Self.common + ["--compare", "usage,kde", "--shard", "\(k)/2", "--out", folder + "/s\(k)"])
            #expect(shard.code == 0, "\(shard.errors)")
        }
        #expect(bgbench(["merge", "--out", folder + "/m", folder + "/s0", folder + "/s1"]).code == 0)
        let exact = bgbench(["check", "--exact", "--baseline", folder + "/ab", "--current", folder + "/m"])
        #expect(exact.code == 0, "\(exact.output)")
    }

    @Test(arguments: [
        (["--compare", "usage"], "invalid value 'usage' for '--compare': expected A,B, two policies with a knob"),
        (["--compare", "usage,usage"], "invalid value 'usage,usage' for '--compare': expected two different policies"),
        (
            ["--compare", "usage,kde"],
            "invalid value 'usage,kde' for '--compare': policy 'kde' is not among the policies run (fixed, usage, none)"
        ),
        (
            ["--compare", "usage,none"],
            "invalid value 'usage,none' for '--compare': policy 'none' has no aggressiveness knob, so no curve"
        ),
        (
            ["--compare", "usage,fixed"],
            "invalid value 'usage,fixed' for '--compare': fixed is the baseline policy, whose curve every policy is compared with already (reference fixed[curve]); give it first"
        ),
        (
            ["--knob", "fixed=15m,1h", "--compare", "fixed,usage", "--compare", "fixed,usage"],
            "'--compare' given twice for policies fixed and usage"
        ),
    ])
    func badComparisonsAreUsageErrors(_ arguments: [String], _ message: String) {
        let out = freshPath("frontier-compare-bad")
        let result = bgbench(
            ["frontier", "--policy", "fixed,usage,none", "--devices", "4", "--days", "1", "--out", out] + arguments)
        #expect(result.code == 64)
        #expect(result.errors == "error: \(message)\nsee 'bgbench --help'\n")
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
