import Testing
@testable import BGBench

/// The platform-facing rules the learning policies share (`WakeGuard`, MODEL.md §7,
/// docs/policies.md) on a hand-built timeline: every expected time is written out from the
/// rules, never computed by the guard.
@Suite struct WakeGuardTests {
    let m = Clock.minute, h = Clock.hour

    /// 30 min after a failed run, 2 h after an expired or killed one, doubled for each
    /// further failure in a row, at most a day; a run with or without data clears the
    /// streak; the next wake is never within `min_gap` of the last start.
    @Test func backoffsAfterFailuresAndKills() {
        var g = WakeGuard(minGap: .minutes(10), failureBackoff: .minutes(30), killBackoff: .hours(2))
        let t0 = 10 * h
        // Killed at 10:05: nothing before 12:05 (the kill wait, not the failure wait).
        g.runStarted(at: t0)
        g.runEnded(.killed, at: t0 + 5 * m)
        #expect(g.earliest(from: t0 + 5 * m, now: t0 + 5 * m) == t0 + 2 * h + 5 * m)
        // Expired at 13:10, the second in a row: 4 h.
        g.runStarted(at: t0 + 3 * h)
        g.runEnded(.expired, at: t0 + 3 * h + 10 * m)
        #expect(g.earliest(from: 0, now: t0 + 3 * h + 10 * m) == t0 + 7 * h + 10 * m)
        // A run without new data clears the streak: only the 10 min gap after its start.
        g.runStarted(at: t0 + 8 * h)
        g.runEnded(.noData, at: t0 + 8 * h + 1 * m)
        #expect(g.earliest(from: 0, now: t0 + 8 * h + 1 * m) == t0 + 8 * h + 10 * m)
        // A failed run: 30 min; an expired one right after: the kill wait doubled, 4 h.
        g.runStarted(at: t0 + 9 * h)
        g.runEnded(.failed, at: t0 + 9 * h + 1 * m)
        #expect(g.earliest(from: 0, now: t0 + 9 * h + 1 * m) == t0 + 9 * h + 31 * m)
        g.runStarted(at: t0 + 10 * h)
        g.runEnded(.expired, at: t0 + 10 * h + 1 * m)
        #expect(g.earliest(from: 0, now: t0 + 10 * h + 1 * m) == t0 + 14 * h + 1 * m)
        // New data clears it again; then seven failures in a row: 30 min × 2⁶ = 32 h,
        // capped at a day.
        g.runEnded(.newData, at: t0 + 15 * h)
        var t = t0 + 15 * h
        for _ in 0..<7 {
            t += Clock.day
            g.runStarted(at: t)
            g.runEnded(.failed, at: t)
        }
        #expect(g.earliest(from: 0, now: t) == t + Clock.day)
    }

    /// A planned time later than every hold is kept as it is.
    @Test func aLaterPlanIsKept() {
        var g = WakeGuard(minGap: .minutes(10), failureBackoff: .minutes(30), killBackoff: .hours(2))
        g.runStarted(at: 0)
        g.runEnded(.killed, at: 1 * m)
        #expect(g.earliest(from: 5 * h, now: 1 * m) == 5 * h)
        #expect(g.earliest(from: 1 * h, now: 1 * m) == 2 * h + 1 * m)
    }
}
