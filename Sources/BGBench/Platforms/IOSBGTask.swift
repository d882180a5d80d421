import Foundation

/// `ios-bgtask`, iOS 13+ BGTaskScheduler app refresh, exactly as MODEL.md §6.4 states it:
/// gates in a fixed order (rule 2), a token bucket whose daily budget follows engagement
/// (rule 4), penalties by how runs end (rule 5), minimum spacing, a 30 s runtime limit.
/// The numbers are assumptions calibrated to published behaviour (MODEL.md §6.3). The
/// gates, bucket and penalties are `EngagementBudget`'s, shared with `ios-fetch`.
public struct IOSBGTask: PlatformRules {
    public static let name = "ios-bgtask"
    public static let summary = "iOS 13+ BGTaskScheduler: gates, engagement budget (token bucket), penalties, 15 min spacing, 30 s limit"

    var budget: EngagementBudget
    public let runtimeLimit: SimTime
    let spacing: SimTime
    private var lastRunStart: SimTime?

    /// u: opens per day, exponentially weighted (rule 4).
    public var usage: Double { budget.usage }
    /// m: the penalty multiplier (rule 5).
    public var multiplier: Double { budget.multiplier }
    /// B: the daily budget before the multiplier.
    public var dailyBudget: Double { budget.dailyBudget }
    public var tokens: Double { budget.tokens }
    public var capacity: Double { budget.capacity }
    public var throttleEvents: Int { budget.throttleEvents }

    public init(_ setup: PlatformSetup) {
        let p = setup.scenario.platform.iosBgtask
        budget = EngagementBudget(p, initialUsage: setup.initialUsage)
        runtimeLimit = p.runtimeLimit.ticks
        spacing = p.minSpacing.ticks
    }

    public mutating func admit(at t: SimTime, gates g: GateInputs) -> Admission {
        if let reason = EngagementBudget.stateGate(g, checkSubmitted: true) { return .deny(reason, retryAt: nil) }
        if let last = lastRunStart, t - last < spacing { return .deny(.spacing, retryAt: last + spacing) }
        let ready = budget.tokenTime(at: t)
        if ready > t { return .deny(.budget, retryAt: ready) }
        return .run
    }

    public mutating func runStarted(at t: SimTime) {
        budget.take(at: t)
        lastRunStart = t
    }

    public mutating func runEnded(at t: SimTime, status: RunStatus, broughtContent: Bool) {
        budget.runEnded(at: t, status: status, broughtContent: broughtContent)
    }

    /// Rule 9's midnight order: accrue, update u, recover m, recompute capacity and clip.
    public mutating func midnight(at t: SimTime, opens: Int) {
        budget.midnight(at: t, opens: opens)
    }
}
