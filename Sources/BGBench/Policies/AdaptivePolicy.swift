import Foundation

/// `adaptive` (MODEL.md §7, the CLI default): a wake interval that widens additively after
/// noData and narrows multiplicatively after newData (AIMD, as TCP's congestion window
/// but inverted: new content means "come back sooner"), backs off after failures and
/// harder after expiries and kills, and pulls each wake to `lead` before an hour in which
/// the user habitually opens the app. Habits are 24 hour-of-day open counts halved every
/// `habit_half_life`. State: 24 doubles and a few scalars.
public struct AdaptivePolicy: WakePolicy {
    public static let name = "adaptive"
    public static let summary = "heuristic: AIMD interval on newData/noData, back-off on failures, wakes before habitual hours"

    let p: AdaptiveParameters
    let minInterval: SimTime, maxInterval: SimTime, increase: SimTime, lead: SimTime
    let habitDecay: Double
    var interval: SimTime
    var habit = InlineArray<24, Double>(repeating: 0)
    var habitTotal = 0.0
    var waitingForState = false
    let phase: SimTime

    public init(_ context: PolicyContext) {
        p = context.scenario.policies.adaptive
        minInterval = p.minInterval.ticks; maxInterval = max(p.maxInterval.ticks, minInterval)
        increase = p.increase.ticks; lead = p.lead.ticks
        interval = min(max(p.initialInterval.ticks, minInterval), maxInterval)
        habitDecay = pow(2, -Double(Clock.day) / Double(max(1, p.habitHalfLife.ticks)))
        var rng = context.random
        phase = SimTime(rng.uniform() * Double(interval))
    }

    /// The next wake after t: t + interval, or earlier, `lead` before the first habitual
    /// hour that starts within the interval.
    func plan(from t: SimTime) -> WakeDecision {
        let latest = t + interval
        if habitTotal >= 1 {
            var hourStart = t - t % Clock.hour + Clock.hour
            while hourStart - lead <= latest {
                let h = Clock.hourOfDay(hourStart)
                if habit[h] >= p.habitShare * habitTotal && hourStart - lead > t {
                    return .request(at: hourStart - lead)
                }
                hourStart += Clock.hour
            }
        }
        return .request(at: latest)
    }

    public mutating func start(_ view: DeviceView) -> WakeDecision { .request(at: phase) }

    public mutating func opened(_ view: DeviceView) -> WakeDecision {
        habit[Clock.hourOfDay(view.now)] += 1
        habitTotal += 1
        // An open clears the force-quit and not-submitted gates.
        guard waitingForState else { return .keep }
        waitingForState = false
        return plan(from: view.now)
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
        for h in 0..<24 { habit[h] *= habitDecay }
        habitTotal *= habitDecay
        return .keep
    }
}
