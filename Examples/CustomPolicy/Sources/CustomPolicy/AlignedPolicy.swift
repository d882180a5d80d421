import BGBench

/// `aligned`: asks every `period` on the clock (00:00, 00:00 + period, ...), after a run and
/// after a denial alike, so every device asks at the same moments (the server sees the
/// peaks; server.csv shows them).
struct AlignedPolicy: WakePolicy {
    typealias Parameters = AlignedParameters
    static let name = "aligned"
    static let summary = "example: ask every `period` on the clock, from midnight"

    let period: SimTime

    init(_ context: PolicyContext) { period = max(1, context.scenario.policies[AlignedPolicy.self].period.ticks) }

    /// The first multiple of `period` strictly after t.
    func next(after t: SimTime) -> WakeDecision { .request(at: t - t % period + period) }

    mutating func start(_ view: DeviceView) -> WakeDecision { next(after: view.now) }
    mutating func runStarted(_ view: DeviceView) -> WakeDecision { next(after: view.now) }
    mutating func denied(_ reason: DenialReason, retryAt: SimTime?, _ view: DeviceView) -> WakeDecision {
        next(after: retryAt ?? view.now)
    }
}

/// Its parameters: `policies.aligned.period` in a scenario file or `--set`, and the knob a
/// frontier sweeps it over.
struct AlignedParameters: ParameterSet {
    var period = TimeSpan.hours(1)

    init() {}

    static var fields: [ParameterField<Self>] {
        [
            .duration(
                \.period, "period", in: .minutes(5)...(.days(1)),
                "spacing of the attempts, on the clock from midnight; example")
        ]
    }

    static var knob: AggressivenessKnob? {
        AggressivenessKnob("period", moreAggressive: .lower, sweep: ["30m", "1h", "4h"])
    }
}
