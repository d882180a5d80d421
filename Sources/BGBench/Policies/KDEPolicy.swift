import BGNumerics
import Foundation

/// `kde` (MODEL.md §7): a von Mises kernel density of the times of day of past opens,
/// weekdays and weekends apart. Each open adds the kernel
///   K(θ) = exp(κ (cos θ − 1)) / (2π · e^(−κ) I₀(κ)),  κ = 1/σ², σ = `bandwidth` in radians,
/// (the normaliser from GSL's scaled Bessel function, `Bessel.i0Scaled`) to a grid of 96
/// quarter-hours; weights are forgotten with `half_life`. Opens are placed to within
/// 2.5 min (three positions per quarter-hour; a binned KDE). Divided by the decayed number
/// of days seen, the density gives the expected opens in each quarter-hour; from those and
/// the item rate 1/`item_interval`, F(w) is the chance that the next open after a fetch at
/// w finds it still fresh (`freshChances`). The policy wakes `lead` before the first
/// quarter-hour where F reaches `min_fresh`, moved on to the peak of F that follows. F is
/// recomputed each midnight, when the day's opens (kept in a ring of 32) are folded in.
/// State: 2 × 96 densities, 2 × 96 chances, the kernel table, the ring (about 2.1 KB).
public struct KDEPolicy: GuardedPolicy {
    public static let name = "kde"
    public static let summary =
        "statistical: von Mises kernel density of open times of day (GSL Bessel normaliser); wake at the peak chance of a fresh next open"

    static let slots = 96
    static let slot = Clock.day / 96
    /// Largest kernel half-width in slots (bandwidth ≤ 1 h: 4σ = 16 slots).
    static let maxHalfWidth = 16
    /// Sub-slot positions of an open: 2.5, 7.5 and 12.5 min into its quarter-hour.
    static let phases = 3

    let lead: SimTime
    let minFresh: Float
    let decay: Float
    let muPerSlot: Double
    let halfWidth: Int
    var wake: WakeGuard
    /// Σ kernel (per radian) at each slot centre: [0, 96) weekdays, [96, 192) weekends.
    var density = InlineArray<192, Float>(repeating: 0)
    var weekdays: Float = 0, weekendDays: Float = 0
    var fresh = InlineArray<192, Float>(repeating: 0)
    /// kernel[phase · 33 + d + maxHalfWidth]: the kernel at slot offset d from an open at that
    /// phase (offsets up to ±halfWidth are filled).
    var kernel = InlineArray<99, Float>(repeating: 0)
    var ring = InlineArray<32, UInt16>(repeating: 0)
    var ringCount = 0
    var change: RoutineChange

    public init(_ context: PolicyContext) {
        let p = context.scenario.policies[KDEPolicy.self]
        lead = p.lead.ticks
        minFresh = Float(p.minFresh)
        decay = dailyDecay(halfLife: p.halfLife)
        muPerSlot = Clock.seconds(Self.slot) / max(p.itemInterval.seconds, 1)
        wake = WakeGuard(minGap: p.minGap, failureBackoff: p.failureBackoff, killBackoff: p.killBackoff)
        change = RoutineChange(halfLife: p.halfLife, p.routineChange)
        let minutes = max(p.bandwidth.seconds / 60, 1)
        halfWidth = min(Self.maxHalfWidth, Int((4 * minutes / 15).rounded(.up)))
        let kappa = Self.kappa(bandwidthMinutes: minutes)
        let norm = Self.normaliser(kappa: kappa)
        for phase in 0..<Self.phases {
            for d in -halfWidth...halfWidth {
                // Minutes from the open (at 2.5 + 5·phase into its slot) to the centre of slot + d.
                let delta = Double(d) * 15 + 7.5 - (2.5 + 5 * Double(phase))
                kernel[phase * 33 + d + Self.maxHalfWidth] =
                    Float(exp(kappa * (cos(Self.radians(minutes: delta)) - 1)) * norm)
            }
        }
    }

    static func radians(minutes: Double) -> Double { 2 * Double.pi * minutes / 1440 }

    /// κ = 1/σ² for a circular standard deviation of `bandwidthMinutes`.
    static func kappa(bandwidthMinutes: Double) -> Double {
        let sigma = radians(minutes: bandwidthMinutes)
        return 1 / (sigma * sigma)
    }

    /// 1 / (2π · e^(−κ) I₀(κ)), from GSL. Should GSL fail, the normaliser is the sum of
    /// exp(κ (cos θ − 1)) over a 1-minute grid of the circle instead (a Riemann sum, exact
    /// to many digits for any κ bgbench allows), so a run never stops on it.
    static func normaliser(kappa: Double) -> Double {
        if let i0 = try? Bessel.i0Scaled(kappa), i0 > 0 { return 1 / (2 * Double.pi * i0) }
        var sum = 0.0
        for m in 0..<1440 { sum += exp(kappa * (cos(radians(minutes: Double(m))) - 1)) }
        return 1 / (sum * radians(minutes: 1))
    }

    /// The von Mises density (per radian) at angle θ from its centre.
    static func vonMises(_ theta: Double, kappa: Double) -> Double {
        exp(kappa * (cos(theta) - 1)) * normaliser(kappa: kappa)
    }

