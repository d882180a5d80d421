import Foundation

/// `histogram` (MODEL.md §7): a histogram of opens by hour of the week (168 bins) with
/// exponential forgetting. The expected opens in the `window` from the start of an hour
/// is the sum of its bins' rates (decayed opens over decayed occurrences of that weekday);
/// P(an open in the window) = 1 − exp(−that). The policy wakes `lead` before the first
/// hour where P reaches `threshold`, moved on to the next hours while P keeps rising (one
/// wake at the top of a rising stretch). State: the counts (about 750 bytes) and a few
/// scalars; a plan scans at most a week of bins.
public struct HistogramPolicy: GuardedPolicy {
    public static let name = "histogram"
    public static let summary =
        "heuristic: hour-of-week histogram of opens with forgetting; wake where P(open in the next window) passes a threshold"

    let lead: SimTime
    let windowHours: Int
    /// P ≥ threshold ⟺ expected opens ≥ −ln(1 − threshold).
    let minExpected: Float
    var wake: WakeGuard
    var histogram: HourOfWeekCounts
    var change: RoutineChange

    public init(_ context: PolicyContext) {
        let p = context.scenario.policies[HistogramPolicy.self]
        lead = p.lead.ticks
        windowHours = max(1, Int((p.window.ticks + Clock.hour / 2) / Clock.hour))
        minExpected = Float(-log1p(-min(p.threshold, 0.999_999)))
        wake = WakeGuard(minGap: p.minGap, failureBackoff: p.failureBackoff, killBackoff: p.killBackoff)
        histogram = HourOfWeekCounts(halfLife: p.halfLife)
        change = RoutineChange(halfLife: p.halfLife, p.routineChange)
    }

    /// Expected opens in the window starting at global hour H.
    @inline(__always) mutating func expected(_ H: Int) -> Float {
        var sum: Float = 0
        for i in 0..<windowHours { sum += histogram.rate(HourOfWeekCounts.bin(ofHour: H + i)) }
        return sum
    }

    /// P(an open in the window starting at global hour H).
    mutating func probability(atHour H: Int) -> Double { -expm1(-Double(expected(H))) }

    mutating func plan(from t: SimTime, now: SimTime) -> WakeDecision {
        let earliest = wake.earliest(from: t, now: now)
        var H = Int((earliest + lead + Clock.hour - 1) / Clock.hour)
        let end = H + HourOfWeekCounts.bins
        while H < end {
            var top = expected(H)
            if top >= minExpected {
                // The top of the rising stretch that starts here.
                while H + 1 < end {
                    let next = expected(H + 1)
                    if next > top { top = next; H += 1 } else { break }
                }
                return .request(at: SimTime(H) * Clock.hour - lead)
            }
            H += 1
        }
        return .cancel
    }

    public mutating func opened(_ view: DeviceView) -> WakeDecision {
        histogram.open(at: view.now)
        change.open(at: view.now)
        return resumed(view)
    }

    public mutating func midnight(_ view: DeviceView) -> WakeDecision {
        if change.midnight() { histogram.forget(change.keep) }
        histogram.midnight(at: view.now)
        return wake.waiting ? .keep : plan(from: view.now, now: view.now)
    }
}

// MARK: - Parameters

public struct HistogramParameters: ParameterSet {
    public init() {}

    public var halfLife = TimeSpan.days(28)
    public var window = TimeSpan.hours(1)
    public var threshold = 0.3
    public var lead = TimeSpan.minutes(5)
    public var minGap = TimeSpan.hours(2)
    public var failureBackoff = TimeSpan.minutes(30)
    public var killBackoff = TimeSpan.hours(2)
    public var routineChange = RoutineChangeParameters()
}
extension HistogramParameters {
    public static var fields: [ParameterField<Self>] {
        LearningRules.fields(
            halfLife: \.halfLife,
            halfLifeDoc:
                "half-life of what `histogram` learns (168 hour-of-week open counts); assumption: a bin sees one sample a week, so four weeks keep about six samples per bin",
            lead: \.lead, minGap: \.minGap, failureBackoff: \.failureBackoff, killBackoff: \.killBackoff) + [
                LearningRules.routineChange(\.routineChange),
                .duration(
                    \.window, "window", in: .hours(1)...(.hours(24)),
                    "P(an open in this long from an hour's start) = 1 − exp(−expected opens in it), whole hours; assumption: one bin"
                ),
                .number(
                    \.threshold, "threshold", "probability", in: 0.001...0.999,
                    "wake before an hour where that P reaches this; assumption"),
            ]
    }

    public static var knob: AggressivenessKnob? {
        AggressivenessKnob("threshold", moreAggressive: .lower, sweep: ["0.1", "0.2", "0.3", "0.5", "0.7"])
    }
}

extension HistogramPolicy { public typealias Parameters = HistogramParameters }
