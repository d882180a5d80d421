import Foundation
import Testing
@testable import BGBench
@testable import BGBenchCLI

/// The report files beyond summary.csv: their contents against the fleet totals, and the
/// whole folder read by Python's csv module and by pandas (Reports/README.md's loaders).
@Suite struct ReportsTests {
    static let devices = 40, days = 6, warmup = 1

    /// One small run of fixed and none with per-device rows and a paired comparison.
    static let report: RunReport = {
        let request = RunRequest(
            scenario: ScenarioLoader.builtInDefault(), policies: ["fixed", "none", "oracle"],
            options: RunOptions(
                devices: devices, days: days, seed: 7, threads: 2, warmupDays: warmup, keepDevices: true),
            baselinePolicy: "fixed")
        return try! Runner.run(request)
    }()

    static func rows(_ csv: String) -> [[String]] {
        csv.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    }

    @Test func devicesRowsAddUpToTheFleet() {
        let rows = Self.rows(SeriesReports.devicesCSV(Self.report))
        #expect(rows[0] == SeriesReports.devicesHeader)
        #expect(rows.count == 1 + Self.devices * 3)
        let opens = SeriesReports.devicesHeader.firstIndex(of: "opens")!
        let runs = SeriesReports.devicesHeader.firstIndex(of: "runs")!
        for result in Self.report.results {
            let mine = rows.dropFirst().filter { $0[1] == result.policy }
            #expect(mine.map { Int($0[3])! } == Array(0..<Self.devices), "device order")
            #expect(mine.allSatisfy { $0[2] == "7" }, "the seed column")
            #expect(mine.reduce(0.0) { $0 + Double($1[opens])! } == result.tally[.opens])
            #expect(mine.reduce(0.0) { $0 + Double($1[runs])! } == result.tally[.runs])
        }
        // Common random numbers: device i opens the app the same times under every policy.
        let byPolicy = Dictionary(grouping: rows.dropFirst(), by: { $0[1] })
        #expect(byPolicy["fixed"]!.map { $0[opens] } == byPolicy["none"]!.map { $0[opens] })
    }

