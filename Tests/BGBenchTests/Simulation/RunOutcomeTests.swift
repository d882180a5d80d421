import Foundation
import Testing
@testable import BGBench

/// How runs end (MODEL.md §6, §6.4 rules 5–8): expiry and kills at the runtime limit,
/// failures offline, honest and always-newData statuses, and an app that forgets to
/// resubmit.
@Suite struct RunOutcomeTests {
    typealias T = TestSupport
    static let h = Clock.hour, s = Clock.second

    /// The clean scenario with rule 6's request-based task (failure and hang as given) on
    /// `platform`, with an ios-bgtask budget far too large to bind (B ≈ 6,900 a day, so even
    /// at the floor m = 0.05 the capacity is about 170 tokens).
    static func requestsScenario(
        opens: [SimTime] = [23 * Clock.hour], failure: Double = 0, hang: Double = 0,
        platform: String = Unrestricted.name
    ) -> Scenario {
        var s = T.cleanScenario(opens: opens)
        s.app.task = .requests
        s.app.failureProbability = failure
        s.app.hangProbability = hang
        s.platform.name = platform
        s.platform[IOSBGTask.self].budgetScale = 10_000
        s.platform[IOSBGTask.self].budgetCap = 10_000
        return s
    }

    /// Hourly wakes from 01:00 to `last` o'clock on each of `days` days.
    static func hourly(from first: Int = 1, to last: Int = 6, days: Int = 1) -> [SimTime] {
        (0..<days).flatMap { d in (first...last).map { SimTime(d) * Clock.day + SimTime($0) * Clock.hour } }
    }

    static func run<P: PlatformRules>(
        _ scenario: Scenario, _: P.Type, wakes: [SimTime], items: [SimTime] = [],
        days: Int = 1
    ) -> (DeviceTally, SimulationLog) {
        var tally = DeviceTally()
        let log = SimulationLog.record {
            tally = ScheduledWakes.$times.withValue(wakes) {
                T.simulate(ScheduledWakes.self, P.self, scenario: scenario, feed: NewsFeed(times: items), days: days)
            }
        }
        return (tally, log)
    }

    // MARK: Rule 7: expired vs killed

    /// The task alone: a request that hangs never returns, so the run reaches the limit
    /// (launch included) and is expired if the app handles expiration, killed if not; its
    /// radio is active for the limit minus the launch.
    @Test(arguments: [true, false], NetworkKind.allCases.filter { $0 != .offline })
    func hungTaskLastsExactlyTheLimit(handlesExpiration: Bool, network: NetworkKind) {
        var s = Scenario()
        s.app.hangProbability = 1
        s.app.failureProbability = 0
        s.app.handlesExpiration = handlesExpiration
        let limit = 30 * Self.s
        var task = AppTask(scenario: s, runtimeLimit: limit, rng: RandomStream(seed: 3, device: 0, purpose: .task))
        // Radio energy of 29.7 s active (the limit minus the 0.3 s launch), written out from
        // MODEL.md §8's defaults, not through EnergyCosts: Wi-Fi 29.7 × 0.4 W + 0.24 s tail ×
        // 0.4 W; LTE 0.26 s promotion × 1.2 W + 29.7 × 1.06 W + 11.6 s tail × 1.06 W; 5G
        // (NSA) 2.5 × LTE.
        let radio = [NetworkKind.wifi: 11.976, .lte: 44.09, .nr5g: 110.225][network]!
        for _ in 0..<200 {
            let run = task.run(on: network, newItems: 3, newBytes: 15_000, itemBytes: 5000)
            #expect(run.status == (handlesExpiration ? .expired : .killed))
            #expect(run.duration == limit)
            #expect(!run.updatesCache)
            #expect(abs(run.energy - (0.5 + radio)) < 1e-9, "\(network): \(run.energy) J")
        }
    }

    /// In the simulation, on both platforms: every run ends expired (or killed) exactly at
    /// start + 30 s, and nothing else.
    @Test(arguments: [true, false])
    func everyRunHangsToTheLimit(handlesExpiration: Bool) {
        var s = Self.requestsScenario(hang: 1)
        s.app.handlesExpiration = handlesExpiration
        let expected: RunStatus = handlesExpiration ? .expired : .killed
        for platform in [Unrestricted.name, IOSBGTask.name] {
            s.platform.name = platform
            let (tally, log) =
                platform == Unrestricted.name
                ? Self.run(s, Unrestricted.self, wakes: Self.hourly())
                : Self.run(s, LoggedIOSBGTask.self, wakes: Self.hourly())
            #expect(tally[.runs] == log.runStarts.count)
            #expect(tally[.runs] > 0)
            #expect(tally.outcome(expected) == tally[.runs], "\(platform)")
            #expect(log.runEnds.allSatisfy { $0.1 == expected })
            let durations = zip(log.runStarts, log.runEnds).map { $1.0 - $0 }
            #expect(durations.allSatisfy { $0 == 30 * Self.s }, "\(platform): \(durations)")
        }
    }

