import Foundation
import Testing
@testable import BGBench

/// `android-workmanager` rule by rule (docs/platforms.md), on hand-built sequences of calls
/// and hand-built timelines.
@Suite struct AndroidWorkManagerTests {
    static let second = Clock.second, minute = Clock.minute, hour = Clock.hour, day = Clock.day

    static func android(usage: Double, barOff: Bool = false, _ tweak: (inout Scenario) -> Void = { _ in })
        -> AndroidWorkManager
    {
        var s = Scenario()
        tweak(&s)
        return AndroidWorkManager(PlatformSetup(scenario: s, initialUsage: usage, barOff: barOff))
    }

    /// A run from `start` lasting `length`, through the platform's calls.
    static func run(_ p: inout AndroidWorkManager, at start: SimTime, for length: SimTime) {
        p.runStarted(at: start)
        p.runEnded(at: start + length, status: .noData, broughtContent: false)
    }

    /// Buckets by usage recency: both the elapsed-time and the screen-time thresholds
    /// since the last open (0/12 h/24 h/48 h/8 d and 0/0/1 h/2 h/6 h).
    @Test func bucketsByRecency() {
        var p = Self.android(usage: 1)  // last use 1 day before t = 0, screen thresholds met
        #expect(p.bucket(at: 0) == .frequent)
        p.opened(at: 0)
        p.deviceChanged(screenOn: true, charging: false, at: 0)
        p.deviceChanged(screenOn: false, charging: false, at: Self.minute)
        #expect(p.bucket(at: 12 * Self.hour - 1) == .active)
        #expect(p.bucket(at: 12 * Self.hour) == .workingSet)
        #expect(p.bucket(at: 30 * Self.hour) == .workingSet)  // 24 h passed, but 1 min of screen
        p.deviceChanged(screenOn: true, charging: false, at: 30 * Self.hour)
        p.deviceChanged(screenOn: false, charging: false, at: 31 * Self.hour)
        #expect(p.bucket(at: 31 * Self.hour) == .frequent)
        #expect(p.bucket(at: 50 * Self.hour) == .frequent)  // 48 h passed, 1 h 1 min of screen
        p.deviceChanged(screenOn: true, charging: false, at: 50 * Self.hour)
        #expect(p.bucket(at: 51 * Self.hour) == .rare)  // the screen is still on: time counts
        p.deviceChanged(screenOn: false, charging: false, at: 51 * Self.hour)
        #expect(p.bucket(at: 8 * Self.day + Self.hour) == .rare)
        p.deviceChanged(screenOn: true, charging: false, at: 8 * Self.day + Self.hour)
        p.deviceChanged(screenOn: false, charging: false, at: 8 * Self.day + 5 * Self.hour)
        #expect(p.bucket(at: 8 * Self.day + 5 * Self.hour) == .restricted)
        p.opened(at: 9 * Self.day)
        #expect(p.bucket(at: 9 * Self.day) == .active)
        // A user-restricted app is not put in the restricted bucket (MODEL.md §6.2): the
        // `bar_off` gate stops its jobs instead (userRestrictedAppNeverRuns).
        #expect(Self.android(usage: 20, barOff: true).bucket(at: 0) == .active)
    }

