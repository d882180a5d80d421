import Foundation
import Testing
@testable import BGBench

/// Calibration against published behaviour (issue 5; MODEL.md §6.2, §6.3, §8), at fixed
/// seeds with named thresholds. The same figures, from the CLI, are the calibration table
/// in README.md (Benchmarks/calibration.sh).
@Suite struct CalibrationTests {
    static let hour = Clock.hour, day = Clock.day

    /// MODEL.md §6.2: "a daily-active user's app gets on the order of 3–8 runs a day".
    static let dailyActiveRuns = 3.0...8.0
    /// Issue 5: users who open the app less than weekly get under 1 run a day.
    static let rareUserMaxRuns = 1.0
    /// FALCON's budget (MODEL.md §8): a good policy stays at or under 2 % battery a day.
    static let goodPolicyMaxBatteryPercent = 2.0
    /// After a kill (m × 0.5) the next day's runs fall to at most this share of the days
    /// before, and within ten days they are back to at least `recovered` of it.
    static let dropAfterKill = 0.7, recovered = 0.9
    /// AOSP QuotaController: rare 3 sessions and 10 min per 24 h, restricted 1 session a day.
    static let rareSessions = 3, restrictedSessions = 1, jobSecondsPerWindow = 600.0

    static func fleet(
        _ s: Scenario, _ policy: PolicyEntry, devices: Int, days: Int, warmup: Int = 0,
        keepDevices: Bool = false
    ) throws -> FleetResult {
        let options = RunOptions(
            devices: devices, days: days, seed: 1, threads: 2, warmupDays: warmup, keepDevices: keepDevices)
        let feed = NewsFeed(content: s.content, days: days, seed: options.seed)
        return try Fleet.simulate(scenario: s, policy: policy, options: options, feed: feed)
    }

    static func perDeviceDay(_ t: FleetTally, _ q: Quantity, days: Int) -> Double { t[q] / Double(t.devices * days) }

