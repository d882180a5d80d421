import BGBenchTestSupport
import Foundation
import Testing

@testable import BGBench

/// `schedule` (docs/policies.md, "schedule"): a plan of one interval is `fixed`, byte for
/// byte; hand-built plans give the runs they say; device > platform and band > band >
/// platform > `*`; bad plans are one line each, with the exit code of bad input.
@Suite struct ScheduleTests {
    /// Writes `text` to a fresh file and returns its path.
    static func planFile(_ text: String) -> String {
        let path = freshPath("plan") + ".csv"
        FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }

    /// summary.csv and devices.csv of one run of `policy` on `preset` with `overrides`.
    static func reports(_ preset: String, _ policy: String, _ overrides: [String]) throws -> [String: String] {
        let loaded = try TestSupport.loadScenario(preset, overrides: overrides)
        let report = try Runner.run(
            RunRequest(
                scenario: loaded, policies: [policy],
                options: RunOptions(devices: 130, days: 15, seed: 7, threads: 2, warmupDays: 1, keepDevices: true)))
        return Dictionary(uniqueKeysWithValues: ReportWriter.files(report).filter { $0.0.hasSuffix(".csv") })
    }

    /// The oracle: a plan of `fixed`'s interval in every hour reproduces `fixed`
    /// exactly (the same phase draw, the same grid, the same answers to denials, those the
    /// platform decides ahead included: r1 is `unrestricted` with its cap), on the default
    /// interval and on others.
    @Test(arguments: [("default", "15m"), ("default", "1h"), ("r1", "30m"), ("r1", "7m")])
    func aPlanOfOneIntervalIsFixed(_ preset: String, _ interval: String) throws {
        let plan = Self.planFile("device,platform,opens_per_day,hour_of_week,interval\n*,*,*,*,\(interval)\n")
        let fixed = try Self.reports(preset, "fixed", ["policies.fixed.interval=\(interval)"])
        let schedule = try Self.reports(preset, "schedule", ["policies.schedule.plan=\(plan)"])
        for name in ["summary.csv", "devices.csv"] {
            let a = try #require(fixed[name]), b = try #require(schedule[name])
            #expect(a.contains(",fixed,") && b.contains(",schedule,"))
            #expect(b.replacingOccurrences(of: ",schedule,", with: ",fixed,") == a, "\(preset) \(interval) \(name)")
        }
    }

    /// Device 0's run starts (and each run's end) under `plan` on `scenario` for `days`.
    static func runStarts(
        _ plan: String, scenario: Scenario = TestSupport.cleanScenario(opens: [TestSupport.at(12)]),
        days: Int = 14, index: Int = 0
    ) throws -> [SimTime] {
        var s = scenario
        s.policies[SchedulePolicy.self].plan = Self.planFile(plan)
        let feed = NewsFeed(content: s.content, days: days, seed: 1)
        let context = DeviceRunContext(
            scenario: s, seed: 1, horizon: SimTime(days) * Clock.day, countFrom: 0, feed: feed,
            prepared: try SchedulePolicy.prepare(s))
        let log = SimulationLog.record {
            var simulation = DeviceSimulation<Unrestricted>(
                policy: PolicyCalls(Recorded<SchedulePolicy>.self), index: index, context: context, queue: EventQueue(),
                storage: RecorderStorage(days: days, firstDay: 0))
            simulation.run().storage.release()
        }
        return log.runStarts
    }

    /// A plan that wakes only in hour 9 of Mondays, every 15 min: on an unrestricted
    /// platform every run starts on a Monday between 09:00 and 10:00, four a Monday, 15 min
    /// apart, from the device's phase.
    @Test func onlyMondaysAtNine() throws {
        let starts = try Self.runStarts("hour_of_week,interval\n9,15m\n")
        #expect(starts.count == 8)
        for t in starts {
            #expect(Clock.dayIndex(t) % 7 == 0 && Clock.hourOfDay(t) == 9, "run at \(t)")
        }
        let monday = starts.filter { Clock.dayIndex($0) == 0 }
        #expect(zip(monday, monday.dropFirst()).allSatisfy { $1 - $0 == 15 * Clock.minute })
        // The next Monday's grid starts from the hour with the same phase.
        #expect(starts[4] - starts[0] == Clock.week)
    }

