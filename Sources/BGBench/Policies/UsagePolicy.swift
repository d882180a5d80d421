import Foundation

/// `usage` (MODEL.md §7): iOS-like. iOS's own scheduler launches an app in the background
/// shortly before the times it predicts the user will open it, and gives apps used more
/// more launches (WWDC20 session 10063). This policy keeps decayed open counts per hour of
/// day (weekdays and weekends apart) and, each midnight, picks the K hours of the coming
/// days most likely to see an open (P ≥ `min_probability`), K = round(`wakes_scale` ·
/// ln(1 + u)) at most `wakes_cap` with u its decayed opens a day; it wakes `lead` before
/// each. State: 48 floats, 24 day counters and a few scalars.
public struct UsagePolicy: GuardedPolicy {
    public static let name = "usage"
    public static let summary =
        "heuristic (iOS-like): wake `lead` before the hours most likely to see an open; more opens, more wakes"

    let p: UsageParameters
    let lead: SimTime
    let decay: Float
    var wake: WakeGuard
    /// Decayed opens per hour of day: [0, 24) weekdays, [24, 48) weekends.
    var counts = InlineArray<48, Float>(repeating: 0)
    /// Decayed whole weekdays and weekend days seen.
    var weekdays: Float = 0, weekendDays: Float = 0
    var today = OpensToday()
    /// The chosen hours: bit h of `chosenWeekday` / `chosenWeekend`.
    var chosenWeekday: UInt32 = 0, chosenWeekend: UInt32 = 0

    public init(_ context: PolicyContext) {
        p = context.scenario.policies[UsagePolicy.self]
        lead = p.lead.ticks
        decay = dailyDecay(halfLife: p.halfLife)
        wake = WakeGuard(minGap: .seconds(0), failureBackoff: p.failureBackoff, killBackoff: p.killBackoff)
    }

    /// Wakes a day for u opens a day: round(scale · ln(1 + u)), at most the cap.
    static func wakesPerDay(opensPerDay u: Double, scale: Double, cap: Int) -> Int {
        min(cap, Int((scale * log1p(max(0, u))).rounded()))
    }

    /// The K hours with the most expected opens among those with P(open) ≥ the minimum
    /// (P = 1 − exp(−expected opens), so ranking by expected opens is ranking by P).
    static func choose(k: Int, minRate: Float, _ rates: borrowing InlineArray<24, Float>) -> UInt32 {
        let rates = rates.span
        var mask: UInt32 = 0
        for _ in 0..<k {
            var best = -1
            var top: Float = 0
            for h in 0..<24 where mask & (1 << h) == 0 {
                let r = rates[h]
                if r >= minRate && (best < 0 || r > top) { best = h; top = r }
            }
            if best < 0 { break }
            mask |= 1 << best
        }
        return mask
    }

    mutating func choose() {
        let days = weekdays + weekendDays
        guard days > 0 else { return }
        var total: Float = 0
        for i in 0..<48 { total += counts[i] }
        let k = Self.wakesPerDay(opensPerDay: Double(total / days), scale: p.wakesScale, cap: p.wakesCap)
        let minRate = Float(-log1p(-min(p.minProbability, 0.999_999)))
        chosenWeekday = weekdays > 0 ? Self.choose(k: k, minRate: minRate, rates(from: 0, days: weekdays)) : 0
        // Before the first weekend, weekends follow the weekdays.
        chosenWeekend =
            weekendDays > 0
            ? Self.choose(k: k, minRate: minRate, rates(from: 24, days: weekendDays))
            : chosenWeekday
    }

    /// Expected opens in each hour of a weekday (`first` 0) or a weekend day (24). Read
    /// through a span, in a mutating method: a closure reading the inline array copied all
    /// 48 counts at every read, 9 % of the policy's whole run.
    mutating func rates(from first: Int, days: Float) -> InlineArray<24, Float> {
        var rates = InlineArray<24, Float>(repeating: 0)
        let counts = counts.span
        for h in 0..<24 { rates[h] = counts[first + h] / days }
        return rates
    }

    /// `lead` before the first chosen hour whose wake is at or after `from`, within 2 days.
    mutating func plan(from t: SimTime, now: SimTime) -> WakeDecision {
        let earliest = wake.earliest(from: t, now: now)
        var hour = Int((earliest + lead + Clock.hour - 1) / Clock.hour)
        for _ in 0..<48 {
            let mask = Clock.isWeekend(day: hour / 24) ? chosenWeekend : chosenWeekday
            if mask & (1 << (hour % 24)) != 0 { return .request(at: SimTime(hour) * Clock.hour - lead) }
            hour += 1
        }
        return .cancel
    }

    public mutating func start(_ view: DeviceView) -> WakeDecision { .keep }

    public mutating func opened(_ view: DeviceView) -> WakeDecision {
        today.add(at: view.now)
        return resumed(view)
    }

    public mutating func midnight(_ view: DeviceView) -> WakeDecision {
        let ended = Clock.dayIndex(view.now) - 1
        for i in 0..<48 { counts[i] *= decay }
        weekdays *= decay; weekendDays *= decay
        let offset = Clock.isWeekend(day: ended) ? 24 : 0
        for h in 0..<24 {
            counts[offset + h] += Float(today[h])
        }
        today.clear()
        if offset == 0 { weekdays += 1 } else { weekendDays += 1 }
        choose()
        return wake.waiting ? .keep : plan(from: view.now, now: view.now)
    }
}

// MARK: - Parameters

public struct UsageParameters: ParameterSet {
    public init() {}

    public var halfLife = TimeSpan.days(7)
    public var wakesScale = 2.5
    public var wakesCap = 12
    public var minProbability = 0.2
    public var lead = TimeSpan.minutes(10)
    public var failureBackoff = TimeSpan.minutes(30)
    public var killBackoff = TimeSpan.hours(2)
}
extension UsageParameters {
    public static var fields: [ParameterField<Self>] {
        LearningRules.fields(
            halfLife: \.halfLife,
            halfLifeDoc:
                "half-life of what `usage` learns (the hour-of-day open counts and the opens-per-day average); the platform's usage half-life (MODEL.md §6.4 rule 4: 7 d), as iOS's predictor would weigh recent use",
            lead: \.lead,
            leadDoc:
                "wake this long before the chosen slot; assumption: a few minutes, as iOS launches an app shortly before its predicted use",
            minGap: nil, failureBackoff: \.failureBackoff, killBackoff: \.killBackoff) + [
                .number(
                    \.wakesScale, "wakes_scale", "number", in: 0...100,
                    "wakes a day = round(`wakes_scale` · ln(1 + opens a day)), so more opens bring more wakes; MODEL.md §6.3's budget formula (2.5), so the policy asks for about what ios-bgtask grants"
                ),
                .integer(
                    \.wakesCap, "wakes_cap", "integer", in: 0...24, "at most this many wakes a day; MODEL.md §6.3 (12)"),
                .number(
                    \.minProbability, "min_probability", "probability", in: 0...1,
                    "an hour is a candidate if P(an open in it) reaches this; assumption"),
            ]
    }

    public static var knob: AggressivenessKnob? {
        AggressivenessKnob("wakes_scale", moreAggressive: .higher, sweep: ["1", "2.5", "4", "6"])
    }
}

extension UsagePolicy { public typealias Parameters = UsageParameters }
