import Foundation
import Testing
@testable import BGBench

/// Freshness at an open (MODEL.md §5, §10 rules 7 and 9) on hand-built timelines: routine
/// opens at exact times, a hand-made feed, wakes at listed times on `unrestricted`, runs of
/// a fixed length. Every expected value is worked out by hand in the test.
@Suite struct FreshnessTests {
    typealias T = TestSupport

    /// One day (or `days`) of the clean scenario with these opens, items and wakes.
    static func day(
        opens: [SimTime], items: [SimTime], wakes: [SimTime] = [], runSeconds: Double = 0.001,
        days: Int = 1, tweak: (inout Scenario) -> Void = { _ in }
    ) -> (DeviceTally, LogHistogram) {
        var s = T.cleanScenario(opens: opens, runSeconds: runSeconds)
        tweak(&s)
        var histogram = LogHistogram()
        let tally = ScheduledWakes.$times.withValue(wakes) {
            T.simulate(
                ScheduledWakes.self, Unrestricted.self, scenario: s, feed: NewsFeed(times: items),
                days: days, histogram: &histogram)
        }
        return (tally, histogram)
    }

    static let h = Clock.hour, s = Clock.second

    /// Without background runs: the first open misses the item at 01:00 (staleness 2 h, age
    /// 3 h) and fetches in the foreground, so c = 03:00; the second misses 05:00 only.
    @Test func foregroundFetchResetsTheCache() {
        let (tally, histogram) = Self.day(
            opens: [3 * Self.h, 6 * Self.h, 7 * Self.h], items: [1 * Self.h, 2 * Self.h, 5 * Self.h])
        #expect(tally[.opens] == 3)
        #expect(tally[.freshOpens] == 1)  // 07:00: nothing since the fetch at 06:00
        #expect(tally[ticks: .staleness] == 2 * Self.h + 1 * Self.h + 0)
        #expect(tally[ticks: .age] == 3 * Self.h + 3 * Self.h + 1 * Self.h)
        #expect(tally[.foregroundFetches] == 2)
        #expect(tally[.runs] == 0)
        #expect(histogram.total == 3)
        #expect(histogram.zeros == 1)
    }

    /// (c, t] is closed on the right: an item published exactly at the open is missed, with
    /// staleness 0 but not fresh. One tick later it would not be; one tick earlier it is
    /// missed by one tick.
    @Test func itemAtTheOpenIsMissed() {
        let open = 8 * Self.h
        let (exact, exactHistogram) = Self.day(opens: [open], items: [open])
        #expect(exact[.opens] == 1)
        #expect(exact[.freshOpens] == 0)
        #expect(exact[ticks: .staleness] == 0)
        #expect(exact[ticks: .age] == open)
        #expect(exact[.foregroundFetches] == 1)
        #expect(exactHistogram.zeros == 1, "staleness 0 goes to the zero count")

        let (after, _) = Self.day(opens: [open], items: [open + 1])
        #expect(after[.freshOpens] == 1)
        #expect(after[ticks: .staleness] == 0)
        #expect(after[.foregroundFetches] == 0)

        let (before, _) = Self.day(opens: [open], items: [open - 1])
        #expect(before[.freshOpens] == 0)
        #expect(before[ticks: .staleness] == 1)
    }

    /// An item at c itself is held ((c, t] is open on the left): a run starting at the
    /// item's time holds it.
    @Test func itemAtRunStartIsHeld() {
        let (tally, _) = Self.day(opens: [11 * Self.h], items: [10 * Self.h], wakes: [10 * Self.h], runSeconds: 20)
        #expect(tally[.runs] == 1)
        #expect(tally.outcome(.newData) == 1)
        #expect(tally[.freshOpens] == 1)
        #expect(tally[ticks: .age] == 1 * Self.h)
    }

    /// A run that starts before an item and ends after it does not hold it (c := start):
    /// the run starts 10:00:00, the item is published 10:00:10, the run ends 10:00:20.
    @Test func runHoldsOnlyItemsUpToItsStart() {
        let (tally, _) = Self.day(
            opens: [11 * Self.h], items: [10 * Self.h + 10 * Self.s],
            wakes: [10 * Self.h], runSeconds: 20)
        #expect(tally[.runs] == 1)
        #expect(tally.outcome(.noData) == 1, "nothing was missing at the start")
        #expect(tally[.freshOpens] == 0)
        #expect(tally[ticks: .staleness] == 1 * Self.h - 10 * Self.s)
        #expect(tally[ticks: .age] == 1 * Self.h, "c is the run's start, not its end")
    }

    /// A successful run holds everything published up to its start: the open at 06:00 is
    /// fresh with age 2 h. An item after the run is missed.
    @Test func successfulRunUpdatesCache() {
        let (fresh, _) = Self.day(opens: [6 * Self.h], items: [1 * Self.h, 2 * Self.h], wakes: [4 * Self.h])
        #expect(fresh[.freshOpens] == 1)
        #expect(fresh[ticks: .age] == 2 * Self.h)
        #expect(fresh[.foregroundFetches] == 0)

        let (stale, _) = Self.day(opens: [6 * Self.h], items: [1 * Self.h, 5 * Self.h], wakes: [4 * Self.h])
        #expect(stale[.freshOpens] == 0)
        #expect(stale[ticks: .staleness] == 1 * Self.h)
        #expect(stale[ticks: .age] == 2 * Self.h)
    }

