import Foundation

/// A piecewise-constant intensity over one day (events per microsecond), as at most 32
/// segments: the 24 hourly weights shifted by the user's chronotype (and the weekend
/// shift), with the sleep window cut out (MODEL.md §3). Stored inline: building and
/// copying a profile allocates nothing.
struct DayProfile {
    static let capacity = 32
    /// End of segment i, in ticks since the start of the day; the last is `Clock.day`.
    var ends = InlineArray<32, SimTime>(repeating: Clock.day)
    var rates = InlineArray<32, Double>(repeating: 0)
    var count = 1

    /// The expected number of events in one day.
    var dailyTotal: Double {
        var total = 0.0, start: SimTime = 0
        for i in 0..<count { total += rates[i] * Double(ends[i] - start); start = ends[i] }
        return total
    }

    /// Builds the profile of a day with `expected` events outside the sleep window.
    /// - Parameters:
    ///   - weights: 24 hourly weights (hour h covers [h, h+1) before the shift).
    ///   - shift: how much later than the weights the curve runs (chronotype, weekend).
    ///   - sleep: the sleep window as (start, length) in ticks of the day, or nil; it may
    ///     wrap past midnight. Inside it the intensity is `nightEvents / length`.
    static func build(
        weights: [Double], shift: SimTime, expected: Double,
        sleep: (start: SimTime, length: SimTime)?, nightEvents: Double
    ) -> DayProfile {
        func wrap(_ t: SimTime) -> SimTime { ((t % Clock.day) + Clock.day) % Clock.day }
        var cuts: [SimTime] = (0..<24).map { wrap(SimTime($0) * Clock.hour + shift) }
        if let sleep { cuts.append(wrap(sleep.start)); cuts.append(wrap(sleep.start + sleep.length)) }
        cuts.append(0)
        cuts = Array(Set(cuts)).sorted()
        cuts.append(Clock.day)

        func asleep(_ t: SimTime) -> Bool {
            guard let sleep, sleep.length > 0 else { return false }
            return wrap(t - sleep.start) < sleep.length
        }
        // First pass: awake weight mass, to rescale so the day keeps its expected count.
        var awakeMass = 0.0
        for i in 0..<(cuts.count - 1) {
            let mid = (cuts[i] + cuts[i + 1]) / 2
            if !asleep(mid) {
                awakeMass += weights[Int(wrap(mid - shift) / Clock.hour)] * Double(cuts[i + 1] - cuts[i])
            }
        }
        var profile = DayProfile()
        profile.count = 0
        for i in 0..<(cuts.count - 1) {
            let mid = (cuts[i] + cuts[i + 1]) / 2
            let rate: Double
            if asleep(mid) {
                rate = nightEvents / Double(sleep!.length)
            } else {
                let w = weights[Int(wrap(mid - shift) / Clock.hour)]
                rate = awakeMass > 0 ? expected * w / awakeMass : 0
            }
            // Merge with the previous segment when the rate is the same.
            if profile.count > 0 && profile.rates[profile.count - 1] == rate {
                profile.ends[profile.count - 1] = cuts[i + 1]
            } else {
                profile.ends[profile.count] = cuts[i + 1]
                profile.rates[profile.count] = rate
                profile.count += 1
            }
        }
        return profile
    }
}

/// A non-homogeneous Poisson process with one profile for weekdays and one for weekends,
/// sampled exactly by inversion of the cumulative intensity (one exponential draw per
/// event). Optional drift (MODEL.md §3): from `driftStart` on, times move by `driftShift`.
struct ProfiledPoisson {
    let weekday: DayProfile
    let weekend: DayProfile
    let horizon: SimTime
    let driftStart: SimTime
    let driftShift: SimTime
    private var tau: SimTime = 0
    // The segment that holds tau: its index, absolute end and rate, and its day's start
    // and kind, kept so that crossing a segment costs a few loads, not calendar arithmetic.
    private var segment = 0
    private var segmentEnd: SimTime
    private var segmentRate: Double
    private var dayStart: SimTime = 0
    private var dayOfWeek = 0

