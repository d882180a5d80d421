import Foundation
import Testing
import BGNumerics
@testable import BGBench

/// Paired comparisons with the baseline policy (Reports/README.md, "paired.csv"):
/// accumulated while the policies run side by side, block by block, with nothing kept per
/// device; checked here against the per-device rows, by hand across seeds, and across
/// thread counts.
@Suite struct PairedTests {
    static let checkout = TestSupport.packageRoot

    static func scenario(_ preset: String?) throws -> LoadedScenario {
        guard let preset else { return ScenarioLoader.builtInDefault() }
        return try ScenarioLoader.load(file: checkout.appendingPathComponent("Datasets/scenarios/\(preset).json").path)
    }

    static func run(
        _ preset: String?, policies: [String], devices: Int = 150, days: Int = 6, threads: Int = 2,
        keepDevices: Bool = true, baseline: String? = nil, replications: Int = 1
    ) throws -> RunReport {
        try Runner.run(
            RunRequest(
                scenario: scenario(preset), policies: policies,
                options: RunOptions(
                    devices: devices, days: days, seed: 3, threads: threads, warmupDays: 1, keepDevices: keepDevices),
                baselinePolicy: baseline, replications: replications))
    }

    /// The oracle: the accumulated paired difference and interval of every metric equal
    /// those computed from the per-device rows (`--per-device`) in two passes, residuals
    /// first, on the default scenario, a sync preset (server jobs) and one with a
    /// processing task (a share).
    @Test(arguments: [nil, "fitness-sync", "finance"] as [String?])
    func accumulatedEqualsPerDeviceRows(_ preset: String?) throws {
        let report = try Self.run(preset, policies: ["adaptive", "fixed", "none"])
        #expect(report.baselinePolicy == "fixed")
        let base = try #require(report.results.first { $0.policy == "fixed" })
        let battery = report.request.scenario.scenario.device.batteryWh * 3600
        let days = Double(report.countedDays)
        var compared = 0
        for r in report.results where r.policy != "fixed" {
            let estimates = try #require(SeriesReports.pairedEstimates(report, r))
            #expect(estimates.count == MetricTable.pairedMetrics.count)
            let a = r.result.devices, b = base.result.devices
            #expect(a.count == 150 && b.count == 150)
            for (metric, e) in zip(MetricTable.pairedMetrics, estimates) {
                let q = metric.quantity
                func x(_ d: DeviceRow) -> Double {
                    switch metric.denominator {
                    case .device: 1
                    case .opens: d[.opens]
                    case .resolved(let missed): d[q] + d[missed]
                    }
                }
                var scale = 1.0
                switch metric.metric.kind {
                case .perDeviceDay, .perServerJob: scale = 1 / days
                case .batteryPercentPerDay: scale = 100 / battery / days
                default: break
                }
                let xa = a.map(x).reduce(0, +), xb = b.map(x).reduce(0, +)
                if case .perServerJob = metric.metric.kind, r.tally[.serverJobs] + base.tally[.serverJobs] == 0 {
                    #expect(e.difference.value.isNaN, "\(metric.metric.name): empty without server jobs")
                    continue
                }
                guard xa > 0, xb > 0 else {
                    #expect(e.difference.value.isNaN, "\(metric.metric.name): no denominator")
                    continue
                }
                let ra = a.map { $0[q] }.reduce(0, +) / xa, rb = b.map { $0[q] }.reduce(0, +) / xb
                let residuals = zip(a, b).map { da, db in (da[q] - ra * x(da)) / xa - (db[q] - rb * x(db)) / xb }
                let n = Double(a.count)
                let se = (residuals.reduce(0) { $0 + $1 * $1 } * n / (n - 1)).squareRoot()
                let half = Distribution.studentTQuantile(0.975, degreesOfFreedom: n - 1) * se * scale
                let d = (ra - rb) * scale
                let tolerance = 1e-9 * max(abs(ra * scale), abs(rb * scale), half, 1e-12)
                #expect(
                    abs(e.difference.value - d) <= tolerance,
                    "\(metric.metric.name) \(r.policy): \(e.difference.value) vs \(d)")
                #expect(abs(e.policy - ra * scale) <= tolerance && abs(e.baseline - rb * scale) <= tolerance)
                #expect(abs(e.difference.low! - (d - half)) <= tolerance, "\(metric.metric.name) low")
                #expect(abs(e.difference.high! - (d + half)) <= tolerance, "\(metric.metric.name) high")
                #expect(e.excludesZero == (d - half > 0 || d + half < 0))
                compared += 1
            }
        }
        #expect(compared >= 2 * 40, "most metrics apply on every scenario")
    }

    /// The general branch on hand-built devices whose denominators differ (the oracle above
    /// never reaches it: on its presets no metric's denominators differ between the
    /// policies on any device, checked 2026-12): the difference
    /// of the two ratios and the half-width t(0.975, 3) · √(n/(n−1) · Σeᵢ²), with eᵢ written
    /// out per device (not through the expanded sums the estimator uses).
    @Test func unequalDenominatorsByHand() throws {
        // (y_a, y_b, x_a, x_b) of four devices.
        let devices: [(Double, Double, Double, Double)] = [(3, 1, 4, 2), (5, 4, 6, 5), (2, 2, 3, 4), (7, 3, 8, 3)]
        var moments = PairedMoments()
        for (ya, yb, xa, xb) in devices { moments.add(ya: ya, yb: yb, xa: xa, xb: xb) }
        #expect(moments.unequal == 4)
        // R_a = 17/21, R_b = 10/14; e = (y_a − R_a·x_a)/21 − (y_b − R_b·x_b)/14.
        let ra = 17.0 / 21, rb = 10.0 / 14
        let e = devices.map { (ya, yb, xa, xb) in (ya - ra * xa) / 21 - (yb - rb * xb) / 14 }
        let se = (e.map { $0 * $0 }.reduce(0, +) * 4 / 3).squareRoot()
        let t3 = 3.182446305284263  // Student t, 3 degrees of freedom, 0.975 (tables)
        for scale in [1.0, 100.0] {
            let estimate = Estimators.pairedRatio(moments, scale: scale)
            let d = (ra - rb) * scale, half = t3 * se * scale
            #expect(
                abs(estimate.policy - ra * scale) < 1e-12 * scale && abs(estimate.baseline - rb * scale) < 1e-12 * scale
            )
            #expect(abs(estimate.difference.value - d) < 1e-12 * scale)
            #expect(abs(try #require(estimate.difference.low) - (d - half)) < 1e-9 * scale)
            #expect(abs(try #require(estimate.difference.high) - (d + half)) < 1e-9 * scale)
        }
        // Written out: d = 17/21 − 5/7 = 2/21, and the interval is not degenerate.
        #expect(abs(Estimators.pairedRatio(moments).difference.value - 2.0 / 21) < 1e-15)
        #expect(se > 0.01)
    }

    /// The baseline by default: `fixed` when it runs, else the first policy listed; none
    /// for one policy; `--baseline-policy` (the request's `baselinePolicy`) chooses.
    @Test func defaultBaseline() throws {
        #expect(RunRequest.defaultBaseline(policies: ["adaptive", "fixed", "none"]) == "fixed")
        #expect(RunRequest.defaultBaseline(policies: ["adaptive", "none"]) == "adaptive")
        #expect(RunRequest.defaultBaseline(policies: ["none"]) == nil)
        let loaded = ScenarioLoader.builtInDefault()
        let chosen = RunRequest(
            scenario: loaded, policies: ["adaptive", "fixed"], options: RunOptions(), baselinePolicy: "adaptive")
        #expect(chosen.resolvedBaseline == "adaptive")

        // Written by default when more than one policy runs, without per-device rows.
        let report = try Self.run(nil, policies: ["none", "adaptive"], devices: 70, days: 3, keepDevices: false)
        #expect(report.baselinePolicy == "none")
        #expect(report.results.first { $0.policy == "none" }!.paired == nil)
        #expect(report.results.first { $0.policy == "adaptive" }!.paired?.devices == 70)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bgbench-paired-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try ReportWriter.write(report, to: folder)
        let paired = try String(contentsOfFile: folder + "/paired.csv", encoding: .utf8).split(separator: "\n")
        #expect(paired.count == 1 + MetricTable.pairedMetrics.count)
        #expect(paired[1].hasPrefix("default,adaptive,none,3,opens_per_day,70,"))
        #expect(!FileManager.default.fileExists(atPath: folder + "/devices.csv"))
        // One policy: nothing to compare with, no paired.csv.
        let single = try Self.run(nil, policies: ["fixed"], devices: 10, days: 2, keepDevices: false)
        #expect(single.baselinePolicy == nil)
        let other = folder + "-single"
        defer { try? FileManager.default.removeItem(atPath: other) }
        try ReportWriter.write(single, to: other)
        #expect(!FileManager.default.fileExists(atPath: other + "/paired.csv"))
    }

    /// replications.csv's paired difference across seeds is the mean over the seeds of
    /// the per-seed differences of the fleet rates (computed here from summary.csv's
    /// tallies alone), with a Student-t interval on R − 1 degrees of freedom.
    @Test func replicationsDifferenceAcrossSeeds() throws {
        let report = try Self.run(
            nil, policies: ["fixed", "none"], devices: 40, days: 4, keepDevices: false, replications: 3)
        let rows = Self.rows(SeriesReports.replicationsCSV(report))
        #expect(rows[0] == SeriesReports.replicationsHeader)
        let column = { (name: String) in SeriesReports.replicationsHeader.firstIndex(of: name)! }
        for (metric, perSeed) in [
            (
                "fresh_open_rate",
                { (r: PolicyResult) in FleetEstimates(tally: r.tally, days: 3).perOpen(.freshOpens).value }
            ),
            (
                "runs_per_day",
                { (r: PolicyResult) in FleetEstimates(tally: r.tally, days: 3).perDeviceDay(.runs).value }
            ),
        ] {
            let differences = [UInt64(3), 4, 5].map { seed in
                perSeed(report.results.first { $0.policy == "none" && $0.seed == seed }!)
                    - perSeed(report.results.first { $0.policy == "fixed" && $0.seed == seed }!)
            }
            let mean = differences.reduce(0, +) / 3
            let sd = (differences.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / 2).squareRoot()
            let half = Distribution.studentTQuantile(0.975, degreesOfFreedom: 2) * sd / 3.0.squareRoot()
            let row = try #require(rows.first { $0[1] == "none" && $0[3] == metric })
            #expect(row[column("baseline")] == "fixed")
            #expect(abs(Double(row[column("difference")])! - mean) < 1e-12)
            #expect(abs(Double(row[column("difference_sd")])! - sd) < 1e-9)
            #expect(abs(Double(row[column("difference_ci_low")])! - (mean - half)) < 1e-9)
            #expect(abs(Double(row[column("difference_ci_high")])! - (mean + half)) < 1e-9)
            #expect(row[column("difference_excludes_zero")] == (mean - half > 0 || mean + half < 0 ? "true" : "false"))
            // The baseline's own rows leave the difference empty.
            let own = try #require(rows.first { $0[1] == "fixed" && $0[3] == metric })
            #expect(own[column("baseline")] == "" && own[column("difference")] == "")
        }
        // Quantiles are not paired.
        let p95 = try #require(rows.first { $0[1] == "none" && $0[3] == "staleness_p95_s" })
        #expect(p95[column("difference")] == "")
    }

    /// 1 and 2 threads: byte-identical paired.csv and replications.csv; and a policy run
    /// beside others has exactly the summary it has alone.
    @Test func threadCountAndCompanyDoNotChangeResults() throws {
        let policies = ["adaptive", "fixed", "none", "oracle"]
        let one = try Self.run(
            nil, policies: policies, devices: 200, days: 5, threads: 1, keepDevices: false, replications: 2)
        let two = try Self.run(
            nil, policies: policies, devices: 200, days: 5, threads: 2, keepDevices: false, replications: 2)
        #expect(SeriesReports.pairedCSV(one, baseline: "fixed") == SeriesReports.pairedCSV(two, baseline: "fixed"))
        #expect(SeriesReports.replicationsCSV(one) == SeriesReports.replicationsCSV(two))
        let alone = try Self.run(
            nil, policies: ["adaptive"], devices: 200, days: 5, threads: 2, keepDevices: false, replications: 2)
        #expect(ReportWriter.summaryRows(alone) == ReportWriter.summaryRows(two).filter { $0[1] == "adaptive" })
        #expect(
            SeriesReports.dailyCSV(alone).split(separator: "\n").dropFirst()
                == SeriesReports.dailyCSV(two).split(separator: "\n").dropFirst().filter { $0.contains(",adaptive,") })
    }

    static func rows(_ csv: String) -> [[String]] {
        csv.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    }
}
