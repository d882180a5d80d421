import Foundation
import Testing
@testable import BGBench

/// `ios-fetch` and `android-workmanager` rule by rule (docs/platforms.md), on hand-built
/// sequences of calls and hand-built timelines, and the OS-version mix.
@Suite struct IOSFetchTests {
    static let second = Clock.second, minute = Clock.minute, hour = Clock.hour, day = Clock.day

    static func fetch(usage: Double, interval: FetchInterval, _ tweak: (inout Scenario) -> Void = { _ in }) -> IOSFetch {
        var s = Scenario()
        s.platform[IOSFetch.self].minimumInterval = interval
        tweak(&s)
        return IOSFetch(PlatformSetup(scenario: s, initialUsage: usage))
    }

    /// The clean timeline of TestSupport (opens at 08:00, 12:00, 20:00: u = 3) on ios-fetch.
    static func clean(_ interval: FetchInterval, _ tweak: (inout Scenario) -> Void = { _ in }) -> Scenario {
        var s = TestSupport.cleanScenario(opens: [8 * hour, 12 * hour, 20 * hour])
        s.platform.name = IOSFetch.name
        s.platform[IOSFetch.self].minimumInterval = interval
        tweak(&s)
        return s
    }

    @Test func neverMeansNoWake() {
        var platform = Self.fetch(usage: 20, interval: .never)
        #expect(platform.systemWake(after: 0) == nil)
        #expect(platform.systemWake(after: 5 * Self.day) == nil)
        #expect(platform.admit(at: Self.hour, gates: GateInputs()) == .deny(.spacing, retryAt: nil))
    }

    /// The system wakes at once, then an interval after each start while tokens last, then
    /// when the bucket reaches a whole token at its fill rate.
    @Test func systemWakeFollowsIntervalAndTokens() {
        var platform = Self.fetch(usage: 6, interval: .every(.minutes(15)))
        #expect(platform.systemWake(after: 0) == 0)
        platform.runStarted(at: 0)
        #expect(platform.systemWake(after: 0) == 15 * Self.minute)
        #expect(platform.systemWake(after: 20 * Self.minute) == 20 * Self.minute)
        platform.runStarted(at: 20 * Self.minute)
        // B = 2.5 ln 7 = 4.86, capacity 2.43: 0.48 tokens are left after the second start.
        let tokens = platform.tokens
        #expect(tokens < 1)
        let rate = 2.5 * log(7.0) / Double(Self.day)
        let dueIn = 15 * Self.minute
        let expected = 35 * Self.minute + SimTime(((1 - (tokens + rate * Double(dueIn))) / rate).rounded(.up))
        let wake = platform.systemWake(after: 20 * Self.minute)
        #expect(wake != nil && abs(wake! - expected) <= 1)
    }

    /// ios-bgtask's gates but `not_submitted`; spacing is the interval, never below the
    /// system's 15 min.
    @Test func gatesAndSpacing() {
        var platform = Self.fetch(usage: 20, interval: .every(.minutes(1)))
        #expect(platform.admit(at: 0, gates: GateInputs(submitted: false)) == .run)
        #expect(platform.admit(at: 0, gates: GateInputs(lowPower: true)) == .deny(.lowPower, retryAt: nil))
        #expect(platform.admit(at: 0, gates: GateInputs(barOff: true)) == .deny(.barOff, retryAt: nil))
        platform.runStarted(at: 0)
        #expect(platform.admit(at: 5 * Self.minute, gates: GateInputs()) == .deny(.spacing, retryAt: 15 * Self.minute))
        var hourly = Self.fetch(usage: 20, interval: .every(.hours(1)))
        hourly.runStarted(at: 0)
        #expect(hourly.admit(at: 30 * Self.minute, gates: GateInputs()) == .deny(.spacing, retryAt: Self.hour))
    }

    /// A timeline without minimum interval: no run, no request, whatever the policy asks.
    @Test func noIntervalNoRuns() {
        let s = Self.clean(.never)
        let feed = NewsFeed(content: s.content, days: 3, seed: 1)
        let log = SimulationLog.record {
            ScheduledWakes.$times.withValue([Self.hour, 2 * Self.hour, 30 * Self.hour]) {
                let tally = TestSupport.simulate(Recorded<FixedPolicy>.self, IOSFetch.self, scenario: s, feed: feed, days: 3)
                #expect(tally[.runs] == 0)
                #expect(tally[.requested] == 0)
                #expect(tally[.replaced] == 0)
                #expect(tally[.denied] == 0)
            }
        }
        #expect(log.runStarts.isEmpty)
        #expect(log.opens.count == 9)
    }

