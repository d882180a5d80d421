import Foundation
import Testing
@testable import BGBench
@testable import BGHarness
@testable import BGBenchCLI
import BGBenchTestSupport

/// A fresh temporary folder for one test's files.
private func scratch() -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("bgbench-trace-\(UUID().uuidString)").path
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

private func write(_ text: String, _ path: String) -> String {
    FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
    return path
}

private func trace(_ text: String) throws -> OpensTrace {
    try OpensTraceLoader.parse(Data(text.utf8), file: "t.csv")
}

private let sampleTrace = TestSupport.packageRoot.appendingPathComponent("Datasets/traces/sample.csv").path
private let sampleTSV = TestSupport.packageRoot.appendingPathComponent("Datasets/traces/lsapp-sample.tsv").path

/// Trace replay (MODEL.md §3): the loader, the replayed user on hand-built timelines with
/// known answers, determinism, run.json, `bgbench validate` and `bgbench convert-lsapp`.
@Suite struct TraceTests {
    // MARK: Loading

    /// Devices in order of first appearance, rows of a device grouped and kept in order,
    /// sessions in ticks (-1 where none is given), the span in whole days.
    @Test func loadsDevicesInOrderOfFirstAppearance() throws {
        let t = try trace("timestamp,device,session_seconds\n10,b,1.5\n5,a,\n20,b,0\n86400,a,2\n")
        #expect(t.deviceIDs == ["b", "a"])
        #expect(
            Array(t.opens(device: 0)) == [
                TraceOpen(time: 10 * Clock.second, session: 1_500_000),
                TraceOpen(time: 20 * Clock.second, session: 0),
            ])
        #expect(
            Array(t.opens(device: 1)) == [
                TraceOpen(time: 5 * Clock.second, session: -1),
                TraceOpen(time: Clock.day, session: 2 * Clock.second),
            ])
        #expect(t.days == 2)
        #expect(t.form == .seconds)
        #expect(t.sessionsGiven == 3)
    }

    /// ISO 8601: each device's t = 0 is the midnight before its own first open, in the
    /// wall-clock time as written (the offset is checked, not used).
    @Test func isoTimestampsStartEachDeviceAtItsFirstMidnight() throws {
        let t = try trace(
            """
            device,timestamp
            x,2018-01-16T06:01:05+01:00
            y,2018-03-02 22:15:30
            x,2018-01-17T00:00:00.25Z
            y,2018-03-03T07:45:10-0500

            """)
        #expect(t.form == .iso8601)
        #expect(t.opens(device: 0).map(\.time) == [Clock.ticks(seconds: 21_665), Clock.day + 250_000])
        #expect(
            t.opens(device: 1).map(\.time) == [Clock.ticks(seconds: 80_130), Clock.day + Clock.ticks(seconds: 27_910)])
        #expect(t.days == 2)
    }

    /// MODEL.md §6.4 rule 4: u starts at the device's mean opens a day over days 0–6, or
    /// over its days when it has fewer.
    @Test func firstWeekMean() throws {
        var text = "device,timestamp\n"
        for k in 0..<14 { text += "x,\(k * 43_200 + 3600)\n" }  // two a day on days 0–6
        for k in 0..<100 { text += "x,\(10 * 86_400 + k * 60)\n" }  // a burst on day 10
        for k in 0..<6 { text += "y,\(k * 40_000)\n" }  // days 0–2 only
        let t = try trace(text)
        #expect(t.firstWeekOpensPerDay(device: 0) == 2)
        #expect(t.opensPerDay(device: 0) == 114.0 / 11)
        #expect(t.firstWeekOpensPerDay(device: 1) == 2)
        // The replayed device's traits carry it to the platform (PlatformSetup.initialUsage).
        var rng = RandomStream(seed: 1, device: 0, purpose: .population)
        var traits = DeviceTraits(scenario: Scenario(), rng: &rng)
        traits.replay(t, device: 0)
        #expect(traits.initialUsage == 2 && traits.archetype == -1 && traits.opensPerDay == 114.0 / 11)
    }

    // MARK: The replayed user

    /// Two devices with opens at known times, the `none` policy, a hand-built feed, the
    /// clean scenario (Wi-Fi all day, so every stale open fetches in the foreground):
    /// freshness and staleness at each open follow from the times alone.
    /// Feed: items at 01:00, 03:00, 10:00 and day 1 00:30.
    /// A: 02:00 stale 3600 s (misses 01:00), 02:30 fresh, 11:00 stale 28800 s (misses 03:00).
    /// B: 00:30 fresh, 04:00 stale 10800 s (misses 01:00), day 1 01:00 stale 54000 s (misses 10:00).
    static let handBuilt =
        "device,timestamp,session_seconds\nA,7200,0\nA,9000,0\nA,39600,0\nB,1800,0\nB,14400,0\nB,90000,0\n"
    static let handFeed = NewsFeed(times: [3600, 10_800, 36_000, 88_200].map { $0 * Clock.second })

    static func run(_ text: String, days: Int, traceDevices: Int = 0) throws -> FleetResult {
        let t = try trace(text)
        let options = RunOptions(
            devices: t.deviceCount, days: days, seed: 3, threads: 1, keepDevices: true,
            traceDevices: traceDevices, opensTrace: t)
        return try Fleet.simulate(
            scenario: TestSupport.cleanScenario(opens: []), policy: PolicyRegistry.named("none")!,
            options: options, feed: handFeed)
    }

    @Test func handBuiltTraceHasKnownFreshness() throws {
        let r = try Self.run(Self.handBuilt, days: 2)
        #expect(r.archetypeNames == ["trace"])
        #expect(r.fleet[.opens] == 6)
        #expect(r.fleet[.freshOpens] == 2)
        #expect(r.fleet[.staleness] == 3600 + 28_800 + 10_800 + 54_000)
        #expect(r.devices.map { $0[.opens] } == [3, 3])
        #expect(r.devices.map { $0[.staleness] } == [32_400, 64_800])
        // Opens per day: day 0 has five, day 1 one.
        #expect(r.daily.rows == 2)
        #expect(r.daily[0, .opens] == 5 && r.daily[1, .opens] == 1)
    }

    /// Opens at or after the horizon are dropped: one day leaves out B's day-1 open.
    @Test func opensBeyondTheHorizonAreDropped() throws {
        let r = try Self.run(Self.handBuilt, days: 1)
        #expect(r.fleet[.opens] == 5)
        #expect(r.fleet[.staleness] == 3600 + 28_800 + 10_800)
    }

    /// An open inside the previous session starts when that session ends (and one tick
    /// later), as drawn opens do; a given session length is kept.
    @Test func openInsideASessionWaitsForItsEnd() throws {
        let r = try Self.run(
            "device,timestamp,session_seconds\nA,100,60\nA,130,10\nA,500,5\n", days: 1, traceDevices: 1)
        let opens = r.trace.filter { $0.event == "open" }.map(\.time)
        #expect(opens == [100 * Clock.second, 160 * Clock.second + 1, 500 * Clock.second])
    }

    /// The trace's devices must be the fleet.
    @Test func deviceCountMustMatch() throws {
        let t = try trace(Self.handBuilt)
        #expect(throws: SimulationError.traceDevices(trace: 2, devices: 3)) {
            try Fleet.simulate(
                scenario: TestSupport.cleanScenario(opens: []), policy: PolicyRegistry.named("none")!,
                options: RunOptions(devices: 3, days: 1, opensTrace: t), feed: Self.handFeed)
        }
    }

    /// Threads 1 and 2 give byte-identical reports with a trace (sessions partly drawn,
    /// force-quits drawn, every policy kind), and run.json names the trace and its SHA-256.
    @Test func replayIsDeterministicAcrossThreads() throws {
        let t = try OpensTraceLoader.load(file: sampleTrace)
        func report(threads: Int) throws -> RunReport {
            try Runner.run(
                RunRequest(
                    scenario: ScenarioLoader.builtInDefault(), policies: ["none", "adaptive", "usage", "oracle"],
                    options: RunOptions(
                        devices: t.deviceCount, days: t.days, seed: 9, threads: threads,
                        opensTrace: t)))
        }
        let one = try report(threads: 1), two = try report(threads: 2)
        #expect(ReportWriter.summaryCSV(one) == ReportWriter.summaryCSV(two))
        #expect(SeriesReports.dailyCSV(one) == SeriesReports.dailyCSV(two))
        #expect(try DeterminismTests.runJSONWithoutExecution(one) == DeterminismTests.runJSONWithoutExecution(two))
        // Every open of the 14-day trace is replayed (none lies past the horizon).
        #expect(one.results.allSatisfy { $0.tally[.opens] == Double(t.opens.count) })
        let json = try #require(
            JSONSerialization.jsonObject(with: Data(ReportWriter.runJSON(one).utf8)) as? [String: Any])
        let recorded = try #require(json["opens_trace"] as? [String: Any])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: sampleTrace))
        #expect(recorded["sha256"] as? String == SHA256.hex(bytes))
        #expect(recorded["file"] as? String == sampleTrace)
        #expect(recorded["devices"] as? Int == 20 && recorded["opens"] as? Int == t.opens.count)
        #expect(recorded["timestamps"] as? String == "seconds")
    }

    /// `bgbench check` does not compare a run of a trace with a run of another trace or
    /// of drawn users of the same scenario and fleet.
    @Test func checkRefusesAnotherTrace() throws {
        let folder = scratch()
        func write(_ text: String?, _ name: String) throws -> ReportFolder {
            let t = try text.map(trace)
            let request = RunRequest(
                scenario: ScenarioLoader.builtInDefault(), policies: ["none"],
                options: RunOptions(devices: 2, days: 2, threads: 1, opensTrace: t))
            try ReportWriter.write(try Runner.run(request), to: folder + "/" + name)
            return try ReportFolder(path: folder + "/" + name, role: name)
        }
        let a = try write(Self.handBuilt, "a"), b = try write(Self.handBuilt + "B,90001,0\n", "b"),
            c = try write(nil, "c")
        #expect(RunComparison.mismatches(a, a, exact: true).isEmpty)
        let shaA = String(try #require(a.opensTraceSha256).prefix(12)),
            shaB = String(try #require(b.opensTraceSha256).prefix(12))
        #expect(RunComparison.mismatches(a, b, exact: false) == ["opens_trace sha256 \(shaA) vs \(shaB)"])
        #expect(RunComparison.mismatches(a, c, exact: false) == ["opens_trace sha256 \(shaA) vs (none)"])
    }

    /// The committed sample is what its generator writes: 20 devices × 14 days.
    @Test func sampleTraceShape() throws {
        let t = try OpensTraceLoader.load(file: sampleTrace)
        #expect(t.deviceCount == 20 && t.days == 14)
        #expect(t.deviceIDs == (1...20).map { String(format: "u%02d", $0) })
        #expect(t.sessionsGiven < t.opens.count && t.sessionsGiven > t.opens.count * 8 / 10)
    }

    // MARK: The command line

    /// `--opens-trace`: the fleet and the days come from the trace; `--devices` may only
    /// repeat the trace's count.
    @Test func runWithTrace() throws {
        let folder = scratch()
        let r = bgbench(["--opens-trace", sampleTrace, "--policy", "none", "--quiet", "--out", folder + "/out"])
        #expect(r.code == 0)
        #expect(r.output.contains("20 devices × 14 days × 1 policies"))
        let json = try String(contentsOfFile: folder + "/out/run.json", encoding: .utf8)
        #expect(json.contains("\"opens_trace\" : {"))
        let wrong = bgbench(["--opens-trace", sampleTrace, "--devices", "5", "--out", folder + "/bad"])
        #expect(wrong.code == 64)
        #expect(
            wrong.errors
                == "error: invalid value '5' for '--devices': the trace '\(sampleTrace)' has 20 devices (leave --devices out with --opens-trace)\nsee 'bgbench --help'\n"
        )
        let days = bgbench([
            "--opens-trace", sampleTrace, "--days", "3", "--devices", "20", "--policy", "none",
            "--quiet", "--out", folder + "/short",
        ])
        #expect(days.code == 0 && days.output.contains("20 devices × 3 days"))
    }

    /// A run with a bad or missing trace stops before simulating, with the trace's errors.
    @Test func runWithBadTrace() {
        let folder = scratch()
        let bad = write("device,timestamp\na,x\n", folder + "/bad.csv")
        let r = bgbench(["--opens-trace", bad, "--out", folder + "/out"])
        #expect(r.code == 65)
        #expect(
            r.errors
                == "error: \(bad):2:3: timestamp: 'x' is not a timestamp: \(OpensTraceLoader.expectedTimestamp)\nsee 'bgbench --help'\n"
        )
        #expect(!FileManager.default.fileExists(atPath: folder + "/out"))
        #expect(bgbench(["--opens-trace", folder + "/none.csv"]).code == 66)
        #expect(
            bgbench(["--opens-trace"]).errors
                == "error: missing value for '--opens-trace': expected a trace CSV file\nsee 'bgbench --help'\n")
        // sweep shares the run options.
        #expect(bgbench(["sweep", "--opens-trace", bad, "--set", "user.p_reopen=0,0.1"]).code == 65)
    }

    struct ValidateCase: Sendable, CustomTestStringConvertible {
        var name: String
        var text: String
        /// Error lines without `error: `; `F` stands for the file's path. Empty: valid.
        var errors: [String]
        var testDescription: String { name }
    }

    static let validateCases: [ValidateCase] = [
        .init(
            name: "unsorted", text: "device,timestamp\na,100\na,50\n",
            errors: [
                "F:3:3: timestamp: 50 is earlier than the previous open of device 'a' (line 2): expected each device's opens in time order"
            ]),
        .init(
            name: "bad timestamp", text: "device,timestamp\na,8 am\n",
            errors: [
                "F:2:3: timestamp: '8 am' is not a timestamp: expected seconds since t = 0 (e.g. 28800.5) or an ISO 8601 date-time (e.g. 2024-03-04T08:15:00+01:00)"
            ]),
        .init(
            name: "no such date", text: "device,timestamp\na,2024-02-30T10:00:00\n",
            errors: [
                "F:2:3: timestamp: '2024-02-30T10:00:00' is not a timestamp: expected seconds since t = 0 (e.g. 28800.5) or an ISO 8601 date-time (e.g. 2024-03-04T08:15:00+01:00)"
            ]),
        .init(
            name: "negative time", text: "device,timestamp\na,-3\n",
            errors: [
                "F:2:3: timestamp: -3 is out of range: expected seconds from 0 to less than 3153600000 (36500 days)"
            ]),
        .init(
            name: "mixed forms", text: "device,timestamp\na,100\nb,2024-01-01T00:00:00\n",
            errors: [
                "F:3:3: timestamp: '2024-01-01T00:00:00' is an ISO 8601 date-time but line 2 is in seconds: expected one form in the whole file"
            ]),
        .init(
            name: "negative session", text: "device,timestamp,session_seconds\na,100,-2\n",
            errors: ["F:2:7: session_seconds: -2 is out of range: expected seconds from 0 to 86400"]),
        .init(
            name: "session not a number", text: "device,timestamp,session_seconds\na,100,long\n",
            errors: [
                "F:2:7: session_seconds: 'long' is not a number: expected seconds from 0 to 86400, or nothing to draw the session"
            ]),
        .init(
            name: "fields", text: "device,timestamp,session_seconds\na,100\n",
            errors: ["F:2:1: 2 fields where the header has 3"]),
        .init(
            name: "quote", text: "device,timestamp\n\"a,100\n",
            errors: ["F:2:1: a quoted field is not closed on its line"]),
        .init(
            name: "empty device", text: "device,timestamp\n,100\n",
            errors: ["F:2:1: device: empty device id: expected a device id"]),
        .init(
            name: "columns", text: "device,time,foo\n1,2,3\n",
            errors: [
                "F:1:8: unknown column 'time': expected device, timestamp and optionally session_seconds",
                "F:1:13: unknown column 'foo': expected device, timestamp and optionally session_seconds",
                "F:1:1: missing column 'timestamp': expected a header naming device, timestamp and optionally session_seconds",
            ]),
        .init(
            name: "column twice", text: "device,timestamp,device\na,1,a\n",
            errors: ["F:1:18: column 'device' given twice"]),
        .init(
            name: "empty file", text: "",
            errors: ["F: empty file: expected a header line 'device,timestamp,session_seconds' and one open per line"]),
        .init(
            name: "header only", text: "device,timestamp\n",
            errors: ["F: no opens: expected at least one line after the header"]),
        // Every problem at once, in line order.
        .init(
            name: "several", text: "device,timestamp,session_seconds\na,100,5\na,50,5\nb,x,\nc,1,-1\n",
            errors: [
                "F:3:3: timestamp: 50 is earlier than the previous open of device 'a' (line 2): expected each device's opens in time order",
                "F:4:3: timestamp: 'x' is not a timestamp: expected seconds since t = 0 (e.g. 28800.5) or an ISO 8601 date-time (e.g. 2024-03-04T08:15:00+01:00)",
                "F:5:5: session_seconds: -1 is out of range: expected seconds from 0 to 86400",
            ]),
    ]

    @Test(arguments: validateCases)
    func validateTrace(_ c: ValidateCase) {
        let file = write(c.text, scratch() + "/trace.csv")
        let r = bgbench(["validate", file])
        let expected = c.errors.map {
            "error: " + $0.replacingOccurrences(of: "F", with: file, options: .anchored) + "\n"
        }.joined()
        #expect(r.code == 65)
        #expect(r.errors == expected + "see 'bgbench --help'\n")
        #expect(r.output == "")
    }

    /// Traces read by the shared CSV reader: CR line ends (old Mac exports) and CRLF, a byte
    /// order mark, empty lines, a quote inside an unquoted id (text), a quoted id.
    @Test func traceLineEndsAndQuotes() throws {
        let file = write("\u{FEFF}device,timestamp\ra\"1,100\r\n\n\"b,2\",200\r\"b,2\",300\n", scratch() + "/trace.csv")
        let t = try OpensTraceLoader.load(file: file)
        #expect(t.deviceIDs == ["a\"1", "b,2"])
        #expect(
            t.opens.map(\.time) == [Clock.ticks(seconds: 100), Clock.ticks(seconds: 200), Clock.ticks(seconds: 300)])
        #expect(bgbench(["validate", file]).code == 0)
    }

    @Test func validateValidFiles() throws {
        let trace = bgbench(["validate", sampleTrace])
        #expect(trace.code == 0)
        let t = try OpensTraceLoader.load(file: sampleTrace)
        #expect(
            trace.output
                == "ok: \(sampleTrace): trace of 20 devices, \(t.opens.count) opens over 14 days, timestamps in seconds, \(t.sessionsGiven) of \(t.opens.count) session lengths given\n"
        )
        let r1 = TestSupport.packageRoot.appendingPathComponent("Datasets/scenarios/r1.json").path
        #expect(bgbench(["validate", r1]).output == "ok: \(r1): scenario 'r1', platform unrestricted, 1 archetype\n")
        // No telling extension: a '{' first makes it a scenario, anything else a trace.
        let folder = scratch()
        let scenario = write("  {\"name\": \"x\"}", folder + "/scenario.txt")
        #expect(
            bgbench(["validate", scenario]).output
                == "ok: \(scenario): scenario 'x', platform ios-bgtask, 4 archetypes\n")
        let csv = write("device,timestamp\nd,1\n", folder + "/opens.txt")
        #expect(
            bgbench(["validate", csv]).output
                == "ok: \(csv): trace of 1 devices, 1 opens over 1 days, timestamps in seconds, 0 of 1 session lengths given\n"
        )
    }

    /// A scenario's problems all at once: an unknown key and two numbers out of range.
    @Test func validateScenarioReportsEveryProblem() {
        let file = write(
            "{\"nme\": \"a\",\n \"device\": {\"idle_w\": -1},\n \"population\": {\"bar_off_share\": 1.5}}",
            scratch() + "/s.json")
        let r = bgbench(["validate", file])
        #expect(r.code == 65)
        #expect(
            r.errors == """
                error: \(file):1:2: nme: unknown key (did you mean 'name'?)
                error: \(file):2:23: device.idle_w: -1 is out of range: expected a number from 0 to 100
                error: \(file):3:34: population.bar_off_share: 1.5 is out of range: expected a number from 0 to 1
                see 'bgbench --help'

                """)
    }

    @Test func validateUnreadableAndUsage() {
        let missing = scratch() + "/none.csv"
        #expect(
            bgbench(["validate", missing]).errors
                == "error: cannot read trace '\(missing)': no such file\nsee 'bgbench --help'\n")
        #expect(bgbench(["validate", missing]).code == 66)
        let other = scratch() + "/none.dat"
        #expect(
            bgbench(["validate", other]).errors == "error: cannot read '\(other)': no such file\nsee 'bgbench --help'\n"
        )
        #expect(bgbench(["validate", other]).code == 66)
        #expect(
            bgbench(["validate"]).errors
                == "error: 'validate' needs a file: a scenario JSON or a trace CSV\nsee 'bgbench --help'\n")
        #expect(bgbench(["validate", "a", "b"]).code == 64)
    }

    /// A file bad on every line: the first 100 problems and a count of the rest.
    @Test func problemsAreCapped() {
        let text = "device,timestamp\n" + String(repeating: "a,x\n", count: 130)
        let file = write(text, scratch() + "/many.csv")
        let lines = bgbench(["validate", file]).errors.split(separator: "\n")
        #expect(lines.count == 102)
        #expect(lines[100] == "error: \(file): 30 more problems not shown (the first 100 are above)")
    }

    // MARK: The LSApp converter

    @Test func convertEveryApp() throws {
        let out = scratch() + "/all.csv"
        let r = bgbench(["convert-lsapp", sampleTSV, "--out", out])
        #expect(r.code == 0)
        #expect(r.output == "wrote \(out): 2 devices, 7 opens of every app, 6 with a session length\n")
        #expect(
            try String(contentsOfFile: out, encoding: .utf8) == """
                device,timestamp,session_seconds
                0,2018-01-16T06:01:05,35
                0,2018-01-16T06:01:41,90
                0,2018-01-16T12:30:00,75
                0,2018-01-17T08:00:00,
                1,2018-03-02T22:15:30,120
                1,2018-03-02T22:18:00,20
                1,2018-03-03T07:45:10,50

                """)
        // It is a valid trace.
        let t = try OpensTraceLoader.load(file: out)
        #expect(t.deviceCount == 2 && t.opens.count == 7 && t.days == 2 && t.form == .iso8601)
    }

    @Test func convertOneApp() throws {
        let out = scratch() + "/gmail.csv"
        let r = bgbench(["convert-lsapp", sampleTSV, "--app", "Gmail", "--out", out])
        #expect(r.output == "wrote \(out): 2 devices, 5 opens of app 'Gmail', 4 with a session length\n")
        #expect(
            try String(contentsOfFile: out, encoding: .utf8) == """
                device,timestamp,session_seconds
                0,2018-01-16T06:01:41,90
                0,2018-01-16T12:30:00,75
                0,2018-01-17T08:00:00,
                1,2018-03-02T22:18:00,20
                1,2018-03-03T07:45:10,50

                """)
    }

    /// Events out of order in the file are taken in time order; a Closed pairs with the
    /// open of its own session and app; an app reopened before closing leaves the first
    /// open without a session.
    @Test func convertPairsByTimeSessionAndApp() throws {
        let text =
            "user_id\tsession_id\ttimestamp\tapp_name\tevent_type\n"
            + "u\t2\t2020-05-01 10:00:30\tA\tClosed\n"
            + "u\t2\t2020-05-01 10:00:00\tA\tOpened\n"
            + "u\t3\t2020-05-01 11:00:00\tA\tOpened\n"
            + "u\t4\t2020-05-01 11:00:05\tA\tClosed\n"
            + "u\t3\t2020-05-01 11:01:00\tA\tOpened\n"
            + "u\t3\t2020-05-01 11:01:02.5\tA\tClosed\n"
        let output = try LSAppConverter.convert(Data(text.utf8), file: "x.tsv", app: nil)
        #expect(
            output.csv == """
                device,timestamp,session_seconds
                u,2020-05-01T10:00:00,30
                u,2020-05-01T11:00:00,
                u,2020-05-01T11:01:00,2.5

                """)
    }

    @Test func convertErrors() {
        let folder = scratch()
        let bad = write(
            "user_id\tsession_id\ttimestamp\tapp_name\tevent_type\n0\t1\t16/01/2018 06:01\tA\tOpened\n0\t1\n",
            folder + "/bad.tsv")
        let r = bgbench(["convert-lsapp", bad, "--out", folder + "/o.csv"])
        #expect(r.code == 65)
        #expect(
            r.errors == """
                error: \(bad):2:5: timestamp: '16/01/2018 06:01' is not a date-time: expected YYYY-MM-DD HH:MM:SS (ISO 8601, a space or T between date and time)
                error: \(bad):3:1: 2 fields where the header has 5
                see 'bgbench --help'

                """)
        #expect(!FileManager.default.fileExists(atPath: folder + "/o.csv"))
        let header = write("user\tsession_id\ttimestamp\tapp_name\tevent_type\n", folder + "/header.tsv")
        #expect(
            bgbench(["convert-lsapp", header, "--out", folder + "/o.csv"]).errors
                == "error: \(header):1:1: missing column 'user_id': expected a header naming user_id, session_id, timestamp, app_name and event_type, separated by tabs\nsee 'bgbench --help'\n"
        )
        #expect(
            bgbench(["convert-lsapp", sampleTSV, "--app", "Maps", "--out", folder + "/o.csv"]).errors
                == "error: \(sampleTSV): no 'Opened' events of app 'Maps': expected at least one open to convert\nsee 'bgbench --help'\n"
        )
        #expect(
            bgbench(["convert-lsapp", sampleTSV]).errors
                == "error: 'convert-lsapp' needs '--out FILE': the trace CSV to write\nsee 'bgbench --help'\n")
        #expect(bgbench(["convert-lsapp", folder + "/none.tsv", "--out", folder + "/o.csv"]).code == 66)
    }
}
