import Foundation
import Testing
@testable import BGBench
@testable import BGBenchCLI

/// The share of the gap from the baseline to oracle (issue 11 points 4 and 6): per seed the
/// known answer from the fleet rates, across seeds a Student-t interval, in
/// replications.csv and the terminal; absent without oracle.
@Suite struct GapClosedTests {
    static let report: RunReport = {
        let request = RunRequest(
            scenario: ScenarioLoader.builtInDefault(), policies: ["fixed", "none", "adaptive", "oracle"],
            options: RunOptions(devices: 40, days: 6, seed: 2, threads: 2), replications: 3)
        return try! Runner.run(request)
    }()

    static func rate(_ policy: String, _ seed: UInt64) -> Double {
        let r = report.results.first { $0.policy == policy && $0.seed == seed }!
        return FleetEstimates(tally: r.tally, days: report.countedDays).perOpen(.freshOpens).value
    }

    @Test func perSeedShareIsTheRatioOfTheFleetDifferences() throws {
        for policy in ["none", "adaptive"] {
            let shares = try #require(GapClosed.perSeed(Self.report, policy: policy))
            let expected = [UInt64(2), 3, 4].map { s in
                (Self.rate(policy, s) - Self.rate("fixed", s)) / (Self.rate("oracle", s) - Self.rate("fixed", s))
            }
            #expect(shares == expected)
        }
        // `none` refreshes only at opens: it closes a negative share of the gap.
        #expect(GapClosed.estimate(Self.report, policy: "none")!.mean.value < 0)
        #expect(GapClosed.perSeed(Self.report, policy: "fixed") == nil)
        #expect(GapClosed.perSeed(Self.report, policy: "oracle") == nil)
    }

    @Test func acrossSeedsWithAStudentTInterval() throws {
        let gap = try #require(GapClosed.estimate(Self.report, policy: "adaptive"))
        let shares = GapClosed.perSeed(Self.report, policy: "adaptive")!
        let mean = shares.reduce(0, +) / 3
        let sd = (shares.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / 2).squareRoot()
        #expect(abs(gap.mean.value - mean) < 1e-15)
        #expect(abs(gap.sd - sd) < 1e-12)
        // t(0.975, 2) = 4.302653
        #expect(abs(gap.mean.high! - (mean + 4.302653 * sd / 3.0.squareRoot())) < 1e-5)
        let rows = SeriesReports.replicationsCSV(Self.report).split(separator: "\n").filter {
            $0.contains(",gap_closed,")
        }
        #expect(rows.count == 2)
        #expect(rows.first?.hasPrefix("default,none,all,gap_closed,3,") == true)
        #expect(SummaryTable.gapCell(Self.report, "oracle") == "100")
        #expect(SummaryTable.render(Self.report).contains("gap closed %"))
    }

    /// Issue 24 item 5: the file keeps the ratio, the terminal prints percent and says so
    /// (and points for the differences of rates), with the same number.
    @Test func theTerminalLabelsPercentAndPoints() throws {
        let text = SummaryTable.render(Self.report)
        #expect(text.contains("\nfresh %: percent; the CSV files hold ratios (0 to 1)\n"))
        #expect(
            text.contains(
                "\npts: percentage points; gap closed %: percent of the gap from fixed (0 %) to oracle (100 %) in fresh-open rate; the CSV files hold ratios (0 to 1) and their differences\n"
            ))
        let row = try #require(
            SeriesReports.replicationsCSV(Self.report).split(separator: "\n").first {
                $0.hasPrefix("default,adaptive,all,gap_closed,")
            })
        let ratio = try #require(Double(row.split(separator: ",")[5]))  // `mean`, a ratio
        #expect(ratio > -1 && ratio < 1)
        #expect(SummaryTable.gapCell(Self.report, "adaptive").hasPrefix(SummaryTable.fixed(ratio * 100, 1) + " ["))
    }

    @Test func noOracleNoGap() throws {
        let request = RunRequest(
            scenario: ScenarioLoader.builtInDefault(), policies: ["fixed", "adaptive"],
            options: RunOptions(devices: 20, days: 3, seed: 2, threads: 1), replications: 2)
        let report = try Runner.run(request)
        #expect(GapClosed.perSeed(report, policy: "adaptive") == nil)
        #expect(!SeriesReports.replicationsCSV(report).contains("gap_closed"))
        #expect(!SummaryTable.render(report).contains("gap closed"))
    }
}
