import Foundation

/// What one device is, drawn once from its population stream (MODEL.md §3, §4).
struct DeviceTraits {
    /// Index into `Population.sortedArchetypes`, or -1 for a routine user.
    var archetype: Int
    /// The user's expected opens per day (reopens included).
    var opensPerDay: Double
    /// Starting value of the platform's usage average u (MODEL.md §6.4 rule 4).
    var initialUsage: Double
    var chronotype: SimTime
    /// Bedtime as ticks after midnight (may exceed a day: 00:30 is 24.5 h) and sleep length.
    var bedtime: SimTime
    var sleepLength: SimTime
    var barOff: Bool
    var homeWifi: Bool
    var workWifi: Bool
    var cellular5G: Bool
    /// On iOS 12 or lower: the device uses `ios-fetch` in an `ios-bgtask` fleet
    /// (`population.legacy_ios_share`). Drawn last, and only when the share is positive,
    /// so the other traits are the same whatever the share.
    var legacyIOS = false
    /// Keeps Low Power Mode on all the time (`population.low_power_share`); drawn after
    /// `legacyIOS`, and only when the share is positive.
    var keepsLowPower = false
    /// Device-local time = UTC + this (only for the fleet's server load).
    var utcOffset: SimTime = 0

    init(scenario s: Scenario, rng: inout RandomStream) {
        let p = s.population
        switch p.model {
        case .archetypes:
            let names = p.sortedArchetypeNames
            let total = names.reduce(0) { $0 + p.archetypes[$1]!.weight }
            var pick = rng.uniform() * total
            var index = names.count - 1
            for (i, name) in names.enumerated() {
                pick -= p.archetypes[name]!.weight
                if pick < 0 { index = i; break }
            }
            let median = p.archetypes[names[index]]!.medianOpensPerDay
            archetype = index
            opensPerDay = median * exp(p.rateSigma * rng.standardNormal())
            initialUsage = median
        case .routine:
            archetype = -1
            // Each routine open is a primary open; reopens follow with p_reopen each.
            opensPerDay = p.routine.opens.reduce(0) { $0 + $1.probability } / (1 - s.user.pReopen)
            initialUsage = opensPerDay
        }
        chronotype = Clock.ticks(seconds: p.chronotypeSd.seconds * rng.standardNormal())
        let u = s.user
        bedtime = Clock.ticks(seconds: u.bedtimeMean.seconds + u.bedtimeSd.seconds * rng.standardNormal())
        sleepLength = Clock.ticks(
            seconds: u.sleepMin.seconds + (u.sleepMax.seconds - u.sleepMin.seconds) * rng.uniform())
        barOff = rng.bernoulli(p.barOffShare)
        homeWifi = rng.bernoulli(s.network.homeWifiShare)
        workWifi = rng.bernoulli(s.network.workWifiShare)
        cellular5G = rng.bernoulli(s.network.nr5gShare)
        if p.legacyIosShare > 0 { legacyIOS = rng.bernoulli(p.legacyIosShare) }
        if p.lowPowerShare > 0 { keepsLowPower = rng.bernoulli(p.lowPowerShare) }
    }

    /// Whether device `index` of a run is on iOS 12 or lower (its population stream).
    static func isLegacyIOS(scenario: Scenario, seed: UInt64, device index: Int) -> Bool {
        guard scenario.population.legacyIosShare > 0 else { return false }
        var rng = RandomStream(seed: seed, device: UInt64(index), purpose: .population)
        return DeviceTraits(scenario: scenario, rng: &rng).legacyIOS
    }

    /// A replayed trace's user (MODEL.md §3): reported as the archetype `trace`, with the
    /// trace's rate, and the platform's usage average u starting at the device's mean
    /// opens per day over its first week of trace (§6.4 rule 4).
    mutating func replay(_ trace: OpensTrace, device: Int) {
        archetype = -1
        opensPerDay = trace.opensPerDay(device: device)
        initialUsage = trace.firstWeekOpensPerDay(device: device)
    }

    /// Draws the time zone from its own stream, so adding zones changes no other draw.
    mutating func drawUTCOffset(_ zones: [UTCOffsetShare], rng: inout RandomStream) {
        let total = zones.reduce(0) { $0 + $1.share }
        var pick = rng.uniform() * total
        for zone in zones {
            pick -= zone.share
            if pick < 0 { utcOffset = zone.offset.ticks; return }
        }
        utcOffset = zones.last?.offset.ticks ?? 0
    }
}

extension Population {
    /// Archetype names in a fixed order (a JSON object has none): sorted.
    public var sortedArchetypeNames: [String] { archetypes.keys.sorted() }
}

/// The network a device is on.
public enum NetworkKind: UInt8, Sendable, CaseIterable {
    case offline, wifi, lte, nr5g
    public var label: String {
        switch self {
        case .offline: "offline"
        case .wifi: "wifi"
        case .lte: "lte"
        case .nr5g: "5g"
        }
    }
    @inlinable @inline(__always) public var isCellular: Bool {
        switch self {
        case .lte, .nr5g: true
        default: false
        }
    }
}

