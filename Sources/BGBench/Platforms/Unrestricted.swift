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
        runtimeLimit = setup.scenario.platform[Unrestricted.self].runtimeLimit.ticks
        dailyCap = setup.scenario.platform[Unrestricted.self].dailyCap
    }

    public mutating func admit(at t: SimTime, gates: GateInputs) -> Admission {
        if dailyCap > 0 && startedToday >= dailyCap {
            return .deny(.budget, retryAt: (SimTime(day) + 1) * Clock.day)
        }
        return .run
    }

    /// The cap's denial stands until midnight: only a run's start or midnight changes the
    /// count, and no run starts while it holds (a push's run takes nothing from it).
    public func deniesUntil(_ reason: DenialReason, at t: SimTime) -> SimTime {
        reason == .budget ? (SimTime(day) + 1) * Clock.day : t
    }

    public mutating func runStarted(at t: SimTime) { startedToday += 1 }
    public mutating func runEnded(at t: SimTime, status: RunStatus, broughtContent: Bool) {}

    public mutating func midnight(at t: SimTime, opens: Int) {
        day = Clock.dayIndex(t)
        startedToday = 0
    }
}

// MARK: - Parameters

public struct UnrestrictedParameters: ParameterSet {
    public init() {}

    public var dailyCap = 0
    public var runtimeLimit = TimeSpan.seconds(30)
}
extension UnrestrictedParameters {
    public static var fields: [ParameterField<Self>] {
        [
            ParameterField(
                name: "daily_cap", unit: "runs/day (integer)", range: "≥ 0",
                doc: "runs that may start per day; 0: no cap (R1: 12); MODEL.md §6.4 rule 10"
            ) { p, c, path in
                if p.dailyCap < 0 { c.fail(path, "\(p.dailyCap) is out of range: expected 0 (no cap) or more") }
            },
            .duration(
                \.runtimeLimit, "runtime_limit", in: .seconds(1)...(.hours(1)), "runtime limit; MODEL.md §6.2 (30 s)"),
        ]
    }
}

extension Unrestricted { public typealias Parameters = UnrestrictedParameters }
