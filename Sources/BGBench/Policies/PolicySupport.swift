import Foundation

// Pieces shared by the learning policies (`usage`, `histogram`, `nhpp`, `bayes`, `kde`,
// `logistic`): how they react to the platform (denials, state gates, failures, kills)
// and the callbacks that do only that (`GuardedPolicy`), how all but `usage` notice a
// changed routine, the day's opens by hour and the daily forgetting factor, the decayed
// hour-of-week open counts three of them learn from, the chance that a fetch is still
// fresh at the next open (`kde`, `nhpp`), a run's energy (`nhpp`) and the time-of-day
// harmonics (`nhpp`, `logistic`). Each policy is still one file of its own;
// docs/policies.md states these rules once for all of them.

/// The platform-facing rules every learning policy follows (MODEL.md §7):
/// - the next wake is at least `minGap` after the last run started;
/// - after a `failed` run it waits `failureBackoff`, after an `expired` or `killed` run
///   `killBackoff`, doubled for each further failure in a row, at most a day; a run that
///   ends `new_data` or `no_data` clears the streak;
/// - after a denial with a `retryAt` (spacing, budget) it plans from `retryAt`; after
///   `foreground` or `busy` from just after now; after a state gate (`bar_off`,
///   `force_quit`, `low_power`, `low_battery`, `not_submitted`) it asks nothing until a
///   state change or an open (an open clears `force_quit` and `not_submitted`).
struct WakeGuard {
    let minGap: SimTime
    let failureBackoff: SimTime
    let killBackoff: SimTime
    private(set) var lastRunStart: SimTime = -Clock.week
    private var holdUntil: SimTime = 0
    private var streak = 0
    /// Waiting for a state change or an open after a state-gate denial.
    private(set) var waiting = false

    init(minGap: TimeSpan, failureBackoff: TimeSpan, killBackoff: TimeSpan) {
        self.minGap = max(0, minGap.ticks)
        self.failureBackoff = max(0, failureBackoff.ticks)
        self.killBackoff = max(0, killBackoff.ticks)
    }

    /// The earliest time a wake may be asked for when planning from `t` at `now`: never
    /// at or before now (a request denied at now must not come back at now).
    func earliest(from t: SimTime, now: SimTime) -> SimTime {
        max(t, now + 1, lastRunStart + minGap, holdUntil)
    }

    mutating func runStarted(at t: SimTime) { lastRunStart = t }

    mutating func runEnded(_ status: RunStatus, at t: SimTime) {
        let base: SimTime
        switch status {
        case .newData, .noData:
            streak = 0
            return
        case .failed: base = failureBackoff
        case .expired, .killed: base = killBackoff
        }
        streak = min(streak + 1, 16)
        holdUntil = t + min(Clock.day, base << (streak - 1))
    }

    /// The time to plan from after a denial at `now`, or nil to wait for a state change.
    mutating func denied(_ reason: DenialReason, retryAt: SimTime?, now: SimTime) -> SimTime? {
        if let retryAt { return max(retryAt, now + 1) }
        switch reason {
        case .foreground, .busy: return now + 1
        default:
            waiting = true
            return nil
        }
    }

    /// A state change or an open: true if the policy was waiting and should plan again.
    mutating func resume() -> Bool {
        defer { waiting = false }
        return waiting
    }
}

/// A learning policy that meets the platform through its ``WakeGuard`` and plans with
/// `plan(from:now:)`. The callbacks that only pass the event to the guard and plan again
/// are written once, here; a policy that needs more in one of them writes its own.
/// `observe(_:)` comes first in each, for policies that note the device's state (`nhpp`
/// and `logistic`: charging and network).
protocol GuardedPolicy: WakePolicy {
    var wake: WakeGuard { get set }
    mutating func plan(from t: SimTime, now: SimTime) -> WakeDecision
    /// Notes what the device shows at a callback; by default nothing.
    mutating func observe(_ view: DeviceView)
}

extension GuardedPolicy {
    mutating func observe(_ view: DeviceView) {}