/// Where the device is connected at a time (MODEL.md §4): Wi-Fi at home in the evening
/// and at night, at work on weekday office hours, cellular otherwise, and short offline
/// spells. Spells are drawn lazily: queries come in time order.
struct NetworkState {
    private let homeWifi: Bool, workWifi: Bool
    private let cellular: NetworkKind
    private let homeFrom: SimTime, homeUntil: SimTime, workFrom: SimTime, workUntil: SimTime
    private let spellRatePerTick: Double, spellMeanTicks: Double
    private var rng: RandomStream
    private var nextSpell: SimTime = 0
    private var spellEnd: SimTime = 0
    private var cached = NetworkKind.offline
    private var validUntil: SimTime = 0

    init(traits: DeviceTraits, model: NetworkModel, rng: RandomStream) {
        homeWifi = traits.homeWifi; workWifi = traits.workWifi
        cellular = traits.cellular5G ? .nr5g : .lte
        homeFrom = model.homeFrom.ticks; homeUntil = model.homeUntil.ticks
        workFrom = model.workFrom.ticks; workUntil = model.workUntil.ticks
        spellRatePerTick = model.offlineSpellsPerDay / Double(Clock.day)
        spellMeanTicks = Double(model.offlineMean.ticks)
        self.rng = rng
        nextSpell = drawGap()
    }

    private mutating func drawGap() -> SimTime {
        spellRatePerTick > 0 ? SimTime(rng.standardExponential() / spellRatePerTick) : Clock.never
    }

    /// The network at t. Calls must come with non-decreasing t. The answer is cached
    /// until the next time it can change (a spell's start or end, a window's edge,
    /// midnight), so most calls are one comparison.
    @inline(__always)
    mutating func at(_ t: SimTime) -> NetworkKind {
        t < validUntil ? cached : recompute(t)
    }

    @inline(never)
    private mutating func recompute(_ t: SimTime) -> NetworkKind {
        while nextSpell <= t {
            spellEnd = max(spellEnd, nextSpell + SimTime(spellMeanTicks * rng.standardExponential()))
            let gap = drawGap()
            nextSpell = gap == Clock.never ? Clock.never : nextSpell + gap
        }
        if t < spellEnd {
            cached = .offline
            validUntil = min(spellEnd, nextSpell)
            return cached
        }
        let timeOfDay = t % Clock.day
        if homeWifi && Self.within(timeOfDay, homeFrom, homeUntil) {
            cached = .wifi
        } else if workWifi && !Clock.isWeekend(day: Clock.dayIndex(t)) && Self.within(timeOfDay, workFrom, workUntil) {
            cached = .wifi
        } else {
            cached = cellular
        }
        func after(_ boundary: SimTime, _ edge: SimTime) -> SimTime {
            boundary > timeOfDay ? min(boundary, edge) : edge
        }
        let edge = after(homeFrom, after(homeUntil, after(workFrom, after(workUntil, Clock.day))))
        validUntil = min(nextSpell, t - timeOfDay + edge)
        return cached
    }

    /// Whether a time of day lies in [from, until), a window that may wrap past midnight.
    @inline(__always)
    static func within(_ t: SimTime, _ from: SimTime, _ until: SimTime) -> Bool {
        from <= until ? (t >= from && t < until) : (t >= from || t < until)
    }
}

/// The battery (MODEL.md §4): level in joules, drained at the idle or screen-on power,
/// filled at the charge power while plugged in, and booked down by every joule of
/// background and foreground work. Between state changes the level moves linearly, so
/// crossings (20 % down, for Low Power Mode; 0 %) are found exactly when the level is
/// brought up to date; the device asks `lowCrossingTime` when the 20 % crossing falls so
/// that the policy is told of it then (MODEL.md §6.4 rule 2), with no event queued.
struct Battery {
    let capacity: Double
    private let idleW: Double, screenW: Double, chargeW: Double
    private let lowLevel: Double, lowPowerOffLevel: Double, lowPowerProbability: Double
    private var rng: RandomStream
    private(set) var joules: Double
    private(set) var updated: SimTime = 0
    private(set) var charging = false
    private(set) var screenOn = false
    private(set) var lowPower = false
    /// Ticks spent at 0 % (MODEL.md §2: the phone is not switched off; this is reported).
    private(set) var ticksEmpty: SimTime = 0
    /// Ticks spent in Low Power Mode (reported per device-day), and whether the user
    /// keeps it on (`population.low_power_share`: never turned off).
    private(set) var ticksLowPower: SimTime = 0
    private let idleTicksPerJoule: Double, screenTicksPerJoule: Double
    private var planFrom: SimTime = 0, planJoules = 0.0, planWatts = 1.0
    private let keepsLowPower: Bool

    init(model: DeviceModel, rng: RandomStream, keepsLowPower: Bool = false) {
        self.keepsLowPower = keepsLowPower
        lowPower = keepsLowPower
        capacity = model.batteryWh * 3600
        idleW = model.idleW; screenW = model.screenOnW; chargeW = model.chargeW
        idleTicksPerJoule = 1e6 / model.idleW; screenTicksPerJoule = 1e6 / model.screenOnW
        lowLevel = model.lowBatteryLevel; lowPowerOffLevel = model.lowPowerOffLevel
        lowPowerProbability = model.lowPowerProbability
        joules = capacity * model.initialLevel
        self.rng = rng
    }