    /// With a 15 min interval and a budget that never runs short, the system wakes the app
    /// every 15 min from t = 0: 96 runs a day, the policy's requests dropped.
    @Test func intervalSetsTheCadence() {
        let s = Self.clean(.every(.minutes(15))) { $0.platform[IOSBGTask.self].budgetCap = 1000; $0.platform[IOSBGTask.self].budgetScale = 1000 }
        let feed = NewsFeed(content: s.content, days: 1, seed: 1)
        let log = SimulationLog.record {
            let tally = TestSupport.simulate(Recorded<FixedPolicy>.self, IOSFetch.self, scenario: s, feed: feed, days: 1)
            #expect(tally[.runs] == 96)
            #expect(tally[.requested] == 96)
            #expect(tally[.replaced] == 0 && tally[.pending] == 0)
        }
        #expect(log.runStarts == (0..<96).map { SimTime($0) * 15 * Self.minute })
    }

    /// With the default budget (u = 3: B = 2.5 ln 4 a day, capacity B/2) the runs are what
    /// the bucket holds at the start plus what it gains, as on ios-bgtask; forgetting to
    /// resubmit changes nothing (Background Fetch needs no resubmission).
    @Test(arguments: [true, false])
    func budgetLimitsTheRuns(resubmits: Bool) {
        let days = 10
        // The budget alone: without the usage predictor (its windows leave the bucket full,
        // and capped, for hours; IOSFetchPredictorTests has its own timeline).
        let s = Self.clean(.every(.hours(1))) { $0.app.resubmits = resubmits; $0.platform[IOSFetch.self].usagePredictor = false }
        let feed = NewsFeed(content: s.content, days: days, seed: 1)
        let tally = TestSupport.simulate(FixedPolicy.self, IOSFetch.self, scenario: s, feed: feed, days: days)
        let b = 2.5 * log(4.0)
        let budget = b / 2 + b * Double(days)
        #expect(Double(tally[.runs]) <= budget && Double(tally[.runs]) > budget - 2, "runs \(tally[.runs]), bucket \(budget)")
        #expect(tally.denials(.notSubmitted) == 0)
        #expect(tally[.requested] == tally[.runs] + tally[.denied])
    }
}

@Suite struct AndroidWorkManagerTests {
    static let second = Clock.second, minute = Clock.minute, hour = Clock.hour, day = Clock.day

    static func android(usage: Double, barOff: Bool = false, _ tweak: (inout Scenario) -> Void = { _ in }) -> AndroidWorkManager {
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
        #expect(Self.android(usage: 20, barOff: true).bucket(at: 0) == .restricted)
    }

    /// Rare: 3 sessions per 24 h; the fourth waits until the first leaves the window.
    @Test func rareSessionsPerWindow() {
        var p = Self.android(usage: 1.0 / 5)  // last use 5 days ago: rare for three days
        p.deviceChanged(screenOn: true, charging: false, at: 0)  // awake: no Doze
        #expect(p.bucket(at: 0) == .rare)
        for k in 0..<3 {
            let t = SimTime(k) * 10 * Self.minute
            #expect(p.admit(at: t, gates: GateInputs()) == .run)
            Self.run(&p, at: t, for: 10 * Self.second)
        }
        #expect(p.admit(at: 30 * Self.minute, gates: GateInputs()) == .deny(.quota, retryAt: 10 * Self.second + Self.day))
        #expect(p.quotaClears(at: Self.day + 10 * Self.second) == nil)
    }

