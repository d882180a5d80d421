import Foundation

/// `ios-bgtask`, iOS 13+ BGTaskScheduler app refresh, exactly as MODEL.md §6.4 states it:
/// gates in a fixed order (rule 2), a token bucket whose daily budget follows engagement
/// (rule 4), penalties by how runs end (rule 5), minimum spacing, a 30 s runtime limit.
/// The numbers are assumptions calibrated to published behaviour (MODEL.md §6.3). The
/// gates, bucket and penalties are `EngagementBudget`'s, shared with `ios-fetch`.
public struct IOSBGTask: EngagementPlatform {
    public static let name = "ios-bgtask"
    public static let summary = "iOS 13+ BGTaskScheduler: gates, engagement budget (token bucket), penalties, 15 min spacing, 30 s limit"

    public var budget: EngagementBudget
    public let runtimeLimit: SimTime
    let spacing: SimTime

    /// u: opens per day, exponentially weighted (rule 4).
    public var usage: Double { budget.usage }
    /// B: the daily budget before the multiplier.
    public var dailyBudget: Double { budget.dailyBudget }
    public var capacity: Double { budget.capacity }

    public init(_ setup: PlatformSetup) {
        let p = setup.scenario.platform.iosBgtask
        budget = EngagementBudget(p, initialUsage: setup.initialUsage)
        runtimeLimit = p.runtimeLimit.ticks
        spacing = p.minSpacing.ticks
    }

    public mutating func admit(at t: SimTime, gates g: GateInputs) -> Admission {
        budget.admit(at: t, gates: g, checkSubmitted: true, spacing: spacing)
    }
}

/// The OS-version mix (MODEL.md §4): an `ios-bgtask` fleet's devices on iOS 12 or lower
/// (`population.legacy_ios_share`) run `ios-fetch`.
extension IOSBGTask {
    public typealias LegacyVariant = IOSFetch
    public static func runsAsLegacyVariant(scenario: Scenario, seed: UInt64, device: Int) -> Bool {
        DeviceTraits.isLegacyIOS(scenario: scenario, seed: seed, device: device)
    }
}
