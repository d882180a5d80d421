import Foundation
import Testing
@testable import BGBench

/// `ios-fetch`'s usage predictor (MODEL.md §6.2, docs/platforms.md): the system learns the
/// hours the user opens the app in from the opens it has seen, and wakes the app in a
/// window before them. Hand-built call sequences and a hand-built timeline.
@Suite struct IOSFetchPredictorTests {
    static let minute = Clock.minute, hour = Clock.hour, day = Clock.day

    static func fetch(_ tweak: (inout Scenario) -> Void = { _ in }) -> IOSFetch {
        var s = Scenario()
        s.platform[IOSFetch.self].minimumInterval = .every(.minutes(15))
        tweak(&s)
        return IOSFetch(PlatformSetup(scenario: s, initialUsage: 1))
    }

    /// Three days of one open at 08:10: from then on the system wakes the app at 07:30
    /// (the 30 min lead before the 08:00 hour), and inside the window at once; before it
    /// has seen an open it wakes at once.
    @Test func wakesBeforeTheHabitualHour() {
        var platform = Self.fetch()
        #expect(platform.systemWake(after: 2 * Self.hour) == 2 * Self.hour)
        for d in 0..<3 {
            platform.opened(at: SimTime(d) * Self.day + 8 * Self.hour + 10 * Self.minute)
            platform.midnight(at: SimTime(d + 1) * Self.day, opens: 1)
        }
        let day3 = 3 * Self.day
        #expect(platform.systemWake(after: day3 + 2 * Self.hour) == day3 + 7 * Self.hour + 30 * Self.minute)
        #expect(
            platform.systemWake(after: day3 + 8 * Self.hour + 40 * Self.minute) == day3 + 8 * Self.hour + 40
                * Self.minute)
        // After the window: the next day's.
        #expect(platform.systemWake(after: day3 + 9 * Self.hour) == day3 + Self.day + 7 * Self.hour + 30 * Self.minute)
    }

    /// An hour is habitual at `habit_threshold` opens a day on the weighted average; below
    /// it only the busiest hour seen is. With the predictor off, the system wakes at once.
    @Test func thresholdAndBusiestHour() {
        var platform = Self.fetch()
        // One day: an open at 10:00 and two at 18:00, weight 1 − 2^(−1/7) each day.
        platform.opened(at: 10 * Self.hour)
        platform.opened(at: 18 * Self.hour)
        platform.opened(at: 18 * Self.hour + Self.minute)
        platform.midnight(at: Self.day, opens: 3)
        // Both hours are habitual (averages 1 and 2 opens a day ≥ 0.25).
        #expect(platform.habitualHours == (1 << 10 | 1 << 18))
        var strict = Self.fetch { $0.platform[IOSFetch.self].habitThreshold = 1.5 }
        strict.opened(at: 10 * Self.hour)
        strict.opened(at: 18 * Self.hour)
        strict.midnight(at: Self.day, opens: 2)
        // Neither reaches 1.5: the busiest (the first of equals) is habitual.
        #expect(strict.habitualHours == 1 << 10)
        var off = Self.fetch { $0.platform[IOSFetch.self].usagePredictor = false }
        off.opened(at: 10 * Self.hour)
        off.midnight(at: Self.day, opens: 1)
        #expect(off.habitualHours == 0)
        #expect(off.systemWake(after: Self.day + Self.hour) == Self.day + Self.hour)
    }

    /// A timeline (opens at 08:00, 12:00 and 20:00, a 1 h interval, 10 days): from the
    /// second day every run starts in a window, 30 min before to the end of an open's
    /// hour; without the predictor, runs fall outside them too.
    @Test func runsConcentrateBeforeHabitualOpens() {
        func starts(predictor: Bool) -> [SimTime] {
            var s = TestSupport.cleanScenario(opens: [8 * Self.hour, 12 * Self.hour, 20 * Self.hour])
            s.platform.name = IOSFetch.name
            s.platform[IOSFetch.self].minimumInterval = .every(.hours(1))
            s.platform[IOSFetch.self].usagePredictor = predictor
            let feed = NewsFeed(content: s.content, days: 10, seed: 1)
            let log = SimulationLog.record {
                _ = TestSupport.simulate(Recorded<FixedPolicy>.self, IOSFetch.self, scenario: s, feed: feed, days: 10)
            }
            return log.runStarts
        }
        func inWindow(_ t: SimTime) -> Bool {
            let h: SimTime = t % Self.day
            for open: SimTime in [8, 12, 20] {
                let start: SimTime = open * Self.hour - 30 * Self.minute
                let end: SimTime = (open + 1) * Self.hour
                if h >= start && h < end { return true }
            }
            return false
        }
        let learned = starts(predictor: true).filter { $0 >= Self.day }
        #expect(learned.count >= 20, "\(learned.count) runs from day 1")
        #expect(
            learned.allSatisfy(inWindow), "\(learned.filter { !inWindow($0) }.map { Double($0 % Self.day) / 3.6e9 })")
        let spread = starts(predictor: false).filter { $0 >= Self.day }
        #expect(spread.contains { !inWindow($0) })
    }
}