    /// Working set: 10 min of job time per 2 h; a run is capped at the quota left, and a
    /// job needs 30 s of quota to start.
    @Test func jobTimePerWindow() {
        var p = Self.android(usage: 1.5)  // last use 16 h ago: working set
        p.deviceChanged(screenOn: true, charging: false, at: 0)
        #expect(p.bucket(at: 0) == .workingSet)
        #expect(p.runLimit(at: 0) == 10 * Self.minute)
        Self.run(&p, at: 0, for: 4 * Self.minute)
        Self.run(&p, at: 10 * Self.minute, for: 4 * Self.minute)
        #expect(p.admit(at: 20 * Self.minute, gates: GateInputs()) == .run)
        #expect(p.runLimit(at: 20 * Self.minute) == 2 * Self.minute)
        Self.run(&p, at: 20 * Self.minute, for: 2 * Self.minute - 20 * Self.second)  // 20 s left < 30 s buffer
        #expect(p.admit(at: 40 * Self.minute, gates: GateInputs()) == .deny(.quota, retryAt: 4 * Self.minute + 2 * Self.hour))
        // While charging neither quota nor Doze applies, and the run is not a session.
        #expect(p.admit(at: 40 * Self.minute, gates: GateInputs(charging: true)) == .run)
        p.deviceChanged(screenOn: true, charging: true, at: 40 * Self.minute)
        #expect(p.runLimit(at: 40 * Self.minute) == 10 * Self.minute)
        Self.run(&p, at: 40 * Self.minute, for: 5 * Self.minute)
        p.deviceChanged(screenOn: true, charging: false, at: 50 * Self.minute)
        #expect(p.quotaUse(at: 50 * Self.minute, window: 2 * Self.hour).count == 3)
    }

    /// Restricted (the BAR switch's Android counterpart): one session a day.
    @Test func restrictedOneSessionADay() {
        var p = Self.android(usage: 20, barOff: true)
        p.deviceChanged(screenOn: true, charging: false, at: 0)
        Self.run(&p, at: 0, for: 10 * Self.second)
        #expect(p.admit(at: 10 * Self.minute, gates: GateInputs()) == .deny(.quota, retryAt: 10 * Self.second + Self.day))
        #expect(p.admit(at: Self.day + 10 * Self.second, gates: GateInputs()) == .run)
    }

    /// Doze after 1 h screen-off and unplugged; idle 1 h, 2 h, 4 h, 6 h, 6 h … between
    /// maintenance windows of 5, 10, 10 … min; the screen or a charger ends it.
    @Test func dozeSchedule() {
        var p = Self.android(usage: 6)  // active: quota never binds here
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

    /// Periodic work: starts at least 15 − 5 = 10 min apart; state gates first.
    @Test func spacingAndStateGates() {
        var p = Self.android(usage: 6)
        p.deviceChanged(screenOn: true, charging: false, at: 0)
        Self.run(&p, at: 0, for: Self.second)
        #expect(p.admit(at: 9 * Self.minute, gates: GateInputs()) == .deny(.spacing, retryAt: 10 * Self.minute))
        #expect(p.admit(at: 10 * Self.minute, gates: GateInputs()) == .run)
        #expect(p.admit(at: 10 * Self.minute, gates: GateInputs(lowPower: true)) == .deny(.lowPower, retryAt: nil))
        #expect(p.admit(at: 10 * Self.minute, gates: GateInputs(lowBattery: true)) == .deny(.lowBattery, retryAt: nil))
        // The iOS gates do not exist here.
        #expect(p.admit(at: 10 * Self.minute, gates: GateInputs(foreground: true, forceQuit: true, submitted: false)) == .run)
        #expect(p.runtimeLimit == 10 * Self.minute)
        #expect(p.throttleEvents == 0)
    }
}

/// The OS-version mix: devices on iOS 12 or lower run ios-fetch in an ios-bgtask fleet.
@Suite struct OSMixTests {
    /// The share is drawn per device: within 4 binomial sd of its expectation over 4,000
    /// devices, and it changes no other trait of a device.
    @Test func shareIsDrawnPerDevice() {
        var s = Scenario()
        s.population.legacyIosShare = 0.25
        let n = 4000
        let legacy = (0..<n).filter { DeviceTraits.isLegacyIOS(scenario: s, seed: 7, device: $0) }.count
        let sd = (Double(n) * 0.25 * 0.75).squareRoot()
        #expect(abs(Double(legacy) - 0.25 * Double(n)) < 4 * sd, "legacy devices \(legacy) of \(n)")
        let plain = Scenario()
        for device in 0..<50 {
            var a = RandomStream(seed: 7, device: UInt64(device), purpose: .population)
            var b = a
            let mixed = DeviceTraits(scenario: s, rng: &a), alone = DeviceTraits(scenario: plain, rng: &b)
            #expect(mixed.opensPerDay == alone.opensPerDay && mixed.bedtime == alone.bedtime
                    && mixed.barOff == alone.barOff && mixed.cellular5G == alone.cellular5G)
            #expect(!alone.legacyIOS)
        }
    }