    /// On ios-bgtask each kill halves m and each handled expiry takes ×0.8 (rule 5), and
    /// each counts as a throttle event.
    @Test(arguments: [(true, 0.8), (false, 0.5)])
    func expiryAndKillPenalties(handlesExpiration: Bool, factor: Double) {
        var s = Self.requestsScenario(hang: 1, platform: IOSBGTask.name)
        s.app.handlesExpiration = handlesExpiration
        let (tally, log) = Self.run(s, LoggedIOSBGTask.self, wakes: Self.hourly(to: 4))
        #expect(tally[.runs] == 4)
        #expect(tally[.throttleEvents] == 4)
        let expected = (1...4).map { max(0.05, pow(factor, Double($0))) }
        #expect(zip(log.multipliers, expected).allSatisfy { abs($0 - $1) < 1e-12 }, "\(log.multipliers)")
        #expect(log.multipliers.count == 4)
    }

    // MARK: Rule 6: offline

    /// Offline at the start (spells every ~90 s on average, each a month long): the
    /// requests fail at once, the run lasts the launch only and costs only the launch.
    @Test func offlineRunsFailAtOnce() {
        var s = Self.requestsScenario(opens: [12 * Self.h])
        s.network.offlineSpellsPerDay = 1000
        s.network.offlineMean = .days(30)
        let (tally, log) = Self.run(
            s, Unrestricted.self, wakes: Self.hourly(), items: [30 * Clock.minute, 11 * Self.h])
        #expect(tally[.runs] == 6)
        #expect(tally.outcome(.failed) == 6)
        let durations = zip(log.runStarts, log.runEnds).map { $1.0 - $0 }
        #expect(durations.allSatisfy { $0 == Clock.ticks(seconds: 0.3) }, "\(durations)")
        #expect(abs(tally[amount: .backgroundEnergy] - 6 * 0.5) < 1e-9)
        #expect(tally[amount: .wifiBytes] == 0 && tally[amount: .cellularBytes] == 0)
        // The stale open at 12:00 finds no network either: no foreground fetch.
        #expect(tally[.opens] == 1)
        #expect(tally[.freshOpens] == 0)
        #expect(tally[.foregroundFailures] == 1)
        #expect(tally[.foregroundFetches] == 0)
        #expect(tally[ticks: .age] == 12 * Self.h)
    }

    /// Requests that fail (probability 1) end the run `failed` before the limit.
    @Test func failingRequestsEndFailed() {
        let s = Self.requestsScenario(failure: 1, hang: 1)
        let (tally, log) = Self.run(s, Unrestricted.self, wakes: Self.hourly())
        #expect(tally.outcome(.failed) == tally[.runs])
        #expect(tally[.runs] == 6)
        let durations = zip(log.runStarts, log.runEnds).map { $1.0 - $0 }
        #expect(durations.allSatisfy { $0 > Clock.ticks(seconds: 0.3) && $0 < 30 * Self.s }, "failure wins over hang")
    }

    // MARK: Rule 5: honest status vs always newData