    /// `usage` on ios-bgtask, everyone with the BAR switch on (a user who switched it off
    /// gets no run by definition; the published figure is about apps allowed to refresh):
    /// the daily and heavy archetypes get 3–8 runs a day, users who opened the app less
    /// than once a week under 1.
    @Test func usageRunsFollowEngagement() throws {
        var s = Scenario()
        s.population.barOffShare = 0
        let days = 21, warmup = 7, counted = 14
        let result = try Self.fleet(
            s, PolicyEntry(UsagePolicy.self), devices: 600, days: days, warmup: warmup, keepDevices: true)
        for name in ["daily", "heavy"] {
            let a = result.archetypes[try #require(result.archetypeNames.firstIndex(of: name))]
            let runs = Self.perDeviceDay(a, .runs, days: counted)
            #expect(Self.dailyActiveRuns.contains(runs), "\(name): \(runs) runs a day")
        }
        let rare = result.devices.filter { $0[.opens] < Double(counted) / 7 }
        let runs = rare.reduce(0) { $0 + $1[.runs] } / Double(rare.count * counted)
        #expect(rare.count >= 15)
        #expect(runs < Self.rareUserMaxRuns, "\(rare.count) users opening less than weekly: \(runs) runs a day")
    }

    /// The BAR switch off, or Low Power Mode on all the time: not a single run; on
    /// android-workmanager the BAR switch off is a user-restricted app: not a single run
    /// either, charging or not (MODEL.md §6.2).
    @Test(arguments: ["bar_off", "low_power", "android_bar_off"])
    func switchOffOrLowPowerGiveZeroRuns(gate: String) throws {
        var s = Scenario()
        if gate == "android_bar_off" { s.platform.name = AndroidWorkManager.name }
        if gate != "low_power" {
            s.population.barOffShare = 1
        } else {
            // Low Power Mode comes on as the level crosses 20 % at the start and, with no
            // charging, never goes off.
            s.device.initialLevel = 0.2
            s.device.lowPowerProbability = 1
            s.device.overnightChargeProbability = 0
            s.device.topUpProbability = 0
        }
        let result = try Self.fleet(s, PolicyEntry(UsagePolicy.self), devices: 50, days: 7)
        #expect(result.fleet[.runs] == 0)
        let reason: DenialReason = gate == "low_power" ? .lowPower : .barOff
        #expect(result.fleet[.denied(reason)] > 0)
    }

    /// A good policy on the default scenario: at most 2 % of the battery a day.
    @Test(arguments: ["adaptive", "usage"])
    func goodPolicyBatteryBudget(policy name: String) throws {
        let s = Scenario()
        let days = 7
        let result = try Self.fleet(s, try #require(PolicyRegistry.named(name)), devices: 200, days: days)
        let joules = Self.perDeviceDay(result.fleet, .backgroundEnergy, days: days)
        let percent = 100 * joules / (s.device.batteryWh * 3600)
        #expect(percent <= Self.goodPolicyMaxBatteryPercent, "\(name): \(percent) % a day")
    }

    /// After a timeout kill the run rate drops, then recovers over days (MODEL.md §6.4
    /// rule 5). The clean timeline (6 routine opens a day, so B = 2.5 ln 7 ≈ 4.9 runs a
    /// day; `fixed` asks every 15 min, so the budget binds); the platform is told that the
    /// first run ending on day 3 was killed (the app's task itself never fails here).
    @Test func runRateDropsAfterKillThenRecovers() {
        let opens = (0..<6).map { SimTime(8 + 2 * $0) * Self.hour }
        var s = TestSupport.cleanScenario(opens: opens)
        s.platform.name = IOSBGTask.name
        let days = 16
        let feed = NewsFeed(content: s.content, days: days, seed: 1)
        let log = SimulationLog.record {
            KilledOnce.$killDay.withValue(3) {
                _ = TestSupport.simulate(
                    Recorded<FixedPolicy>.self, KilledOnce.self, scenario: s, feed: feed, days: days)
            }
        }
        var perDay = [Double](repeating: 0, count: days)
        for t in log.runStarts { perDay[Int(t / Self.day)] += 1 }
        let before = (perDay[1] + perDay[2]) / 2
        #expect(perDay[4] <= Self.dropAfterKill * before, "runs per day \(perDay)")
        #expect((perDay[14] + perDay[15]) / 2 >= Self.recovered * before, "runs per day \(perDay)")
    }

    /// Sessions and job time in every 24 h window, from a simulation's runs.
    static func windows(starts: [SimTime], ends: [SimTime]) -> (sessions: Int, seconds: Double) {
        var sessions = 0, seconds = 0.0
        for i in starts.indices where i < ends.count {
            let from = ends[i] - Self.day
            var n = 0, time: SimTime = 0
            for j in 0...i where ends[j] > from {
                n += 1
                time += ends[j] - max(starts[j], from)
            }
            sessions = max(sessions, n)
            seconds = max(seconds, Clock.seconds(time))
        }
        return (sessions, seconds)
    }

    /// An app never opened, asking every 15 min and again at each `retryAt` (WorkManager's
    /// deferral) on android-workmanager: in the rare bucket
    /// at most 3 sessions and 10 min of job time in any 24 h, and it gets them (the quota
    /// binds); in the restricted bucket one session a day.
    @Test(arguments: [(false, 0.001), (false, 400), (true, 0.001)])
    func androidBucketQuotas(restricted: Bool, runSeconds: Double) {
        var s = TestSupport.cleanScenario(opens: [], runSeconds: runSeconds)
        s.platform.name = AndroidWorkManager.name
        // Never opened, so restricted after 8 days unused (from the start: its last use is
        // taken as a month back); the rare bucket needs that threshold out of reach.
        if !restricted { s.platform[AndroidWorkManager.self].elapsedTimeThresholds[4] = .days(365) }
        let days = 6
        let feed = NewsFeed(content: s.content, days: days, seed: 1)
        let log = SimulationLog.record {
            _ = TestSupport.simulate(
                Recorded<Deferring>.self, AndroidWorkManager.self, scenario: s, feed: feed, days: days)
        }
        let w = Self.windows(starts: log.runStarts, ends: log.runEnds.map(\.0))
        #expect(w.sessions <= (restricted ? Self.restrictedSessions : Self.rareSessions))
        #expect(w.seconds <= Self.jobSecondsPerWindow + 1e-6)
        let perDay = restricted ? 1 : runSeconds > 300 ? 2 : 3
        #expect(log.runStarts.count >= perDay * days - 1, "\(log.runStarts.count) runs in \(days) days")
        if runSeconds > 300 {
            #expect(log.runEnds.contains { $0.1 == .expired })  // the second run stopped at the quota
            #expect(w.seconds > Self.jobSecondsPerWindow - 1)
        }
    }
}

extension CalibrationTests {
    /// A daily-opened app on android-workmanager, unplugged for good (no charger, no other
    /// phone use), opened at 12:00 for an instant, asking every 15 min. AOSP's timeline
    /// (MODEL.md §6.2; DeviceIdleController's defaults) gives nine runs a day: at the open
    /// (the screen on ends Doze and the kept work runs); in light Doze (idle from 12:04) at
    /// the windows 12:20, 12:36 and 12:52 (not 12:09: the work is due 15 min after the last
    /// run ended); in deep Doze (from 13:00) at the windows 14:00, 16:05, 20:15, 02:25 and
    /// 08:35. Every run waited for a window or the open, three of the nine in light Doze:
    /// the work fell due at 12:15, 12:35 and 12:51 in light idle, and at 13:07 (past 13:00:
    /// deep idle has cut the light idle period short), 14:15, 16:20, 20:30, 02:40 and 08:50
    /// in deep idle (08:50's wait ends at the open).
    @Test(arguments: ["fixed", "deferring"])
    func androidDailyAppUnpluggedByDay(policy: String) throws {
        var s = TestSupport.cleanScenario(opens: [12 * Self.hour])
        s.platform.name = AndroidWorkManager.name
        let days = 4
        let feed = NewsFeed(content: s.content, days: days, seed: 1)
        var tally = DeviceTally()
        let log = SimulationLog.record {
            tally =
                policy == "fixed"
                ? TestSupport.simulate(
                    Recorded<FixedPolicy>.self, AndroidWorkManager.self, scenario: s, feed: feed, days: days,
                    warmupDays: 1)
                : TestSupport.simulate(
                    Recorded<Deferring>.self, AndroidWorkManager.self, scenario: s, feed: feed, days: days,
                    warmupDays: 1)
        }
        let m = Clock.minute
        let clock: [SimTime] = [
            12 * Self.hour, 12 * Self.hour + 20 * m, 12 * Self.hour + 36 * m, 12 * Self.hour + 52 * m,
            14 * Self.hour, 16 * Self.hour + 5 * m, 20 * Self.hour + 15 * m,
            Self.day + 2 * Self.hour + 25 * m, Self.day + 8 * Self.hour + 35 * m,
        ]
        // Days 1 and 2 open at 12:00 on a device in Doze since the day before's open.
        for day in 1...2 {
            let from = SimTime(day) * Self.day + 12 * Self.hour
            let starts = log.runStarts.filter { $0 >= from && $0 < from + Self.day }
            #expect(starts == clock.map { SimTime(day) * Self.day + $0 }, "day \(day)")
        }
        // Asking 15 min after each start, as WorkManager's own period does, the app is told
        // of no deferral: each run's wait is one kept denial at the moment the work fell
        // due, so the counts are the timeline's (from day 1 to the horizon, three days:
        // 02:40 and 08:50 before each open, four after it). `fixed` asks on its grid, whose
        // random phase decides how many of its asks fall in Doze.
        if policy == "deferring" {
            #expect(tally.denials(.lightDoze) == 3 * 3)
            #expect(tally.denials(.doze) == 3 * 6)
            #expect(tally.denials(.spacing) == 3 * 9)
        } else {
            #expect(tally.denials(.lightDoze) > 0 && tally.denials(.doze) > 0)
        }
    }
}

/// Asks at once, then 15 min after each run starts, and at `retryAt` after a denial: how
/// WorkManager defers work until Doze's window or the quota allows it.
struct Deferring: WakePolicy {
    static let name = "test-deferring"
    static let summary = "test only"
    init(_ context: PolicyContext) {}
    mutating func start(_ view: DeviceView) -> WakeDecision { .request(at: 0) }
    mutating func denied(_ reason: DenialReason, retryAt: SimTime?, _ view: DeviceView) -> WakeDecision {
        retryAt.map { .request(at: $0) } ?? .keep
    }
    mutating func runStarted(_ view: DeviceView) -> WakeDecision { .request(at: view.now + 15 * Clock.minute) }
}

/// `ios-bgtask`, told that the first run ending on `killDay` was killed.
struct KilledOnce: PlatformRules {
    static let name = "test-killed-once"
    static let summary = "test only"
    @TaskLocal static var killDay = -1
    var inner: IOSBGTask
    var killed = false
    let day: Int
    init(_ setup: PlatformSetup) { inner = IOSBGTask(setup); day = Self.killDay }
    var runtimeLimit: SimTime { inner.runtimeLimit }
    var throttleEvents: Int { inner.throttleEvents }
    mutating func admit(at t: SimTime, gates: GateInputs) -> Admission { inner.admit(at: t, gates: gates) }
    mutating func runStarted(at t: SimTime) { inner.runStarted(at: t) }
    mutating func runEnded(at t: SimTime, status: RunStatus, broughtContent: Bool) {
        let kill = !killed && Clock.dayIndex(t) == day
        if kill { killed = true }
        inner.runEnded(at: t, status: kill ? .killed : status, broughtContent: broughtContent)
    }
    mutating func midnight(at t: SimTime, opens: Int) { inner.midnight(at: t, opens: opens) }
}
