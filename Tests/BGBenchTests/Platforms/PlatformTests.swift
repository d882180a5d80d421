import Foundation
import Testing
@testable import BGBench

/// `ios-bgtask` rule by rule (MODEL.md §6.4) and `unrestricted` (rule 10), on hand-built
/// sequences of calls. Expected values are computed here from the rules' own formulas.
@Suite struct PlatformTests {
    static let second = Clock.second, minute = Clock.minute, hour = Clock.hour, day = Clock.day

    /// Floating-point slack for token and multiplier arithmetic (a few ulps of a sum of
    /// a handful of terms; the quantities are of order 1–10).
    static let epsilon = 1e-9

    static func ios(usage: Double, _ tweak: (inout Scenario) -> Void = { _ in }) -> IOSBGTask {
        var s = Scenario()
        tweak(&s)
        return IOSBGTask(PlatformSetup(scenario: s, initialUsage: usage))
    }

    /// Rule 4: B = 2.5 · ln(1 + u), at most 12 (rule 9).
    static func budget(_ u: Double) -> Double { min(12, 2.5 * log(1 + u)) }
    /// Rule 4: capacity max(1, m·B/2).
    static func capacity(m: Double, u: Double) -> Double { max(1, m * budget(u) / 2) }
    /// Tokens accrued in `ticks` at m·B per day.
    static func accrual(m: Double, u: Double, ticks: SimTime) -> Double {
        m * budget(u) * Double(ticks) / Double(day)
    }

    // MARK: Rule 2: gate order

    /// The gates of rule 2 in their order.
    static let gateOrder: [DenialReason] =
        [.foreground, .barOff, .forceQuit, .lowPower, .lowBattery, .notSubmitted, .spacing, .budget]

    /// Every combination of failing gates (bit i of `mask` makes gate i of rule 2 fail): the
    /// denial reason is the first failing gate in rule 2's order, and nothing fails → run.
    @Test(arguments: 0..<256)
    func gateOrderCaseTable(mask: Int) {
        let fails = { (r: DenialReason) in mask & (1 << Self.gateOrder.firstIndex(of: r)!) != 0 }
        // Spacing fails 5 min after a run start; budget fails when the only token is gone
        // (u = 1: B = 1.73, capacity 1, 0.024 tokens accrue in 20 min).
        var platform = Self.ios(usage: fails(.budget) ? 1 : 20)
        platform.runStarted(at: 0)
        let t = fails(.spacing) ? 5 * Self.minute : 20 * Self.minute
        let gates = GateInputs(
            foreground: fails(.foreground), barOff: fails(.barOff), forceQuit: fails(.forceQuit),
            lowPower: fails(.lowPower), lowBattery: fails(.lowBattery),
            submitted: !fails(.notSubmitted))
        let answer = platform.admit(at: t, gates: gates)
        guard let first = Self.gateOrder.first(where: fails) else {
            #expect(answer == .run)
            return
        }
        guard case .deny(let reason, let retryAt) = answer else {
            Issue.record("mask \(mask): expected a denial for \(first.label), got \(answer)")
            return
        }
        #expect(reason == first, "mask \(mask)")
        switch first {
        case .spacing: #expect(retryAt == 15 * Self.minute)
        case .budget: #expect(retryAt != nil && retryAt! > t)
        default: #expect(retryAt == nil, "a state gate has no known retry time")
        }
    }

    /// A few rows of the table spelled out, as a reader checks them.
    @Test(arguments: [
        (GateInputs(foreground: true, barOff: true, lowBattery: true), DenialReason.foreground),
        (GateInputs(barOff: true, forceQuit: true, submitted: false), .barOff),
        (GateInputs(forceQuit: true, lowPower: true), .forceQuit),
        (GateInputs(lowPower: true, lowBattery: true), .lowPower),
        (GateInputs(lowBattery: true, submitted: false), .lowBattery),
        (GateInputs(submitted: false), .notSubmitted),
    ])
    func stateGatesSpelledOut(gates: GateInputs, reason: DenialReason) {
        var platform = Self.ios(usage: 6)
        #expect(platform.admit(at: Self.hour, gates: gates) == .deny(reason, retryAt: nil))
    }

    /// Charging does not lift the low-battery gate by itself: `lowBattery` already means
    /// "below 20 % and not charging"; a charging flag alone denies nothing.
    @Test func chargingAloneDeniesNothing() {
        var platform = Self.ios(usage: 6)
        #expect(platform.admit(at: Self.hour, gates: GateInputs(charging: true)) == .run)
    }