    /// A mixed fleet gives each device exactly what it gives alone on its own platform.
    @Test func mixedFleetRunsEachDeviceOnItsPlatform() throws {
        var s = Scenario()
        s.population.legacyIosShare = 0.5
        s.platform[IOSFetch.self].minimumInterval = .every(.minutes(30))
        let options = RunOptions(devices: 12, days: 2, seed: 3, threads: 2, keepDevices: true)
        let feed = NewsFeed(content: s.content, days: options.days, seed: options.seed)
        let result = try Fleet.simulate(scenario: s, policy: PolicyEntry(FixedPolicy.self), options: options, feed: feed)
        var legacy = 0
        for row in result.devices {
            let isLegacy = DeviceTraits.isLegacyIOS(scenario: s, seed: options.seed, device: row.device)
            legacy += isLegacy ? 1 : 0
            let alone = isLegacy
                ? TestSupport.simulate(FixedPolicy.self, IOSFetch.self, scenario: s, feed: feed, days: options.days, seed: options.seed, index: row.device)
                : TestSupport.simulate(FixedPolicy.self, IOSBGTask.self, scenario: s, feed: feed, days: options.days, seed: options.seed, index: row.device)
            #expect(row.values == alone.values(), "device \(row.device)")
        }
        #expect(legacy > 0 && legacy < options.devices)
    }

    /// Every device legacy with the default interval (never): no run in the whole fleet.
    @Test func allLegacyWithoutIntervalNeverRuns() throws {
        var s = Scenario()
        s.population.legacyIosShare = 1
        let options = RunOptions(devices: 20, days: 2, seed: 1, threads: 2)
        let feed = NewsFeed(content: s.content, days: options.days, seed: options.seed)
        let tally = try Fleet.run(scenario: s, policy: PolicyEntry(FixedPolicy.self), options: options, feed: feed)
        #expect(tally[.runs] == 0 && tally[.requested] == 0)
    }

    @Test func shareNeedsIOSBGTask() {
        var s = Scenario()
        s.population.legacyIosShare = 0.1
        #expect(s.validate().isEmpty)
        s.platform.name = AndroidWorkManager.name
        #expect(s.validate() == [ScenarioProblem(path: "population.legacy_ios_share",
            message: "0.1 needs platform ios-bgtask: the share of iOS 12 devices that use ios-fetch mixes into an ios-bgtask fleet (platform is android-workmanager); expected 0")])
        s.population.legacyIosShare = 1.5
        s.platform.name = IOSBGTask.name
        #expect(s.validate().map(\.message) == ["1.5 is out of range: expected a number from 0 to 1"])
    }

    @Test func minimumIntervalParses() throws {
        let loaded = try ScenarioLoader.load(json: "{}", overrides: ["platform.ios_fetch.minimum_interval=15m"])
        #expect(loaded.scenario.platform[IOSFetch.self].minimumInterval == .every(.minutes(15)))
        let never = try ScenarioLoader.load(json: #"{"platform": {"ios_fetch": {"minimum_interval": "never"}}}"#)
        #expect(never.scenario.platform[IOSFetch.self].minimumInterval == .never)
        #expect(throws: ScenarioError.self) {
            try ScenarioLoader.load(json: #"{"platform": {"ios_fetch": {"minimum_interval": "soon"}}}"#, file: "s.json")
        }
        do {
            _ = try ScenarioLoader.load(json: #"{"platform": {"ios_fetch": {"minimum_interval": "soon"}}}"#, file: "s.json")
        } catch let error as ScenarioError {
            #expect(error.description == #"error: s.json:1:49: platform.ios_fetch.minimum_interval: expected "never" or a duration such as "15m", "1h" or 900"#)
        }
    }
}
