import Foundation
import Testing
@testable import BGBench

/// `ios-fetch` rule by rule (docs/platforms.md), on hand-built sequences of calls and
/// hand-built timelines.
@Suite struct IOSFetchTests {
    static let second = Clock.second, minute = Clock.minute, hour = Clock.hour, day = Clock.day

    static func fetch(usage: Double, interval: FetchInterval, _ tweak: (inout Scenario) -> Void = { _ in }) -> IOSFetch
    {
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
                let tally = TestSupport.simulate(
                    Recorded<FixedPolicy>.self, IOSFetch.self, scenario: s, feed: feed, days: 3)
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
        let s = Self.clean(.every(.minutes(15))) {
            $0.platform[IOSBGTask.self].budgetCap = 1000; $0.platform[IOSBGTask.self].budgetScale = 1000
        }
        let feed = NewsFeed(content: s.content, days: 1, seed: 1)
        let log = SimulationLog.record {
            let tally = TestSupport.simulate(
                Recorded<FixedPolicy>.self, IOSFetch.self, scenario: s, feed: feed, days: 1)
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
        let s = Self.clean(.every(.hours(1))) {
            $0.app.resubmits = resubmits; $0.platform[IOSFetch.self].usagePredictor = false
        }
        let feed = NewsFeed(content: s.content, days: days, seed: 1)
        let tally = TestSupport.simulate(FixedPolicy.self, IOSFetch.self, scenario: s, feed: feed, days: days)
        let b = 2.5 * log(4.0)
        let budget = b / 2 + b * Double(days)
        #expect(
            Double(tally[.runs]) <= budget && Double(tally[.runs]) > budget - 2,
            "runs \(tally[.runs]), bucket \(budget)")
        #expect(tally.denials(.notSubmitted) == 0)
        #expect(tally[.requested] == tally[.runs] + tally[.denied])
    }
}