    @Test func pairedDifferencesMatchTheSummaries() throws {
        let rows = Self.rows(SeriesReports.pairedCSV(Self.report, baseline: "fixed"))
        #expect(rows[0] == SeriesReports.pairedHeader)
        #expect(
            rows.count == 1 + 2 * MetricTable.pairedMetrics.count,
            "two policies against the baseline, every paired metric")
        func row(_ policy: String, _ metric: String) -> [String] { rows.first { $0[1] == policy && $0[4] == metric }! }
        let fixed = FleetEstimates(tally: Self.report.results[0].tally, days: Self.days - Self.warmup)
        let none = FleetEstimates(tally: Self.report.results[1].tally, days: Self.days - Self.warmup)
        // none makes no runs: its difference in runs/day is exactly minus fixed's.
        let runs = row("none", "runs_per_day")
        #expect(abs(Double(runs[8])! + fixed.perDeviceDay(.runs).value) < 1e-12)
        // The per-open difference is the difference of the two fleet ratios (same opens).
        let fresh = row("none", "fresh_open_rate")
        let expected = none.perOpen(.freshOpens).value - fixed.perOpen(.freshOpens).value
        #expect(abs(Double(fresh[8])! - expected) < 1e-12)
        #expect(Double(fresh[9])! <= Double(fresh[8])! && Double(fresh[8])! <= Double(fresh[10])!)
        // A paired interval is narrower than the two unpaired ones side by side.
        let unpaired = (fixed.perOpen(.freshOpens).high! - fixed.perOpen(.freshOpens).low!)
        #expect(Double(fresh[10])! - Double(fresh[9])! < unpaired)
    }

    /// Issue 12, seen item 10: daily.csv's `day` is the simulated day, warm-up included, so
    /// with a warm-up the first row is day `warmup_days`; Reports/README.md says so (it said
    /// `day` = 0, 1, ...).
    @Test func dailyDayIsDocumentedAsTheSimulatedDay() throws {
        let rows = Self.rows(SeriesReports.dailyCSV(Self.report))
        #expect(Self.warmup > 0 && rows[1][3] == String(Self.warmup))
        let readme = try String(
            contentsOf: TestSupport.packageRoot.appendingPathComponent("Reports/README.md"), encoding: .utf8
        )
        .split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(!readme.contains("`day` = 0, 1, ..."))
        #expect(
            readme.contains(
                "`day` is the simulated day, counted from 0 at the start of the run, warm-up included, as in "
                    + "events.csv: the first row is day `warmup_days` (0 without `--warmup-days`; 14 with `--warmup-days 14`)"
            ))
    }

    @Test func dailyRowsAddUpToTheFleet() {
        let rows = Self.rows(SeriesReports.dailyCSV(Self.report))
        #expect(rows[0] == SeriesReports.dailyHeader)
        let opensColumn = SeriesReports.dailyHeader.firstIndex(of: "opens_per_day")!
        for result in Self.report.results {
            let mine = rows.dropFirst().filter { $0[1] == result.policy }
            #expect(mine.map { $0[3] } == (Self.warmup..<Self.days).map(String.init), "counted days only")
            let opens = mine.reduce(0.0) { $0 + Double($1[opensColumn])! * Double(Self.devices) }
            #expect(abs(opens - result.tally[.opens]) < 1e-6)
        }
        let hourly = Self.rows(SeriesReports.hourlyCSV(Self.report))
        let hourlyOpens = SeriesReports.hourlyHeader.firstIndex(of: "opens_per_day")!
        let total = hourly.dropFirst().filter { $0[1] == "fixed" }
            .reduce(0.0) { $0 + Double($1[hourlyOpens])! * Double(Self.devices * (Self.days - Self.warmup)) }
        #expect(abs(total - Self.report.results[0].tally[.opens]) < 1e-6)
    }

    /// Every file loads in Python's csv module and in pandas with the documented columns.
    @Test func pythonAndPandasReadEveryFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bgbench-reports-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Every optional file too: devices, paired, events, replications.
        let request = RunRequest(
            scenario: ScenarioLoader.builtInDefault(), policies: ["fixed", "none"],
            options: RunOptions(devices: 20, days: 3, seed: 7, threads: 2, keepDevices: true, traceDevices: 2),
            baselinePolicy: "fixed", replications: 2)
        try ReportWriter.write(try Runner.run(request), to: folder)
        let expected: [(String, [String])] = [
            ("summary.csv", SummarySchema.header), ("daily.csv", SeriesReports.dailyHeader),
            ("hourly.csv", SeriesReports.hourlyHeader), ("devices.csv", SeriesReports.devicesHeader),
            ("paired.csv", SeriesReports.pairedHeader),
            ("paired-archetypes.csv", SeriesReports.pairedArchetypesHeader), ("server.csv", SeriesReports.serverHeader),
            ("events.csv", SeriesReports.eventsHeader), ("replications.csv", SeriesReports.replicationsHeader),
        ]
        let script = """
            import csv, json, sys
            import pandas as pd
            folder, expected = sys.argv[1], json.loads(sys.argv[2])
            for name, header in expected:
                with open(f"{folder}/{name}", newline="") as f:
                    rows = list(csv.reader(f))
                assert rows[0] == header, (name, rows[0][:5])
                assert all(len(r) == len(header) for r in rows), name
                frame = pd.read_csv(f"{folder}/{name}")
                assert list(frame.columns) == header, name
                assert len(frame) == len(rows) - 1, name
            json.load(open(f"{folder}/run.json"))
            json.load(open(f"{folder}/scenario.json"))
            print("ok")
            """
        let json = String(
            decoding: try JSONSerialization.data(withJSONObject: expected.map { [$0.0, $0.1] }), as: UTF8.self)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, folder, json]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        process.waitUntilExit()
        let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0 && out == "ok\n", "python: \(out)")
    }

    /// Replications: R seeds, one summary row set per seed, and replications.csv's mean
    /// and interval across them agree with the per-seed values.
    @Test func replicationsSummariseAcrossSeeds() throws {
        let request = RunRequest(
            scenario: ScenarioLoader.builtInDefault(), policies: ["fixed"],
            options: RunOptions(devices: 30, days: 3, seed: 5, threads: 2), replications: 3)
        let report = try Runner.run(request)
        #expect(report.results.map(\.seed) == [5, 6, 7])
        let rates = report.results.map { FleetEstimates(tally: $0.tally, days: 3).perOpen(.freshOpens).value }
        #expect(Set(rates).count == 3, "independent seeds give different feeds and users")
        let rows = Self.rows(SeriesReports.replicationsCSV(report))
        #expect(rows[0] == SeriesReports.replicationsHeader)
        let fresh = try #require(rows.first { $0[3] == "fresh_open_rate" })
        let mean = rates.reduce(0, +) / 3
        #expect(abs(Double(fresh[5])! - mean) < 1e-12)
        #expect(Double(fresh[7])! < mean && mean < Double(fresh[8])!)
        let summary = Self.rows(ReportWriter.summaryCSV(report)).dropFirst().filter { $0[2] == "all" }
        #expect(summary.map { $0[4] } == ["5", "6", "7"])
    }

    /// `bgbench plot` draws the six PNG files of a report folder, each a real image: of a
    /// one-seed run with three policies, and of a replicated run whose curves are
    /// aggregated over the seeds (daily.png: by day and over a rolling week).
    @Test func plotDrawsPNGFiles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bgbench-plot-\(UUID().uuidString)")
            .path
        let replicated = folder + "-replicated"
        defer {
            try? FileManager.default.removeItem(atPath: folder); try? FileManager.default.removeItem(atPath: replicated)
        }
        try ReportWriter.write(Self.report, to: folder)
        try ReportWriter.write(
            try Runner.run(
                RunRequest(
                    scenario: ScenarioLoader.builtInDefault(), policies: ["fixed", "adaptive", "none", "oracle"],
                    options: RunOptions(devices: 10, days: 9, seed: 3, threads: 2), replications: 2)), to: replicated)
        for dir in [folder, replicated] {
            var output = "", errors = ""
            let code = CommandLineTool.run(arguments: ["plot", dir], output: &output, errors: &errors)
            #expect(code == 0, "\(errors)")
            let names = ["headline.png", "frontier.png", "daily.png", "hourly.png", "staleness.png", "energy.png"]
            #expect(output == names.map { dir + "/" + $0 + "\n" }.joined())
            for name in names {
                let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name))
                #expect(data.count > 10_000, "\(name) is \(data.count) bytes")
                #expect(data.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "\(name) is a PNG")
            }
        }
        var output = "", e2 = ""
        #expect(CommandLineTool.run(arguments: ["plot", folder + "/nothing"], output: &output, errors: &e2) == 66)
        #expect(
            e2
                == "error: no summary.csv in '\(folder)/nothing': expected a bgbench report folder\nsee 'bgbench --help'\n"
        )
    }

    /// plot.py's palette: 16 policies (the 12 known names and 4 others) get 16 distinct
    /// colours and 16 distinct (colour, marker) pairs, and a known policy keeps its style
    /// whatever its company (none and oracle no longer share a colour).
    @Test func paletteNeverRepeats() throws {
        let script = try EmbeddedFiles.writePlotScript()
        defer { try? FileManager.default.removeItem(at: script.deletingLastPathComponent()) }
        let names = [
            "none", "fixed", "adaptive", "usage", "histogram", "nhpp", "bayes", "kde", "logistic", "push", "oracle",
            "prophet", "mine", "yours", "a", "b",
        ]
        let code = """
            import json, sys
            sys.path.insert(0, sys.argv[1])
            import plot
            names = json.loads(sys.argv[2])
            print(json.dumps([plot.palette(names)[n] for n in names] + [plot.palette(["oracle"])["oracle"]]))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let list = String(decoding: try JSONSerialization.data(withJSONObject: names), as: UTF8.self)
        process.arguments = ["python3", "-c", code, script.deletingLastPathComponent().path, list]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        process.waitUntilExit()
        let out = pipe.fileHandleForReading.readDataToEndOfFile()
        #expect(process.terminationStatus == 0, "\(String(decoding: out, as: UTF8.self))")
        let styles = try #require(try JSONSerialization.jsonObject(with: out) as? [[String]])
        #expect(styles.count == 17)
        let pairs = styles.prefix(16)
        #expect(Set(pairs.map { $0[0] + " " + $0[1] }).count == 16)
        #expect(Set(pairs.map { $0[0] }).count == 16)
        #expect(styles[16] == styles[10], "oracle keeps its style alone")
    }

    /// The paired difference plot.py draws from per-policy rows is the paired one: every
    /// policy meets the same opens (daily.csv's and hourly.csv's opens agree row by row
    /// across policies), so the difference of two fleet ratios is paired.csv's difference.
    @Test func perPolicyRowsDifferenceIsThePairedOne() throws {
        for csv in [SeriesReports.dailyCSV(Self.report), SeriesReports.hourlyCSV(Self.report)] {
            let rows = Self.rows(csv).dropFirst()
            let opens = SeriesReports.dailyHeader.firstIndex(of: "opens_per_day")!
            let byRow = Dictionary(grouping: rows, by: { $0[2] + "/" + $0[3] })  // seed / day or hour
            for (_, group) in byRow { #expect(Set(group.map { $0[opens] }).count == 1) }
        }
        let paired = Self.rows(SeriesReports.pairedCSV(Self.report, baseline: "fixed")).dropFirst()
        for row in paired where row[4] == "fresh_open_rate" {
            let summary = { (policy: String) in
                FleetEstimates(
                    tally: Self.report.results.first { $0.policy == policy }!.tally, days: Self.report.countedDays
                )
                .perOpen(.freshOpens).value
            }
            #expect(abs(Double(row[8])! - (summary(row[1]) - summary("fixed"))) < 1e-12)
        }
    }

    static func r1Report(offset: TimeSpan, trace: Int = 0) throws -> RunReport {
        var loaded = try ScenarioLoader.load(
            file: TestSupport.packageRoot.appendingPathComponent("Datasets/scenarios/r1.json").path)
        loaded.scenario.population.utcOffsets = [UTCOffsetShare(offset: offset, share: 1)]
        return try Runner.run(
            RunRequest(
                scenario: loaded, policies: ["fixed"],
                options: RunOptions(devices: 20, days: 4, seed: 3, threads: 2, traceDevices: trace)))
    }

    /// server.csv: on R1 every run sends one request and every stale open one foreground
    /// fetch, so the minutes add up to runs + fetches; an offset of +1 h moves the whole
    /// profile one hour earlier in UTC, exactly.
    @Test func serverLoadCountsEveryRequestAndAppliesOffsets() throws {
        let utc = try Self.r1Report(offset: .hours(0))
        let load = utc.results[0].result.serverLoad
        let total = (0..<ServerLoad.minutesPerDay).reduce(0.0) { $0 + load.minute($1).mean } * 4
        let tally = utc.results[0].tally
        #expect(abs(total - (tally[.runs] + tally[.foregroundFetches])) < 1e-6)
        let east = try Self.r1Report(offset: .hours(1)).results[0].result.serverLoad
        for minute in 0..<(ServerLoad.minutesPerDay - 60) {
            #expect(east.minute(minute).mean == load.minute(minute + 60).mean)
            #expect(east.minute(minute).peak == load.minute(minute + 60).peak)
        }
        let rows = Self.rows(SeriesReports.serverCSV(utc))
        #expect(rows[0] == SeriesReports.serverHeader && rows.count == 1 + 1440)
        #expect(rows[1][4] == "00:00" && rows[1440][4] == "23:59")
    }

    /// events.csv logs the traced devices only, with a reason on every denial and a
    /// status on every completion, and as many runs and opens as the device's tally.
    @Test func eventLogOfTracedDevices() throws {
        let report = try Self.r1Report(offset: .hours(0), trace: 2)
        let trace = report.results[0].result.trace
        #expect(Set(trace.map(\.device)) == [0, 1])
        let byEvent = Dictionary(grouping: trace.filter { $0.device == 0 }, by: \.event)
        // R1: 48 attempts a day, 12 run, 36 denied for the daily cap; 4 days.
        #expect(byEvent["started"]?.count == 48)
        #expect(byEvent["denied"]?.count == 144)
        #expect(byEvent["denied"]!.allSatisfy { $0.detail == "budget" && $0.value != nil })
        #expect((byEvent["completed"]?.count ?? 0) + (byEvent["killed"]?.count ?? 0) == 48)
        #expect(byEvent["requested"]!.count == 48 + 144 + 1, "every attempt, plus the one pending at the horizon")
        #expect(zip(trace, trace.dropFirst()).allSatisfy { $0.device != $1.device || $0.time <= $1.time })
        let rows = Self.rows(SeriesReports.eventsCSV(report))
        #expect(rows[0] == SeriesReports.eventsHeader && rows.count == 1 + trace.count)
    }
}
