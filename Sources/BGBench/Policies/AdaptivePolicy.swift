import Foundation

/// `adaptive` (MODEL.md §7, the CLI default): a wake interval that widens additively after
/// noData and narrows multiplicatively after newData (AIMD, as TCP's congestion window
/// but inverted: new content means "come back sooner"), backs off after failures and
/// harder after expiries and kills, and pulls each wake to `lead` before a quarter-hour
/// in which the user habitually opens the app. Habits are 96 quarter-hour open counts
/// halved every `habit_half_life`; a slot is habitual when its share of opens is at least
/// `habit_lift` times the average slot's. State: 96 floats and a few scalars.
public struct AdaptivePolicy: WakePolicy {
    public static let name = "adaptive"
    public static let summary =
        "heuristic: AIMD interval on newData/noData, back-off on failures, wakes before habitual quarter-hours"

    /// Habit slots per day and their length.
    static let slots = 96
    static let slot = Clock.day / 96

    let p: AdaptiveParameters
    let minInterval: SimTime, maxInterval: SimTime, increase: SimTime, lead: SimTime
    let habitDecay: Float
    var interval: SimTime
    var habit = InlineArray<96, Float>(repeating: 0)
    var habitTotal: Float = 0
    var waitingForState = false
    var lastRunStart: SimTime = -Clock.day
    let phase: SimTime

    public init(_ context: PolicyContext) {
        p = context.scenario.policies[AdaptivePolicy.self]
        minInterval = p.minInterval.ticks; maxInterval = max(p.maxInterval.ticks, minInterval)
        increase = p.increase.ticks; lead = p.lead.ticks
        interval = min(max(p.initialInterval.ticks, minInterval), maxInterval)
        habitDecay = dailyDecay(halfLife: p.habitHalfLife)
        var rng = context.random
        phase = SimTime(rng.uniform() * Double(interval))
    }

    /// The next wake after t. Once habits are known, wakes go only `lead` before habitual
    /// slots, at least `interval` after the last run started, looking up to
    /// `max_interval` ahead; without habits (or none in reach), t + interval.
    ///
    /// The habit slots are read through a span: subscripting the inline array here copied
    /// all 96 slots at every plan (3 % of the default scenario's time). Mutating, though
    /// it changes nothing: a span needs its storage in memory, and a non-mutating method
    /// copied the whole policy (536 bytes) to the stack to have it there.
    mutating func plan(from t: SimTime) -> WakeDecision {
        if habitTotal >= 1 {
            let habit = habit.span
            let threshold = Float(p.habitLift) * habitTotal / Float(Self.slots)
            // Strictly after t: a request denied at t must not come back at t.
            let notBefore = max(t + 1, lastRunStart + interval)
            var start = notBefore + lead - (notBefore + lead) % Self.slot
            if start - lead < notBefore { start += Self.slot }
            // Wrapping in the scan: start stays within a slot of t + maxInterval + lead.
            let last = t + maxInterval
            while start &- lead <= last {
                if habit[Int((start % Clock.day) / Self.slot)] >= threshold { return .request(at: start - lead) }
                start &+= Self.slot
            }
        }
        return .request(at: t + interval)
    }

    public mutating func start(_ view: DeviceView) -> WakeDecision { .request(at: phase) }

    public mutating func opened(_ view: DeviceView) -> WakeDecision {
        habit[Int((view.now % Clock.day) / Self.slot)] += 1
        habitTotal += 1
        // An open clears the force-quit and not-submitted gates.
        guard waitingForState else { return .keep }
        waitingForState = false
        return plan(from: view.now)
    }

    public mutating func runStarted(_ view: DeviceView) -> WakeDecision {
        lastRunStart = view.now
        return .keep
    }