    /// A denied request takes no token and does not start the spacing.
    @Test func denialsConsumeNoToken() {
        var platform = Self.ios(usage: 20)
        let full = platform.tokens
        for k in 1...5 {
            _ = platform.admit(at: SimTime(k) * Self.minute, gates: GateInputs(foreground: true))
        }
        #expect(platform.tokens == full)
        #expect(platform.admit(at: 6 * Self.minute, gates: GateInputs()) == .run)
    }

    // MARK: Spacing

    /// Less than 15 min after the last run *start* → spacing, retry at start + 15 min;
    /// at exactly 15 min the gate is open.
    @Test func spacingFromLastStart() {
        var platform = Self.ios(usage: 20)
        let start = 3 * Self.hour + 17 * Self.second
        #expect(platform.admit(at: start, gates: GateInputs()) == .run)
        platform.runStarted(at: start)
        platform.runEnded(at: start + 20 * Self.second, status: .noData, broughtContent: false)
        for t in [start + 1, start + 5 * Self.minute, start + 15 * Self.minute - 1] {
            #expect(platform.admit(at: t, gates: GateInputs()) == .deny(.spacing, retryAt: start + 15 * Self.minute))
        }
        #expect(platform.admit(at: start + 15 * Self.minute, gates: GateInputs()) == .run)
    }

    /// The spacing uses the latest start, not the first.
    @Test func spacingFollowsLatestStart() {
        var platform = Self.ios(usage: 20)
        platform.runStarted(at: 0)
        platform.runStarted(at: 20 * Self.minute)
        #expect(platform.admit(at: 30 * Self.minute, gates: GateInputs()) == .deny(.spacing, retryAt: 35 * Self.minute))
    }

    // MARK: Rule 4: the token bucket

    /// The bucket starts full at capacity max(1, m·B/2), B = 2.5·ln(1 + u) capped at 12.
    @Test(arguments: [0.0, 1.0 / 7, 1, 6, 20, 100, 1000, 1e6])
    func bucketStartsFull(usage: Double) {
        let platform = Self.ios(usage: usage)
        let b = Self.budget(usage)
        #expect(abs(platform.dailyBudget - b) < Self.epsilon)
        #expect(platform.dailyBudget <= 12)
        #expect(abs(platform.capacity - max(1, b / 2)) < Self.epsilon)
        #expect(platform.tokens == platform.capacity)
        #expect(platform.multiplier == 1)
        #expect(platform.usage == usage)
    }

    /// MODEL.md §6.3's calibration points: about 5 runs a day at 6 opens, 7.6 at 20, 0.33 at
    /// one open a week, and the cap of 12 (reached from u = e^4.8 − 1 ≈ 120).
    @Test func budgetCalibrationPoints() {
        #expect(abs(Self.ios(usage: 6).dailyBudget - 4.865) < 0.001)
        #expect(abs(Self.ios(usage: 20).dailyBudget - 7.611) < 0.001)
        #expect(abs(Self.ios(usage: 1.0 / 7).dailyBudget - 0.334) < 0.001)
        #expect(Self.ios(usage: 121).dailyBudget == 12)
        #expect(Self.ios(usage: 119).dailyBudget < 12)
    }

    /// Tokens after known times: runs take one token each, the bucket refills at m·B per
    /// day and never passes its capacity.
    @Test func tokenCountsAfterKnownTimes() {
        let u = 6.0  // B = 4.865, capacity 2.432
        var platform = Self.ios(usage: u)
        let cap = Self.capacity(m: 1, u: u)
        platform.runStarted(at: 1 * Self.hour)
        #expect(abs(platform.tokens - (cap - 1)) < Self.epsilon, "full bucket: nothing accrues above capacity")
        platform.runStarted(at: 2 * Self.hour)
        let afterSecond = cap - 1 + Self.accrual(m: 1, u: u, ticks: Self.hour) - 1
        #expect(abs(platform.tokens - afterSecond) < Self.epsilon)
        // 3 h: 0.838 tokens: a budget denial, and the tokens are brought up to date.
        let at3 = afterSecond + Self.accrual(m: 1, u: u, ticks: Self.hour)
        #expect(at3 < 1)
        guard case .deny(.budget, _) = platform.admit(at: 3 * Self.hour, gates: GateInputs()) else {
            Issue.record("expected a budget denial at 03:00")
            return
        }
        #expect(abs(platform.tokens - at3) < Self.epsilon)
        // A long idle spell refills to capacity exactly, not beyond.
        #expect(platform.admit(at: 2 * Self.day, gates: GateInputs()) == .run)
        #expect(platform.tokens == cap)
    }

