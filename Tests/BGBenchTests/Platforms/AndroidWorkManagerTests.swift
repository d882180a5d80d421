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
        #expect(
            p.admit(at: 30 * Self.minute, gates: GateInputs()) == .deny(.quota, retryAt: 10 * Self.second + Self.day))
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
        #expect(
            p.admit(at: 40 * Self.minute, gates: GateInputs())
                == .deny(.quota, retryAt: 4 * Self.minute + 2 * Self.hour))
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
        #expect(
            p.admit(at: 10 * Self.minute, gates: GateInputs()) == .deny(.quota, retryAt: 10 * Self.second + Self.day))
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
        #expect(
            p.admit(at: 10 * Self.minute, gates: GateInputs(foreground: true, forceQuit: true, submitted: false))
                == .run)
        #expect(p.runtimeLimit == 10 * Self.minute)
        #expect(p.throttleEvents == 0)
    }
}
