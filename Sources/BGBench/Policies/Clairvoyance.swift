import Foundation

/// Knowledge of the future that only the `oracle` bound may use (MODEL.md §7): the user's
/// future opens (from a copy of the user's own generator, so they are exactly the opens
/// that will happen) and the content feed. It knows nothing of run outcomes.
public struct Clairvoyance {
    private var opens: UserOpens?
    private var upcoming: SimTime = Clock.never
    private let feed: NewsFeed?

    init(opens: UserOpens?, feed: NewsFeed?) {
        self.opens = opens
        self.feed = feed
        if var o = opens { upcoming = o.next().time; self.opens = o }
    }

    /// No knowledge at all (for policies built outside a simulation, e.g. in tests).
    public static var none: Clairvoyance { Clairvoyance(opens: nil, feed: nil) }

    /// The time of the first open at or after t, or `Clock.never`.
    public mutating func nextOpen(atOrAfter t: SimTime) -> SimTime {
        guard var o = opens else { return Clock.never }
        while upcoming < t { upcoming = o.next().time }
        opens = o
        return upcoming
    }

    /// The publication time of the first item after c, or `Clock.never`.
    public func firstItem(after c: SimTime) -> SimTime {
        guard let times = feed?.times else { return Clock.never }
        var lo = 0, hi = times.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if times[mid] <= c { lo = mid + 1 } else { hi = mid }
        }
        return lo < times.count ? times[lo] : Clock.never
    }
}

/// The user's true open intensity, for the `prophet` bound only (`PolicyKnowledge.intensity`):
/// the rates the user model draws this device's primary opens from (MODEL.md §3), not the
/// draws. For a model user, its own weekday and weekend profiles (archetype curve,
/// chronotype, rate, weekend shape, sleep window, night checks: the simulation's own
/// `DayProfile`s); for a routine user, each listed open with its probability and normal
/// jitter; both with the drift. Reopens are left out: they follow an open, which has just
/// refreshed the app. For a replayed trace, the device's whole-trace hour-of-week profile
/// of opens (every open of the trace), smoothed by a [1, 2, 1]/4 kernel over neighbouring
/// hours of the week, with no drift.
public struct OpenIntensity: Sendable {
    enum Source: Sendable {
        case none
        case profiled(weekday: DayProfile, weekend: DayProfile)
        case routine([Routine.Entry])
        case trace(OpensTrace, device: Int)
    }
    let source: Source
    /// From `driftStart` on, the user's opens move `driftShift` later (MODEL.md §3).
    let driftStart: SimTime
    let driftShift: SimTime

    /// No knowledge (every policy but `prophet`).
    public static var none: OpenIntensity { OpenIntensity(source: .none, driftStart: Clock.never, driftShift: 0) }

    init(source: Source, driftStart: SimTime, driftShift: SimTime) {
        self.source = source; self.driftStart = driftStart; self.driftShift = driftShift
    }

    /// The intensity behind a device's opens, from the generators the simulation built.
    init(opens: ProfiledPoisson, routine: RoutineProcess?, trace: OpensTrace?, device: Int) {
        if let trace {
            self.init(source: .trace(trace, device: device), driftStart: Clock.never, driftShift: 0)
        } else if let routine {
            self.init(source: .routine(routine.entries), driftStart: routine.driftStart, driftShift: routine.driftShift)
        } else {
            self.init(
                source: .profiled(weekday: opens.weekday, weekend: opens.weekend),
                driftStart: opens.driftStart, driftShift: opens.driftShift)
        }
    }

    /// Whether anything is known.
    public var isKnown: Bool { if case .none = source { false } else { true } }

    /// Expected primary opens in each of the `slotsPerDay` equal slots of each day of a
    /// week (Monday first: 7 · slotsPerDay values), before the drift or, with `drifted`,
    /// after it. Zero everywhere when nothing is known.
    public func weeklyOpens(slotsPerDay: Int, drifted: Bool = false) -> [Double] {
        let n = 7 * slotsPerDay, slot = Clock.day / SimTime(slotsPerDay)
        var out = [Double](repeating: 0, count: n)
        /// Adds `rate` (per tick) over [from, to) of the week, wrapping.
        func add(rate: Double, from: SimTime, to: SimTime) {
            var t = from
            while t < to {
                let k = Int(t / slot), end = min(to, SimTime(k + 1) * slot)
                out[k % n] += rate * Double(end - t)
                t = end
            }
        }
        switch source {
        case .none:
            return out
        case .profiled(let weekday, let weekend):
            for d in 0..<7 {
                let p = d >= 5 ? weekend : weekday, dayStart = SimTime(d) * Clock.day
                var start: SimTime = 0
                for i in 0..<p.count {
                    add(rate: p.rates[i], from: dayStart + start, to: dayStart + p.ends[i])
                    start = p.ends[i]
                }
            }
        case .routine(let entries):
            for d in 0..<7 {
                for e in entries where e.probability > 0 {
                    let centre = SimTime(d) * Clock.day + e.at.ticks, sd = Double(e.jitterSd.ticks)
                    guard sd > 0 else { out[Int((centre / slot) % SimTime(n))] += e.probability; continue }
                    let reach = SimTime(8 * sd)
                    let first = Int(floorDiv(centre - reach, slot)), last = Int(floorDiv(centre + reach, slot))
                    for k in first...min(last, first + n - 1) {
                        let lo: Double = Double(SimTime(k) * slot - centre) / sd
                        let hi: Double = Double(SimTime(k + 1) * slot - centre) / sd
                        let mass: Double = 0.5 * (erfc(-hi / 2.0.squareRoot()) - erfc(-lo / 2.0.squareRoot()))
                        out[((k % n) + n) % n] += e.probability * mass
                    }
                }
            }
        case .trace(let trace, let device):
            let mine = trace.opens(device: device)
            guard let last = mine.last else { return out }
            let days = Clock.dayIndex(last.time) + 1
            var counts = [Double](repeating: 0, count: 168)
            for o in mine { counts[Int((o.time / Clock.hour) % 168)] += 1 }
            var hourly = [Double](repeating: 0, count: 168)
            for h in 0..<168 {
                let exposure = Double((days - h / 24 + 6) / 7)  // days of this weekday in [0, days)
                let smoothed = (counts[(h + 167) % 168] + 2 * counts[h] + counts[(h + 1) % 168]) / 4
                hourly[h] = exposure > 0 ? smoothed / exposure : 0
            }
            for h in 0..<168 {
                add(
                    rate: hourly[h] / Double(Clock.hour), from: SimTime(h) * Clock.hour, to: SimTime(h + 1) * Clock.hour
                )
            }
        }
        guard drifted, driftShift != 0 else { return out }
        // Times move `driftShift` later: slot k now holds what [k·slot − shift, ...) held.
        let q = Double(driftShift) / Double(slot), whole = Int(q.rounded(.down)), f = q - Double(whole)
        return (0..<n).map { k in
            (1 - f) * out[(((k - whole) % n) + n) % n] + f * out[(((k - whole - 1) % n) + n) % n]
        }
    }
}

private func floorDiv(_ a: SimTime, _ b: SimTime) -> SimTime { a >= 0 ? a / b : -((-a + b - 1) / b) }