    /// A budget denial's retryAt is when the next whole token arrives: one tick earlier is
    /// still denied, at retryAt the request runs.
    @Test(arguments: [1.0, 3, 6, 20, 500])
    func budgetRetryIsNextWholeToken(usage: Double) {
        var platform = Self.ios(usage: usage)
        // Empty the bucket with runs 15 min apart.
        var t: SimTime = 0
        while platform.admit(at: t, gates: GateInputs()) == .run {
            platform.runStarted(at: t)
            t += 15 * Self.minute
        }
        guard case .deny(.budget, let retry?) = platform.admit(at: t, gates: GateInputs()) else {
            Issue.record("expected a budget denial with a retry time")
            return
        }
        let expected = t + SimTime(((1 - platform.tokens) / Self.accrual(m: 1, u: usage, ticks: 1)).rounded(.up))
        #expect(abs(retry - expected) <= 1, "retryAt \(retry), expected \(expected)")
        // One tick earlier: still denied; its own retry time may differ from the first by a
        // tick, since tokens are accrued piecewise in floating point.
        guard case .deny(.budget, let again?) = platform.admit(at: retry - 1, gates: GateInputs()) else {
            Issue.record("one tick before retryAt the token must not be whole yet")
            return
        }
        #expect(abs(again - retry) <= 1)
        #expect(platform.admit(at: retry, gates: GateInputs()) == .run)
    }

    /// A run needs a whole token: 0.99 tokens are not enough.
    @Test func runNeedsWholeToken() {
        let u = 1.0  // B = 1.733, capacity 1
        var platform = Self.ios(usage: u)
        platform.runStarted(at: 0)
        #expect(platform.tokens == 0)
        // 0.99 tokens accrue in 0.99/B days.
        let almost = SimTime(0.99 / Self.budget(u) * Double(Self.day))
        guard case .deny(.budget, _) = platform.admit(at: almost, gates: GateInputs()) else {
            Issue.record("0.99 tokens must not start a run")
            return
        }
        #expect(abs(platform.tokens - 0.99) < 1e-6)
    }

    // MARK: Rule 5: penalties

    /// Each ending's factor on m, from m = 1 (newData with content is checked from below).
    @Test(arguments: [
        (RunStatus.killed, false, 0.5), (.expired, false, 0.8), (.failed, false, 0.9),
        (.newData, false, 0.9), (.noData, false, 1.0), (.noData, true, 1.0),
        (.killed, true, 0.5), (.expired, true, 0.8), (.failed, true, 0.9),
    ])
    func penaltyFactor(status: RunStatus, content: Bool, factor: Double) {
        var platform = Self.ios(usage: 20)
        platform.runStarted(at: 0)
        platform.runEnded(at: 10 * Self.second, status: status, broughtContent: content)
        #expect(abs(platform.multiplier - factor) < Self.epsilon)
        #expect(platform.throttleEvents == (factor < 1 ? 1 : 0))
    }

    /// newData that brought content: ×1.05, capped at 1; noData leaves m unchanged.
    @Test func rewardAndCap() {
        var platform = Self.ios(usage: 20)
        platform.runEnded(at: 1, status: .newData, broughtContent: true)
        #expect(platform.multiplier == 1, "capped at 1")
        platform.runEnded(at: 2, status: .killed, broughtContent: false)
        platform.runEnded(at: 3, status: .newData, broughtContent: true)
        #expect(abs(platform.multiplier - 0.525) < Self.epsilon)
        platform.runEnded(at: 4, status: .noData, broughtContent: false)
        #expect(abs(platform.multiplier - 0.525) < Self.epsilon)
        platform.runEnded(at: 5, status: .newData, broughtContent: false)
        #expect(abs(platform.multiplier - 0.4725) < Self.epsilon)
        #expect(platform.throttleEvents == 2)
    }