    init(
        weekday: DayProfile, weekend: DayProfile, horizon: SimTime,
        driftStart: SimTime = Clock.never, driftShift: SimTime = 0
    ) {
        self.weekday = weekday; self.weekend = weekend; self.horizon = horizon
        self.driftStart = driftStart; self.driftShift = driftShift
        // Day 0 is a Monday (MODEL.md §2).
        segmentEnd = weekday.ends[0]
        segmentRate = weekday.rates[0]
    }

    /// The next event time, or `Clock.never` when none falls before the horizon.
    @inline(__always)
    mutating func next(_ rng: inout RandomStream) -> SimTime {
        var e = rng.standardExponential()
        while tau < horizon {
            let room = segmentRate * Double(segmentEnd &- tau)  // 0 ≤ tau ≤ segmentEnd: no overflow
            if e < room {
                // Wrapping and unchecked: the step is at least 0 and below segmentEnd − tau
                // (0 ≤ e < room), so it converts in range and tau stays below segmentEnd.
                tau &+= SimTime(uncheckedTruncating: e / segmentRate)
                return tau >= driftStart ? tau + driftShift : tau
            }
            e -= room
            tau = segmentEnd
            advanceSegment()
        }
        return Clock.never
    }

    /// Moves to the next segment, into the next day after the last.
    @inline(__always)
    private mutating func advanceSegment() {
        // Wrapping and unchecked: segment < count ≤ 32 (the profile's capacity), and
        // dayStart + a day's end stays within a day after the horizon.
        segment &+= 1
        // Read the profiles in place: binding one to a local would copy 512 bytes.
        let weekendDay = dayOfWeek >= 5
        if segment == (weekendDay ? weekend.count : weekday.count) {
            segment = 0
            dayStart &+= Clock.day
            dayOfWeek = dayOfWeek == 6 ? 0 : dayOfWeek &+ 1
        }
        if dayOfWeek >= 5 {
            segmentEnd = dayStart &+ weekend.ends[unchecked: segment]; segmentRate = weekend.rates[unchecked: segment]
        } else {
            segmentEnd = dayStart &+ weekday.ends[unchecked: segment]; segmentRate = weekday.rates[unchecked: segment]
        }
    }
}

/// Routine opens (MODEL.md §3): each listed time of day, with a normal jitter, happens each
/// day with its probability. Produces one day at a time, in time order.
struct RoutineProcess {
    let entries: [Routine.Entry]
    let horizon: SimTime
    let driftStart: SimTime
    let driftShift: SimTime
    private var day = 0
    private var buffer = InlineArray<16, SimTime>(repeating: 0)
    private var count = 0
    private var served = 0

    init(routine: Routine, horizon: SimTime, driftStart: SimTime, driftShift: SimTime) {
        entries = routine.opens; self.horizon = horizon
        self.driftStart = driftStart; self.driftShift = driftShift
    }

    mutating func next(_ rng: inout RandomStream) -> SimTime {
        while served == count {
            let dayStart = SimTime(day) * Clock.day
            if dayStart >= horizon { return Clock.never }
            let shift = dayStart >= driftStart ? driftShift : 0
            count = 0; served = 0
            for entry in entries where rng.bernoulli(entry.probability) {
                let jitter = Clock.ticks(seconds: entry.jitterSd.seconds * rng.standardNormal())
                buffer[count] = max(0, dayStart + entry.at.ticks + shift + jitter)
                count += 1
            }
            // Insertion sort: at most 16 entries.
            for i in 1..<max(1, count) {
                let x = buffer[i]; var j = i - 1
                while j >= 0 && buffer[j] > x { buffer[j + 1] = buffer[j]; j -= 1 }
                buffer[j + 1] = x
            }
            day += 1
        }
        served += 1
        return buffer[served - 1]
    }
}