    /// After an open or a state change: plans from now if the policy was waiting on a
    /// state gate, else keeps its request.
    mutating func resumed(_ view: DeviceView) -> WakeDecision {
        wake.resume() ? plan(from: view.now, now: view.now) : .keep
    }

    public mutating func runStarted(_ view: DeviceView) -> WakeDecision {
        observe(view)
        wake.runStarted(at: view.now)
        return .keep
    }

    public mutating func runEnded(_ status: RunStatus, _ view: DeviceView) -> WakeDecision {
        observe(view)
        wake.runEnded(status, at: view.now)
        return plan(from: view.now, now: view.now)
    }

    public mutating func denied(_ reason: DenialReason, retryAt: SimTime?, _ view: DeviceView) -> WakeDecision {
        observe(view)
        guard let from = wake.denied(reason, retryAt: retryAt, now: view.now) else { return .keep }
        return plan(from: from, now: view.now)
    }

    public mutating func stateChanged(_ view: DeviceView) -> WakeDecision {
        observe(view)
        return resumed(view)
    }
}

/// The factor that forgets counts with the given half-life, applied once a day:
/// 2^(−1 day / half-life).
func dailyDecay(halfLife: TimeSpan) -> Float {
    Float(pow(2, -Double(Clock.day) / Double(max(1, halfLife.ticks))))
}

/// The current day's opens per hour of day (saturating counters), folded in at midnight.
struct OpensToday {
    private var counts = InlineArray<24, UInt16>(repeating: 0)

    mutating func add(at t: SimTime) {
        let h = Clock.hourOfDay(t)
        if counts[h] < .max { counts[h] += 1 }
    }

    subscript(hour: Int) -> UInt16 { counts[hour] }

    mutating func clear() { counts = InlineArray<24, UInt16>(repeating: 0) }
}

/// A changed routine (MODEL.md §3 drift), seen from the opens alone: a day whose opens
/// fall mostly in hours where the user has hardly ever opened the app. The learning
/// policies forget their statistics hard when it fires (`keep` of them stays),
/// so that weeks of the old routine, forgotten only at `half_life`, do not outweigh the
/// new one for weeks. The judge is a profile of opens per hour of day, forgotten at the
/// policy's own half-life: a day with at least `minOpens` opens fires when at least
/// `surprisingShare` of them fall in hours holding less than `rareHourShare` of the
/// profile, once the profile holds `minHistory` (decayed) opens (the policy's
/// `routine_change` parameters, `RoutineChangeParameters`). After firing the profile
/// is forgotten too, so it judges again only when it has learned the new routine: at
/// most once per change. A user without a routine spreads opens over the waking day and
/// rarely has most of a day's opens in such hours. State: 24 floats, 24 counters, one
/// float, the decay and the parameters (180 bytes).
struct RoutineChange {
    /// What stays of the statistics (and of this profile) when a change is seen.
    let keep: Float
    let rareHourShare: Float
    let surprisingShare: Double
    let minOpens: Int
    let minHistory: Float
    let minDays: Int
    /// Surprising days in a row so far, and their opens by hour, held out of the profile
    /// until the run is confirmed or broken (so the next day is judged against the old
    /// routine, not one that already holds the new hours).
    private var surprisingDays = 0
    private var held = InlineArray<24, Float>(repeating: 0)

    private var profile = InlineArray<24, Float>(repeating: 0)
    private var total: Float = 0
    private var today = OpensToday()
    let decay: Float

    init(halfLife: TimeSpan, _ p: RoutineChangeParameters = RoutineChangeParameters()) {
        decay = dailyDecay(halfLife: halfLife)
        keep = Float(p.keep)
        rareHourShare = Float(p.rareHourShare)
        surprisingShare = p.surprisingShare
        minOpens = p.minOpens
        minHistory = Float(p.minHistory)
        minDays = max(1, p.minDays)
    }

    /// An open at t (judged with the rest of its day at the next midnight).
    mutating func open(at t: SimTime) { today.add(at: t) }