    /// m never goes below 0.05.
    @Test func multiplierFloor() {
        var platform = Self.ios(usage: 20)
        for k in 1...6 { platform.runEnded(at: SimTime(k), status: .killed, broughtContent: false) }
        #expect(platform.multiplier == 0.05)
        platform.runEnded(at: 7, status: .failed, broughtContent: false)
        #expect(platform.multiplier == 0.05)
        #expect(platform.capacity == 1, "max(1, 0.05·B/2) = 1")
    }

    /// A penalty shrinks the capacity to max(1, m·B/2) and clips the tokens above it; the
    /// bucket then fills at the lower rate m·B.
    @Test func penaltyShrinksCapacityAndClipsTokens() {
        let u = 20.0  // B = 7.611, capacity 3.805
        var platform = Self.ios(usage: u)
        platform.runStarted(at: 0)
        #expect(abs(platform.tokens - (Self.capacity(m: 1, u: u) - 1)) < Self.epsilon)
        platform.runEnded(at: 30 * Self.second, status: .killed, broughtContent: false)
        let shrunk = Self.capacity(m: 0.5, u: u)
        #expect(abs(platform.capacity - shrunk) < Self.epsilon)
        #expect(abs(platform.tokens - shrunk) < Self.epsilon, "2.8 tokens clipped to 1.90")
        platform.runStarted(at: 1 * Self.hour)
        platform.runEnded(at: 1 * Self.hour + 30 * Self.second, status: .noData, broughtContent: false)
        #expect(platform.admit(at: 3 * Self.hour, gates: GateInputs()) == .run)
        let expected = shrunk - 1 + Self.accrual(m: 0.5, u: u, ticks: 2 * Self.hour)
        #expect(abs(platform.tokens - expected) < Self.epsilon)
    }