/// A device's opens read from a shared trace (trace replay, MODEL.md §3): a cursor into
/// its slice of the one array of opens, stopping at the horizon.
struct TraceReplay {
    let trace: OpensTrace
    private var next: Int
    private let end: Int
    let horizon: SimTime

    init(trace: OpensTrace, device: Int, horizon: SimTime) {
        self.trace = trace
        next = trace.starts[device]
        end = trace.starts[device + 1]
        self.horizon = horizon
    }

    /// The next open of the trace, or nil when none is left before the horizon.
    @inline(__always)
    mutating func pop() -> TraceOpen? {
        guard next < end else { return nil }
        let open = trace.opens[next]
        guard open.time < horizon else { next = end; return nil }
        next += 1
        return open
    }
}

/// One app open as the user model draws it.
struct OpenDraw {
    var time: SimTime
    var session: SimTime
    var forceQuit: Bool
}

/// The user's opens of the app (MODEL.md §3): primary opens from the diurnal process or
/// the routine, each followed by a reopen with probability p_reopen, session lengths
/// from an exponential body with a Pareto tail, and force-quits. An open never starts
/// inside the previous session: it waits until that session ends, so none is lost.
/// A value type: the oracle looks ahead on a copy.
struct UserOpens {
    /// The primary opens: from the diurnal process, or from the routine when `routine`
    /// is set. (Two fields rather than an enum: an enum payload would be copied, a
    /// kilobyte of profiles, at every draw.)
    private var poisson: ProfiledPoisson
    private var routine: RoutineProcess?
    /// Whether `routine` is set, read at every draw without touching the optional
    /// (testing it copies the routine's buffer).
    private let isRoutine: Bool
    private var rng: RandomStream
    private let behaviour: SessionParameters
    private var nextPrimary: SimTime = 0
    /// Reopens drawn and not yet served, ascending. Several can wait at once: a primary
    /// open may fall between an open and its reopen, and its own reopen must not replace
    /// the earlier one. More than `reopenCapacity` waiting at once takes hundreds of opens
    /// an hour; the latest is then dropped.
    private var reopens = InlineArray<16, SimTime>(repeating: Clock.never)
    private var reopenCount = 0
    private static let reopenCapacity = 16
    private var busyUntil: SimTime = 0
    /// Trace replay: when set, the opens come from the trace and nothing else (no primary
    /// process, no reopens); sessions the trace does not give are drawn, and force-quits.
    private var replay: TraceReplay?
    private let isReplay: Bool

    init(
        poisson: ProfiledPoisson, routine: RoutineProcess?, replay: TraceReplay? = nil,
        rng: RandomStream, behaviour: SessionParameters
    ) {
        self.poisson = poisson; self.routine = routine; self.replay = replay; self.rng = rng; self.behaviour = behaviour
        isRoutine = routine != nil
        isReplay = replay != nil
        nextPrimary = replay == nil ? drawPrimary() : Clock.never
    }

    /// Expected night checks a night for a user with `rate` opens a day (MODEL.md §3):
    /// min(n, r/10), part of the rate, so a rare user's few opens are not mostly at night
    /// and the waking hours keep at least nine tenths of it.
    static func nightChecks(perNight n: Double, rate r: Double) -> Double { min(n, r / 10) }

    /// The mean opens per day of `opens` (a copy: the caller's draws are untouched) over
    /// [0, `span`): a routine user's starting usage average (MODEL.md §6.4 rule 4).
    static func meanOpensPerDay(_ opens: UserOpens, over span: SimTime) -> Double {
        var copy = opens, count = 0
        while copy.next().time < span { count += 1 }
        return Double(count) / (Double(span) / Double(Clock.day))
    }