    var level: Double { joules / capacity }
    /// Below the low-battery level and not charging: discretionary work is off.
    var isLow: Bool { !charging && joules < lowLevel * capacity }
    /// Below the low level, charging or not.
    var belowLowLevel: Bool { joules < lowLevel * capacity }

    /// Brings the level up to t, applying Low Power Mode at a downward 20 % crossing.
    mutating func advance(to t: SimTime) {
        let dt = Clock.seconds(t - updated)
        guard dt > 0 else { return }
        if charging {
            let before = joules
            joules = min(capacity, joules + chargeW * dt)
            if lowPower && joules >= lowPowerOffLevel * capacity && !keepsLowPower {
                // In Low Power Mode until the level reached the off level.
                let on =
                    chargeW > 0 ? SimTime(((lowPowerOffLevel * capacity - before) / chargeW * 1e6).rounded(.up)) : 0
                ticksLowPower += min(t - updated, max(0, on))
                lowPower = false
            } else if lowPower {
                ticksLowPower += t - updated
            }
        } else {
            // Low Power Mode turns on only at the crossing, which the device handles at its
            // time, so it is on for the whole interval or none of it.
            if lowPower { ticksLowPower += t - updated }
            let before = joules
            let drain = (screenOn ? screenW : idleW) * dt
            joules -= drain
            if before >= lowLevel * capacity && joules < lowLevel * capacity && !lowPower {
                lowPower = rng.bernoulli(lowPowerProbability)
            }
            if joules < 0 {
                ticksEmpty += SimTime(-joules / (screenOn ? screenW : idleW) * 1e6)
                joules = 0
            }
        }
        updated = t
    }

    /// Books work done at t (a background run, a foreground fetch).
    mutating func spend(_ energy: Double, at t: SimTime) {
        advance(to: t)
        let before = joules
        joules = max(0, joules - energy)
        if !charging && before >= lowLevel * capacity && joules < lowLevel * capacity && !lowPower {
            lowPower = rng.bernoulli(lowPowerProbability)
        }
    }

    mutating func setScreen(_ on: Bool, at t: SimTime) { advance(to: t); screenOn = on }

    mutating func setCharging(_ on: Bool, at t: SimTime) { advance(to: t); charging = on }

    /// The first tick at which the level, falling at the present power, is below the low
    /// level (the low-battery gate; Low Power Mode's chance): `Clock.never` while charging,
    /// already below, or not draining. Always after `updated`, so a device that waits for
    /// it moves on.
    /// A cheap bound for `lowCrossingTime` (a multiply, not a divide: it is asked at every
    /// slope change), strictly earlier than it, with the battery's state kept so that
    /// `plannedCrossingTime` gives exactly what `lowCrossingTime` gave now.
    mutating func lowCrossingBound() -> SimTime {
        let low = lowLevel * capacity
        guard !charging, joules >= low else { return Clock.never }
        let watts = screenOn ? screenW : idleW
        guard watts > 0 else { return Clock.never }
        planFrom = updated; planJoules = joules; planWatts = watts
        let ticks = (joules - low) * (screenOn ? screenTicksPerJoule : idleTicksPerJoule) * (1 - 1e-9)
        guard ticks < Double(Clock.never / 4) else { return Clock.never }
        // 0 ≤ ticks (joules ≥ low) < 2⁶¹ (checked above): the conversion needs no check, and
        // both terms below 2⁶¹ cannot overflow.
        return updated &+ SimTime(uncheckedTruncating: ticks)
    }

    /// `lowCrossingTime` as of the last `lowCrossingBound()`.
    func plannedCrossingTime() -> SimTime {
        let ticks = (planJoules - lowLevel * capacity) / planWatts * 1e6
        guard ticks < Double(Clock.never / 2) else { return Clock.never }
        // 0 ≤ ticks (as at the bound) < 2⁶²: an unchecked conversion; below 2⁶¹ + 2⁶²: no overflow.
        return planFrom &+ SimTime(uncheckedTruncating: ticks) &+ 1
    }

    var lowCrossingTime: SimTime {
        let low = lowLevel * capacity
        guard !charging, joules >= low else { return Clock.never }
        let watts = screenOn ? screenW : idleW
        guard watts > 0 else { return Clock.never }
        let ticks = (joules - low) / watts * 1e6
        guard ticks < Double(Clock.never / 2) else { return Clock.never }
        return updated + SimTime(ticks) + 1
    }

    /// When the level will reach the Low-Power-Mode-off level while charging, or nil.
    var lowPowerOffTime: SimTime? {
        guard charging, lowPower, !keepsLowPower, chargeW > 0 else { return nil }
        let needed = max(0, lowPowerOffLevel * capacity - joules)
        return updated + SimTime((needed / chargeW * 1e6).rounded(.up))
    }
}
