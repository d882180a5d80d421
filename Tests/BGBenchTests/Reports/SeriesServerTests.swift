import Foundation
import Testing
import BGBenchTestSupport
@testable import BGBench

/// The server columns of daily.csv and hourly.csv (issue 24: fitness-sync's headline, the
/// server on-time rate, by day and hour): on a tiny fitness-sync run with every device
/// traced, each day's and hour's row counted by hand from events.csv's server jobs, and
/// the daily rows' mean is summary.csv's figure; empty where no server job runs.
@Suite struct SeriesServerTests {
    @Test func dailyAndHourlyServerColumnsAreSummaryCSVsByHand() throws {
        let out = freshFolder("series-server")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let devices = 12, days = 4, warmup = 1
        let run = bgbench([
            "--scenario", "fitness-sync", "--policy", "fixed,adaptive", "--devices", "\(devices)", "--days", "\(days)",
            "--warmup-days", "\(warmup)", "--replications", "2", "--trace-devices", "\(devices)", "--out", out,
            "--quiet",
        ])
        try #require(run.code == 0, "\(run.errors)")
        let events = try csvRecords(out + "/events.csv").filter { $0["event"] == "server_job" }
        let daily = try csvRecords(out + "/daily.csv"), hourly = try csvRecords(out + "/hourly.csv")
        let summary = try csvRecords(out + "/summary.csv").filter { $0["archetype"] == "all" }
        let counted = Double(days - warmup)
        var checked = 0
        for policy in ["fixed", "adaptive"] {
            for seed in ["1", "2"] {
                let jobs = events.filter { $0["policy"] == policy && $0["seed"] == seed }
                let mine = daily.filter { $0["policy"] == policy && $0["seed"] == seed }
                #expect(mine.count == days - warmup)
                var onTimeRates: [Double] = [], lags: [Double] = []
                for row in mine {
                    // By hand: the day's server jobs on time (and their lag, s), per device.
                    let day = jobs.filter { $0["day"] == row["day"] }
                    #expect(day.count == devices, "one server job a device-day")
                    let onTime = Double(day.filter { $0["detail"] == "on_time" }.count) / Double(devices)
                    let lag = day.map { Double($0["value"]!)! }.reduce(0, +) / Double(devices)
                    let written = Double(row["server_on_time_rate"]!)!
                    #expect(abs(written - onTime) < 1e-12, "\(policy) seed \(seed) day \(row["day"]!)")
                    #expect(abs(Double(row["server_lag_mean_s"]!)! - lag) < 1e-6 * max(1, lag))
                    #expect(row["server_on_time_rate_ci_low"]!.isEmpty == false)
                    onTimeRates.append(written)
                    lags.append(Double(row["server_lag_mean_s"]!)!)
                    checked += 1
                }
                // The daily rows' mean (every row weighs one job a device) is summary.csv's.
                let s = try #require(summary.first { $0["policy"] == policy && $0["seed"] == seed })
                let total = onTimeRates.reduce(0, +) / counted
                #expect(abs(total - Double(s["server_on_time_rate"]!)!) < 1e-12, "\(policy) seed \(seed)")
                #expect(abs(lags.reduce(0, +) / counted - Double(s["server_lag_mean_s"]!)!) < 1e-6)
                // By hour: the hour's on-time jobs per device and counted day; the 24 add up.
                let hours = hourly.filter { $0["policy"] == policy && $0["seed"] == seed }
                #expect(hours.count == 24)
                for row in hours {
                    let hour = Int(row["hour"]!)!
                    let inHour = jobs.filter {
                        Int(Double($0["time_s"]!)!.truncatingRemainder(dividingBy: 86400) / 3600) == hour
                            && $0["detail"] == "on_time"
                    }
                    let expected = Double(inHour.count) / Double(devices) / counted
                    #expect(abs(Double(row["server_on_time_rate"]!)! - expected) < 1e-12, "hour \(hour)")
                }
                let hourSum = hours.map { Double($0["server_on_time_rate"]!)! }.reduce(0, +)
                #expect(abs(hourSum - Double(s["server_on_time_rate"]!)!) < 1e-12)
            }
        }
        #expect(checked == 4 * (days - warmup))
        // The rate varies: not all on time, not all late (a check that means something).
        let all = daily.map { Double($0["server_on_time_rate"]!)! }
        #expect(all.contains { $0 > 0 } && all.contains { $0 < 1 })
    }

    /// No server jobs (the default scenario's feed): the columns are empty, as in summary.csv.
    @Test func emptyWithoutServerJobs() throws {
        let out = freshFolder("series-no-server")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let run = bgbench(["--policy", "fixed", "--devices", "8", "--days", "2", "--out", out, "--quiet"])
        try #require(run.code == 0, "\(run.errors)")
        for file in ["daily.csv", "hourly.csv"] {
            for row in try csvRecords(out + "/" + file) {
                for column in ["server_on_time_rate", "server_on_time_rate_ci_low", "server_lag_mean_s"] {
                    #expect(row[column] == "", "\(file) \(column)")
                }
            }
        }
        let summary = try csvRecords(out + "/summary.csv")
        #expect(summary.allSatisfy { $0["server_on_time_rate"] == "" })
    }
}
