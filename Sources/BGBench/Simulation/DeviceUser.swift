import Foundation

// MARK: - The user and the phone: opens and sessions, screen, charging, midnight (MODEL.md §3, §4)

extension DeviceSimulation {
    /// The user's diurnal curves (MODEL.md §3): the opens' weekday and weekend profiles
    /// (or a routine process), and the phone's screen sessions on the same curves.
    static func userCurves(traits: DeviceTraits, context ctx: DeviceRunContext)
        -> (opens: ProfiledPoisson, routine: RoutineProcess?, screen: ProfiledPoisson)
    {
        let s = ctx.scenario
        let weights: [Double], weekendShift: SimTime, weekendLevel: Double
        if traits.archetype >= 0 {
            let a = s.population.archetypes[s.population.sortedArchetypeNames[traits.archetype]]!
            weights = a.weekdayWeights; weekendShift = a.weekendShift.ticks; weekendLevel = a.weekendLevel
        } else {
            weights = newsOpenWeights; weekendShift = 0; weekendLevel = 1
        }
        let sleep: (start: SimTime, length: SimTime)? =
            s.user.sleepEnabled ? (traits.bedtime, traits.sleepLength) : nil
        // Night checks are part of the rate (MODEL.md §3): min(n, r/10) opens a night, reopens
        // included, and the waking hours carry the rest. The primary processes run at
        // (1 − p_reopen) of those rates, since each open is followed by a reopen with p_reopen.
        let nightOpens =
            sleep == nil ? 0 : UserOpens.nightChecks(perNight: s.user.nightChecksPerNight, rate: traits.opensPerDay)
        let keep = 1 - s.user.pReopen
        func profiles(perDay: Double, night: Double) -> (DayProfile, DayProfile) {
            (
                DayProfile.build(
                    weights: weights, shift: traits.chronotype, expected: perDay, sleep: sleep, nightEvents: night),
                DayProfile.build(
                    weights: weights, shift: traits.chronotype + weekendShift, expected: perDay * weekendLevel,
                    sleep: sleep.map { ($0.start + weekendShift, $0.length) }, nightEvents: night)
            )
        }
        let driftStart = s.population.driftDay > 0 ? SimTime(s.population.driftDay) * Clock.day : Clock.never
        let (weekday, weekend) = profiles(perDay: (traits.opensPerDay - nightOpens) * keep, night: nightOpens * keep)
        let poisson = ProfiledPoisson(
            weekday: weekday, weekend: weekend, horizon: ctx.horizon,
            driftStart: driftStart, driftShift: s.population.driftShift.ticks)
        let routine =
            s.population.model == .routine
            ? RoutineProcess(
                routine: s.population.routine, horizon: ctx.horizon,
                driftStart: driftStart, driftShift: s.population.driftShift.ticks)
            : nil
        let hasBattery = s.device.batteryEnabled
        let (screenWeekday, screenWeekend) = profiles(
            perDay: hasBattery ? s.device.screenSessionsPerDay : 0, night: hasBattery ? s.user.nightChecksPerNight : 0)
        return (poisson, routine, ProfiledPoisson(weekday: screenWeekday, weekend: screenWeekend, horizon: ctx.horizon))
    }

    @inline(__always)
    mutating func scheduleNextOpen() {
        let draw = opens.next()
        nextSession = draw.session
        nextForceQuit = draw.forceQuit
        schedule(.open, at: draw.time)
    }

    @inline(__always)
    mutating func scheduleNextScreenSession() {
        schedule(.screenOn, at: screen.next(&screenRNG))
    }

