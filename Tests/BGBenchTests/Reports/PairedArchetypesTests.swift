import BGNumerics
import Foundation
import Testing
import BGBenchTestSupport
@testable import BGBench

/// paired-archetypes.csv (issue 24 item 4, "the paired differences per archetype"): each
/// policy minus the baseline within each archetype, against hand-computed paired
/// t-intervals, summary.csv's archetype rows and devices.csv.
@Suite struct PairedArchetypesTests {
    /// Student-t 0.975 quantiles (R: `qt(0.975, df)`).
    static let t1 = 12.706204736174705, t2 = 4.302652729749464, t4 = 2.7764451051977987

    static let energy = MetricTable.pairedMetrics.firstIndex { $0.metric.name == "background_energy_j_per_day" }!

    /// A device's values in `Quantity` order: background energy and opens.
    static func device(energy: Double, opens: Double) -> [Double] {
        var v = [Double](repeating: 0, count: Quantity.allCases.count)
        v[Quantity.backgroundEnergy.rawValue] = energy
        v[Quantity.opens.rawValue] = opens
        return v
    }

    /// Five devices, archetypes 0, 0, 0, 1, 1; per device-day energy differences (policy −
    /// baseline, one day) 3, 5, 10 and 2, 4. Archetype 0: mean 6, sd √13, 6 ± t₂·√(13/3);
    /// archetype 1: mean 3, sd √2, 3 ± t₁·1; the fleet: mean 4.8, sd √9.7, 4.8 ± t₄·√1.94.
    /// Split in two and merged, and through shard.state's encoding, the same tally.
    @Test func eachArchetypeIsItsOwnPairedTInterval() throws {
        let devices: [(a: Double, b: Double, archetype: Int)] = [
            (13, 10, 0), (25, 20, 0), (40, 30, 0), (12, 10, 1), (24, 20, 1),
        ]
        var whole = PairedTally(), first = PairedTally(), second = PairedTally()
        for (i, d) in devices.enumerated() {
            let a = Self.device(energy: d.a, opens: 5), b = Self.device(energy: d.b, opens: 5)
            whole.add(policy: a, baseline: b, archetype: d.archetype)
            if i < 2 {
                first.add(policy: a, baseline: b, archetype: d.archetype)
            } else {
                second.add(policy: a, baseline: b, archetype: d.archetype)
            }
        }
        let metric = MetricTable.pairedMetrics[Self.energy]
        func estimate(_ m: PairedMoments) -> Estimate {
            metric.estimate(m, days: 1, batteryJoules: 1, serverJobs: false).difference
        }
        let cases: [(PairedMoments, Double, Double)] = [
            (whole.archetypes[0][Self.energy], 6, Self.t2 * (13.0 / 3).squareRoot()),
            (whole.archetypes[1][Self.energy], 3, Self.t1 * 1),
            (whole.moments[Self.energy], 4.8, Self.t4 * 1.94.squareRoot()),
        ]
        for (m, mean, half) in cases {
            let e = estimate(m)
            #expect(abs(e.value - mean) < 1e-12)
            #expect(abs(e.low! - (mean - half)) < 1e-9 && abs(e.high! - (mean + half)) < 1e-9, "\(mean)")
        }
        #expect(whole.archetypes.count == 2 && whole.archetypes[1][Self.energy].n == 2)
        first.merge(second)
        #expect(first == whole)
        var writer = StateWriter()
        whole.encode(&writer)
        var reader = StateReader(writer.bytes)
        #expect(try PairedTally(&reader) == whole)
    }

    /// A run's paired-archetypes.csv: each archetype's values are summary.csv's for it, and
    /// its energy difference is the paired t-interval of devices.csv's per-device-day
    /// differences over the archetype's devices; replicated, a row across the seeds.
    @Test func runRowsAgreeWithSummaryAndDevices() throws {
        let out = freshFolder("paired-archetypes")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let days = 3
        let result = bgbench([
            "--policy", "fixed,adaptive", "--devices", "90", "--days", String(days), "--per-device", "--quiet",
            "--out", out,
        ])
        #expect(result.code == 0, "\(result.errors)")
        let text = try String(contentsOfFile: out + "/paired-archetypes.csv", encoding: .utf8)
        #expect(
            text.prefix { $0 != "\n" }.split(separator: ",").map(String.init) == ReportFile.pairedArchetypes.header!)
        let rows = try csvRecords(out + "/paired-archetypes.csv")
        let summary = try csvRecords(out + "/summary.csv")
        let devices = try csvRecords(out + "/devices.csv")
        let archetypes = Set(summary.map { $0["archetype"]! }).subtracting(["all"])
        #expect(Set(rows.map { $0["archetype"]! }) == archetypes)
        #expect(Set(rows.map { $0["policy"]! }) == ["adaptive"] && Set(rows.map { $0["baseline"]! }) == ["fixed"])
        for archetype in archetypes {
            let fresh = try #require(
                rows.first { $0["archetype"] == archetype && $0["metric"] == "fresh_open_rate" })
            for (policy, column) in [("adaptive", "policy_value"), ("fixed", "baseline_value")] {
                let s = try #require(summary.first { $0["policy"] == policy && $0["archetype"] == archetype })
                #expect(Double(fresh[column]!)! == Double(s["fresh_open_rate"]!)!, "\(archetype) \(policy)")
            }
            // By hand from devices.csv: the paired t-interval of the per-device-day differences.
            func energy(_ policy: String) -> [Int: Double] {
                Dictionary(
                    uniqueKeysWithValues: devices.filter { $0["policy"] == policy && $0["archetype"] == archetype }
                        .map { (Int($0["device"]!)!, Double($0["background_energy_j"]!)! / Double(days)) })
            }
            let a = energy("adaptive"), b = energy("fixed")
            let d = a.keys.sorted().map { a[$0]! - b[$0]! }
            let n = Double(d.count), mean = d.reduce(0, +) / n
            let row = try #require(
                rows.first { $0["archetype"] == archetype && $0["metric"] == "background_energy_j_per_day" })
            #expect(row["devices"] == String(d.count))
            #expect(abs(Double(row["difference"]!)! - mean) <= 1e-9 * max(1, abs(mean)))
            guard d.count > 1 else { continue }
            let sd = (d.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / (n - 1)).squareRoot()
            let half = Distribution.studentTQuantile(0.975, degreesOfFreedom: n - 1) * sd / n.squareRoot()
            #expect(abs(Double(row["difference_ci_low"]!)! - (mean - half)) <= 1e-6 * max(1, half), "\(archetype)")
            #expect(abs(Double(row["difference_ci_high"]!)! - (mean + half)) <= 1e-6 * max(1, half), "\(archetype)")
        }
    }
}
