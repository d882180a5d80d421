import Foundation

/// `prophet` (issue 11): the learnable bound. It is given each device's true open intensity
/// (``OpenIntensity``: the rates the user model draws the opens from, not the opens) and
/// knows the feed's intensity from the scenario (items per day and hourly weights, not the
/// items), and plans its runs to maximise the expected number of fresh opens (MODEL.md §5:
/// an open is fresh when no item was published since the app's last refresh, a run's start
/// or an earlier open, which fetches in the foreground when stale) within `runs_per_day`
/// (its aggressiveness knob) and what the platform admits.
///
/// What it optimises. Time is cut into 5 min slots over a week (Monday first); in slot k the
/// user makes λ_k primary opens and the feed publishes μ_k items, as Poisson processes. With
/// R the chance that the app holds every item published so far (1 just after a run; opens
/// refresh too), R' = R·e^(−a) + λ·(1 − e^(−a))/a over a slot, a = λ + μ. A run at the
/// start of slot w, between runs at a and b, adds exactly (1 − R^a_w)·T_w expected fresh
/// opens, R^a the chance from a and T_w = Σ_{k=w}^{b−1} λ_k·(1 − e^(−a_k))/a_k·
/// Π_{m=w}^{k−1} e^(−a_m): the chance the app is stale at w times the expected fresh first
/// opens the run serves. The planner adds runs greedily, the largest gain first, at least
/// `min_gap` apart, while a gain reaches `min_gain` and the runs fit a token bucket that
/// fills at K runs a day and holds K/2 (the shape of `ios-bgtask`'s budget, MODEL.md §6.4
/// rule 4). Greedy placement is not the optimum of this objective in general; the objective
/// leaves reopens, run failures, energy per network and the platform's other gates out:
/// prophet is a strong reference, not a proof of optimality.
///
/// At run time: K starts at `runs_per_day`; after a day with a `budget` or `quota` denial
/// it becomes min(K, the runs started a day over the last 7 days, rounded) (at least 1);
/// after 7 days in a row without one it grows by 1 up to `runs_per_day`: what the platform
/// admits, learned from its answers like any policy. (Cutting to min(K − 1, that day's runs)
/// and growing after every calm day made K swing between 3 and 4 on routine users.) Each midnight it takes that day's runs from the week's plan for
/// K (planned once per K and drift phase, when first needed) and asks for them in turn.
/// After an open it skips the next planned run when the chance that an item arrives in
/// between is below `skip_below`. After a denial with a `retryAt` it asks at `retryAt` if
/// that comes before its next planned run, else keeps to the plan; after `foreground` or
/// `busy` it asks again 30 s later; after a state gate it waits for a state change or an
/// open. It never sees an open or an item before it happens, nor a run's outcome.
public struct ProphetPolicy: WakePolicy {
    public static let name = "prophet"
    public static let summary =
        "bound: knows each user's true open intensity and the feed's (not the draws); plans runs for the most expected fresh opens"
    public static let knowledge = PolicyKnowledge.intensity
    public static let callbacks: PolicyCallbacks = .all.subtracting(.runEnded)

    static let slotsPerDay = 288
    static let slot = Clock.day / SimTime(slotsPerDay)
    static let capacity = 96

    let p: ProphetParameters
    /// Expected primary opens in each slot of the week: before the drift, and after it.
    let opens: [[Double]]
    /// Expected items in each slot of the week.
    let items: [Double]
    let minGap: Int
    let driftStart: SimTime
    /// Expected items from the start of the week to each slot's start (7 · 288 + 1 values).
    let itemsBefore: [Double]
    /// The weekly plans made so far, by drift phase and runs a day (`phase · 65 + K`):
    /// the planned slots of the week, ascending; planned when first needed (at a midnight).
    var plans: [[Int32]?]
    /// The runs a day it plans for: its estimate of what the platform admits, at most
    /// `runs_per_day`.
    var runsPerDay: Int
    /// Today's planned run times, ascending.
    var today = InlineArray<96, SimTime>(repeating: Clock.never)
    var todayCount = 0
    /// The pending request's time, or `Clock.never`.
    var pending = Clock.never
    var waiting = false
    var runsToday = 0
    var limitedToday = false
    /// Runs started on each of the last 7 days (a ring, by day index mod 7) and how many
    /// days it holds so far: what the platform admitted.
    var recentRuns = InlineArray<7, Int32>(repeating: 0)
    var recentDays = 0
    /// Days in a row without a `budget` or `quota` denial.
    var calmDays = 0

