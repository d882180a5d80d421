import Foundation

/// `ios-bgtask`, iOS 13+ BGTaskScheduler app refresh, exactly as MODEL.md §6.4 states it:
/// gates in a fixed order (rule 2), a token bucket whose daily budget follows engagement
/// (rule 4), penalties by how runs end (rule 5), minimum spacing, a 30 s runtime limit.
/// The numbers are assumptions calibrated to published behaviour (MODEL.md §6.3). The
/// gates, bucket and penalties are `EngagementBudget`'s, shared with `ios-fetch`.
public struct IOSBGTask: EngagementPlatform {
    public static let name = "ios-bgtask"
    public static let summary =
        "iOS 13+ BGTaskScheduler: gates, engagement budget (token bucket), penalties, 15 min spacing, 30 s limit"

    public var budget: EngagementBudget
    public let runtimeLimit: SimTime
    let spacing: SimTime

    /// u: opens per day, exponentially weighted (rule 4).
    public var usage: Double { budget.usage }
    /// B: the daily budget before the multiplier.
    public var dailyBudget: Double { budget.dailyBudget }
    public var capacity: Double { budget.capacity }

    public init(_ setup: PlatformSetup) {
        let p = setup.scenario.platform[IOSBGTask.self]
        budget = EngagementBudget(p, initialUsage: setup.initialUsage)
        runtimeLimit = p.runtimeLimit.ticks
        spacing = p.minSpacing.ticks
    }

    public mutating func admit(at t: SimTime, gates g: GateInputs) -> Admission {
        budget.admit(at: t, gates: g, checkSubmitted: true, spacing: spacing)
    }
}

// MARK: - Parameters

public struct IOSBGTaskParameters: ParameterSet {
    public init() {}

    public var budgetScale = 2.5
    public var budgetCap = 12.0
    public var usageHalfLife = TimeSpan.days(7)
    public var minSpacing = TimeSpan.minutes(15)
    public var runtimeLimit = TimeSpan.seconds(30)
    public var penaltyKilled = 0.5
    public var penaltyExpired = 0.8
    public var penaltyFailed = 0.9
    public var rewardNewData = 1.05
    public var penaltyFalseNewData = 0.9
    public var midnightRecovery = 1.1
    public var multiplierFloor = 0.05
}
extension IOSBGTaskParameters {
    public static var fields: [ParameterField<Self>] {
        [
            .number(
                \.budgetScale, "budget_scale", "runs/day", in: 0...1000, "B = scale · ln(1 + u); MODEL.md §6.3 (2.5)"),
            .number(\.budgetCap, "budget_cap", "runs/day", in: 0...1000, "largest B; MODEL.md §6.3 (12)"),
            .duration(
                \.usageHalfLife, "usage_half_life", in: .hours(1)...(.days(365)),
                "half-life of the usage average u, the exponentially weighted opens per day; MODEL.md §6.4 rule 4 (7 d)"
            ),
            .duration(
                \.minSpacing, "min_spacing", in: .hours(0)...(.hours(24)),
                "minimum time between run starts; MODEL.md §6.3 (15 min: an assumption, as Apple names no minimum; the floor third-party background-fetch libraries document)"
            ),
            .duration(
                \.runtimeLimit, "runtime_limit", in: .seconds(1)...(.hours(1)),
                "refresh runtime limit from the run's start; MODEL.md §6.2 (30 s)"),
            .number(
                \.penaltyKilled, "penalty_killed", "factor", in: 0...1, "on m after `killed`; MODEL.md §6.4 rule 5"),
            .number(
                \.penaltyExpired, "penalty_expired", "factor", in: 0...1, "on m after `expired`; MODEL.md §6.4 rule 5"),
            .number(
                \.penaltyFailed, "penalty_failed", "factor", in: 0...1, "on m after `failed`; MODEL.md §6.4 rule 5"),
            .number(
                \.rewardNewData, "reward_new_data", "factor", in: 1...10,
                "on m after `new_data` that brought content; MODEL.md §6.4 rule 5"),
            .number(
                \.penaltyFalseNewData, "penalty_false_new_data", "factor", in: 0...1,
                "on m after `new_data` with nothing new; MODEL.md §6.4 rule 5"),
            .number(
                \.midnightRecovery, "midnight_recovery", "factor", in: 1...10,
                "on m at each midnight; MODEL.md §6.4 rule 5"),
            .number(
                \.multiplierFloor, "multiplier_floor", "factor", in: 0.000_001...1, "smallest m; MODEL.md §6.4 rule 5"),
        ]
    }
}

extension IOSBGTask { public typealias Parameters = IOSBGTaskParameters }

/// The OS-version mix (MODEL.md §4): an `ios-bgtask` fleet's devices on iOS 12 or lower
/// (`population.legacy_ios_share`) run `ios-fetch`.
extension IOSBGTask {
    public typealias LegacyVariant = IOSFetch
    public static func runsAsLegacyVariant(scenario: Scenario, seed: UInt64, device: Int) -> Bool {
        DeviceTraits.isLegacyIOS(scenario: scenario, seed: seed, device: device)
    }
}