    /// Midnight: judges the day that ended, then adds it to the profile. True when the
    /// day looks like a new routine (the caller keeps `keep` of its statistics).
    mutating func midnight() -> Bool {
        var opens = 0, surprising = 0
        let rare = rareHourShare * total
        for h in 0..<24 {
            let n = Int(today[h])
            opens += n
            if profile[h] < rare { surprising += n }
        }
        let surprisingDay =
            total >= minHistory && opens >= minOpens
            && Double(surprising) >= surprisingShare * Double(opens)
        // A day without opens neither confirms nor breaks a run of surprising days.
        if surprisingDay { surprisingDays += 1 } else if opens > 0 { surprisingDays = 0 }
        let changed = surprisingDays >= minDays
        let holding = surprisingDays > 0 && !changed
        if changed { surprisingDays = 0 }
        let factor = changed ? decay * keep : decay
        total = 0
        for h in 0..<24 {
            if holding {
                held[h] = held[h] * decay + Float(today[h])
                profile[h] *= factor
            } else {
                profile[h] = profile[h] * factor + held[h] * decay + Float(today[h])
                held[h] = 0
            }
            total += profile[h]
        }
        today.clear()
        return changed
    }
}

/// Opens counted per hour of the week (168 bins, day 0 = Monday 00:00), forgotten
/// exponentially, with the exposure of each weekday: the binned sufficient statistics of
/// `histogram`, `bayes` and `nhpp`. The current day's opens wait in `today` and are
/// folded in at midnight, together with one day of exposure, so that every rate is over
/// whole days. State: 168 + 7 floats and 24 small counters (about 750 bytes).
struct HourOfWeekCounts {
    static let bins = 168
    /// Decayed opens per hour-of-week bin.
    private(set) var counts = InlineArray<168, Float>(repeating: 0)
    /// Decayed number of whole days seen, per weekday (0 = Monday).
    private(set) var exposure = InlineArray<7, Float>(repeating: 0)
    private var today = OpensToday()
    /// Factor applied to everything at each midnight: 2^(−1 day / half-life).
    let decay: Float

    init(halfLife: TimeSpan) {
        decay = dailyDecay(halfLife: halfLife)
    }

    /// An open at t (counted at the next midnight).
    mutating func open(at t: SimTime) { today.add(at: t) }

    /// Keeps `factor` of the counts and of the exposure (a changed routine,
    /// ``RoutineChange``): rates stay as they were, but the next days weigh more.
    mutating func forget(_ factor: Float) {
        for b in 0..<Self.bins { counts[b] *= factor }
        for d in 0..<7 { exposure[d] *= factor }
    }

    /// Midnight at t: the day that just ended joins the counts.
    mutating func midnight(at t: SimTime) {
        let ended = Clock.dayIndex(t) - 1
        guard ended >= 0 else { return }
        for b in 0..<Self.bins { counts[b] *= decay }
        for d in 0..<7 { exposure[d] *= decay }
        let weekday = ended % 7
        for h in 0..<24 {
            counts[weekday * 24 + h] += Float(today[h])
        }
        today.clear()
        exposure[weekday] += 1
    }

    /// The hour-of-week bin of the global hour index H (hours since day 0).
    @inline(__always) static func bin(ofHour H: Int) -> Int { H % bins }

    /// Expected opens in bin b on one occurrence of its weekday (0 before any whole day of
    /// that weekday was seen).
    @inline(__always) mutating func rate(_ b: Int) -> Float {
        let e = exposure[b / 24]
        return e > 0 ? counts[b] / e : 0
    }

    /// Decayed opens per day over every weekday (0 before the first whole day).
    var opensPerDay: Float {
        mutating get {
            var total: Float = 0, days: Float = 0
            for b in 0..<Self.bins { total += counts[b] }
            for d in 0..<7 { days += exposure[d] }
            return days > 0 ? total / days : 0
        }
    }
}