    public init(_ context: PolicyContext) {
        p = context.scenario.policies[ProphetPolicy.self]
        runsPerDay = p.runsPerDay
        let s = context.scenario, n = 7 * Self.slotsPerDay
        items = Self.itemIntensity(s.content, slotsPerDay: Self.slotsPerDay)
        var cumulative = [Double](repeating: 0, count: n + 1)
        for k in 0..<n { cumulative[k + 1] = cumulative[k] + items[k] }
        itemsBefore = cumulative
        let intensity = context.intensity
        let drifts = intensity.driftStart < context.horizon && intensity.driftShift != 0
        driftStart = drifts ? intensity.driftStart : Clock.never
        minGap = Int((p.minGap.ticks + Self.slot - 1) / Self.slot)
        opens = (drifts ? [false, true] : [false]).map {
            intensity.weeklyOpens(slotsPerDay: Self.slotsPerDay, drifted: $0)
        }
        plans = [[Int32]?](repeating: nil, count: 2 * 65)
    }

    /// Expected items (news, catalog, sync) or conversations (messages: a burst brings
    /// several, but the first makes the app stale) in each slot of a week.
    static func itemIntensity(_ c: ContentModel, slotsPerDay: Int) -> [Double] {
        let total = c.hourlyWeights.reduce(0, +), perSlotOfHour = Double(slotsPerDay) / 24
        let perDay = c.kind == .messages ? c.itemsPerDay / max(1, c.messages.burstMean) : c.itemsPerDay
        return (0..<(7 * slotsPerDay)).map { k in
            total > 0 ? perDay * c.hourlyWeights[(k % slotsPerDay) * 24 / slotsPerDay] / total / perSlotOfHour : 0
        }
    }

    // MARK: The day's plan

    /// Midnight at t (or the start): takes the day's planned runs from the week's plan for
    /// the runs a day, planning that week first if it is new (once per phase and K).
    mutating func planDay(at t: SimTime) {
        let day = Clock.dayIndex(t), weekday = day % 7
        let phase = t >= driftStart ? 1 : 0, key = phase * 65 + runsPerDay
        if plans[key] == nil {
            let k = Double(runsPerDay)
            plans[key] = ProphetPlanner.plan(
                opens: opens[phase], items: items, slotsPerDay: Self.slotsPerDay,
                runsPerDay: k, burst: max(1, k / 2), minGap: minGap, minGain: p.minGain
            )
            .map { Int32($0.slot) }.sorted()
        }
        let weekStart = t - SimTime(weekday) * Clock.day
        todayCount = 0
        for slot in plans[key]! where Int(slot) / Self.slotsPerDay == weekday && todayCount < Self.capacity {
            today[todayCount] = weekStart + SimTime(slot) * Self.slot
            todayCount += 1
        }
    }

    /// The first planned run after t, or `Clock.never`.
    func planned(after t: SimTime) -> SimTime {
        for i in 0..<todayCount where today[i] > t { return today[i] }
        return Clock.never
    }

    /// Asks for a wake at `when` (nothing when it is already pending; a withdrawal for never).
    mutating func ask(_ when: SimTime) -> WakeDecision {
        if when == pending { return .keep }
        pending = when
        return when == Clock.never ? .cancel : .request(at: when)
    }

    /// Expected items published in (t0, t1], from the feed's intensity.
    func expectedItems(from t0: SimTime, to t1: SimTime) -> Double {
        func before(_ t: SimTime) -> Double {
            let n = itemsBefore.count - 1, week = itemsBefore[n]
            let k = Int(t / Self.slot), inSlot = Double(t % Self.slot) / Double(Self.slot)
            let here = itemsBefore[k % n + 1] - itemsBefore[k % n]
            return Double(k / n) * week + itemsBefore[k % n] + inSlot * here
        }
        return t1 > t0 ? before(t1) - before(t0) : 0
    }

    // MARK: Callbacks

    public mutating func start(_ view: DeviceView) -> WakeDecision {
        planDay(at: 0)
        return ask(planned(after: -1))
    }