    /// A run in flight at the open has not yet updated the cache: the run starts 10:00:00
    /// and lasts 20 s; the open at 10:00:10 still sees c = 0 and fetches in the foreground
    /// (c := 10:00:10). When the run ends its start (10:00:00) is older than c, so c stays.
    @Test func runInFlightDoesNotUpdateYet() {
        let open1 = 10 * Self.h + 10 * Self.s
        let (tally, _) = Self.day(
            opens: [open1, 12 * Self.h], items: [9 * Self.h],
            wakes: [10 * Self.h], runSeconds: 20)
        #expect(tally[.runs] == 1)
        #expect(tally[.opens] == 2)
        #expect(tally[.freshOpens] == 1)
        #expect(tally[ticks: .staleness] == open1 - 9 * Self.h)
        #expect(
            tally[ticks: .age] == open1 + (12 * Self.h - open1), "c = max(c, start) keeps the later foreground fetch")
        #expect(tally[.foregroundFetches] == 1)
    }

    /// A run that ends exactly at the open updates the cache first (run end before open).
    @Test func runEndingAtTheOpenCounts() {
        let (tally, _) = Self.day(
            opens: [10 * Self.h + 20 * Self.s], items: [9 * Self.h],
            wakes: [10 * Self.h], runSeconds: 20)
        #expect(tally[.freshOpens] == 1)
        #expect(tally[ticks: .age] == 20 * Self.s)
        #expect(tally[.foregroundFetches] == 0)
    }

    /// Failed and killed runs update nothing.
    @Test func failedAndKilledRunsDoNotUpdate() {
        let (failed, _) = Self.day(opens: [6 * Self.h], items: [1 * Self.h], wakes: [4 * Self.h]) {
            $0.app.lognormalFailureProbability = 1
        }
        #expect(failed.outcome(.failed) == 1)
        #expect(failed[.freshOpens] == 0)
        #expect(failed[ticks: .staleness] == 5 * Self.h)
        #expect(failed[ticks: .age] == 6 * Self.h)

        let (killed, _) = Self.day(opens: [6 * Self.h], items: [1 * Self.h], wakes: [4 * Self.h], runSeconds: 40) {
            $0.app.handlesExpiration = false
        }
        #expect(killed.outcome(.killed) == 1)
        #expect(killed[.freshOpens] == 0)
        #expect(killed[ticks: .age] == 6 * Self.h)
    }

    /// A longer timeline over two days, every term worked out by hand.
    /// Items: 00:30, 07:10, 07:50, 12:00, day 1 01:00. Wakes: 07:00, 07:45, day 1 06:00.
    /// Opens every day at 07:30, 08:00, 13:00.
    ///
    /// Day 0: 07:00 run → c = 07:00 (holds 00:30). 07:30 open: misses 07:10 → staleness
    /// 20 min, age 30 min, fetch c = 07:30. 07:45 run → c = 07:45. 08:00 open: misses 07:50 →
    /// staleness 10 min, age 15 min, fetch c = 08:00. 13:00 open: misses 12:00 → 1 h, age
    /// 5 h, c = 13:00. Day 1: 06:00 run → c = day1 06:00. 07:30 open: fresh, age 1.5 h.
    /// 08:00: fresh, age 2 h. 13:00: fresh, age 7 h.
    @Test func twoDayTimeline() {
        let m = Clock.minute
        let items = [30 * m, 7 * Self.h + 10 * m, 7 * Self.h + 50 * m, 12 * Self.h, Clock.day + 1 * Self.h]
        let wakes = [7 * Self.h, 7 * Self.h + 45 * m, Clock.day + 6 * Self.h]
        let (tally, histogram) = Self.day(
            opens: [7 * Self.h + 30 * m, 8 * Self.h, 13 * Self.h], items: items,
            wakes: wakes, days: 2)
        #expect(tally[.opens] == 6)
        #expect(tally[.freshOpens] == 3)
        #expect(tally[.runs] == 3)
        #expect(tally[ticks: .staleness] == 20 * m + 10 * m + 1 * Self.h)
        #expect(tally[ticks: .age] == 30 * m + 15 * m + 5 * Self.h + 90 * m + 2 * Self.h + 7 * Self.h)
        #expect(tally[.foregroundFetches] == 3)
        #expect(histogram.total == 6)
        #expect(histogram.zeros == 3)
        // The histogram's median is a zero, its p95 the 1 h staleness (within 1 %).
        #expect(histogram.quantile(0.5) == 0)
        let p95 = histogram.quantile(0.95) ?? 0
        #expect(abs(p95 - 3600) / 3600 < 0.01)
    }

    /// Warm-up days are left out of every count, but the cache carries over: day 0 is
    /// warm-up; day 1's open sees c from day 0's run.
    @Test func warmupLeavesOutCountsButNotState() {
        let s = T.cleanScenario(opens: [8 * Self.h])
        let items = [2 * Self.h, Clock.day + 1 * Self.h]
        let tally = ScheduledWakes.$times.withValue([20 * Self.h]) {
            T.simulate(
                ScheduledWakes.self, Unrestricted.self, scenario: s, feed: NewsFeed(times: items),
                days: 2, warmupDays: 1)
        }
        #expect(tally[.opens] == 1)
        #expect(tally[.runs] == 0)
        #expect(tally[.requested] == 0)
        #expect(tally[.freshOpens] == 0)
        #expect(tally[ticks: .staleness] == 7 * Self.h)
        #expect(tally[ticks: .age] == 12 * Self.h, "c = day 0 20:00 from the warm-up run")
    }
}
