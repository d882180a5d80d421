/// `unrestricted` (MODEL.md §6.4 rule 10): no gates and no budget, only an optional cap
/// on the runs started per day, reset at midnight (denial reason `budget`). Measures a
/// policy alone; R1 uses it with a cap of 12.
public struct Unrestricted: PlatformRules {
    public static let name = "unrestricted"
    public static let summary = "no gates, no budget; optional daily cap of started runs (R1: 12)"

    public let runtimeLimit: SimTime
    let dailyCap: Int
    var startedToday = 0
    var day = 0
    public var throttleEvents: Int { 0 }

    public init(_ setup: PlatformSetup) {
        runtimeLimit = setup.scenario.platform.unrestricted.runtimeLimit.ticks
        dailyCap = setup.scenario.platform.unrestricted.dailyCap
    }

    public mutating func admit(at t: SimTime, gates: GateInputs) -> Admission {
        if dailyCap > 0 && startedToday >= dailyCap {
            return .deny(.budget, retryAt: (SimTime(day) + 1) * Clock.day)
        }
        return .run
    }

    public mutating func runStarted(at t: SimTime) { startedToday += 1 }
    public mutating func runEnded(at t: SimTime, status: RunStatus, broughtContent: Bool) {}

    public mutating func midnight(at t: SimTime, opens: Int) {
        day = Clock.dayIndex(t)
        startedToday = 0
    }
}