    public mutating func runEnded(_ status: RunStatus, _ view: DeviceView) -> WakeDecision {
        switch status {
        case .newData: interval = SimTime(Double(interval) * p.decrease)
        case .noData: interval += increase
        case .failed: interval = SimTime(Double(interval) * p.failureBackoff)
        case .expired, .killed: interval = SimTime(Double(interval) * p.killBackoff)
        }
        interval = min(max(interval, minInterval), maxInterval)
        return plan(from: view.now)
    }

    public mutating func denied(_ reason: DenialReason, retryAt: SimTime?, _ view: DeviceView) -> WakeDecision {
        // A budget or spacing denial: the next wake worth its token after the reason clears.
        if let retryAt { return plan(from: retryAt) }
        switch reason {
        case .foreground, .busy: return plan(from: view.now)
        default:
            waitingForState = true  // a state gate: ask again when the state changes
            return .keep
        }
    }

    public mutating func stateChanged(_ view: DeviceView) -> WakeDecision {
        guard waitingForState else { return .keep }
        waitingForState = false
        return plan(from: view.now)
    }

    public mutating func midnight(_ view: DeviceView) -> WakeDecision {
        for i in 0..<Self.slots { habit[i] *= habitDecay }
        habitTotal *= habitDecay
        return .keep
    }
}

// MARK: - Parameters

public struct AdaptiveParameters: ParameterSet {
    public init() {}

    public var initialInterval = TimeSpan.hours(1)
    public var minInterval = TimeSpan.minutes(15)
    public var maxInterval = TimeSpan.hours(8)
    public var increase = TimeSpan.minutes(30)
    public var decrease = 0.5
    public var failureBackoff = 2.0
    public var killBackoff = 4.0
    public var habitHalfLife = TimeSpan.days(14)
    public var habitLift = 2.0
    public var lead = TimeSpan.minutes(5)
}
extension AdaptiveParameters {
    public static var fields: [ParameterField<Self>] {
        [
            .duration(
                \.initialInterval, "initial_interval", in: .minutes(1)...(.days(7)),
                "starting interval; bgbench's heuristic"),
            .duration(
                \.minInterval, "min_interval", in: .minutes(1)...(.days(7)),
                "smallest interval; MODEL.md §7 (the platform's 15 min)"),
            .duration(
                \.maxInterval, "max_interval", in: { .minutes($0.minInterval.minutes)...(.days(7)) },
                shown: "`min_interval` to 7d",
                "largest interval; bgbench's heuristic"),
            .duration(
                \.increase, "increase", in: .minutes(0)...(.days(1)),
                "added to the interval after `no_data` (AIMD); bgbench's heuristic"),
            .number(
                \.decrease, "decrease", "factor", in: 0.01...1,
                "on the interval after `new_data` (AIMD); bgbench's heuristic"),
            .number(
                \.failureBackoff, "failure_backoff", "factor", in: 1...100,
                "on the interval after `failed`; bgbench's heuristic"),
            .number(
                \.killBackoff, "kill_backoff", "factor", in: 1...100,
                "on the interval after `expired` or `killed`; bgbench's heuristic"),
            .duration(
                \.habitHalfLife, "habit_half_life", in: .hours(1)...(.days(365)),
                "half-life of the quarter-hour open counts; bgbench's heuristic, no published default"),
            .number(
                \.habitLift, "habit_lift", "number", in: 0...96,
                "a quarter-hour is habitual at this multiple of the average one's share of opens (1/96); bgbench's heuristic, no published default"
            ),
            .duration(
                \.lead, "lead", in: .minutes(0)...(.days(1)),
                "wake this long before a habitual quarter-hour (at least the interval after the last run started, looking up to `max_interval` ahead); bgbench's heuristic, no published default"
            ),
        ]
    }

    public static var knob: AggressivenessKnob? {
        AggressivenessKnob("min_interval", moreAggressive: .lower, sweep: ["5m", "15m", "30m", "1h", "2h"])
    }
}

extension AdaptivePolicy { public typealias Parameters = AdaptiveParameters }
