import Foundation

/// `ios-bgtask`, iOS 13+ BGTaskScheduler app refresh, exactly as MODEL.md §6.4 states it:
/// gates in a fixed order (rule 2), a token bucket whose daily budget follows engagement
/// (rule 4), penalties by how runs end (rule 5), minimum spacing, a 30 s runtime limit.
/// The numbers are assumptions calibrated to published behaviour (MODEL.md §6.3).
public struct IOSBGTask: PlatformRules {
    public static let name = "ios-bgtask"
    public static let summary = "iOS 13+ BGTaskScheduler: gates, engagement budget (token bucket), penalties, 15 min spacing, 30 s limit"

    let p: IOSBGTaskParameters
    public let runtimeLimit: SimTime
    let spacing: SimTime
    /// Daily decay of the usage average: 2^(−1 day / half-life).
    let usageDecay: Double

    /// u: opens per day, exponentially weighted (rule 4).
    public private(set) var usage: Double
    /// m: the penalty multiplier (rule 5).
    public private(set) var multiplier = 1.0
    /// B: the daily budget before the multiplier.
    public private(set) var dailyBudget: Double
    public private(set) var tokens: Double
    public private(set) var capacity: Double
    private var accruedUntil: SimTime = 0
    private var lastRunStart: SimTime?
    public private(set) var throttleEvents = 0

    public init(_ setup: PlatformSetup) {
        p = setup.scenario.platform.iosBgtask
        runtimeLimit = p.runtimeLimit.ticks
        spacing = p.minSpacing.ticks
        usageDecay = pow(2, -Double(Clock.day) / Double(max(1, p.usageHalfLife.ticks)))
        usage = setup.initialUsage
        dailyBudget = 0; tokens = 0; capacity = 0
        dailyBudget = budget(for: usage)
        capacity = max(1, multiplier * dailyBudget / 2)
        tokens = capacity  // the bucket starts full (rule 4)
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

    public mutating func admit(at t: SimTime, gates g: GateInputs) -> Admission {
        if g.foreground { return .deny(.foreground, retryAt: nil) }
        if g.barOff { return .deny(.barOff, retryAt: nil) }
        if g.forceQuit { return .deny(.forceQuit, retryAt: nil) }
        if g.lowPower { return .deny(.lowPower, retryAt: nil) }
        if g.lowBattery { return .deny(.lowBattery, retryAt: nil) }
        if !g.submitted { return .deny(.notSubmitted, retryAt: nil) }
        if let last = lastRunStart, t - last < spacing { return .deny(.spacing, retryAt: last + spacing) }
        accrue(to: t)
        if tokens < 1 {
            let rate = fillRate
            let wait = rate > 0 ? SimTime(((1 - tokens) / rate).rounded(.up)) : Clock.day
            return .deny(.budget, retryAt: t + max(1, wait))
        }
        return .run
    }

    public mutating func runStarted(at t: SimTime) {
        accrue(to: t)
        tokens -= 1
        lastRunStart = t
    }

    public mutating func runEnded(at t: SimTime, status: RunStatus, broughtContent: Bool) {
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
    public mutating func midnight(at t: SimTime, opens: Int) {
        accrue(to: t)
        usage = usageDecay * usage + (1 - usageDecay) * Double(opens)
        multiplier = min(1, multiplier * p.midnightRecovery)
        dailyBudget = budget(for: usage)
        recomputeCapacity()
    }
}