    public mutating func midnight(_ view: DeviceView) -> WakeDecision {
        recentRuns[recentDays % 7] = Int32(clamping: runsToday)
        recentDays += 1
        if limitedToday {
            // What the platform admitted a day, over the last week, rounded: a stray denial
            // on a day of K runs keeps K.
            var sum = 0
            for i in 0..<min(7, recentDays) { sum += Int(recentRuns[i]) }
            let admitted = Int((Double(sum) / Double(min(7, recentDays))).rounded())
            runsPerDay = max(1, min(runsPerDay, admitted))
            calmDays = 0
        } else {
            calmDays += 1
            if runsPerDay < p.runsPerDay && calmDays >= 7 { runsPerDay += 1; calmDays = 0 }
        }
        runsToday = 0
        limitedToday = false
        planDay(at: view.now)
        if pending != Clock.never && pending > view.now && pending < planned(after: view.now - 1) { return .keep }
        return ask(planned(after: view.now - 1))
    }

    public mutating func opened(_ view: DeviceView) -> WakeDecision {
        let now = view.now
        if waiting { waiting = false; return ask(planned(after: now)) }
        // The open refreshed the app: a run soon after it is likely to find nothing new.
        guard pending != Clock.never, pending > now else { return .keep }
        if 1 - exp(-expectedItems(from: now, to: pending)) < p.skipBelow {
            return ask(planned(after: pending))
        }
        return .keep
    }

    public mutating func runStarted(_ view: DeviceView) -> WakeDecision {
        runsToday += 1
        pending = Clock.never
        return ask(planned(after: view.now))
    }

    public mutating func denied(_ reason: DenialReason, retryAt: SimTime?, _ view: DeviceView) -> WakeDecision {
        let now = view.now
        pending = Clock.never
        if reason == .budget || reason == .quota { limitedToday = true }
        let next = planned(after: now)
        if let retryAt {
            // The platform can run one at r: then, if no planned run comes first; else the
            // first planned run from r on (a token kept for it is not lost), or r itself when
            // none is left today (the next midnight plans again).
            let r = max(retryAt, now + 1), after = planned(after: r - 1)
            if r < next || after == Clock.never { return ask(r < Clock.startOfDay(now) + Clock.day ? r : Clock.never) }
            return ask(after)
        }
        if reason == .foreground || reason == .busy { return ask(min(next, now + 30 * Clock.second)) }
        waiting = true
        return .keep
    }

    public mutating func stateChanged(_ view: DeviceView) -> WakeDecision {
        guard waiting else { return .keep }
        waiting = false
        return ask(view.now + 1)
    }
}

