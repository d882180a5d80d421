import Foundation

/// What `ios-bgtask` and `ios-fetch` share (MODEL.md §6.2: "same statuses, limit and
/// penalties"): the state gates of rule 2, and the engagement token bucket with its
/// penalty multiplier (rules 4, 5 and 9). Each platform adds its own spacing rule and says
/// who chooses the time of a wake. Public only as a type (`EngagementPlatform`'s
/// requirement); its state is internal.
public struct EngagementBudget: Sendable {
    let p: IOSBGTaskParameters
    /// Daily decay of the usage average: 2^(−1 day / half-life).
    let usageDecay: Double

    /// u: opens per day, exponentially weighted (rule 4).
    var usage: Double
    /// m: the penalty multiplier (rule 5).
    var multiplier = 1.0
    /// B: the daily budget before the multiplier.
    var dailyBudget = 0.0
    var tokens = 0.0
    var capacity = 0.0
    var accruedUntil: SimTime = 0
    var throttleEvents = 0
    var lastRunStart: SimTime?

    init(_ p: IOSBGTaskParameters, initialUsage: Double) {
        self.p = p
        usageDecay = pow(2, -Double(Clock.day) / Double(max(1, p.usageHalfLife.ticks)))
        usage = initialUsage
        dailyBudget = budget(for: usage)
        capacity = max(1, multiplier * dailyBudget / 2)
        tokens = capacity  // the bucket starts full (rule 4)
    }

    /// The state gates of rule 2 in their order (foreground, BAR switch, force-quit, Low
    /// Power Mode, low battery, then `not_submitted` if `checkSubmitted`); nil if all pass.
    static func stateGate(_ g: GateInputs, checkSubmitted: Bool) -> DenialReason? {
        if g.foreground { return .foreground }
        if g.barOff { return .barOff }
        if g.forceQuit { return .forceQuit }
        if g.lowPower { return .lowPower }
        if g.lowBattery { return .lowBattery }
        if checkSubmitted && !g.submitted { return .notSubmitted }
        return nil
    }

    /// B = scale · ln(1 + u), at most the cap (rule 4, rule 9).
    func budget(for u: Double) -> Double { min(p.budgetCap, p.budgetScale * log1p(u)) }

    /// Tokens per tick: m·B per day.
    var fillRate: Double { multiplier * dailyBudget / Double(Clock.day) }

    mutating func accrue(to t: SimTime) {
        guard t > accruedUntil else { return }
        tokens = min(capacity, tokens + fillRate * Double(t - accruedUntil))
        accruedUntil = t
    }

    /// Capacity max(1, m·B/2); tokens above a shrunk capacity are clipped (rule 9).
    mutating func recomputeCapacity() {
        capacity = max(1, multiplier * dailyBudget / 2)
        tokens = min(tokens, capacity)
    }

    /// The first time at or after `due` (≥ t, the present) at which the bucket holds a whole
    /// token at the current fill rate (one day after `due` if the rate is 0 and the bucket
    /// is short): `due` itself if it will. A wait longer than `longestWait` (a usage average
    /// that decayed towards zero makes the rate tiny: thousands of years to a token) is
    /// `longestWait`, so the answer stays far beyond any horizon and safe to add to.
    mutating func tokenTime(at t: SimTime, notBefore due: SimTime? = nil) -> SimTime {
        accrue(to: t)
        let due = max(t, due ?? t)
        let rate = fillRate
        let then = min(capacity, tokens + rate * Double(due - t))
        guard then < 1 else { return due }
        // Converted only once known to fit: a Double beyond SimTime's range traps (built with
        // -Ounchecked, as bgbench once was, it became Int64.min, which made the wait one
        // tick, and a policy that retried at the time it was given asked again every tick).
        let ticks = rate > 0 ? ((1 - then) / rate).rounded(.up) : Double(Clock.day)
        let wait = ticks < Double(Self.longestWait) ? SimTime(ticks) : Self.longestWait
        return due + max(1, wait)
    }

    /// The longest wait `tokenTime` gives: 100 years, beyond any horizon.
    static let longestWait: SimTime = 36_500 * Clock.day

    /// Rule 2 after the state gates: `spacing` since the last run started (nil: never
    /// allowed), then `budget` (a whole token).
    mutating func admit(at t: SimTime, gates g: GateInputs, checkSubmitted: Bool, spacing: SimTime?) -> Admission {
        if let reason = Self.stateGate(g, checkSubmitted: checkSubmitted) { return .deny(reason, retryAt: nil) }
        guard let spacing else { return .deny(.spacing, retryAt: nil) }
        if let last = lastRunStart, t - last < spacing { return .deny(.spacing, retryAt: last + spacing) }
        let ready = tokenTime(at: t)
        if ready > t { return .deny(.budget, retryAt: ready) }
        return .run
    }

    /// A run starts: it takes a token, and spacing counts from it.
    mutating func runStarted(at t: SimTime) {
        accrue(to: t)
        tokens -= 1
        lastRunStart = t
    }

    /// Rule 5: the factor on m for how a run ended.
    mutating func runEnded(at t: SimTime, status: RunStatus, broughtContent: Bool) {
        accrue(to: t)
        let factor: Double
        switch status {
        case .killed: factor = p.penaltyKilled
        case .expired: factor = p.penaltyExpired
        case .failed: factor = p.penaltyFailed
        case .newData: factor = broughtContent ? p.rewardNewData : p.penaltyFalseNewData
        case .noData: factor = 1
        }
        if factor < 1 { throttleEvents += 1 }
        multiplier = min(1, max(p.multiplierFloor, multiplier * factor))
        recomputeCapacity()
    }

    /// Rule 9's midnight order: accrue, update u, recover m, recompute capacity and clip.
    mutating func midnight(at t: SimTime, opens: Int) {
        accrue(to: t)
        usage = usageDecay * usage + (1 - usageDecay) * Double(opens)
        multiplier = min(1, multiplier * p.midnightRecovery)
        dailyBudget = budget(for: usage)
        recomputeCapacity()
    }
}

/// A platform built on `EngagementBudget` (`ios-bgtask`, `ios-fetch`): runs, penalties,
/// midnight and throttle events are the budget's.
public protocol EngagementPlatform: PlatformRules {
    var budget: EngagementBudget { get set }
}

public extension EngagementPlatform {
    var throttleEvents: Int { budget.throttleEvents }
    /// m: the penalty multiplier (rule 5).
    var multiplier: Double { budget.multiplier }
    var tokens: Double { budget.tokens }
    mutating func runStarted(at t: SimTime) { budget.runStarted(at: t) }
    mutating func runEnded(at t: SimTime, status: RunStatus, broughtContent: Bool) {
        budget.runEnded(at: t, status: status, broughtContent: broughtContent)
    }
    /// Rule 9's midnight order: accrue, update u, recover m, recompute capacity and clip.
    mutating func midnight(at t: SimTime, opens: Int) { budget.midnight(at: t, opens: opens) }
}