/// Energy of one background run by network, the app's own estimate from the scenario's
/// energy and network figures (MODEL.md §6.4 rule 6, §8): launch, then one or two requests
/// (1.5 on average) of median latency and a small payload, then the radio's tail. Only
/// `nhpp` uses it (staleness saved per joule); it reads no outcome of any run.
struct RunEnergyEstimate {
    let wifi: Double, lte: Double, nr5g: Double

    init(_ s: Scenario) {
        let e = s.energy, n = s.network, a = s.app
        let kilobits = a.payloadFixedKilobytes * 8
        func active(_ latency: TimeSpan, _ mbps: Double) -> Double {
            (1 + a.secondRequestProbability) * (latency.seconds + kilobits / 1000 / max(mbps, 0.001))
        }
        wifi =
            a.launchJ + active(n.latencyMedianWifi, n.bandwidthWifiMbps) * e.wifiActiveW + e.wifiTail.seconds
            * e.wifiTailW
        func cellular(_ latency: TimeSpan, _ mbps: Double) -> Double {
            e.ltePromotion.seconds * e.ltePromotionW + active(latency, mbps) * e.lteActiveW + e.lteTail.seconds
                * e.lteTailW
        }
        lte = a.launchJ + cellular(n.latencyMedianLte, n.bandwidthLteMbps)
        nr5g = a.launchJ + e.nr5gPowerFactor * cellular(n.latencyMedianNr5g, n.bandwidthNr5gMbps)
    }
}

/// The chance that the next open finds a fetch made at the start of each slot still
/// fresh, for one day of 96 slots, computed in place from the expected opens of each slot:
/// with q_j = 1 − exp(−λ_j), the chance of an open in slot j, and s = exp(−μ·slot), the
/// chance that no content item arrives in a slot, F_j = q_j·√s + (1 − q_j)·s·F_(j+1)
/// (the first open in a slot comes on average half-way through it), taken around the day
/// twice so that the last slots see the next morning. Used by `kde` and `nhpp`.
func freshChances(_ values: inout InlineArray<96, Float>, itemsPerSlot mu: Double) {
    let s = Float(exp(-mu)), half = Float(exp(-mu / 2))
    var next: Float = 0
    // q_j, computed on the first pass and read on the second.
    var q = InlineArray<96, Float>(repeating: 0)
    for j in stride(from: 95, through: 0, by: -1) {
        q[j] = 1 - expf(-values[j])
        next = q[j] * half + (1 - q[j]) * s * next
    }
    for j in stride(from: 95, through: 0, by: -1) {
        next = q[j] * half + (1 - q[j]) * s * next
        values[j] = next
    }
}

/// cos and sin of 2π·i/192 for i = 0..<192: the time of day in 7.5 min steps, where the
/// centres of hours (h + 0.5) and of quarter-hours fall. `nhpp` and `logistic` build their
/// harmonics from these by the angle-addition recurrence, without calling libm per row.
let dayAngles: [(cos: Double, sin: Double)] = (0..<192).map {
    let a = 2 * Double.pi * Double($0) / 192
    return (cos(a), sin(a))
}

/// Writes cos(k·a) and sin(k·a), k = 1...K, for the angle a = 2π·step/192, into
/// x[offset ..< offset + 2K] (cos first), by the angle-addition recurrence.
@inline(__always)
func writeHarmonics(step: Int, harmonics K: Int, into x: inout [Double], at offset: Int) {
    let (c1, s1) = dayAngles[((step % 192) + 192) % 192]
    var c = 1.0, s = 0.0
    for k in 0..<K {
        (c, s) = (c * c1 - s * s1, s * c1 + c * s1)
        x[offset + 2 * k] = c
        x[offset + 2 * k + 1] = s
    }
}

// Every learning policy plans by the same scan (written out in each, as closures over
// the policy's state cost a copy of it per call): from the first slot whose wake is
// allowed, find the first slot whose score passes the policy's test, then move forward
// while the next slot's score is greater, to the top of the rising stretch that begins
// there. A rising score thus gets one wake at its peak, not at the first slot over the
// threshold; a flat or falling one gets a wake at once.