    /// Tokens accrue at the old rate up to a run's end, then at the new one.
    @Test func accrualRateChangesAtRunEnd() {
        let u = 20.0
        var platform = Self.ios(usage: u)
        platform.runStarted(at: 0)
        platform.runStarted(at: 15 * Self.minute)
        platform.runStarted(at: 30 * Self.minute)  // tokens ≈ 0.83
        let t0 = platform.tokens
        platform.runEnded(at: 2 * Self.hour, status: .failed, broughtContent: false)  // m: 1 → 0.9
        let atEnd = t0 + Self.accrual(m: 1, u: u, ticks: 2 * Self.hour - 30 * Self.minute)
        #expect(abs(platform.tokens - atEnd) < Self.epsilon)
        _ = platform.admit(at: 4 * Self.hour, gates: GateInputs())
        #expect(
            abs(
                platform.tokens
                    - min(
                        Self.capacity(m: 0.9, u: u),
                        atEnd + Self.accrual(m: 0.9, u: u, ticks: 2 * Self.hour))) < Self.epsilon)
    }

    // MARK: Rule 9: midnight

    /// Midnight, in order: tokens accrue up to midnight at the old m and B, u is updated
    /// (half-life 7 days), m recovers ×1.1, the capacity is recomputed and tokens clipped.
    @Test func midnightOrder() {
        let u = 20.0
        var platform = Self.ios(usage: u)
        platform.runStarted(at: 0)
        platform.runEnded(at: 30 * Self.second, status: .killed, broughtContent: false)  // m = 0.5
        platform.runStarted(at: 23 * Self.hour)
        let before = platform.tokens
        #expect(abs(before - (Self.capacity(m: 0.5, u: u) - 1)) < Self.epsilon)
        let opens = 3
        platform.midnight(at: Self.day, opens: opens)
        let decay = pow(2, -1.0 / 7)
        let u1 = decay * u + (1 - decay) * Double(opens)
        #expect(abs(platform.usage - u1) < Self.epsilon)
        #expect(abs(platform.multiplier - 0.55) < Self.epsilon)
        #expect(abs(platform.dailyBudget - Self.budget(u1)) < Self.epsilon)
        #expect(abs(platform.capacity - Self.capacity(m: 0.55, u: u1)) < Self.epsilon)
        // Accrued for the last hour at the old rate (m = 0.5, B(20)), not the new one.
        let accrued = before + Self.accrual(m: 0.5, u: u, ticks: Self.hour)
        #expect(abs(platform.tokens - accrued) < Self.epsilon)
        #expect(platform.tokens < platform.capacity, "a larger capacity adds no tokens by itself")
        // After midnight the bucket fills at the new rate.
        _ = platform.admit(at: Self.day + 2 * Self.hour, gates: GateInputs())
        #expect(abs(platform.tokens - (accrued + Self.accrual(m: 0.55, u: u1, ticks: 2 * Self.hour))) < Self.epsilon)
    }

    /// A full bucket whose capacity shrinks at midnight (usage falls) is clipped to it.
    @Test func midnightClipsFullBucket() {
        var platform = Self.ios(usage: 20)
        platform.midnight(at: Self.day, opens: 0)
        let u1 = pow(2, -1.0 / 7) * 20
        #expect(abs(platform.capacity - Self.capacity(m: 1, u: u1)) < Self.epsilon)
        #expect(platform.capacity < Self.capacity(m: 1, u: 20))
        #expect(platform.tokens == platform.capacity)
    }

    /// u halves in 7 days without opens and converges to a steady number of opens.
    @Test func usageHalfLife() {
        var platform = Self.ios(usage: 16)
        for d in 1...7 { platform.midnight(at: SimTime(d) * Self.day, opens: 0) }
        #expect(abs(platform.usage - 8) < 1e-9)
        for d in 8...400 { platform.midnight(at: SimTime(d) * Self.day, opens: 5) }
        #expect(abs(platform.usage - 5) < 1e-9)
    }

    /// A usage average that decayed towards zero (a `rare` user who stopped opening the app:
    /// after 300 days without an open u ≈ 0.17 · 2^(−300/7) ≈ 6e-14) makes the fill rate so
    /// small that the wait for a whole token (≈ 10²³ ticks) is beyond SimTime's range. Its
    /// conversion under -Ounchecked gave Int64.min, so the wait became one tick: the push
    /// policy, which asks again at the time it is told, retried every microsecond forever
    /// (`bgbench --policy push --days 365 --devices 16 --seed 1` hung at device 14, day 306;
    /// a debug build traps instead). The wait is now capped far beyond any horizon.
    @Test func decayedUsageWaitsFarNotOneTick() {
        var platform = Self.ios(usage: 1.0 / 6)
        for d in 1...300 { platform.midnight(at: SimTime(d) * Self.day, opens: 0) }
        #expect(platform.usage > 0 && platform.usage < 1e-12)
        let t = 300 * Self.day + Self.hour
        #expect(platform.admit(at: t, gates: GateInputs()) == .run)
        platform.runStarted(at: t)
        let later = t + Self.hour
        guard case .deny(.budget, let retryAt?) = platform.admit(at: later, gates: GateInputs()) else {
            Issue.record("expected a budget denial with a retry time")
            return
        }
        #expect(retryAt == later + EngagementBudget.longestWait, "retry at \(retryAt), \(retryAt - later) ticks away")
        // Asked again at that time the bucket still has no whole token, and the wait is as long.
        #expect(platform.budget.tokenTime(at: later + 1) == later + 1 + EngagementBudget.longestWait)
    }

    /// m recovers ×1.1 a night and stops at 1.
    @Test func multiplierRecovery() {
        var platform = Self.ios(usage: 6)
        platform.runEnded(at: 1, status: .killed, broughtContent: false)
        var expected = 0.5
        for d in 1...10 {
            platform.midnight(at: SimTime(d) * Self.day, opens: 6)
            expected = min(1, expected * 1.1)
            #expect(abs(platform.multiplier - expected) < Self.epsilon, "night \(d)")
        }
        #expect(platform.multiplier == 1)
    }

    /// Scenario parameters reach the platform: spacing and penalty factors are read from
    /// the scenario, not hard-coded.
    @Test func parametersComeFromScenario() {
        var platform = Self.ios(usage: 20) {
            $0.platform[IOSBGTask.self].minSpacing = .minutes(30)
            $0.platform[IOSBGTask.self].penaltyKilled = 0.25
            $0.platform[IOSBGTask.self].budgetCap = 2
        }
        #expect(platform.dailyBudget == 2)
        platform.runStarted(at: 0)
        #expect(platform.admit(at: 20 * Self.minute, gates: GateInputs()) == .deny(.spacing, retryAt: 30 * Self.minute))
        platform.runEnded(at: 1, status: .killed, broughtContent: false)
        #expect(platform.multiplier == 0.25)
        #expect(platform.runtimeLimit == 30 * Self.second)
    }

    // MARK: Rule 10: unrestricted

    static func unrestricted(cap: Int) -> Unrestricted {
        var s = Scenario()
        s.platform[Unrestricted.self].dailyCap = cap
        return Unrestricted(PlatformSetup(scenario: s, initialUsage: 0))
    }

    /// No gates at all: every state gate failing still runs.
    @Test func unrestrictedHasNoGates() {
        var platform = Self.unrestricted(cap: 0)
        let everything = GateInputs(
            foreground: true, barOff: true, forceQuit: true, lowPower: true,
            lowBattery: true, submitted: false)
        for k in 0..<100 {
            #expect(platform.admit(at: SimTime(k), gates: everything) == .run)
            platform.runStarted(at: SimTime(k))
            platform.runEnded(at: SimTime(k), status: .killed, broughtContent: false)
        }
        #expect(platform.throttleEvents == 0)
    }

    /// The daily cap counts started runs; past it the reason is `budget` with a retry at
    /// the next midnight; the count resets at midnight.
    @Test func unrestrictedDailyCap() {
        var platform = Self.unrestricted(cap: 3)
        var t = Self.hour
        for _ in 0..<3 {
            #expect(platform.admit(at: t, gates: GateInputs()) == .run)
            platform.runStarted(at: t)
            t += Self.minute
        }
        #expect(platform.admit(at: t, gates: GateInputs()) == .deny(.budget, retryAt: Self.day))
        #expect(platform.admit(at: Self.day - 1, gates: GateInputs()) == .deny(.budget, retryAt: Self.day))
        // Denials use no budget: still 3 started.
        platform.midnight(at: Self.day, opens: 0)
        for k in 0..<3 {
            #expect(platform.admit(at: Self.day + SimTime(k), gates: GateInputs()) == .run)
            platform.runStarted(at: Self.day + SimTime(k))
        }
        #expect(
            platform.admit(at: Self.day + 5 * Self.hour, gates: GateInputs()) == .deny(.budget, retryAt: 2 * Self.day))
        // A day without midnight calls (no midnight yet for day 2) still refers to day 1.
        platform.midnight(at: 2 * Self.day, opens: 0)
        #expect(platform.admit(at: 2 * Self.day, gates: GateInputs()) == .run)
    }

    /// Admission alone (without a start) uses no budget.
    @Test func unrestrictedAdmitWithoutStartIsFree() {
        var platform = Self.unrestricted(cap: 1)
        for k in 0..<10 { #expect(platform.admit(at: SimTime(k), gates: GateInputs()) == .run) }
        platform.runStarted(at: 10)
        #expect(platform.admit(at: 11, gates: GateInputs()) == .deny(.budget, retryAt: Self.day))
    }

    /// Rule 8 on a hand-built day of `ios-bgtask`: an app that forgets to resubmit gets its
    /// first run (01:00) and no more: every later wake is denied `not_submitted`, though
    /// tokens and spacing would allow some, until the open at 23:00 submits the task again
    /// and the wake at 23:30 runs.
    @Test func forgottenResubmissionStopsLaterRunsUntilTheNextOpen() {
        var s = TestSupport.cleanScenario(opens: [23 * Clock.hour])
        s.platform.name = IOSBGTask.name
        s.app.resubmits = false
        let wakes = (1...22).map { SimTime($0) * Clock.hour } + [23 * Clock.hour + 30 * Clock.minute]
        let tally = ScheduledWakes.$times.withValue(wakes) {
            TestSupport.simulate(ScheduledWakes.self, IOSBGTask.self, scenario: s, feed: NewsFeed(times: []), days: 1)
        }
        #expect(tally[.runs] == 2)
        #expect(tally.denials(.notSubmitted) == 21, "02:00 to 22:00")
        #expect(tally[.denied] == 21)
        // The same day with an app that resubmits: the budget, not rule 8, limits it (one
        // open a day gives B = 2.5 ln 2 ≈ 1.7 runs a day: 01:00, then 15:00 when the next
        // token is whole).
        s.app.resubmits = true
        let resubmitting = ScheduledWakes.$times.withValue(wakes) {
            TestSupport.simulate(ScheduledWakes.self, IOSBGTask.self, scenario: s, feed: NewsFeed(times: []), days: 1)
        }
        #expect(resubmitting[.runs] == 2)
        #expect(resubmitting.denials(.notSubmitted) == 0)
        #expect(resubmitting.denials(.budget) == 21)
    }
}