    /// Charging for day k (MODEL.md §4): a daytime top-up with its probability, and the
    /// night that starts at bedtime, plugged in near bedtime and out at wake-up.
    mutating func planCharging(day k: Int) {
        let d = ctx.scenario.device
        let dayStart = SimTime(k) * Clock.day
        if k >= 0 && chargeRNG.bernoulli(d.topUpProbability) {
            let start = dayStart + 9 * Clock.hour + SimTime(chargeRNG.uniform() * Double(12 * Clock.hour))
            schedule(.chargeOn, at: start)
            schedule(
                .chargeOff, at: start + Clock.ticks(seconds: d.topUpMean.seconds * chargeRNG.standardExponential()))
        }
        let plugs = chargeRNG.bernoulli(d.overnightChargeProbability)
        if k >= 0 && counting(dayStart) { nights += 1; if plugs { nightsCharging += 1 } }
        if plugs {
            let jitter = Clock.ticks(seconds: d.plugJitterSd.seconds * chargeRNG.standardNormal())
            let wake = dayStart + traits.bedtime + traits.sleepLength
            let plug = min(dayStart + traits.bedtime + jitter, wake - Clock.minute)
            if wake > 0 {
                if plug <= 0 { setCharging(delta: 1, at: 0) } else { schedule(.chargeOn, at: plug) }
                schedule(.chargeOff, at: wake)
            }
        }
    }

    @inline(never)
    mutating func midnight(at t: SimTime) {
        flushDay(Clock.dayIndex(t) - 1)
        if t == ctx.countFrom && hasBattery {
            battery.advance(to: t)
            emptyBeforeCounting = battery.ticksEmpty
            lowPowerBeforeCounting = battery.ticksLowPower
        }
        platform.midnight(at: t, opens: opensToday)
        opensToday = 0
        if hasBattery { planCharging(day: Clock.dayIndex(t)) }
        if callbacks.contains(.midnight) { apply(policy.midnight(view(at: t)), at: t) }
        planSystemWake(at: t)
        schedule(.midnight, at: t + Clock.day)
    }

    @inline(__always)
    mutating func screenOn(at t: SimTime) {
        screenCount &+= 1  // one per open or screen session under way: far below 2⁶³
        if processing.running { interruptProcessing(at: t) }
        battery.setScreen(true, at: t)
        noteBattery(at: t)
        deviceChanged(at: t)
        schedule(
            .screenOff,
            at: t + Clock.ticks(seconds: screenRNG.lognormal(median: screenMedianSeconds, sigma: screenSigma)))
        scheduleNextScreenSession()
    }

    @inline(__always)
    mutating func screenOff(at t: SimTime) {
        screenCount &-= 1  // its screenOn counted it
        if screenCount == 0 {
            battery.setScreen(false, at: t)
            noteBattery(at: t)
            if processingEnabled { considerProcessing(at: t) }
        }
        deviceChanged(at: t)
    }

    @inline(__always)
    mutating func setCharging(delta: Int, at t: SimTime) {
        let was = chargeCount > 0
        chargeCount += delta
        let now = chargeCount > 0
        guard was != now else { return }
        battery.setCharging(now, at: t)
        if processingEnabled {
            if now {
                considerProcessing(at: t)
            } else if processing.running && processing.requiresPower {
                interruptProcessing(at: t)
            }
        }
        lowPowerGeneration &+= 1
        if let off = battery.lowPowerOffTime { schedule(.lowPowerOff, at: off, payload: lowPowerGeneration) }
        deviceChanged(at: t)
        toldBattery()
        if callbacks.contains(.stateChanged) { apply(policy.stateChanged(view(at: t)), at: t) }
        planSystemWake(at: t)
    }

    // MARK: The battery's own state changes (MODEL.md §6.4 rule 2)

    /// After the level's slope changed or energy was booked at t: when the battery's state
    /// (Low Power Mode, below the low level) next changes untold (at once if the booking
    /// changed it).
    @inline(__always)
    mutating func noteBattery(at t: SimTime) {
        if battery.lowPower != toldLowPower || battery.isLow != toldLowBattery {
            lowCrossing = t
            crossingExact = true
        } else {
            lowCrossing = battery.lowCrossingBound()
            crossingExact = false
        }
    }

    /// The policy is about to be told the present state (charging, Low Power Mode off).
    @inline(__always)
    mutating func toldBattery() {
        toldLowPower = battery.lowPower
        toldLowBattery = battery.isLow
        lowCrossing = battery.lowCrossingBound()
        crossingExact = false
    }

