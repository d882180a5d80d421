/// `fixed` (MODEL.md §7): asks every `interval` from a uniform random phase, whatever
/// happened (R1's attempts are phase + interval·k, MODEL.md §10 rule 5).
public struct FixedPolicy: WakePolicy {
    public static let name = "fixed"
    public static let summary = "heuristic: ask every `interval` (default 15 min) from a random phase"
    public static let callbacks: PolicyCallbacks = [.denied, .runStarted]

    let interval: SimTime
    var next: SimTime

    public init(_ context: PolicyContext) {
        interval = max(1, context.scenario.policies[FixedPolicy.self].interval.ticks)
        var rng = context.random
        next = SimTime(rng.uniform() * Double(interval))
    }

    public mutating func start(_ view: DeviceView) -> WakeDecision { .request(at: next) }

    /// Every attempt, run or denied, is followed by the next one on the grid.
    mutating func advance(_ view: DeviceView) -> WakeDecision {
        while next <= view.now { next += interval }
        return .request(at: next)
    }

    public mutating func denied(_ reason: DenialReason, retryAt: SimTime?, _ view: DeviceView) -> WakeDecision {
        advance(view)
    }

    /// Its answer to a denial is the next point of its grid, whatever the denial.
    public mutating func deniedAhead(at t: SimTime) -> SimTime? {
        while next <= t { next += interval }
        return next
    }

    public mutating func runStarted(_ view: DeviceView) -> WakeDecision { advance(view) }
}

// MARK: - Parameters

public struct FixedParameters: ParameterSet {
    public init() {}

    public var interval = TimeSpan.minutes(15)
}
extension FixedParameters {
    public static var fields: [ParameterField<Self>] {
        [
            .duration(
                \.interval, "interval", in: .seconds(1)...(.days(7)),
                "spacing of the attempts, from a uniform random phase; MODEL.md §7: 15 min")
        ]
    }

    public static var knob: AggressivenessKnob? {
        AggressivenessKnob("interval", moreAggressive: .lower, sweep: ["5m", "15m", "30m", "1h", "2h", "4h"])
    }
}

extension FixedPolicy { public typealias Parameters = FixedParameters }
