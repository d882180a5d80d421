import Foundation
import Testing
import BGBenchTestSupport
@testable import BGBench

/// The use-case presets' headline metrics in daily.csv and hourly.csv (issue 24: "the
/// preset's headline metrics drive every figure"): every preset's `report.headline` is a
/// series column; the new columns (push lost and push runs, cellular image bytes, the
/// processing task's on-time share and energy) on hand-built device timelines with known
/// answers, and on tiny preset runs counted by hand from events.csv (every device traced)
/// or, where no event carries the value, held to summary.csv's figure (the mean of the
/// days, the sum of the hours).
@Suite struct SeriesHeadlineTests {
    /// Headline metrics that daily.csv and hourly.csv may lack (Reports/README.md says why).
    /// None: every preset's headline is kept by day and hour.
    static let notSeries: Set<String> = []

    @Test func everyPresetHeadlineIsADailyAndHourlyColumn() throws {
        let folder = TestSupport.packageRoot.appendingPathComponent("Datasets/scenarios")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
        var headlines = 0
        for file in files.sorted() {
            let data = try Data(contentsOf: folder.appendingPathComponent(file))
            let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            guard let report = json["report"] as? [String: Any], let headline = report["headline"] as? [String]
            else { continue }
            headlines += 1
            for metric in headline where !Self.notSeries.contains(metric) {
                #expect(SeriesReports.dailyHeader.contains(metric), "\(file): \(metric) not in daily.csv")
                #expect(SeriesReports.hourlyHeader.contains(metric), "\(file): \(metric) not in hourly.csv")
                #expect(MetricTable.named(metric) != nil, "\(file): \(metric) is a summary metric")
            }
        }
        #expect(headlines >= 5, "the use-case presets were read")
        // The exceptions, if any, are documented.
        let readme = try String(
            contentsOf: TestSupport.packageRoot.appendingPathComponent("Reports/README.md"), encoding: .utf8)
        for metric in Self.notSeries { #expect(readme.contains("`\(metric)`")) }
    }

    /// The columns of a row of a hand-built tally, by name.
    static func row(_ tally: SeriesTally, _ row: Int, scale: Double) -> [String: String] {
        let values = SeriesReports.seriesFields(tally, row: row, scale: scale, serverJobs: false)
        return Dictionary(uniqueKeysWithValues: zip(SeriesReports.seriesHeader, values))
    }

    /// Two devices over two counted days, every event placed by hand: the image bytes on
    /// cellular (not on Wi-Fi) by day and hour, and the processing share of the instances
    /// resolved in the row (completed on time, or their deadline passed).
    @Test func handBuiltDevicesGiveKnownRows() throws {
        let h = Clock.hour, d = Clock.day, m = Clock.minute
        var daily = SeriesTally(rows: 2), hourly = SeriesTally(rows: 24)
        var storages: [RecorderStorage] = []
        func device(_ id: Int, _ days: [(inout DeviceRecorder) -> Void]) {
            var rec = DeviceRecorder(
                device: id, utcOffset: 0, tracing: false, storage: RecorderStorage(days: 2, firstDay: 0))
            for (day, events) in days.enumerated() {
                events(&rec)
                rec.flushDay(day, counted: true)
            }
            let record = rec.finish(archetype: 0)
            let s = record.storage
            for i in 0..<s.daily.count / SeriesField.count { daily.add(row: s.firstDay + i, s.day(i)) }
            for hour in 0..<24 { hourly.add(row: hour, record.hour(hour)) }
            daily.countDevice()
            hourly.countDevice()
            storages.append(s)
        }
        // As the simulation books them: the tally and the hour of the event.
        func onTime(_ rec: inout DeviceRecorder, _ t: SimTime) {
            rec.tally.increment(.processingOnTime)
            rec.record(.processingOnTime, 1, at: t)
        }
        func missed(_ rec: inout DeviceRecorder, _ t: SimTime) {
            rec.tally.increment(.processingMissed)
            rec.record(.processingMissed, 1, at: t)
        }
        device(
            0,
            [
                { rec in  // in time order, as the simulation records
                    onTime(&rec, 2 * h + 5 * m)
                    rec.received(1000, images: 300, on: .lte, at: 3 * h + 10 * m)
                    rec.received(900, images: 200, on: .wifi, at: 5 * h)  // Wi-Fi: no cellular image bytes
                    missed(&rec, 23 * h + 30 * m)
                },
                { rec in
                    onTime(&rec, d + 2 * h)
                    rec.received(400, images: 100, on: .nr5g, at: d + 3 * h + 59 * m)
                },
            ])
        device(
            1,
            [
                { rec in rec.received(700, images: 600, on: .lte, at: 3 * h + 30 * m) },
                { rec in
                    missed(&rec, d + 2 * h + 15 * m)
                    onTime(&rec, d + 2 * h + 40 * m)
                },
            ])
        defer { for s in storages { s.release() } }
        let day0 = Self.row(daily, 0, scale: 1), day1 = Self.row(daily, 1, scale: 1)
        // Per device: (300 + 600) / 2 on day 0, (100 + 0) / 2 on day 1.
        #expect(day0["cellular_image_bytes_per_day"] == "450")
        #expect(day1["cellular_image_bytes_per_day"] == "50")
        #expect(day0["cellular_image_bytes_per_day_ci_low"] != "")
        // Resolved on day 0: one on time, one missed; day 1: two on time, one missed.
        #expect(day0["processing_on_time_rate"] == "0.5")
        #expect(Double(day1["processing_on_time_rate"]!)! == 2.0 / 3.0)
        #expect(day0["processing_on_time_rate_ci_low"] == nil, "no interval, as in summary.csv")
        // By hour, per device and counted day: all image bytes came in hour 3, (300 + 100 + 600) / 2 / 2.
        for hour in 0..<24 {
            let row = Self.row(hourly, hour, scale: 0.5)
            #expect(row["cellular_image_bytes_per_day"] == (hour == 3 ? "250" : "0"), "hour \(hour)")
            // Hour 2: three on time, one missed; hour 23: one missed; no other hour resolved one.
            let share = hour == 2 ? "0.75" : hour == 23 ? "0" : ""
            #expect(row["processing_on_time_rate"] == share, "hour \(hour)")
            #expect(row["push_lost_per_day"] == "0" && row["processing_energy_j_per_day"] == "0")
        }
    }

    /// A traced preset run: its events of the counted days, daily.csv, hourly.csv and summary.csv's fleet rows.
    static func run(
        _ preset: String, policies: String, devices: Int, days: Int, warmup: Int, set: [String] = []
    ) throws -> (
        events: [[String: String]], daily: [[String: String]], hourly: [[String: String]],
        summary: [[String: String]]
    ) {
        let out = freshFolder("series-headline-" + preset)
        defer { try? FileManager.default.removeItem(atPath: out) }
        let run = bgbench(
            [
                "--scenario", preset, "--policy", policies, "--devices", "\(devices)", "--days", "\(days)",
                "--warmup-days", "\(warmup)", "--replications", "2", "--trace-devices", "\(devices)", "--out", out,
                "--quiet",
            ] + set.flatMap { ["--set", $0] })
        try #require(run.code == 0, "\(run.errors)")
        return (
            try csvRecords(out + "/events.csv").filter { Int($0["day"]!)! >= warmup },
            try csvRecords(out + "/daily.csv"), try csvRecords(out + "/hourly.csv"),
            try csvRecords(out + "/summary.csv").filter { $0["archetype"] == "all" }
        )
    }

    static func hour(_ event: [String: String]) -> Int {
        Int(Double(event["time_s"]!)!.truncatingRemainder(dividingBy: 86400) / 3600)
    }

    /// A per-device-day column held to summary.csv: the mean of the counted days' rows and
    /// the sum of the 24 hours are its figure.
    static func addsUpToSummary(
        _ column: String, _ daily: [[String: String]], _ hourly: [[String: String]], _ summary: [String: String],
        days: Int
    ) {
        let total = Double(summary[column]!)!
        let mean = daily.map { Double($0[column]!)! }.reduce(0, +) / Double(days)
        let hours = hourly.map { Double($0[column]!)! }.reduce(0, +)
        #expect(daily.count == days && hourly.count == 24)
        #expect(abs(mean - total) <= 1e-9 * max(1, abs(total)), "\(column): days' mean \(mean), summary \(total)")
        #expect(abs(hours - total) <= 1e-9 * max(1, abs(total)), "\(column): hours' sum \(hours), summary \(total)")
    }

    /// messaging under `push`: each day's and hour's pushes lost and push runs counted by hand
    /// from events.csv (`push_lost`; `started` with detail `<network> push`), per device (and
    /// counted day); the days' mean and the hours' sum are summary.csv's figure.
    @Test func messagingPushColumnsByHand() throws {
        let devices = 10, days = 4, warmup = 1, counted = Double(days - warmup)
        let r = try Self.run("messaging", policies: "fixed,push", devices: devices, days: days, warmup: warmup)
        var seen = (lost: 0, runs: 0)
        for policy in ["fixed", "push"] {
            for seed in ["1", "2"] {
                let mine = r.events.filter { $0["policy"] == policy && $0["seed"] == seed }
                let lost = mine.filter { $0["event"] == "push_lost" }
                let runs = mine.filter { $0["event"] == "started" && $0["detail"]!.hasSuffix(" push") }
                seen.lost += lost.count
                seen.runs += runs.count
                let daily = r.daily.filter { $0["policy"] == policy && $0["seed"] == seed }
                let hourly = r.hourly.filter { $0["policy"] == policy && $0["seed"] == seed }
                for row in daily {
                    let n = { (e: [[String: String]]) in Double(e.filter { $0["day"] == row["day"] }.count) }
                    #expect(Double(row["push_lost_per_day"]!)! == n(lost) / Double(devices), "day \(row["day"]!)")
                    #expect(Double(row["push_runs_per_day"]!)! == n(runs) / Double(devices), "day \(row["day"]!)")
                }
                for row in hourly {
                    let hour = Int(row["hour"]!)!
                    let n = { (e: [[String: String]]) in Double(e.filter { Self.hour($0) == hour }.count) }
                    let lostHere = Double(row["push_lost_per_day"]!)!, runsHere = Double(row["push_runs_per_day"]!)!
                    #expect(abs(lostHere - n(lost) / Double(devices) / counted) < 1e-12, "hour \(hour)")
                    #expect(abs(runsHere - n(runs) / Double(devices) / counted) < 1e-12, "hour \(hour)")
                }
                let s = try #require(r.summary.first { $0["policy"] == policy && $0["seed"] == seed })
                for column in ["push_lost_per_day", "push_runs_per_day"] {
                    Self.addsUpToSummary(column, daily, hourly, s, days: days - warmup)
                }
            }
        }
        #expect(seen.lost > 0 && seen.runs > 0, "the run has pushes lost and push runs to count")
    }

    /// finance: each day's and hour's processing on-time share counted by hand from
    /// events.csv (`processing` `completed` over `completed` and `deadline_passed`), empty
    /// where none was resolved; the processing energy's days' mean and hours' sum are
    /// summary.csv's.
    @Test func financeProcessingColumnsByHand() throws {
        let devices = 40, days = 9, warmup = 1
        let r = try Self.run("finance", policies: "fixed", devices: devices, days: days, warmup: warmup)
        var seen = (onTime: 0, missed: 0, emptyDays: 0)
        for seed in ["1", "2"] {
            let mine = r.events.filter { $0["seed"] == seed && $0["event"] == "processing" }
            let onTime = mine.filter { $0["detail"] == "completed" }
            let missed = mine.filter { $0["detail"] == "deadline_passed" }
            seen.onTime += onTime.count
            seen.missed += missed.count
            func share(_ keep: ([String: String]) -> Bool) -> String {
                let a = Double(onTime.filter(keep).count), b = Double(missed.filter(keep).count)
                return a + b > 0 ? String(a / (a + b)) : ""
            }
            let daily = r.daily.filter { $0["seed"] == seed }
            let hourly = r.hourly.filter { $0["seed"] == seed }
            for row in daily {
                let expected = share { $0["day"] == row["day"] }
                let written = row["processing_on_time_rate"]!
                if expected.isEmpty { seen.emptyDays += 1 }
                #expect(
                    written == expected || abs((Double(written) ?? -1) - (Double(expected) ?? -2)) < 1e-15,
                    "seed \(seed) day \(row["day"]!): \(written), by hand \(expected)")
            }
            for row in hourly {
                let hour = Int(row["hour"]!)!
                let expected = share { Self.hour($0) == hour }
                let written = row["processing_on_time_rate"]!
                #expect(
                    written == expected || abs((Double(written) ?? -1) - (Double(expected) ?? -2)) < 1e-15,
                    "seed \(seed) hour \(hour): \(written), by hand \(expected)")
            }
            let s = try #require(r.summary.first { $0["seed"] == seed })
            Self.addsUpToSummary("processing_energy_j_per_day", daily, hourly, s, days: days - warmup)
            #expect(Double(s["processing_energy_j_per_day"]!)! > 0)
            // The run's share by hand is summary.csv's.
            let all = share { _ in true }
            #expect(abs(Double(all)! - Double(s["processing_on_time_rate"]!)!) < 1e-12)
        }
        #expect(seen.onTime > 0 && seen.missed > 0, "on time \(seen.onTime), missed \(seen.missed)")
    }

    /// ecommerce (`catalog`) with images allowed on cellular (the preset's are Wi-Fi-only, so
    /// its headline's cellular image bytes are 0): the cellular image bytes by day and hour
    /// add up to summary.csv's figure (no event carries a run's or a foreground fetch's image
    /// bytes; their hours are checked on the hand-built devices above).
    @Test func ecommerceImageBytesAddUpToSummary() throws {
        let days = 4, warmup = 1
        let r = try Self.run(
            "ecommerce", policies: "fixed,adaptive", devices: 12, days: days, warmup: warmup,
            set: ["content.catalog.wifi_only=false"])
        for policy in ["fixed", "adaptive"] {
            for seed in ["1", "2"] {
                let daily = r.daily.filter { $0["policy"] == policy && $0["seed"] == seed }
                let hourly = r.hourly.filter { $0["policy"] == policy && $0["seed"] == seed }
                let s = try #require(r.summary.first { $0["policy"] == policy && $0["seed"] == seed })
                #expect(Double(s["cellular_image_bytes_per_day"]!)! > 0, "\(policy) seed \(seed)")
                Self.addsUpToSummary("cellular_image_bytes_per_day", daily, hourly, s, days: days - warmup)
            }
        }
    }
}
