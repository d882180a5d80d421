import Foundation
import Testing
@testable import BGBench
@testable import BGHarness
@testable import BGBenchCLI
import BGBenchTestSupport

/// The frontier's quality axis is a parameter (issue 23 item 4): which metrics can be one,
/// which one a scenario gets, how each is read from the joint moments, and that the files,
/// the terminal and merges all follow it.
@Suite struct FrontierAxisTests {

    /// The metrics summary.csv has that can be a quality axis: the rates where higher is
    /// better and that are totals of device counts (written out, not derived).
    @Test func qualityAxesAreTheRatesWhereHigherIsBetter() throws {
        #expect(FrontierAxis.qualityNames == ["fresh_open_rate", "server_on_time_rate", "processing_on_time_rate"])
        #expect(try FrontierAxis.quality(named: "fresh_open_rate") == .defaultQuality)
        #expect(FrontierAxis.energy.metric.name == "background_energy_j_per_day")
        #expect(
            FrontierAxis.defaultQuality.quantities == [.opens, .freshOpens]
                && FrontierAxis.jointQuantities(quality: .defaultQuality) == [.opens, .freshOpens, .backgroundEnergy])
        #expect(
            try FrontierAxis.jointQuantities(quality: FrontierAxis.quality(named: "processing_on_time_rate"))
                == [.processingOnTime, .processingMissed, .backgroundEnergy, .opens, .freshOpens])
        let list = "fresh_open_rate, server_on_time_rate, processing_on_time_rate"
        for (name, reason) in [
            ("staleness_mean_s", "lower is better for it, and a quality axis needs a metric where higher is better"),
            ("battery_pct_per_day", "lower is better for it, and a quality axis needs a metric where higher is better"),
            ("fresh", "not a metric of summary.csv"),
        ] {
            #expect(throws: FrontierError.badQuality(name, reason: reason)) { try FrontierAxis.quality(named: name) }
            #expect(
                FrontierError.badQuality(name, reason: reason).description
                    == "invalid value '\(name)' for '--quality': \(reason); expected one of \(list)")
        }
    }

    /// A scenario's quality axis is its first headline metric when that can be one.
    @Test func theScenarioHeadlineChoosesTheAxis() throws {
        var scenario = Scenario()
        #expect(FrontierAxis.quality(for: scenario).metric.name == "fresh_open_rate")
        scenario.report.headline = ["server_on_time_rate", "fresh_open_rate"]
        #expect(FrontierAxis.quality(for: scenario).metric.name == "server_on_time_rate")
        // Only the first counts: a headline led by a cost keeps the fresh-open rate.
        scenario.report.headline = ["staleness_mean_s", "server_on_time_rate"]
        #expect(FrontierAxis.quality(for: scenario).metric.name == "fresh_open_rate")
        for (preset, metric) in [
            ("default", "fresh_open_rate"), ("news", "fresh_open_rate"), ("ecommerce", "fresh_open_rate"),
            ("messaging", "fresh_open_rate"), ("fitness-sync", "server_on_time_rate"),
            ("finance", "processing_on_time_rate"),
        ] {
            let loaded = try Command.loadScenario(preset, overrides: [])
            #expect(FrontierAxis.quality(for: loaded.scenario).metric.name == metric, "\(preset)")
        }
    }

    /// Each reading on two hand-built devices over 7 days, the answers worked out by hand.
    @Test func axesAreReadFromTheMeansByHand() throws {
        // Device rows: (server jobs, on time, background J), one arm. A share of the jobs, not
        // of the days: (3 + 1) / (4 + 6), where on-time jobs per day would give 2 / 7.
        let sync = JointMoments(
            arms: 1, quantities: [.serverJobs, .serverOnTime, .backgroundEnergy], rows: [[4, 3, 70], [6, 1, 140]])
        let server = try FrontierAxis.quality(named: "server_on_time_rate")
        #expect(server.value(sync.mean, sync, arm: 0, days: 7) == 0.4)
        #expect(FrontierAxis.energy.value(sync.mean, sync, arm: 0, days: 7) == 15)  // (70 + 140) / 2 / 7
        // (on time, missed): 3 + 2 on time, 1 + 0 missed: 5 / 6.
        let tasks = JointMoments(
            arms: 1, quantities: [.processingOnTime, .processingMissed], rows: [[3, 1], [2, 0]])
        let processing = try FrontierAxis.quality(named: "processing_on_time_rate")
        #expect(abs(processing.value(tasks.mean, tasks, arm: 0, days: 7) - 5.0 / 6) < 1e-15)
        // No opens, no jobs, nothing resolved: undefined, never 0.
        let empty = JointMoments(
            arms: 1, quantities: [.opens, .freshOpens, .serverJobs, .serverOnTime],
            rows: [[0, 0, 0, 0], [0, 0, 0, 0]])
        #expect(FrontierAxis.defaultQuality.value(empty.mean, empty, arm: 0, days: 7).isNaN)
        #expect(server.value(empty.mean, empty, arm: 0, days: 7).isNaN)
        let none = JointMoments(arms: 1, quantities: [.processingOnTime, .processingMissed], rows: [[0, 0]])
        #expect(processing.value(none.mean, none, arm: 0, days: 7).isNaN)
    }

    /// fitness-sync, replicated: the terminal, frontier.csv, frontier-matched.csv and run.json
    /// name the server on-time rate, and the baseline line is the mean over the seeds of
    /// summary.csv's rows (not seed 1's, as before).
    @Test func aPresetFrontierFollowsItsHeadlineRate() throws {
        let out = freshPath("frontier-sync")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = bgbench([
            "frontier", "--scenario", "fitness-sync", "--policy", "fixed", "--knob", "fixed=30m,4h", "--devices", "40",
            "--days", "7", "--replications", "2", "--out", out,
        ])
        #expect(result.code == 0, "\(result.errors)")
        let summary = try csvRecords(out + "/summary.csv")
        let baseline = summary.filter { $0["policy"] == "fixed" && $0["archetype"] == "all" }
        #expect(baseline.count == 2)
        func mean(_ column: String) -> Double { baseline.map { Double($0[column]!)! }.reduce(0, +) / 2 }
        let line =
            "baseline fixed at its own point: server_on_time_rate \(String(format: "%.1f", mean("server_on_time_rate") * 100)) %, "
            + "\(String(format: "%.1f", mean("background_energy_j_per_day"))) J/day\n"
        #expect(result.output.contains(line), "\(result.output)")
        #expect(result.output.contains("Δ pts at baseline J/day"))
        #expect(
            result.output.contains(
                "\npts: percentage points of server_on_time_rate; frontier-matched.csv holds differences of ratios (0.01 is 1 pt)\n"
            ))

        let frontier = try csvRecords(out + "/frontier.csv")
        #expect(frontier.allSatisfy { $0["quality_metric"] == "server_on_time_rate" })
        for seed in ["1", "2"] {
            let row = try #require(frontier.first { $0["arm"] == "fixed" && $0["seed"] == seed })
            let written = try #require(baseline.first { $0["seed"] == seed })
            #expect(row["quality"] == written["server_on_time_rate"], "seed \(seed)")
        }
        let matched = try csvRecords(out + "/frontier-matched.csv")
        #expect(!matched.isEmpty && matched.allSatisfy { $0["quality"] == "server_on_time_rate" })
        let run = try String(contentsOfFile: out + "/run.json", encoding: .utf8)
        #expect(run.contains("\"quality\" : \"server_on_time_rate\""))
    }

    /// `--quality` names the axis; one that cannot be one is a usage error before anything runs.
    @Test func theQualityOptionOverridesThePreset() throws {
        let out = freshPath("frontier-quality")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let bad = bgbench(["frontier", "--quality", "staleness_mean_s", "--devices", "4", "--days", "1", "--out", out])
        #expect(bad.code == 64)
        #expect(
            bad.errors
                == "error: invalid value 'staleness_mean_s' for '--quality': lower is better for it, and a quality axis needs a metric where higher is better; expected one of fresh_open_rate, server_on_time_rate, processing_on_time_rate\nsee 'bgbench --help'\n"
        )
        #expect(!FileManager.default.fileExists(atPath: out))
        let good = bgbench([
            "frontier", "--scenario", "fitness-sync", "--quality", "fresh_open_rate", "--policy", "fixed", "--knob",
            "fixed=1h,4h", "--devices", "8", "--days", "3", "--quiet", "--out", out,
        ])
        #expect(good.code == 0, "\(good.errors)")
        let matched = try csvRecords(out + "/frontier-matched.csv")
        #expect(matched.allSatisfy { $0["quality"] == "fresh_open_rate" })
    }

    /// Shards of one frontier with different quality axes keep different sums: merge names
    /// the difference and refuses (exit 65).
    @Test func shardsWithAnotherQualityAxisAreRefused() {
        let folder = freshFolder("frontier-shards")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let common = [
            "frontier", "--policy", "fixed", "--knob", "fixed=1h,4h", "--devices", "8", "--days", "2", "--quiet",
        ]
        #expect(bgbench(common + ["--shard", "0/2", "--out", folder + "/s0"]).code == 0)
        #expect(
            bgbench(common + ["--shard", "1/2", "--quality", "server_on_time_rate", "--out", folder + "/s1"]).code == 0)
        let merge = bgbench(["merge", "--out", folder + "/m", folder + "/s0", folder + "/s1"])
        #expect(merge.code == 65)
        #expect(
            merge.errors
                == "error: shard folder '\(folder)/s1' is of another run than '\(folder)/s0': its frontier's quality axis is server_on_time_rate, expected fresh_open_rate\n"
        )
    }
}