    /// The next open of a replayed trace. As for drawn opens, an open that falls inside
    /// the previous session starts when that session ends.
    private mutating func nextReplayed() -> OpenDraw {
        guard let open = replay!.pop() else { return OpenDraw(time: Clock.never, session: 0, forceQuit: false) }
        let time = max(open.time, busyUntil)
        let session = open.session >= 0 ? open.session : behaviour.hasSessions ? behaviour.drawSession(&rng) : 0
        let forceQuit = behaviour.forceQuitProbability > 0 && rng.bernoulli(behaviour.forceQuitProbability)
        busyUntil = time + session + 1
        return OpenDraw(time: time, session: session, forceQuit: forceQuit)
    }

    private mutating func drawPrimary() -> SimTime {
        if isRoutine { return routine!.next(&rng) }
        return poisson.next(&rng)
    }

    /// The next open; its time is `Clock.never` when there is none.
    mutating func next() -> OpenDraw {
        if isReplay { return nextReplayed() }
        var time: SimTime
        if reopenCount > 0 && reopens[0] <= nextPrimary {
            time = reopens[0]
            for i in 1..<reopenCount { reopens[i - 1] = reopens[i] }
            reopenCount -= 1
        } else {
            time = nextPrimary
            nextPrimary = drawPrimary()
        }
        if time == Clock.never { return OpenDraw(time: Clock.never, session: 0, forceQuit: false) }
        time = max(time, busyUntil)
        // A behaviour of probability zero draws nothing (R1 has no sessions, quits or
        // reopens), so the stream serves only what can happen.
        let session = behaviour.hasSessions ? behaviour.drawSession(&rng) : 0
        let forceQuit = behaviour.forceQuitProbability > 0 && rng.bernoulli(behaviour.forceQuitProbability)
        busyUntil = time + session + 1
        if behaviour.pReopen > 0 && rng.bernoulli(behaviour.pReopen) {
            let reopen =
                time + session + Clock.ticks(seconds: behaviour.reopenGapMeanSeconds * rng.standardExponential())
            if reopenCount < Self.reopenCapacity || reopen < reopens[reopenCount - 1] {
                // Sorted insertion; when full, the latest waiting reopen falls off the end.
                var i = min(reopenCount, Self.reopenCapacity - 1)
                while i > 0 && reopens[i - 1] > reopen { reopens[i] = reopens[i - 1]; i -= 1 }
                reopens[i] = reopen
                reopenCount = min(reopenCount + 1, Self.reopenCapacity)
            }
        }
        return OpenDraw(time: time, session: session, forceQuit: forceQuit)
    }
}

/// Session lengths and per-session behaviour, in the units the hot path wants.
struct SessionParameters {
    var bodyMeanSeconds: Double
    var tailShare: Double
    var tailMinSeconds: Double
    var tailAlpha: Double
    var maxSeconds: Double
    var forceQuitProbability: Double
    var pReopen: Double
    var reopenGapMeanSeconds: Double
    /// Whether sessions have any length (an exponential body or a Pareto tail).
    var hasSessions: Bool { (bodyMeanSeconds > 0 || tailShare > 0) && maxSeconds > 0 }

    init(_ u: UserBehaviour) {
        bodyMeanSeconds = u.sessionBodyMean.seconds; tailShare = u.sessionTailShare
        tailMinSeconds = u.sessionTailMin.seconds; tailAlpha = u.sessionTailAlpha
        maxSeconds = u.sessionMax.seconds; forceQuitProbability = u.forceQuitProbability
        pReopen = u.pReopen; reopenGapMeanSeconds = u.reopenGapMean.seconds
    }

    /// Exponential body with probability 1 − tail share, else Pareto(x_m, α); capped.
    @inline(__always)
    func drawSession(_ rng: inout RandomStream) -> SimTime {
        let seconds: Double
        if rng.bernoulli(tailShare) {
            seconds = tailMinSeconds * pow(rng.uniformPositive(), -1 / tailAlpha)
        } else {
            seconds = bodyMeanSeconds * rng.standardExponential()
        }
        return Clock.ticks(seconds: min(seconds, maxSeconds))
    }
}