    /// Adds an open at `minute` of a day of the given type to the density.
    mutating func add(minute: Int, weekend: Bool, weight: Float = 1) {
        let slot = minute / 15, phase = min((minute % 15) / 5, Self.phases - 1)
        let offset = weekend ? Self.slots : 0
        for d in -halfWidth...halfWidth {
            let i = (slot + d + Self.slots) % Self.slots
            density[offset + i] += weight * kernel[phase * 33 + d + Self.maxHalfWidth]
        }
    }

    /// Expected opens in slot i on a day of this type.
    mutating func expectedOpens(slot i: Int, weekend: Bool) -> Float {
        let days = weekend ? weekendDays : weekdays
        guard days > 0 else { return 0 }
        return density[(weekend ? Self.slots : 0) + i] * Float(2 * Double.pi / Double(Self.slots)) / days
    }

    /// F for both day types; weekends follow weekdays until one was seen.
    mutating func recompute() {
        for pass in 0..<2 {
            let weekend = pass == 1 && weekendDays > 0
            var values = InlineArray<96, Float>(repeating: 0)
            for i in 0..<Self.slots { values[i] = expectedOpens(slot: i, weekend: weekend) }
            freshChances(&values, itemsPerSlot: muPerSlot)
            for i in 0..<Self.slots { fresh[pass * Self.slots + i] = values[i] }
        }
    }

    /// Folds the ring's opens into the density as opens of the day `day`.
    mutating func fold(day: Int) {
        let weekend = Clock.isWeekend(day: day)
        for i in 0..<ringCount { add(minute: Int(ring[i]), weekend: weekend) }
        ringCount = 0
    }

    @inline(__always) mutating func freshChance(slot k: Int) -> Float {
        fresh[(Clock.isWeekend(day: k / Self.slots) ? Self.slots : 0) + k % Self.slots]
    }

    mutating func plan(from t: SimTime, now: SimTime) -> WakeDecision {
        let earliest = wake.earliest(from: t, now: now)
        var k = Int((earliest + lead + Self.slot - 1) / Self.slot)
        let end = k + 2 * Self.slots
        while k < end {
            var top = freshChance(slot: k)
            if top >= minFresh {
                while k + 1 < end {
                    let next = freshChance(slot: k + 1)
                    if next > top { top = next; k += 1 } else { break }
                }
                return .request(at: SimTime(k) * Self.slot - lead)
            }
            k += 1
        }
        return .cancel
    }

    // MARK: Callbacks

    public mutating func opened(_ view: DeviceView) -> WakeDecision {
        if ringCount == ring.count { fold(day: Clock.dayIndex(view.now)) }  // more than 32 opens today
        ring[ringCount] = UInt16((view.now % Clock.day) / Clock.minute)
        ringCount += 1
        change.open(at: view.now)
        return resumed(view)
    }

    public mutating func midnight(_ view: DeviceView) -> WakeDecision {
        let ended = Clock.dayIndex(view.now) - 1
        let keep = change.midnight() ? decay * change.keep : decay
        for i in 0..<(2 * Self.slots) { density[i] *= keep }
        weekdays *= keep; weekendDays *= keep
        fold(day: ended)
        if Clock.isWeekend(day: ended) { weekendDays += 1 } else { weekdays += 1 }
        recompute()
        return wake.waiting ? .keep : plan(from: view.now, now: view.now)
    }
}

// MARK: - Parameters

public struct KDEParameters: ParameterSet {
    public init() {}

    public var halfLife = TimeSpan.days(28)
    public var bandwidth = TimeSpan.minutes(20)
    public var itemInterval = TimeSpan.minutes(30)
    public var minFresh = 0.1
    public var lead = TimeSpan.minutes(1)
    public var minGap = TimeSpan.hours(2)
    public var failureBackoff = TimeSpan.minutes(30)
    public var killBackoff = TimeSpan.hours(2)
    public var routineChange = RoutineChangeParameters()
}
extension KDEParameters {
    public static var fields: [ParameterField<Self>] {
        LearningRules.fields(
            halfLife: \.halfLife, halfLifeDoc: "half-life of the kernel density's weights (as `histogram`); assumption",
            lead: \.lead, minGap: \.minGap, failureBackoff: \.failureBackoff, killBackoff: \.killBackoff) + [
                LearningRules.routineChange(\.routineChange),
                .duration(
                    \.bandwidth, "bandwidth", in: .minutes(10)...(.hours(1)),
                    "circular standard deviation σ of the von Mises kernel, κ = 1/σ² in radians; assumption: wider than the 15 min grid, narrower than a routine's spacing"
                ),
                .duration(
                    \.itemInterval, "item_interval", in: .minutes(1)...(.days(7)),
                    "mean time between content items, 1/μ; MODEL.md §5: 48 a day"),
                .number(
                    \.minFresh, "min_fresh", "probability", in: 0...1,
                    "wake where the next open would find the fetch fresh with at least this chance; assumption"),
            ]
    }

    public static var knob: AggressivenessKnob? {
        AggressivenessKnob("min_fresh", moreAggressive: .lower, sweep: ["0.05", "0.1", "0.2", "0.3", "0.5"])
    }
}

extension KDEPolicy { public typealias Parameters = KDEParameters }