    /// Hours of the week count from Monday 00:00 local time: hour 167 is Sunday 23:00.
    @Test func hourOfTheWeekCountsFromMonday() throws {
        let starts = try Self.runStarts("hour_of_week,interval\n0-166,off\n167,30m\n")
        #expect(starts.count == 4)
        for t in starts { #expect(Clock.dayIndex(t) % 7 == 6 && Clock.hourOfDay(t) == 23, "run at \(t)") }
    }

    /// The runs of device `index` in hour `hour` of day `day`.
    static func count(_ starts: [SimTime], day: Int, hour: Int) -> Int {
        starts.filter { Clock.dayIndex($0) == day && Clock.hourOfDay($0) == hour }.count
    }

    /// device > cohort > `*`, hour by hour: device 0 has its own hour 3, device 1 its
    /// platform's (both also planned by `*`); a row for another platform applies to
    /// neither; every other Monday hour is `*`'s, and the rest of the week is off.
    @Test func aDevicesRowsComeBeforeItsCohortsAndTheCohortsBeforeAll() throws {
        let plan = """
            device,platform,opens_per_day,hour_of_week,interval
            *,*,*,0-23,1h
            *,unrestricted,*,3,30m
            *,ios-bgtask,*,4,5m
            0,*,*,3,10m

            """
        let zero = try Self.runStarts(plan, days: 8, index: 0)
        let one = try Self.runStarts(plan, days: 8, index: 1)
        // Hours 2 to 4 of the week are Monday's: day 0 and day 7.
        for day in [0, 7] {
            #expect([2, 3, 4].map { Self.count(zero, day: day, hour: $0) } == [1, 6, 1])
            #expect([2, 3, 4].map { Self.count(one, day: day, hour: $0) } == [1, 2, 1])
        }
        #expect(zero.count == 2 * 29 && one.count == 2 * 25)
    }

    /// The band of the app's own mean opens a day so far: none on day 0 (no day seen),
    /// 3 a day from day 1 on. A band's row comes before a platform's, and a row naming
    /// both before a band's.
    @Test(arguments: [
        ("", [2, 6, 6]),
        ("unrestricted,2-3.5,_,20m\n", [2, 3, 3]),
        ("*,4-,_,1h\n", [2, 6, 6]),
    ])
    func theUsageBandChoosesTheCohortAtMidnight(_ extra: String, _ runs: [Int]) throws {
        // Hour 5 of Monday, Tuesday and Wednesday (hours 5, 29 and 53 of the week).
        let rows = ("unrestricted,*,_,30m\n*,2-3.5,_,10m\n" + extra)
        let plan =
            "platform,opens_per_day,hour_of_week,interval\n"
            + [5, 29, 53].map { rows.replacingOccurrences(of: "_", with: String($0)) }.joined()
        let scenario = TestSupport.cleanScenario(opens: [TestSupport.at(8), TestSupport.at(12), TestSupport.at(18)])
        let starts = try Self.runStarts(plan, scenario: scenario, days: 3)
        #expect((0..<3).map { Self.count(starts, day: 0 + $0, hour: 5) } == runs)
    }

    /// `scale`, the knob: every interval × scale.
    @Test func scaleMultipliesEveryInterval() throws {
        var s = TestSupport.cleanScenario(opens: [TestSupport.at(12)])
        s.policies[SchedulePolicy.self].scale = 0.5
        let starts = try Self.runStarts("hour_of_week,interval\n9,20m\n", scenario: s, days: 1)
        #expect(starts.count == 6)
        #expect(zip(starts, starts.dropFirst()).allSatisfy { $1 - $0 == 10 * Clock.minute })
        #expect(ScheduleParameters.knob?.field == "scale")
    }

    /// A plan that never asks: no run, no request.
    @Test func aPlanThatIsOffEverywhereNeverAsks() throws {
        #expect(try Self.runStarts("hour_of_week,interval\n*,off\n", days: 8).isEmpty)
    }

    /// One line per bad plan: file:line:column, the column's name, what was expected.
    @Test(arguments: [
        ("interval,hour_of_week,foo\n*,*,1\n", "1:23: unknown column 'foo': \(SchedulePlanLoader.expectedColumns)"),
        (
            "hour_of_week,hour_of_week,interval\n1,1,15m\n", "1:14: column 'hour_of_week' given twice"
        ),
        (
            "interval\n15m\n",
            "1:1: missing column 'hour_of_week': expected a header naming hour_of_week, interval and optionally device, platform and opens_per_day"
        ),
        (
            "hour_of_week,interval\n168,15m\n",
            "2:1: hour_of_week: '168' is not an hour of the week: \(SchedulePlanLoader.expectedHour)"
        ),
        (
            "hour_of_week,interval\n9-8,15m\n",
            "2:1: hour_of_week: '9-8' is not an hour of the week: \(SchedulePlanLoader.expectedHour)"
        ),
        (
            "hour_of_week,interval\n9,-15m\n",
            "2:3: interval: '-15m' is not an interval: \(SchedulePlanLoader.expectedInterval)"
        ),
        (
            "hour_of_week,interval\n9,0s\n",
            "2:3: interval: '0s' is not an interval: \(SchedulePlanLoader.expectedInterval)"
        ),
        (
            "hour_of_week,interval\n9,8d\n",
            "2:3: interval: '8d' is not an interval: \(SchedulePlanLoader.expectedInterval)"
        ),
        (
            "hour_of_week,interval\n0-23,15m\n9,1h\n",
            "3:1: hour_of_week: hour 9 of platform *, opens_per_day * is planned on line 2 already: expected each hour once per device or cohort"
        ),
        (
            "device,hour_of_week,interval\n4,*,15m\n4,100,1h\n",
            "3:3: hour_of_week: hour 100 of device 4 is planned on line 2 already: expected each hour once per device or cohort"
        ),
        (
            "device,hour_of_week,interval\n-1,*,15m\n",
            "2:1: device: '-1' is not a device: expected * or a device index (0, 1, ...)"
        ),
        (
            "platform,hour_of_week,interval\nios,*,15m\n",
            "2:1: platform: unknown platform 'ios': expected * or one of ios-bgtask, ios-fetch, android-workmanager, unrestricted"
        ),
        (
            "opens_per_day,hour_of_week,interval\n5,*,15m\n",
            "2:1: opens_per_day: '5' is not a band: \(SchedulePlanLoader.expectedBand)"
        ),
        (
            "opens_per_day,hour_of_week,interval\n0-10,*,15m\n5-20,*,1h\n",
            "3:1: opens_per_day: band 5-20 overlaps band 0-10 of line 2: expected disjoint bands"
        ),
        (
            "device,platform,hour_of_week,interval\n3,ios-bgtask,*,15m\n",
            "2:3: platform: 'ios-bgtask' on a device's row: expected * (a device's row is for that device alone)"
        ),
        ("hour_of_week,interval\n9,15m,x\n", "2:1: 3 fields where the header has 2"),
        ("hour_of_week,interval\n", "no rows: expected at least one line after the header"),
        ("", "empty file: expected a header line 'hour_of_week,interval' and one plan row per line"),
    ])
    func aBadPlanIsOneLine(_ text: String, _ message: String) throws {
        let path = Self.planFile(text)
        let result = bgbench([
            "--policy", "schedule", "--set", "policies.schedule.plan=\(path)", "--days", "1", "--devices", "1",
            "--quiet", "--out", freshPath("schedule-out"),
        ])
        #expect(result.code == 65)
        let place = message.first?.isNumber == true ? "\(path):" : "\(path): "
        #expect(result.errors == "error: \(place)\(message)\nsee 'bgbench --help'\n")
    }

    /// A plan that cannot be read: exit 66 with the reason, and no report folder; none
    /// named at all: exit 66 naming the parameter.
    @Test func aPlanThatCannotBeReadIsNoInput() throws {
        let out = freshPath("schedule-out")
        let folder = freshFolder("schedule-folder")
        for (plan, message) in [
            ("/nonexistent/plan.csv", "cannot read schedule plan '/nonexistent/plan.csv': no such file"),
            (folder, "cannot read schedule plan '\(folder)': is a directory"),
            (
                "",
                "policies.schedule.plan: the schedule policy needs a plan: expected the path of a plan CSV file (docs/policies.md, \"schedule\"), e.g. --set policies.schedule.plan=plan.csv"
            ),
        ] {
            let result = bgbench([
                "--policy", "fixed,schedule", "--set", "policies.schedule.plan=\(plan)", "--days", "1", "--devices",
                "1", "--quiet", "--out", out,
            ])
            #expect(result.code == 66)
            #expect(result.errors == "error: \(message)\nsee 'bgbench --help'\n")
            #expect(!FileManager.default.fileExists(atPath: out), "no report folder")
        }
    }

    /// A plan larger than the cap (the traces', docs/limits.md) is refused by its size.
    @Test func aPlanLargerThanTheCapIsRefused() throws {
        let path = Self.planFile("hour_of_week,interval\n" + String(repeating: "0,off\n", count: 400))
        var limits = InputFile.Limits()
        limits.trace = 1024
        let result = InputFile.$limits.withValue(limits) {
            bgbench([
                "--policy", "schedule", "--set", "policies.schedule.plan=\(path)", "--days", "1", "--quiet", "--out",
                freshPath("schedule-out"),
            ])
        }
        #expect(result.code == 65)
        #expect(
            result.errors
                == "error: \(path): the schedule plan file is 2422 bytes: expected at most 1024 (1 KiB; docs/limits.md)\nsee 'bgbench --help'\n"
        )
    }

    /// `--policy all` leaves `schedule` out (it needs a plan); `list` names it.
    @Test func allLeavesScheduleOut() throws {
        #expect(!PolicyRegistry.inAll.contains { $0.name == "schedule" })
        #expect(
            PolicyRegistry.builtIn.filter(\.needsInput).map(\.name) == [
                "schedule", "external", "external2", "external3",
            ])
        #expect(bgbench(["list"]).output.contains("  schedule "))
    }

    /// The plan's table, hour by hour: the next hour with another interval.
    @Test func theTableKnowsWhereThePlanChanges() {
        var hours = [SimTime](repeating: 0, count: 168)
        hours[9] = Clock.hour
        hours[10] = Clock.hour
        let table = ScheduleTable(hours)
        #expect(table.change[9] == 2 && table.change[10] == 1 && table.change[11] == 166 && table.change[8] == 1)
        #expect(ScheduleTable([SimTime](repeating: 5, count: 168)).change.allSatisfy { $0 == 0 })
    }
}