    /// ios-bgtask's multiplier after each run, honest vs always-newData, on a feed with an
    /// item before every other wake. Honest: newData with content ×1.05 (capped at 1),
    /// noData unchanged → m stays 1. Always newData: content ×1.05, no content ×0.9; at
    /// midnight ×1.1 (capped at 1).
    @Test func alwaysNewDataIsPenalisedWhenNothingIsNew() {
        // Wakes at 01:00...06:00 on two days; items just before 01:00, 03:00, 05:00.
        let wakes = Self.hourly(days: 2)
        let items = [1, 3, 5].map { SimTime($0) * Self.h - Clock.minute }
        var s = Self.requestsScenario(platform: IOSBGTask.name)

        let (honest, honestLog) = Self.run(s, LoggedIOSBGTask.self, wakes: wakes, items: items, days: 2)
        #expect(honest[.runs] == 12)
        #expect(honest.outcome(.newData) == 3)
        #expect(honest.outcome(.noData) == 9)
        #expect(honestLog.multipliers == Array(repeating: 1.0, count: 12))
        #expect(honest[.throttleEvents] == 0)

        s.app.status = .alwaysNewData
        let (claims, claimsLog) = Self.run(s, LoggedIOSBGTask.self, wakes: wakes, items: items, days: 2)
        #expect(claims[.runs] == 12)
        #expect(claims.outcome(.newData) == 12)
        var m = 1.0
        var expected: [Double] = []
        for day in 0..<2 {
            if day == 1 { m = min(1, m * 1.1) }
            for hour in 1...6 {
                let content = day == 0 && hour % 2 == 1
                m = min(1, m * (content ? 1.05 : 0.9))
                expected.append(m)
            }
        }
        #expect(
            zip(claimsLog.multipliers, expected).allSatisfy { abs($0 - $1) < 1e-12 },
            "\(claimsLog.multipliers) vs \(expected)")
        #expect(claims[.throttleEvents] == 9)
    }

    /// On a long run, always-newData without content gets fewer runs than honest (the
    /// budget shrinks with m), on the same wakes.
    @Test func alwaysNewDataCostsRuns() {
        // 10 days of wakes every 30 min; u = 1 open a day.
        let wakes = (0..<(10 * 48)).map { SimTime($0) * 30 * Clock.minute + Clock.minute }
        var s = Self.requestsScenario(platform: IOSBGTask.name)
        s.platform[IOSBGTask.self].budgetScale = 2.5
        s.platform[IOSBGTask.self].budgetCap = 12
        let (honest, _) = Self.run(s, IOSBGTask.self, wakes: wakes, days: 10)
        s.app.status = .alwaysNewData
        let (claims, _) = Self.run(s, IOSBGTask.self, wakes: wakes, days: 10)
        #expect(honest.outcome(.noData) == honest[.runs])
        #expect(claims.outcome(.newData) == claims[.runs])
        #expect(claims[.runs] < honest[.runs])
        #expect(claims.denials(.budget) > honest.denials(.budget))
        #expect(claims[.throttleEvents] == claims[.runs])
    }

    // MARK: Rule 8: resubmission

    /// An app that does not resubmit gets one run, then `not_submitted` denials until the
    /// next open (08:00 daily), where it submits again; an app that resubmits runs every
    /// wake.
    @Test func forgetfulAppRunsOncePerOpen() {
        let wakes = [1, 2, 3, 9, 10, 11].map { SimTime($0) * Self.h } + [Clock.day + Self.h, Clock.day + 9 * Self.h]
        var s = Self.requestsScenario(opens: [8 * Self.h], platform: IOSBGTask.name)
        s.app.resubmits = false
        let (tally, log) = Self.run(s, IOSBGTask.self, wakes: wakes, days: 2)
        #expect(log.runStarts == [1 * Self.h, 9 * Self.h, Clock.day + 9 * Self.h])
        #expect(log.denials.map(\.0) == [2, 3, 10, 11].map { SimTime($0) * Self.h } + [Clock.day + Self.h])
        #expect(log.denials.allSatisfy { $0.1 == .notSubmitted && $0.2 == nil })
        #expect(tally.denials(.notSubmitted) == 5)
        #expect(tally[.denied] == 5)

        s.app.resubmits = true
        let (always, _) = Self.run(s, IOSBGTask.self, wakes: wakes, days: 2)
        #expect(always[.runs] == wakes.count)
        #expect(always[.denied] == 0)
    }

    /// `unrestricted` has no resubmission gate (rule 10: rules 1, 3, 6, 7 only).
    @Test func unrestrictedIgnoresResubmission() {
        var s = Self.requestsScenario(opens: [8 * Self.h])
        s.app.resubmits = false
        let (tally, _) = Self.run(s, Unrestricted.self, wakes: Self.hourly())
        #expect(tally[.runs] == 6)
        #expect(tally[.denied] == 0)
    }

    // MARK: Other gates in the simulation

    /// Sessions of exactly 10 min (a Pareto tail of one value); wakes inside a session are
    /// denied `foreground` on ios-bgtask, and after a force-quit every wake is denied
    /// `force_quit` until the next open.
    @Test func foregroundAndForceQuitGates() {
        var s = Self.requestsScenario(opens: [8 * Self.h, 12 * Self.h], platform: IOSBGTask.name)
        s.user.sessionTailShare = 1
        s.user.sessionTailMin = .minutes(10)
        s.user.sessionTailAlpha = 100
        s.user.sessionMax = .minutes(10)
        let m = Clock.minute
        let wakes = [8 * Self.h + 5 * m, 8 * Self.h + 30 * m, 9 * Self.h, 12 * Self.h + 9 * m, 12 * Self.h + 11 * m]
        let (tally, log) = Self.run(s, IOSBGTask.self, wakes: wakes)
        #expect(tally.denials(.foreground) == 2)
        #expect(log.denials.filter { $0.1 == .foreground }.map(\.0) == [8 * Self.h + 5 * m, 12 * Self.h + 9 * m])
        #expect(tally[.runs] == 3)

        s.user.forceQuitProbability = 1
        let (quit, quitLog) = Self.run(s, IOSBGTask.self, wakes: wakes)
        #expect(quit.denials(.foreground) == 2)
        #expect(quit.denials(.forceQuit) == 3)
        #expect(quit[.runs] == 0)
        #expect(
            quitLog.denials.filter { $0.1 == .forceQuit }.map(\.0) == [
                8 * Self.h + 30 * m, 9 * Self.h, 12 * Self.h + 11 * m,
            ])
    }

    /// A wake while a run is still in flight is denied `busy` (one run of a task at a time).
    @Test func wakeDuringRunIsBusy() {
        let s = T.cleanScenario(opens: [23 * Self.h], runSeconds: 20)
        let (tally, log) = Self.run(s, Unrestricted.self, wakes: [Self.h, Self.h + 5 * Self.s, Self.h + 20 * Self.s])
        #expect(tally[.runs] == 2, "the run ends at 01:00:20, before the wake at the same time")
        #expect(tally.denials(.busy) == 1)
        #expect(log.denials.map(\.0) == [Self.h + 5 * Self.s])
    }

    /// R1 rule 5: an attempt at exactly 00:00 belongs to the new day (midnight runs first),
    /// so with a cap of one run a day the attempts at 23:00 and at 00:00 both run, and a
    /// second attempt on day 1 is denied `budget` with a retry at the next midnight.
    @Test func attemptAtMidnightBelongsToTheNewDay() {
        var s = T.cleanScenario(opens: [12 * Self.h])
        s.platform[Unrestricted.self].dailyCap = 1
        let (tally, log) = Self.run(s, Unrestricted.self, wakes: [23 * Self.h, Clock.day, Clock.day + Self.h], days: 2)
        #expect(log.runStarts == [23 * Self.h, Clock.day])
        #expect(log.denials.count == 1)
        #expect(log.denials.first?.1 == .budget && log.denials.first?.2 == 2 * Clock.day)
        #expect(tally[.runs] == 2 && tally.denials(.budget) == 1)
    }

    /// A run still in flight at the horizon is counted (at its start) and its update never
    /// lands; nothing at or after the horizon happens.
    @Test func runInFlightAtHorizon() {
        let s = T.cleanScenario(opens: [12 * Self.h], runSeconds: 20)
        let (tally, log) = Self.run(
            s, Unrestricted.self, wakes: [Clock.day - 10 * Self.s, Clock.day + Self.h],
            items: [13 * Self.h])
        #expect(tally[.runs] == 1)
        #expect(tally.outcome(.newData) == 1)
        #expect(log.runEnds.isEmpty)
        #expect(tally[.pending] == 1, "the wake after the horizon is still pending")
        #expect(tally[.requested] == 2)
    }

    // MARK: Warm-up (MODEL.md §9: left out of every metric)

    /// Throttle events are counted like runs: those of warm-up days are left out. Every run
    /// hangs and is penalised; with day 0 as warm-up only day 1's six count.
    @Test func warmupLeavesOutThrottleEvents() {
        let s = Self.requestsScenario(hang: 1, platform: IOSBGTask.name)
        let wakes = Self.hourly(days: 2)
        var tally = DeviceTally()
        _ = SimulationLog.record {
            tally = ScheduledWakes.$times.withValue(wakes) {
                T.simulate(
                    ScheduledWakes.self, LoggedIOSBGTask.self, scenario: s, feed: NewsFeed(times: []),
                    days: 2, warmupDays: 1)
            }
        }
        #expect(tally[.runs] == 6)
        #expect(tally.outcome(.expired) == 6)
        #expect(tally[.throttleEvents] == 6, "throttle events of the warm-up day leaked into the metrics")
    }

    /// Time at 0 % battery is counted from the end of the warm-up: a phone that starts at
    /// 1 % and never charges is empty within hours of day 0 and for all of day 1, so with
    /// day 0 as warm-up the counted time is one day (to a tick per battery update).
    @Test func warmupLeavesOutZeroBatteryTime() {
        var s = T.cleanScenario(opens: [12 * Self.h])
        s.device.batteryEnabled = true
        s.device.initialLevel = 0.01
        s.device.overnightChargeProbability = 0
        s.device.topUpProbability = 0
        let full = T.simulate(NoWakePolicy.self, Unrestricted.self, scenario: s, feed: NewsFeed(times: []), days: 2)
        #expect(full[ticks: .zeroBattery] > Clock.day && full[ticks: .zeroBattery] < 2 * Clock.day)
        let counted = T.simulate(
            NoWakePolicy.self, Unrestricted.self, scenario: s, feed: NewsFeed(times: []),
            days: 2, warmupDays: 1)
        #expect(
            abs(counted[ticks: .zeroBattery] - Clock.day) < Clock.millisecond,
            "zero-battery time \(Clock.seconds(counted[ticks: .zeroBattery])) s, expected one day")
    }
}