    /// The battery's state changes at `lowCrossing`, between events: the level fell below
    /// the low level (Low Power Mode may turn on with it), or energy booked at an event
    /// took it there. The policy is told, and the platform's own wake planned again, as at
    /// the other state changes; nothing is told twice.
    mutating func batteryChanged() {
        let t = lowCrossing
        rec.tally.increment(.events)
        battery.advance(to: t)
        let changed = battery.lowPower != toldLowPower || battery.isLow != toldLowBattery
        toldBattery()
        guard changed else { return }
        if tracing { log("battery", battery.lowPower ? "low_power" : "low_battery", battery.level, at: t) }
        if callbacks.contains(.stateChanged) { apply(policy.stateChanged(view(at: t)), at: t) }
        planSystemWake(at: t)
    }

    @inline(__always)
    mutating func open(at t: SimTime) {
        let length = nextSession, quits = nextForceQuit
        if hasBattery { battery.setScreen(true, at: t); noteBattery(at: t) }
        screenCount += 1
        if processing.running { interruptProcessing(at: t) }
        foreground = true
        forceQuit = false
        submitted = true  // the app submits its task again at launch (rule 8)
        opensToday += 1
        platform.opened(at: t)
        deviceChanged(at: t)

        // Freshness at the open (MODEL.md §5).
        let firstMissing = cursor.firstMissingTime
        let stale = firstMissing <= t
        if counting(t) {
            rec.tally.increment(.opens)
            if stale { rec.tally[ticks: .staleness] += t - firstMissing } else { rec.tally.increment(.freshOpens) }
            rec.tally[ticks: .age] += t - cacheTime
            let staleness = stale ? Clock.seconds(t - firstMissing) : 0
            rec.staleness(staleness)
            rec.record(.opens, 1, at: t)
            if stale { rec.record(.staleness, staleness, at: t) } else { rec.record(.freshOpens, 1, at: t) }
            rec.record(.age, Clock.seconds(t - cacheTime), at: t)
            if tracing {
                log("open", stale ? "stale" : "fresh", staleness, at: t)
            }
        }
        if stale {
            // The app fetches in the foreground and the user waits.
            let net = network.at(t)
            if net == .offline {
                if counting(t) { rec.tally.increment(.foregroundFailures) }
            } else {
                let missing = cursor.missing(upTo: t)
                // Catalog images come too, but not on cellular when they are Wi-Fi-only.
                var images = 0.0, holds = true
                if content == .catalog { (images, holds) = foregroundImages(items: missing.count, on: net) }
                let fetch = task.foregroundFetch(
                    on: net, missingBytes: missing.bytes, itemBytes: averageItemBytes,
                    extraBytes: images)
                let wait = userWaits ? fetch.wait : 0
                if hasBattery { battery.spend(fetch.energy, at: t); noteBattery(at: t) }
                if counting(t) {
                    rec.tally.increment(.foregroundFetches)
                    rec.tally[ticks: .foregroundWait] += wait
                    rec.record(.foregroundWait, Clock.seconds(wait), at: t)
                    rec.serverRequests(1, at: t)
                    rec.tally[amount: .foregroundEnergy] += fetch.energy
                    rec.received(fetch.bytes, images: images, on: net, at: t)
                }
                if holds {
                    cacheTime = t
                    cursor.cache(upTo: t)
                    if transfer.pending { transfer.finish() }  // the app has every image now
                }
            }
        }
        if length > 0 { schedule(.sessionEnd, at: t + length, payload: quits ? 1 : 0) }
        scheduleNextOpen()
        if callbacks.contains(.opened) { apply(policy.opened(view(at: t)), at: t) }
        // A session of no length (R1) ends here, as its event would have right after.
        if length == 0 { endSession(at: t, forceQuit: quits) }
        planSystemWake(at: t)
    }

    /// The app goes to the background; a swipe-away stops its background work (§3).
    @inline(__always)
    mutating func endSession(at t: SimTime, forceQuit quits: Bool) {
        foreground = false
        if quits { forceQuit = true }
        screenCount -= 1
        if screenCount == 0 && hasBattery { battery.setScreen(false, at: t); noteBattery(at: t) }
        if screenCount == 0 && processingEnabled { considerProcessing(at: t) }
        deviceChanged(at: t)
        planSystemWake(at: t)
    }
}
