import Foundation
import Testing
import BGNumerics
@testable import BGBench

/// Issue 12 point 5, honest quantiles (Reports/README.md, "Quantiles" and "Confidence
/// intervals"): intervals never leave a metric's support, and a staleness quantile whose
/// rank sits at a jump of the distribution, or that spreads widely across seeds, is flagged.
@Suite struct QuantileTests {
    static let checkout = TestSupport.packageRoot

    static func rows(_ csv: String) -> [[String]] {
        csv.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    }

    /// A hand-built histogram: 94 % of opens at 100 s, 6 % (a group that never refreshes)
    /// at 10⁶ s. p95 falls in the group; p94 (rank 940) is 100 s, p96 10⁶ s: a jump of 10⁴.
    @Test func rankAtAJumpIsUnstable() {
        var h = LogHistogram()
        for _ in 0..<940 { h.add(100) }
        for _ in 0..<60 { h.add(1e6) }
        #expect(QuantileStability.unstable(h, 0.95) == true)
        #expect(QuantileStability.unstable(h, 0.5) == false)  // p49 and p51 both at 100 s
        // A smooth tail: staleness 1 s, 2 s, ..., 1000 s: p94 → p96 moves by 2 %.
        var smooth = LogHistogram()
        for i in 1...1000 { smooth.add(Double(i)) }
        #expect(QuantileStability.unstable(smooth, 0.95) == false)
        #expect(QuantileStability.unstable(smooth, 0.5) == false)
        // Half the opens fresh (0), half at 100 s: the median sits on the edge of the zeros.
        var edge = LogHistogram()
        for _ in 0..<500 { edge.add(0) }
        for _ in 0..<500 { edge.add(100) }
        #expect(QuantileStability.unstable(edge, 0.5) == true)
        #expect(QuantileStability.unstable(LogHistogram(), 0.5) == nil)
    }

    /// Across seeds: any seed's own flag, or sd > `maxSpread` × mean (the spread of issue
    /// 12 point 5: 0.13 M to 3.5 M s).
    @Test func spreadAcrossSeeds() {
        #expect(QuantileStability.unstable(values: [1.0e5, 1.1e5, 0.9e5], flags: [false, false, false]) == false)
        #expect(QuantileStability.unstable(values: [1.3e5, 3.5e6, 2.0e6, 0.2e6, 1.5e6], flags: []) == true)
        #expect(QuantileStability.unstable(values: [1.0e5, 1.0e5], flags: [false, true]) == true)
        #expect(QuantileStability.unstable(values: [], flags: []) == nil)
        // sd = 0.5 × mean exactly is still stable: values m ± d with sd = d·√2.
        let d = 0.5 / 2.0.squareRoot()
        #expect(QuantileStability.unstable(values: [1 - d, 1 + d], flags: []) == false)
    }

    /// `within` cuts a bound outside the support and leaves the estimate and inner bounds.
    @Test func intervalsStayWithinTheSupport() {
        #expect(Estimate(0.1, low: -0.05, high: 0.25).within(0...1) == Estimate(0.1, low: 0, high: 0.25))
        #expect(Estimate(0.95, low: 0.9, high: 1.02).within(0...1) == Estimate(0.95, low: 0.9, high: 1))
        #expect(Estimate(3, low: 1, high: 5).within(0...Double.infinity) == Estimate(3, low: 1, high: 5))
        #expect(Estimate(3).within(0...1) == Estimate(3))
        #expect(MetricTable.named("fresh_open_rate")!.support == 0...1)
        #expect(MetricTable.named("staleness_p95_s")!.support == 0...Double.infinity)
        let header = SummarySchema.header
        let p95 = header.firstIndex(of: "staleness_p95_s")!
        #expect(header[p95 + 1] == "staleness_p95_s_unstable")
        #expect(header[header.firstIndex(of: "staleness_median_s")! + 1] == "staleness_median_s_unstable")
    }

    /// The reproduction of issue 12 point 5, scaled down (20 devices × 30 days × 5 seeds;
    /// the was 1,000 × 365): on ecommerce, fixed's p95 staleness jumps across seeds
    /// (devices without Wi-Fi never get the images), its Student-t bound mean − t·sd/√R is
    /// below zero, and replications.csv now writes 0 and flags the row; no lower bound of
    /// summary.csv or replications.csv is negative, no ratio's upper bound above 1.
    @Test func ecommerceReplicationsAreHonest() throws {
        let scenario = try ScenarioLoader.load(
            file: Self.checkout.appendingPathComponent("Datasets/scenarios/ecommerce.json").path)
        let report = try Runner.run(
            RunRequest(
                scenario: scenario, policies: ["fixed"],
                options: RunOptions(devices: 20, days: 30, seed: 1, threads: 2), replications: 5))
        let replications = Self.rows(SeriesReports.replicationsCSV(report))
        let header = replications[0]
        func column(_ name: String) -> Int { header.firstIndex(of: name)! }
        let p95 = replications.first { $0[column("metric")] == "staleness_p95_s" }!
        let mean = Double(p95[column("mean")])!, sd = Double(p95[column("sd")])!
        let studentLow = mean - Distribution.studentTQuantile(0.975, degreesOfFreedom: 4) * sd / 5.0.squareRoot()
        #expect(studentLow < 0, "the scaled-down reproduction no longer shows the effect: \(studentLow)")
        #expect(p95[column("ci_low")] == "0")
        #expect(abs(Double(p95[column("ci_high")])! - (2 * mean - studentLow)) < 1e-6 * mean)
        #expect(p95[column("unstable")] == "true")
        for row in replications.dropFirst() {
            let metric = MetricTable.named(row[column("metric")])!
            let flag = row[column("unstable")]
            #expect(metric.flagsUnstable ? flag == "true" || flag == "false" : flag == "", "\(row)")
            if let low = Double(row[column("ci_low")]) { #expect(low >= 0, "\(row)") }
            if metric.unit == "ratio", let high = Double(row[column("ci_high")]) { #expect(high <= 1, "\(row)") }
        }
        // summary.csv: every interval inside the support; the flags are true or false.
        var summary = ""
        for r in report.results {
            let e = FleetEstimates(tally: r.tally, days: report.countedDays)
            let fields = SummarySchema.fields(
                r.tally, days: report.countedDays,
                context: SummaryContext(batteryJoules: scenario.scenario.device.batteryWh * 3600))
            summary += fields.joined(separator: ",") + "\n"
            #expect(MetricTable.named("staleness_p95_s")!.unstable(e) != nil)
        }
        let names = SummarySchema.header.dropFirst(SummarySchema.identity.count)
        for row in Self.rows(summary) {
            for (name, field) in zip(names, row) {
                if name.hasSuffix("_unstable") { #expect(field == "true" || field == "false", "\(name)") }
                if name.hasSuffix("_ci_low"), let low = Double(field) { #expect(low >= 0, "\(name) \(low)") }
            }
        }
    }
}