    /// Rare: 3 sessions per 24 h; the fourth waits until the first leaves the window.
    /// (Runs 20 min apart from 10 min: the first run is due 10 min after t = 0, each later
    /// one 15 min after the previous ended.)
    @Test func rareSessionsPerWindow() {
        var p = Self.android(usage: 1.0 / 5)  // last use 5 days ago: rare for three days
        p.deviceChanged(screenOn: true, charging: false, at: 0)  // awake: no Doze
        #expect(p.bucket(at: 0) == .rare)
        for k in 0..<3 {
            let t = (10 + SimTime(k) * 20) * Self.minute
            #expect(p.admit(at: t, gates: GateInputs()) == .run)
            Self.run(&p, at: t, for: 10 * Self.second)
        }
        #expect(
            p.admit(at: 70 * Self.minute, gates: GateInputs())
                == .deny(.quota, retryAt: 10 * Self.minute + 10 * Self.second + Self.day))
        #expect(p.quotaClears(at: Self.day + 10 * Self.minute + 10 * Self.second) == nil)
    }

    /// Working set: 10 min of job time per 2 h; a run is capped at the quota left, and a
    /// job needs 30 s of quota to start.
    @Test func jobTimePerWindow() {
        var p = Self.android(usage: 1.5)  // last use 16 h ago: working set
        p.deviceChanged(screenOn: true, charging: false, at: 0)
        #expect(p.bucket(at: 0) == .workingSet)
        #expect(p.runLimit(at: 0) == 10 * Self.minute)
        Self.run(&p, at: 0, for: 4 * Self.minute)
        Self.run(&p, at: 20 * Self.minute, for: 4 * Self.minute)
        #expect(p.admit(at: 40 * Self.minute, gates: GateInputs()) == .run)
        #expect(p.runLimit(at: 40 * Self.minute) == 2 * Self.minute)
        Self.run(&p, at: 40 * Self.minute, for: 2 * Self.minute - 20 * Self.second)  // 20 s left < 30 s buffer
        #expect(
            p.admit(at: 60 * Self.minute, gates: GateInputs())
                == .deny(.quota, retryAt: 4 * Self.minute + 2 * Self.hour))
        // While charging neither quota nor Doze applies, and the run is not a session.
        #expect(p.admit(at: 60 * Self.minute, gates: GateInputs(charging: true)) == .run)
        p.deviceChanged(screenOn: true, charging: true, at: 60 * Self.minute)
        #expect(p.runLimit(at: 60 * Self.minute) == 10 * Self.minute)
        Self.run(&p, at: 60 * Self.minute, for: 5 * Self.minute)
        p.deviceChanged(screenOn: true, charging: false, at: 70 * Self.minute)
        #expect(p.quotaUse(at: 70 * Self.minute, window: 2 * Self.hour).count == 3)
    }

    /// The restricted bucket (8 days unused; here a month): one session a day.
    @Test func restrictedOneSessionADay() {
        var p = Self.android(usage: 1.0 / 30)
        #expect(p.bucket(at: 0) == .restricted)
        p.deviceChanged(screenOn: true, charging: false, at: 0)
        Self.run(&p, at: 0, for: 10 * Self.second)
        #expect(
            p.admit(at: 20 * Self.minute, gates: GateInputs()) == .deny(.quota, retryAt: 10 * Self.second + Self.day))
        #expect(p.admit(at: Self.day + 10 * Self.second, gates: GateInputs()) == .run)
    }

    /// Doze after 1 h screen-off and unplugged; idle 1 h, 2 h, 4 h, 6 h, 6 h … between
    /// maintenance windows of 5, 10, 10 … min; the screen or a charger ends it.
    /// (Light Doze off: it is lightDozeAfternoon's.)
    @Test func dozeSchedule() {
        // Active: quota never binds here.
        var p = Self.android(usage: 6) { $0.platform[AndroidWorkManager.self].lightDoze = false }
        let h = Self.hour, m = Self.minute
        #expect(p.dozeEnds(at: 59 * m) == nil)
        #expect(p.dozeEnds(at: h) == 2 * h)
        #expect(p.admit(at: h, gates: GateInputs()) == .deny(.doze, retryAt: 2 * h))
        let expected: [(SimTime, SimTime?)] = [
            (2 * h, nil), (2 * h + 5 * m - 1, nil), (2 * h + 5 * m, 4 * h + 5 * m), (4 * h + 5 * m, nil),
            (4 * h + 15 * m, 8 * h + 15 * m), (8 * h + 20 * m, nil), (8 * h + 25 * m, 14 * h + 25 * m),
            (14 * h + 30 * m, nil), (14 * h + 35 * m, 20 * h + 35 * m),
        ]
        for (t, end) in expected { #expect(p.dozeEnds(at: t) == end, "at \(Clock.seconds(t)) s") }
        #expect(p.admit(at: 2 * h + m, gates: GateInputs()) == .run)
        #expect(p.admit(at: 3 * h, gates: GateInputs(charging: true)) == .run)
        p.deviceChanged(screenOn: true, charging: false, at: 3 * h)
        #expect(p.dozeEnds(at: 3 * h) == nil)
        p.deviceChanged(screenOn: false, charging: false, at: 3 * h + m)
        #expect(p.dozeEnds(at: 3 * h + 59 * m) == nil)
        #expect(p.dozeEnds(at: 4 * h + m) == 5 * h + m)
        p.deviceChanged(screenOn: false, charging: true, at: 4 * h + 30 * m)
        #expect(p.dozeEnds(at: 10 * h) == nil)
    }

    /// Periodic work: the first run is due 15 − 5 = 10 min after the work is enqueued at
    /// t = 0 (the flex, first run only); each later one 15 min after the previous run
    /// *ended*; state gates first.
    @Test func spacingAndStateGates() {
        var p = Self.android(usage: 6)
        let m = Self.minute, s = Self.second
        p.deviceChanged(screenOn: true, charging: false, at: 0)
        #expect(p.admit(at: 0, gates: GateInputs()) == .deny(.spacing, retryAt: 10 * m))
        #expect(p.admit(at: 10 * m - 1, gates: GateInputs()) == .deny(.spacing, retryAt: 10 * m))
        #expect(p.admit(at: 10 * m, gates: GateInputs()) == .run)
        Self.run(&p, at: 10 * m, for: s)
        #expect(p.admit(at: 20 * m, gates: GateInputs()) == .deny(.spacing, retryAt: 25 * m + s))
        #expect(p.admit(at: 25 * m, gates: GateInputs()) == .deny(.spacing, retryAt: 25 * m + s))
        #expect(p.admit(at: 25 * m + s, gates: GateInputs()) == .run)
        #expect(p.admit(at: 25 * m + s, gates: GateInputs(lowPower: true)) == .deny(.lowPower, retryAt: nil))
        #expect(p.admit(at: 25 * m + s, gates: GateInputs(lowBattery: true)) == .deny(.lowBattery, retryAt: nil))
        // The iOS gates do not exist here.
        #expect(
            p.admit(at: 25 * m + s, gates: GateInputs(foreground: true, forceQuit: true, submitted: false))
                == .run)
        #expect(AndroidWorkManager.keepsPending(.spacing))
        #expect(p.runtimeLimit == 10 * Self.minute)
        #expect(p.throttleEvents == 0)
    }

    /// The app stays in the active bucket (its quota, 75 sessions per 10 min, never binds
    /// at one run per 15 min).
    static func alwaysActive(_ s: inout Scenario) {
        s.platform[AndroidWorkManager.self].elapsedTimeThresholds = [.hours(0)] + Array(repeating: .days(365), count: 4)
    }

    /// A policy asking every 10 min on the platform's own terms: the pending request at
    /// `ask`; a `spacing` denial stays pending until its `retryAt` (as the simulation keeps
    /// it); after a run starts the policy asks at its next 10 min grid point. Returns the
    /// run starts before `end`.
    static func tenMinutePolicy(_ p: inout AndroidWorkManager, runsFor length: SimTime, until end: SimTime)
        -> [SimTime]
    {
        var starts: [SimTime] = [], ask: SimTime = 0
        while ask < end {
            switch p.admit(at: ask, gates: GateInputs()) {
            case .run:
                starts.append(ask)
                Self.run(&p, at: ask, for: length)
                ask = (ask / (10 * minute) + 1) * 10 * minute
            case .deny(.spacing, let retryAt?): ask = retryAt
            case let other:
                Issue.record("unexpected \(other) at \(Clock.seconds(ask)) s")
                return starts
            }
        }
        return starts
    }

    /// WorkManager's period counts from the end of a run (MODEL.md §6.2): a 10 min policy
    /// with 30 s runs, awake and active all day, runs at 10 min (the first run's flex),
    /// then every 15 min 30 s (15 min after each 30 s run ended): at 10 + 15.5·k min for
    /// k = 0 … 92, 93 runs in the day (10 + 15.5·92 = 1436 min; k = 93 is past midnight).
    /// With runs of no length it is every 15 min: 96 in the day and in every 24 h from a
    /// run's start, never more.
    @Test func periodFromTheEndOfARun() {
        let m = Self.minute, s = Self.second
        var p = Self.android(usage: 6, Self.alwaysActive)
        p.deviceChanged(screenOn: true, charging: false, at: 0)
        let starts = Self.tenMinutePolicy(&p, runsFor: 30 * s, until: Self.day)
        #expect(starts == (0..<93).map { 10 * m + SimTime($0) * (15 * m + 30 * s) })

        var q = Self.android(usage: 6, Self.alwaysActive)
        q.deviceChanged(screenOn: true, charging: false, at: 0)
        let instant = Self.tenMinutePolicy(&q, runsFor: 0, until: 3 * Self.day)
        #expect(instant.filter { $0 < Self.day }.count == 96)
        let most = instant.map { t in instant.filter { $0 >= t && $0 < t + Self.day }.count }.max()
        #expect(most == 96)
    }

    /// The same through the simulation: `fixed` at 10 min on a device that is always
    /// active and never dozes (no screen or charger events without a battery, so deep Doze
    /// is moved past the horizon and light Doze off), runs lasting 30 s. Every request before the work is due is
    /// kept pending (the policy is not told), so the first run is at 10 min whatever the
    /// phase and each later one 15 min after the previous ended: 93 a day, as above. (A
    /// grid point that falls inside a 30 s run is denied `busy`, bgbench's own rule.)
    @Test func fixedTenMinutesThroughTheSimulation() {
        var s = TestSupport.cleanScenario(opens: [], runSeconds: 30)
        s.platform.name = AndroidWorkManager.name
        Self.alwaysActive(&s)
        s.platform[AndroidWorkManager.self].dozeAfter = .days(7)
        s.platform[AndroidWorkManager.self].lightDoze = false
        s.policies[FixedPolicy.self].interval = .minutes(10)
        let days = 2
        let feed = NewsFeed(content: s.content, days: days, seed: 1)
        let log = SimulationLog.record {
            _ = TestSupport.simulate(
                Recorded<FixedPolicy>.self, AndroidWorkManager.self, scenario: s, feed: feed, days: days)
        }
        let starts = log.runStarts, ends = log.runEnds.map(\.0)
        #expect(starts.first == 10 * Self.minute)
        for k in 1..<min(starts.count, ends.count + 1) {
            #expect(starts[k] == ends[k - 1] + 15 * Self.minute, "run \(k)")
        }
        #expect(starts.filter { $0 < Self.day }.count == 93)
        #expect(starts.count == 186)
        // The policy hears of no deferral; only of its own requests during a run (`busy`).
        #expect(log.denials.allSatisfy { $0.1 == .busy }, "\(log.denials)")
    }

    /// A user who restricted the app's background activity (the BAR-off share): no job
    /// runs, charging or not (MODEL.md §6.2, "Jobs: Never"). A night on the charger with
    /// the screen off from 22:00 to 07:00: every request, every 15 min, is denied
    /// `bar_off` with no retry time, the first gate. With `user_restricted_no_jobs` false
    /// (the reading before issue 28) the app is in the restricted bucket instead and gets
    /// its one run once the device is idle on power (22:31).
    @Test func userRestrictedAppNeverRuns() {
        let h = Self.hour, m = Self.minute
        var p = Self.android(usage: 20, barOff: true)
        p.deviceChanged(screenOn: false, charging: true, at: 22 * h)
        let night = GateInputs(barOff: true, charging: true)
        for k in 0...36 {
            let t = 22 * h + SimTime(k) * 15 * m
            #expect(p.admit(at: t, gates: night) == .deny(.barOff, retryAt: nil), "at \(Clock.seconds(t)) s")
        }
        #expect(p.admit(at: 22 * h, gates: GateInputs(barOff: true, lowPower: true)) == .deny(.barOff, retryAt: nil))

        var old = Self.android(usage: 20, barOff: true) {
            $0.platform[AndroidWorkManager.self].userRestrictedNoJobs = false
        }
        #expect(old.bucket(at: 0) == .restricted)
        old.deviceChanged(screenOn: false, charging: true, at: 22 * h)
        #expect(old.admit(at: 22 * h, gates: night) == .run)  // within quota: one session a day
        Self.run(&old, at: 22 * h, for: Self.second)
        #expect(old.admit(at: 22 * h + 30 * m, gates: night) == .run)  // idle since 22:31: no quota needed
    }

    /// The restricted bucket while charging (MODEL.md §6.2): charging alone does not lift
    /// its quota (QuotaController.isQuotaFreeLocked excludes it); charging, idle (screen off
    /// 31 min on power) and battery not low together do (JobStatus: within quota or every
    /// dynamic constraint). A session while plugged in counts.
    @Test func restrictedBucketChargingButNotIdle() {
        let m = Self.minute, s = Self.second
        var p = Self.android(usage: 1.0 / 30)  // unused for a month: restricted
        p.deviceChanged(screenOn: true, charging: true, at: 0)
        let charging = GateInputs(charging: true)
        #expect(p.admit(at: 10 * m, gates: charging) == .run)  // the day's one session
        #expect(p.runLimit(at: 10 * m) == 10 * m)
        Self.run(&p, at: 10 * m, for: 10 * s)
        #expect(p.quotaUse(at: 11 * m, window: Self.day).count == 1)
        // Screen on: not idle, so the quota applies until the session leaves the window.
        #expect(p.admit(at: 30 * m, gates: charging) == .deny(.quota, retryAt: 10 * m + 10 * s + Self.day))
        // Screen off at 40 min: idle at 71 min.
        p.deviceChanged(screenOn: false, charging: true, at: 40 * m)
        #expect(p.admit(at: 50 * m, gates: charging) == .deny(.quota, retryAt: 71 * m))
        #expect(
            p.admit(at: 71 * m, gates: GateInputs(charging: true, belowLowLevel: true))
                == .deny(.quota, retryAt: 10 * m + 10 * s + Self.day))
        #expect(p.admit(at: 71 * m, gates: charging) == .run)
        #expect(p.runLimit(at: 71 * m) == 10 * m)
        // Unplugged: the quota again (at 99 min, light Doze's first window: 94–99 min idle).
        p.deviceChanged(screenOn: false, charging: false, at: 90 * m)
        #expect(p.admit(at: 99 * m, gates: GateInputs()) == .deny(.quota, retryAt: 10 * m + 10 * s + Self.day))
        // Another bucket while charging: no quota at all.
        var q = Self.android(usage: 1.0 / 5)
        q.deviceChanged(screenOn: true, charging: true, at: 0)
        #expect(q.bucket(at: 0) == .rare)
        for k in 0..<5 {
            let t = (10 + SimTime(k) * 20) * m
            #expect(q.admit(at: t, gates: charging) == .run)
            Self.run(&q, at: t, for: 10 * s)
        }
        #expect(q.quotaUse(at: 2 * Self.hour, window: Self.day).count == 0)
    }

    /// A job Doze defers stays pending (MODEL.md §6.2): it runs in the next maintenance
    /// window, or as soon as the screen comes on, without a new request. A device with the
    /// screen off and unplugged from t = 0 (no battery: no screen sessions or charger) is
    /// in deep Doze from 1 h: idle until 2 h, a window 2 h – 2 h 5 min, idle until 4 h 5
    /// min. A policy that asks once at 1 h 30 min gets its run at 2 h; one that asks at 2 h
    /// 10 min gets it at the user's open at 3 h (the screen ends Doze), not at 4 h 5 min.
    /// Neither policy hears of a denial.
    @Test(arguments: [(90, nil), (130, 3)] as [(Int, Int?)])
    func dozeDeferralRunsInTheNextWindow(askMinutes: Int, openHour: Int?) {
        var s = TestSupport.cleanScenario(opens: openHour.map { [SimTime($0) * Self.hour] } ?? [])
        s.platform.name = AndroidWorkManager.name
        Self.alwaysActive(&s)
        let days = 1
        let feed = NewsFeed(content: s.content, days: days, seed: 1)
        let log = SimulationLog.record {
            AsksOnce.$at.withValue(SimTime(askMinutes) * Self.minute) {
                _ = TestSupport.simulate(
                    Recorded<AsksOnce>.self, AndroidWorkManager.self, scenario: s, feed: feed, days: days)
            }
        }
        if openHour != nil {
            #expect(log.opens.first == 3 * Self.hour)
            #expect(log.runStarts == [3 * Self.hour])
        } else {
            #expect(log.runStarts == [2 * Self.hour])
        }
        #expect(log.denials.isEmpty)
    }

    /// What lifts a kept denial early: the screen on or a charger ends Doze; plugging in
    /// lifts the quota (at that moment only); nothing lifts `spacing` but time.
    @Test func deferralsLiftedByTheDevice() {
        let h = Self.hour
        var p = Self.android(usage: 6)
        #expect(p.admit(at: 90 * Self.minute, gates: GateInputs()) == .deny(.doze, retryAt: 2 * h))
        #expect(!p.deferralLifted(.doze, at: 90 * Self.minute))
        p.deviceChanged(screenOn: true, charging: false, at: 100 * Self.minute)
        #expect(p.deferralLifted(.doze, at: 100 * Self.minute))
        #expect(!p.deferralLifted(.quota, at: 100 * Self.minute))
        #expect(!p.deferralLifted(.spacing, at: 100 * Self.minute))
        p.deviceChanged(screenOn: true, charging: true, at: 110 * Self.minute)
        #expect(p.deferralLifted(.quota, at: 110 * Self.minute))
        p.deviceChanged(screenOn: false, charging: true, at: 120 * Self.minute)
        #expect(!p.deferralLifted(.quota, at: 120 * Self.minute))
        #expect(AndroidWorkManager.keepsPending(.doze) && AndroidWorkManager.keepsPending(.quota))
        #expect(!AndroidWorkManager.keepsPending(.lowPower) && !AndroidWorkManager.keepsPending(.barOff))
    }

    /// Light Doze on a screen-off afternoon, unplugged (MODEL.md §6.2; DeviceIdleController
    /// LIGHT_* defaults): the screen goes off at 13:00; light idle from 13:04 for 5 min,
    /// a 1 min window 13:09–13:10, idle 10 min, window 13:20–13:21, idle 15 min, window
    /// 13:36–13:37, idle 15 min, window 13:52–13:53, then the idle that would end at 14:08
    /// runs into deep Doze at 14:00 (1 h after the screen went off): deep idle until 15:00,
    /// a 5 min window. Jobs wait in light idle as in deep idle.
    @Test func lightDozeAfternoon() {
        let h = Self.hour, m = Self.minute
        var p = Self.android(usage: 6)
        p.deviceChanged(screenOn: true, charging: false, at: 12 * h)
        p.deviceChanged(screenOn: false, charging: false, at: 13 * h)
        let at = { (hh: SimTime, mm: SimTime) in hh * h + mm * m }
        let expected: [(SimTime, SimTime?)] = [
            (at(13, 3), nil), (at(13, 4) - 1, nil), (at(13, 4), at(13, 9)), (at(13, 8), at(13, 9)),
            (at(13, 9), nil), (at(13, 10) - 1, nil), (at(13, 10), at(13, 20)), (at(13, 20), nil),
            (at(13, 21), at(13, 36)), (at(13, 36), nil), (at(13, 37), at(13, 52)), (at(13, 52), nil),
            (at(13, 53), at(15, 0)), (at(13, 59), at(15, 0)), (at(14, 0), at(15, 0)), (at(15, 0), nil),
            (at(15, 4), nil), (at(15, 5), at(17, 5)),
        ]
        for (t, end) in expected { #expect(p.dozeEnds(at: t) == end, "at \(Clock.seconds(t) / 60) min") }
        // Deferred in light idle, `light_doze`; in deep idle, `doze`. The light idle period
        // that runs into deep idle is still light Doze, with deep Doze's first window.
        #expect(p.admit(at: at(13, 5), gates: GateInputs()) == .deny(.lightDoze, retryAt: at(13, 9)))
        #expect(p.admit(at: at(13, 55), gates: GateInputs()) == .deny(.lightDoze, retryAt: at(15, 0)))
        #expect(p.admit(at: at(14, 30), gates: GateInputs()) == .deny(.doze, retryAt: at(15, 0)))
        #expect(p.deferralLifted(.lightDoze, at: at(15, 0)) && !p.deferralLifted(.lightDoze, at: at(14, 59)))
        #expect(AndroidWorkManager.keepsPending(.lightDoze))
        #expect(p.admit(at: at(13, 9), gates: GateInputs()) == .run)
        #expect(p.admit(at: at(13, 5), gates: GateInputs(charging: true)) == .run)
        // The screen on ends it; the next screen-off starts again from the beginning.
        p.deviceChanged(screenOn: true, charging: false, at: at(13, 30))
        #expect(p.dozeEnds(at: at(13, 30)) == nil)
        p.deviceChanged(screenOn: false, charging: false, at: at(13, 31))
        #expect(p.dozeEnds(at: at(13, 34)) == nil)
        #expect(p.dozeEnds(at: at(13, 35)) == at(13, 40))
        // Off: deep Doze only.
        var q = Self.android(usage: 6) { $0.platform[AndroidWorkManager.self].lightDoze = false }
        q.deviceChanged(screenOn: true, charging: false, at: 12 * h)
        q.deviceChanged(screenOn: false, charging: false, at: 13 * h)
        #expect(q.dozeEnds(at: at(13, 5)) == nil)
    }

    /// Through the simulation: a device with the screen off and unplugged from t = 0 is
    /// in light idle 10–20 min; a single request at 5 min waits for the first run's due
    /// time (10 min), then for light Doze's window at 20 min, where it runs.
    @Test func lightDozeDefersThroughTheSimulation() {
        var s = TestSupport.cleanScenario(opens: [])
        s.platform.name = AndroidWorkManager.name
        Self.alwaysActive(&s)
        let feed = NewsFeed(content: s.content, days: 1, seed: 1)
        let log = SimulationLog.record {
            AsksOnce.$at.withValue(5 * Self.minute) {
                _ = TestSupport.simulate(
                    Recorded<AsksOnce>.self, AndroidWorkManager.self, scenario: s, feed: feed, days: 1)
            }
        }
        #expect(log.runStarts == [20 * Self.minute])
        #expect(log.denials.isEmpty)
    }

    /// `version` 16: Android 16's quotas. Active: 20 min of job time per 60 min (Android
    /// 12–15: 10 min per 10 min), so after two 9 min runs at 10 and 34 min a third at 58
    /// min may run only 2 min (20 − 18), where 12–15's 10 min window holds nothing and
    /// gives the full 10. Working set: its window is 4 h, so the quota used up at 40 min
    /// clears 4 h after the first session ended instead of 2 h.
    @Test func android16Quotas() {
        let m = Self.minute
        for version in AndroidVersion.allCases {
            let v16 = version == .android16
            var p = Self.android(usage: 6) {
                Self.alwaysActive(&$0)
                $0.platform[AndroidWorkManager.self].version = version
            }
            p.deviceChanged(screenOn: true, charging: false, at: 0)
            Self.run(&p, at: 10 * m, for: 9 * m)
            #expect(p.runLimit(at: 34 * m) == 10 * m)
            Self.run(&p, at: 34 * m, for: 9 * m)
            #expect(p.admit(at: 58 * m, gates: GateInputs()) == .run)
            #expect(p.runLimit(at: 58 * m) == (v16 ? 2 * m : 10 * m), "\(version)")

            var w = Self.android(usage: 1.5) { $0.platform[AndroidWorkManager.self].version = version }
            w.deviceChanged(screenOn: true, charging: false, at: 0)
            #expect(w.bucket(at: 0) == .workingSet)
            Self.run(&w, at: 0, for: 4 * m)
            Self.run(&w, at: 20 * m, for: 4 * m)
            Self.run(&w, at: 40 * m, for: 2 * m - 20 * Self.second)
            #expect(
                w.admit(at: 60 * m, gates: GateInputs())
                    == .deny(.quota, retryAt: 4 * m + (v16 ? 4 : 2) * Self.hour), "\(version)")
        }
    }
}

/// Asks once, at `at`, and never again.
struct AsksOnce: WakePolicy {
    static let name = "test-asks-once"
    static let summary = "test only"
    @TaskLocal static var at: SimTime = 0
    let time: SimTime
    init(_ context: PolicyContext) { time = Self.at }
    mutating func start(_ view: DeviceView) -> WakeDecision { .request(at: time) }
}