/// `prophet`'s planner: greedy placement of runs over a cyclic week of slots, given the
/// expected opens and items of each slot (see ``ProphetPolicy`` for the objective).
enum ProphetPlanner {
    /// The chosen slots in the order chosen, each with the expected fresh opens it added.
    /// - Parameters:
    ///   - opens: expected primary opens in each slot of the week (n = 7 · slotsPerDay).
    ///   - items: expected items (or first items of a burst) in each slot.
    ///   - runsPerDay, burst: the runs must fit a token bucket that fills at `runsPerDay`
    ///     a day up to `burst` tokens, full at the start, a token a run (the shape of
    ///     `ios-bgtask`'s budget, MODEL.md §6.4 rule 4, at its own rate).
    ///   - minGap: runs at least this many slots apart.
    ///   - minGain: a run must add at least this many expected fresh opens.
    static func plan(
        opens lambda: [Double], items mu: [Double], slotsPerDay: Int, runsPerDay: Double,
        burst: Double, minGap: Int, minGain: Double
    ) -> [(slot: Int, gain: Double)] {
        let n = lambda.count
        precondition(mu.count == n && n == 7 * slotsPerDay)
        var decay = [Double](repeating: 1, count: n), serve = [Double](repeating: 0, count: n)
        for k in 0..<n {
            let a = lambda[k] + mu[k]
            decay[k] = exp(-a)
            // λ·(1 − e^(−a))/a: the chance that an open in the slot finds the state it started with.
            serve[k] = lambda[k] * (a > 1e-12 ? (1 - decay[k]) / a : 1 - a / 2)
        }
        var gain = [Double](repeating: -.infinity, count: n)
        var fresh = [Double](repeating: 0, count: n + 1)
        // No runs yet: opens alone refresh the app. R (the chance the app is current) and T
        // (the fresh first opens a refresh serves) in their steady state, twice around.
        var r = 0.0, t = 0.0
        for pass in 0..<2 {
            for k in 0..<n {
                if pass == 1 { fresh[k] = r }
                r = r * decay[k] + serve[k]
            }
        }
        for pass in 0..<2 {
            for k in stride(from: n - 1, through: 0, by: -1) {
                t = serve[k] + decay[k] * t
                if pass == 1 { gain[k] = (1 - fresh[k]) * t }
            }
        }
        var chosen: [Int] = []
        var blocked = [Bool](repeating: false, count: n)
        var result: [(slot: Int, gain: Double)] = []
        let fill = runsPerDay / Double(slotsPerDay)

        /// Gains of the slots strictly between runs at a and b (b > a, indices mod n).
        func update(_ a: Int, _ b: Int) {
            var r = 1.0
            for k in a..<b {
                fresh[k - a] = r
                r = r * decay[k % n] + serve[k % n]
            }
            var t = 0.0
            for k in stride(from: b - 1, to: a, by: -1) {
                t = serve[k % n] + decay[k % n] * t
                gain[k % n] = k - a >= minGap && b - k >= minGap ? (1 - fresh[k - a]) * t : -.infinity
            }
        }

        /// Whether the chosen runs (ascending) fit the bucket, two weeks round from full:
        /// the bucket at the second week's start is at most full, so its week is the tighter.
        func fits() -> Bool {
            var tokens = burst, last = chosen[0] - n
            for week in 0..<2 {
                for c in chosen {
                    let at = c + week * n
                    tokens = min(burst, tokens + fill * Double(at - last)) - 1
                    if tokens < -1e-9 { return false }
                    last = at
                }
            }
            return true
        }

        // The bucket fills 7·runsPerDay tokens a week: a cyclic week holds no more runs.
        while Double(chosen.count) < 7 * runsPerDay - 1e-9 {
            var best = -1, bestGain = max(minGain, 1e-12)
            for w in 0..<n where gain[w] >= bestGain && !blocked[w] {
                best = w; bestGain = gain[w]
            }
            guard best >= 0 else { break }
            let i = chosen.firstIndex { $0 > best } ?? chosen.count
            chosen.insert(best, at: i)
            // A slot that does not fit now never will: later runs only take more tokens.
            guard fits() else { chosen.remove(at: i); blocked[best] = true; continue }
            result.append((best, bestGain))
            gain[best] = -.infinity
            if chosen.count == 1 {
                update(best, best + n)
            } else {
                let before = chosen[(i + chosen.count - 1) % chosen.count], after = chosen[(i + 1) % chosen.count]
                update(before, before < best ? best : best + n)
                update(best, after > best ? after : after + n)
            }
        }
        return result
    }
}

// MARK: - Parameters

public struct ProphetParameters: ParameterSet {
    public init() {}

    public var runsPerDay = 12
    public var minGain = 0.01
    public var minGap = TimeSpan.minutes(15)
    public var skipBelow = 0.2
}
extension ProphetParameters {
    public static var fields: [ParameterField<Self>] {
        [
            .integer(
                \.runsPerDay, "runs_per_day", "runs/day", in: 1...64,
                "most runs a day it plans (a bucket of this rate holding half a day's runs); the platform may admit fewer; 12, ios-bgtask's cap of B (MODEL.md §6.3)"
            ),
            .number(
                \.minGain, "min_gain", "fresh opens", in: 0...1,
                "plan a run only if it adds at least this many expected fresh opens; assumption"),
            .duration(
                \.minGap, "min_gap", in: .minutes(5)...(.days(1)),
                "planned runs at least this far apart; MODEL.md §6.3: minimum spacing 15 min"),
            .number(
                \.skipBelow, "skip_below", "probability", in: 0...1,
                "after an open, skip the next planned run if an item arrives in between with less than this chance; assumption"
            ),
        ]
    }

    public static var knob: AggressivenessKnob? {
        AggressivenessKnob("runs_per_day", moreAggressive: .higher, sweep: ["1", "2", "3", "4", "6", "8", "12"])
    }
}

extension ProphetPolicy { public typealias Parameters = ProphetParameters }
