import Foundation

/// The events of one device's simulation. Their priorities fix the order of events at the
/// same time: midnight first (an attempt at 00:00 belongs to the new day, MODEL.md §10
/// rule 5); then device state; a run's end before an open (an update that lands at t is
/// seen by an open at t); a session's end before the next open; the open before a wake
/// request at the same time (the app is then in the foreground); silent push last (a
/// publication, a server's send and a push's arrival, for server-side policies only).
enum SimEvent: UInt8, EventKind {
    case midnight = 0
    case chargeOn, chargeOff, lowPowerOff
    case screenOn, screenOff
    case runEnd
    case sessionEnd
    case open
    case request
    case publish, pushSend, pushArrive
    /// A wake the platform chose itself (`ios-fetch`).
    case systemWake
    // Content kinds and the processing task (docs/content.md).
    case serverJob, transferDone, processingDue, processingEnd, processingDeadline

    var code: UInt8 { rawValue }
    /// Only codes the queue was given come back, so the code needs no check.
    @inline(__always) init(code: UInt8) { self = unsafeBitCast(code, to: SimEvent.self) }

    var priority: UInt8 {
        switch self {
        case .midnight: 0
        case .chargeOn, .chargeOff, .lowPowerOff: 1
        case .screenOn, .screenOff: 2
        case .runEnd: 3
        case .sessionEnd: 4
        case .open: 5
        case .request: 6
        case .publish, .pushSend, .pushArrive, .systemWake: 7
        // A transfer's update lands like a run's; the server job reads after both.
        case .transferDone, .processingEnd: 3
        case .serverJob, .processingDeadline: 4
        case .processingDue: 2
        }
    }
}

/// What a device's simulation needs from the run around it.
struct DeviceRunContext: Sendable {
    let scenario: Scenario
    let seed: UInt64
    let horizon: SimTime
    /// Metrics count events at or after this time (MODEL.md §9 warm-up).
    let countFrom: SimTime
    let feed: NewsFeed
    /// Devices below this index log every event (events.csv).
    var traceDevices = 0
    /// Trace replay: device i's opens are the trace's device i (MODEL.md §3).
    var opensTrace: OpensTrace? = nil
    /// For tests: device i's own item stream (`sync`) when there is an entry for it, in
    /// place of one generated from the seed.
    var deviceFeeds: [NewsFeed] = []
}

/// One device as a small discrete-event simulation (MODEL.md §2): the user's opens, phone
/// use, charging and network are exogenous and drawn from the device's own streams; the
/// policy asks for wakes, the platform decides, the app's task runs, and every open is
/// scored for freshness. Generic over policy and platform so both are specialised into
/// the loop; the loop allocates nothing.
struct DeviceSimulation<Policy: WakePolicy, Platform: PlatformRules> {
    private let index: Int
    private let traits: DeviceTraits
    private let queue: EventQueue<SimEvent>
    private let load: ServerLoadSink
    /// The event log, for traced devices only (nil otherwise).
    private var trace: [TraceRow]?
    private let tracing: Bool
    private var policy: Policy
    private var platform: Platform
    private var opens: UserOpens
    private var screen: ProfiledPoisson
    private var screenRNG: RandomStream
    private var chargeRNG: RandomStream
    private var network: NetworkState
    private var battery: Battery
    private var task: AppTask
    private var push: PushChannel
    private var cursor: FeedCursor
    private let hasBattery: Bool
    private let screenMedianSeconds: Double, screenSigma: Double
    private let averageItemBytes: Double

    // App and device state.
    private var cacheTime: SimTime = 0
    private var foreground = false
    private var forceQuit = false
    private var submitted = true
    private var screenCount = 0
    private var chargeCount = 0
    private var opensToday = 0
    private var lowPowerGeneration: UInt16 = 0
    /// Time at 0 % before the counted period (MODEL.md §9 warm-up), taken at its start.
    private var emptyBeforeCounting: SimTime = 0
    // The request life cycle.
    private var requestPending = false
    private var requestGeneration: UInt16 = 0
    /// When the pending request falls due: with the generation, this tells a live
    /// request's event from stale ones (a 16-bit generation alone could wrap).
    private var requestTime: SimTime = 0
    private var inFlight = false
    private var inFlightStart: SimTime = 0
    private var inFlightStatus = RunStatus.noData
    private var inFlightContent = false
    // Silent push (server-side policies only): the next publication the server hears of,
    // and the server's pending send (one at a time; later changes are coalesced into it).
    private var nextPublication = 0
    private var pushSendPending = false
    private var pushSendTime: SimTime = 0
    /// The platform's own next wake (platforms that initiate wakes), with a generation
    /// that tells the live event from replaced ones.
    private var systemWakeTime = Clock.never
    private var systemWakeGeneration: UInt16 = 0

    // Content kinds and the processing task (docs/content.md); the news path only reads
    // the flags.
    private let content: ContentKind
    /// Whether the user waits for a foreground fetch (not for a `sync` upload).
    private let userWaits: Bool
    /// A successful run brings the cache to its start (catalog: not when its images were
    /// left for Wi-Fi or handed to a transfer), and the images it hands to a transfer.
    private var inFlightHolds = true
    private var inFlightTransferBytes = 0.0
    private var transfer = BackgroundTransfer()
    private var transferRNG: RandomStream
    private let processingEnabled: Bool
    private var processing: ProcessingTask

    private(set) var tally = DeviceTally()
    /// The series totals at the start of the day, and the whole run's by hour of day.
    private var dayStart = SeriesRow(repeating: 0)
    private var byHour = InlineArray<216, Double>(repeating: 0)
    /// The end of the current hour and its first index in `byHour`.
    private var hourEnd = Clock.hour
    private var hourRow = 0
    /// Last: the scenario inside is large and grows with every parameter, and fields
    /// after it would move with it (the hot fields' cache-line layout changed measurably
    /// when it grew).
    private let ctx: DeviceRunContext

    init(index: Int, context ctx: DeviceRunContext, queue: EventQueue<SimEvent>, load: ServerLoadSink) {
        self.ctx = ctx
        self.index = index
        let s = ctx.scenario
        let device = UInt64(index)
        func stream(_ p: StreamPurpose) -> RandomStream { RandomStream(seed: ctx.seed, device: device, purpose: p) }
        var population = stream(.population)
        var traits = DeviceTraits(scenario: s, rng: &population)
        var zoneStream = stream(.utcOffset)
        traits.drawUTCOffset(s.population.utcOffsets, rng: &zoneStream)
        if let trace = ctx.opensTrace {
            // Every other trait is drawn as usual, so a trace changes no other draw.
            traits.replay(trace, device: index)
        }
        self.traits = traits
        self.queue = queue
        self.load = load
        tracing = index < ctx.traceDevices
        trace = tracing ? [] : nil
        queue.reset()

        // The user's diurnal curves (MODEL.md §3).
        let weights: [Double], weekendShift: SimTime, weekendLevel: Double
        if traits.archetype >= 0 {
            let a = s.population.archetypes[s.population.sortedArchetypeNames[traits.archetype]]!
            weights = a.weekdayWeights; weekendShift = a.weekendShift.ticks; weekendLevel = a.weekendLevel
        } else {
            weights = newsOpenWeights; weekendShift = 0; weekendLevel = 1
        }
        let sleep: (start: SimTime, length: SimTime)? =
            s.user.sleepEnabled ? (traits.bedtime, traits.sleepLength) : nil
        let primaryRate = traits.opensPerDay * (1 - s.user.pReopen)
        func profiles(perDay: Double, night: Double) -> (DayProfile, DayProfile) {
            (DayProfile.build(weights: weights, shift: traits.chronotype, expected: perDay, sleep: sleep, nightEvents: night),
             DayProfile.build(weights: weights, shift: traits.chronotype + weekendShift, expected: perDay * weekendLevel,
                              sleep: sleep.map { ($0.start + weekendShift, $0.length) }, nightEvents: night))
        }
        let driftStart = s.population.driftDay > 0 ? SimTime(s.population.driftDay) * Clock.day : Clock.never
        let (weekday, weekend) = profiles(perDay: primaryRate, night: s.user.nightChecksPerNight)
        let poisson = ProfiledPoisson(weekday: weekday, weekend: weekend, horizon: ctx.horizon,
                                      driftStart: driftStart, driftShift: s.population.driftShift.ticks)
        let routine = s.population.model == .routine
            ? RoutineProcess(routine: s.population.routine, horizon: ctx.horizon,
                             driftStart: driftStart, driftShift: s.population.driftShift.ticks)
            : nil
        let replay = ctx.opensTrace.map { TraceReplay(trace: $0, device: index, horizon: ctx.horizon) }
        opens = UserOpens(poisson: poisson, routine: routine, replay: replay, rng: stream(.opens),
                          behaviour: SessionParameters(s.user))

        let hasBattery = s.device.batteryEnabled
        self.hasBattery = hasBattery
        let (screenWeekday, screenWeekend) = profiles(
            perDay: hasBattery ? s.device.screenSessionsPerDay : 0, night: hasBattery ? s.user.nightChecksPerNight : 0)
        screen = ProfiledPoisson(weekday: screenWeekday, weekend: screenWeekend, horizon: ctx.horizon)
        screenRNG = stream(.screen)
        chargeRNG = stream(.charging)
        screenMedianSeconds = s.device.screenSessionMedian.seconds
        screenSigma = s.device.screenSessionSigma
        network = NetworkState(traits: traits, model: s.network, rng: stream(.network))
        battery = Battery(model: s.device, rng: stream(.lowPower))

        platform = Platform(PlatformSetup(scenario: s, initialUsage: traits.initialUsage, barOff: traits.barOff))
        task = AppTask(scenario: s, runtimeLimit: platform.runtimeLimit, rng: stream(.task))
        content = s.content.kind
        userWaits = content != .sync
        transferRNG = stream(.transfer)
        var processingStream = stream(.processing)
        processingEnabled = s.app.processing.enabled
        processing = ProcessingTask(s.app.processing, rng: &processingStream)
        // sync: the device's own data, generated for the whole run at its start.
        let feed = content.sharesFeed ? ctx.feed
            : index < ctx.deviceFeeds.count ? ctx.deviceFeeds[index]
            : NewsFeed(content: s.content, days: Clock.dayIndex(ctx.horizon - 1) + 1, seed: ctx.seed, device: index)
        cursor = FeedCursor(feed: feed)
        push = PushChannel(s.push, rng: stream(.push))
        averageItemBytes = feed.times.isEmpty ? 0 : feed.cumulativeBytes[feed.times.count] / Double(feed.times.count)
        policy = Policy(PolicyContext(
            scenario: s, deviceIndex: index, horizon: ctx.horizon, random: stream(.policy),
            clairvoyance: Policy.isClairvoyant ? Clairvoyance(opens: opens, feed: feed) : .none))
    }

    /// Runs the device to the horizon and adds it to `result`: its totals, its staleness
    /// at each open, its days and its hours of the day.
    mutating func run(into result: inout FleetResult) {
        let horizon = ctx.horizon
        schedule(.midnight, at: Clock.day)
        scheduleNextOpen()
        if hasBattery {
            scheduleNextScreenSession()
            planCharging(day: -1)
            planCharging(day: 0)
        }
        if content == .sync { schedule(.serverJob, at: firstServerJob()) }
        if processingEnabled {
            schedule(.processingDue, at: processing.due)
            schedule(.processingDeadline, at: processing.due + processing.deadline, payload: processing.instance)
        }
        apply(policy.start(view(at: 0)), at: 0)
        if Policy.observesPublications { scheduleNextPublication() }
        planSystemWake(at: 0)

        while let event = queue.pop() {
            let t = event.time
            tally.events += 1
            switch event.kind {
            case .midnight: midnight(at: t, result: &result)
            case .chargeOn: setCharging(delta: 1, at: t)
            case .chargeOff: setCharging(delta: -1, at: t)
            case .lowPowerOff:
                if event.payload == lowPowerGeneration {
                    battery.advance(to: t)
                    if processingEnabled { considerProcessing(at: t) }
                    apply(policy.stateChanged(view(at: t)), at: t)
                    planSystemWake(at: t)
                }
            case .screenOn:
                screenCount += 1
                if processing.running { interruptProcessing(at: t) }
                battery.setScreen(true, at: t)
                deviceChanged(at: t)
                schedule(.screenOff, at: t + Clock.ticks(seconds: screenRNG.lognormal(median: screenMedianSeconds, sigma: screenSigma)))
                scheduleNextScreenSession()
            case .screenOff:
                screenCount -= 1
                if screenCount == 0 {
                    battery.setScreen(false, at: t)
                    if processingEnabled { considerProcessing(at: t) }
                }
                deviceChanged(at: t)
            case .runEnd: runEnded(at: t)
            case .sessionEnd: endSession(at: t, forceQuit: event.payload == 1)
            case .open: open(at: t, result: &result)
            case .request:
                if requestPending && event.payload == requestGeneration && t == requestTime { request(at: t) }
            case .publish:
                apply(policy.published(view(at: t)), at: t)
                scheduleNextPublication()
            case .pushSend:
                if pushSendPending && t == pushSendTime { sendPush(at: t) }
            case .pushArrive: pushArrived(at: t)
            case .systemWake:
                if event.payload == systemWakeGeneration && t == systemWakeTime { systemWake(at: t) }
            case .serverJob, .transferDone, .processingDue, .processingEnd, .processingDeadline:
                contentEvent(event.kind, payload: event.payload, at: t)
            }
        }
        if requestPending && counting(horizon - 1) {
            tally.pendingAtHorizon += 1
            tally.requested += 1
        }
        if hasBattery {
            battery.advance(to: horizon)
            tally.ticksAtZeroBattery = battery.ticksEmpty - emptyBeforeCounting
        }
        flushDay(Clock.dayIndex(horizon - 1), into: &result)
        for h in 0..<24 {
            var row = SeriesRow(repeating: 0)
            for f in 0..<SeriesField.count { row[f] = byHour[h * SeriesField.count + f] }
            result.hourly.add(row: h, row)
        }
        result.add(device: index, archetype: traits.archetype, tally)
        if let trace { result.trace.append(contentsOf: trace) }
    }

    /// Logs an event of a traced device (callers check `tracing` first, so untraced
    /// devices build no strings).
    private mutating func log(_ event: String, _ detail: String, _ value: Double? = nil, at t: SimTime) {
        let row = TraceRow(device: index, time: t, event: event, detail: detail, value: value)
        trace?.append(row)
    }

    /// Adds `value` to a series field of the hour of day of t (the days come from the
    /// totals, `flushDay`).
    @inline(__always)
    private mutating func record(_ field: SeriesField, _ value: Double, at t: SimTime) {
        // Events come in time order: move the hour forward instead of dividing.
        while t >= hourEnd { hourEnd += Clock.hour; hourRow = hourRow == 23 * SeriesField.count ? 0 : hourRow + SeriesField.count }
        byHour[hourRow + field.rawValue] += value
    }

    /// The device's totals so far of the series fields. Inlined: a call would copy the
    /// whole simulation (kilobytes) to pass a non-mutating self.
    @inline(__always)
    private func seriesTotals() -> SeriesRow {
        var row = SeriesRow(repeating: 0)
        row[SeriesField.opens.rawValue] = Double(tally.opens)
        row[SeriesField.freshOpens.rawValue] = Double(tally.freshOpens)
        row[SeriesField.staleness.rawValue] = Clock.seconds(tally.stalenessTicks)
        row[SeriesField.age.rawValue] = Clock.seconds(tally.ageTicks)
        row[SeriesField.foregroundWait.rawValue] = Clock.seconds(tally.foregroundWaitTicks)
        row[SeriesField.runs.rawValue] = Double(tally.runs)
        row[SeriesField.denied.rawValue] = Double(tally.deniedTotal)
        row[SeriesField.killed.rawValue] = Double(tally.outcome(.killed))
        row[SeriesField.backgroundEnergy.rawValue] = tally.backgroundEnergy
        return row
    }

    /// Adds the day's series values to the daily rows (counted days only) and clears them.
    private mutating func flushDay(_ day: Int, into result: inout FleetResult) {
        // The day's row is what the device's totals gained since the last flush: no
        // per-event bookkeeping for the daily series.
        let now = seriesTotals()
        if counting(SimTime(day) * Clock.day) {
            var row = SeriesRow(repeating: 0)
            for f in 0..<SeriesField.count { row[f] = now[f] - dayStart[f] }
            result.daily.add(row: day, row)
        }
        dayStart = now
    }

    // MARK: Scheduling

    @inline(__always)
    private func counting(_ t: SimTime) -> Bool { t >= ctx.countFrom }

    @inline(__always)
    private mutating func schedule(_ kind: SimEvent, at t: SimTime, payload: UInt16 = 0) {
        if t < ctx.horizon { queue.push(Event(time: t, kind: kind, payload: payload)) }
    }

    /// The next open; its session length is kept aside (a payload is only 16 bits).
    private var nextSession: SimTime = 0
    private var nextForceQuit = false
    @inline(__always)
    private mutating func scheduleNextOpen() {
        let draw = opens.next()
        nextSession = draw.session
        nextForceQuit = draw.forceQuit
        schedule(.open, at: draw.time)
    }

    @inline(__always)
    private mutating func scheduleNextScreenSession() {
        schedule(.screenOn, at: screen.next(&screenRNG))
    }

    /// Charging for day k (MODEL.md §4): a daytime top-up with its probability, and the
    /// night that starts at bedtime, plugged in near bedtime and out at wake-up.
    private mutating func planCharging(day k: Int) {
        let d = ctx.scenario.device
        let dayStart = SimTime(k) * Clock.day
        if k >= 0 && chargeRNG.bernoulli(d.topUpProbability) {
            let start = dayStart + 9 * Clock.hour + SimTime(chargeRNG.uniform() * Double(12 * Clock.hour))
            schedule(.chargeOn, at: start)
            schedule(.chargeOff, at: start + Clock.ticks(seconds: d.topUpMean.seconds * chargeRNG.standardExponential()))
        }
        if chargeRNG.bernoulli(d.overnightChargeProbability) {
            let jitter = Clock.ticks(seconds: d.plugJitterSd.seconds * chargeRNG.standardNormal())
            let wake = dayStart + traits.bedtime + traits.sleepLength
            let plug = min(dayStart + traits.bedtime + jitter, wake - Clock.minute)
            if wake > 0 {
                if plug <= 0 { setCharging(delta: 1, at: 0) } else { schedule(.chargeOn, at: plug) }
                schedule(.chargeOff, at: wake)
            }
        }
    }

    // MARK: Handlers

    @inline(__always)
    private mutating func midnight(at t: SimTime, result: inout FleetResult) {
        flushDay(Clock.dayIndex(t) - 1, into: &result)
        if t == ctx.countFrom && hasBattery {
            battery.advance(to: t)
            emptyBeforeCounting = battery.ticksEmpty
        }
        platform.midnight(at: t, opens: opensToday)
        opensToday = 0
        if hasBattery { planCharging(day: Clock.dayIndex(t)) }
        apply(policy.midnight(view(at: t)), at: t)
        planSystemWake(at: t)
        schedule(.midnight, at: t + Clock.day)
    }

    @inline(__always)
    private mutating func setCharging(delta: Int, at t: SimTime) {
        let was = chargeCount > 0
        chargeCount += delta
        let now = chargeCount > 0
        guard was != now else { return }
        battery.setCharging(now, at: t)
        if processingEnabled {
            if now { considerProcessing(at: t) } else if processing.running && processing.requiresPower { interruptProcessing(at: t) }
        }
        lowPowerGeneration &+= 1
        if let off = battery.lowPowerOffTime { schedule(.lowPowerOff, at: off, payload: lowPowerGeneration) }
        deviceChanged(at: t)
        apply(policy.stateChanged(view(at: t)), at: t)
        planSystemWake(at: t)
    }

    @inline(__always)
    private mutating func open(at t: SimTime, result: inout FleetResult) {
        let length = nextSession, quits = nextForceQuit
        if hasBattery { battery.setScreen(true, at: t) }
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
            tally.opens += 1
            if stale { tally.stalenessTicks += t - firstMissing } else { tally.freshOpens += 1 }
            tally.ageTicks += t - cacheTime
            let staleness = stale ? Clock.seconds(t - firstMissing) : 0
            // Into the archetype's histogram only: the fleet's is their sum (FleetResult).
            result.archetypes[max(0, traits.archetype)].staleness.add(staleness)
            record(.opens, 1, at: t)
            if stale { record(.staleness, staleness, at: t) } else { record(.freshOpens, 1, at: t) }
            record(.age, Clock.seconds(t - cacheTime), at: t)
            if tracing {
                log("open", stale ? "stale" : "fresh", staleness, at: t)
            }
        }
        if stale {
            // The app fetches in the foreground and the user waits.
            let net = network.at(t)
            if net == .offline {
                if counting(t) { tally.foregroundFailures += 1 }
            } else {
                let missing = cursor.missing(upTo: t)
                // Catalog images come too, but not on cellular when they are Wi-Fi-only.
                var images = 0.0, holds = true
                if content == .catalog { (images, holds) = foregroundImages(items: missing.count, on: net) }
                let fetch = task.foregroundFetch(on: net, missingBytes: missing.bytes, itemBytes: averageItemBytes,
                                                 extraBytes: images)
                let wait = userWaits ? fetch.wait : 0
                if hasBattery { battery.spend(fetch.energy, at: t) }
                if counting(t) {
                    tally.foregroundFetches += 1
                    tally.foregroundWaitTicks += wait
                    record(.foregroundWait, Clock.seconds(wait), at: t)
                    load.add(1, atUTC: t - traits.utcOffset)
                    tally.foregroundEnergy += fetch.energy
                    if net.isCellular {
                        tally.cellularBytes += fetch.bytes
                        tally.cellularImageBytes += images
                    } else {
                        tally.wifiBytes += fetch.bytes
                    }
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
        apply(policy.opened(view(at: t)), at: t)
        // A session of no length (R1) ends here, as its event would have right after.
        if length == 0 { endSession(at: t, forceQuit: quits) }
        planSystemWake(at: t)
    }

    /// The app goes to the background; a swipe-away stops its background work (§3).
    @inline(__always)
    private mutating func endSession(at t: SimTime, forceQuit quits: Bool) {
        foreground = false
        if quits { forceQuit = true }
        screenCount -= 1
        if screenCount == 0 && hasBattery { battery.setScreen(false, at: t) }
        if screenCount == 0 && processingEnabled { considerProcessing(at: t) }
        deviceChanged(at: t)
        planSystemWake(at: t)
    }

    /// A pending request falls due: the platform admits or denies it (rule 2).
    @inline(__always)
    private mutating func request(at t: SimTime) {
        requestPending = false
        if counting(t) { tally.requested += 1 }
        if inFlight {
            deny(.busy, retryAt: nil, at: t)
            return
        }
        if hasBattery { battery.advance(to: t) }
        switch platform.admit(at: t, gates: gates()) {
        case .deny(let reason, let retryAt): deny(reason, retryAt: retryAt, at: t)
        case .run: startRun(at: t)
        }
    }

    /// The device and app state the platform's gates read now (battery advanced by the caller).
    @inline(__always)
    private func gates() -> GateInputs {
        GateInputs(foreground: foreground, barOff: traits.barOff, forceQuit: forceQuit,
                   lowPower: hasBattery && battery.lowPower, lowBattery: hasBattery && battery.isLow,
                   charging: chargeCount > 0, submitted: submitted)
    }

    @inline(__always)
    private mutating func deny(_ reason: DenialReason, retryAt: SimTime?, at t: SimTime) {
        if counting(t) {
            tally.denied[Int(reason.rawValue)] += 1
            record(.denied, 1, at: t)
        }
        if tracing {
            log("denied", reason.label, retryAt.map { Clock.seconds($0) }, at: t)
        }
        // A retry at the same instant would be denied again, forever: it waits a tick.
        var decision = policy.denied(reason, retryAt: retryAt, view(at: t))
        if case .request(let when) = decision, when <= t { decision = .request(at: t + 1) }
        apply(decision, at: t)
    }

    /// A run starts at t: at a request the platform admitted, or (`viaPush`) at a
    /// delivered push, which takes no token, starts no spacing and leaves the submitted
    /// task alone (the push handler is not the BGTask's).
    @inline(__always)
    private mutating func startRun(at t: SimTime, viaPush: Bool = false) {
        if !viaPush {
            platform.runStarted(at: t)
            if !ctx.scenario.app.resubmits { submitted = false }
        }
        let net = network.at(t)
        let missing = cursor.missing(upTo: t)
        let images = content == .catalog ? planImages(items: missing.count, on: net) : 0
        let run = task.run(on: net, newItems: missing.count, newBytes: missing.bytes, itemBytes: averageItemBytes,
                           extraBytes: images, limit: platform.runLimit(at: t))
        if hasBattery { battery.spend(run.energy, at: t) }
        if counting(t) {
            tally.runs += 1
            tally.outcomes[Int(run.status.rawValue)] += 1
            tally.backgroundEnergy += run.energy
            record(.runs, 1, at: t)
            record(.backgroundEnergy, run.energy, at: t)
            if run.status == .killed { record(.killed, 1, at: t) }
            load.add(run.requests, atUTC: t - traits.utcOffset)
            if net.isCellular {
                tally.cellularBytes += run.bytes
                // The images ride on the first request: fetched if any bytes came.
                tally.cellularImageBytes += run.bytes > 0 ? images : 0
            } else {
                tally.wifiBytes += run.bytes
            }
        }
        if tracing {
            log("started", viaPush ? net.label + " push" : net.label, Double(missing.count), at: t)
        }
        inFlight = true
        inFlightStart = t
        inFlightStatus = run.status
        inFlightContent = missing.count > 0
        schedule(.runEnd, at: t + run.duration)
        apply(policy.runStarted(view(at: t)), at: t)
    }

    @inline(__always)
    private mutating func runEnded(at t: SimTime) {
        inFlight = false
        let status = inFlightStatus, start = inFlightStart
        if tracing {
            log(status == .expired ? "expired" : status == .killed ? "killed" : "completed",
                status.label, Clock.seconds(t - start), at: t)
        }
        if inFlightStatus == .newData || inFlightStatus == .noData {
            // The update holds everything published up to the run's start (R1 rule 7).
            if inFlightHolds && inFlightStart > cacheTime {
                cacheTime = inFlightStart
                cursor.cache(upTo: inFlightStart)
            }
            if inFlightTransferBytes > 0 { handToTransfer(at: t) }
        }
        let throttles = platform.throttleEvents
        platform.runEnded(at: t, status: inFlightStatus, broughtContent: inFlightContent)
        if counting(t) { tally.throttleEvents += platform.throttleEvents - throttles }
        apply(policy.runEnded(inFlightStatus, view(at: t)), at: t)
        planSystemWake(at: t)
    }

    // MARK: Silent push

    /// The server hears of the next content change when it is published.
    private mutating func scheduleNextPublication() {
        let times = cursor.feed.times
        guard nextPublication < times.count else { return }
        let at = times[nextPublication]
        // Items published at one instant are one change.
        while nextPublication < times.count && times[nextPublication] == at { nextPublication += 1 }
        schedule(.publish, at: at)
    }

    /// Carries out a server's push decision: one send pending at a time, the earliest.
    private mutating func apply(_ decision: PushDecision, at t: SimTime) {
        guard case .send(let when) = decision else { return }
        let at = max(when, t)
        if pushSendPending && pushSendTime <= at { return }
        pushSendPending = true
        pushSendTime = at
        schedule(.pushSend, at: at)
    }

    /// The server sends a push: lost on the way, or it arrives after a delay.
    private mutating func sendPush(at t: SimTime) {
        pushSendPending = false
        if let arrival = push.send(at: t) {
            schedule(.pushArrive, at: arrival)
        } else {
            if counting(t) { tally.pushSent += 1; tally.pushLost += 1 }
            if tracing { log("push_lost", "push", at: t) }
        }
    }

    /// A push arrives: the platform's gates and push budget decide whether the app runs.
    private mutating func pushArrived(at t: SimTime) {
        if hasBattery { battery.advance(to: t) }
        let arrival = push.arrive(at: t, gates: gates(), busy: inFlight)
        if counting(t) {
            tally.pushSent += 1
            switch arrival {
            case .delivered: tally.pushRuns += 1
            case .gated: tally.pushGated += 1
            case .throttled: tally.pushThrottled += 1
            }
        }
        switch arrival {
        case .delivered: startRun(at: t, viaPush: true)
        case .gated(let reason): if tracing { log("push_gated", reason.label, at: t) }
        case .throttled: if tracing { log("push_throttled", "budget", at: t) }
        }
    }

    // MARK: Policy

    @inline(__always)
    private mutating func view(at t: SimTime) -> DeviceView {
        DeviceView(now: t, batteryLevel: hasBattery ? battery.level : 1, charging: chargeCount > 0,
                   lowPower: hasBattery && battery.lowPower, network: network.at(t),
                   screenOn: screenCount > 0, foreground: foreground)
    }

    /// Carries out a policy's decision (rule 1: at most one request pending). On a platform
    /// that chooses its own wakes the app cannot ask for a time: decisions are dropped.
    @inline(__always)
    private mutating func apply(_ decision: WakeDecision, at t: SimTime) {
        if Platform.initiatesWakes { return }
        switch decision {
        case .keep: return
        case .cancel:
            if requestPending {
                if tracing {
                    log("withdrawn", "policy", at: t)
                }
                requestPending = false
                requestGeneration &+= 1
                if counting(t) { tally.replaced += 1; tally.requested += 1 }
            }
        case .request(let when):
            if requestPending {
                if tracing {
                    log("replaced", "policy", at: t)
                }
                if counting(t) { tally.replaced += 1; tally.requested += 1 }
            }
            if tracing {
                log("requested", "policy", Clock.seconds(max(when, t)), at: t)
            }
            requestPending = true
            requestGeneration &+= 1
            requestTime = max(when, t)
            schedule(.request, at: requestTime, payload: requestGeneration)
        }
    }

    // MARK: Platform-initiated wakes and device state (ios-fetch, android-workmanager)

    /// Tells the platform the screen and charging state (platforms that ignore it inline
    /// the default no-op).
    @inline(__always)
    private mutating func deviceChanged(at t: SimTime) {
        platform.deviceChanged(screenOn: screenCount > 0, charging: chargeCount > 0, at: t)
    }

    /// Asks a platform that initiates wakes for its next one, after anything that may
    /// change it (a run's end, an open or a session's end, a state change, midnight). None
    /// while a run is in flight or the app is in the foreground: the run's or the
    /// session's end plans again.
    @inline(__always)
    private mutating func planSystemWake(at t: SimTime) {
        guard Platform.initiatesWakes, !inFlight, !foreground else { return }
        let next = platform.systemWake(after: t).map { max($0, t) } ?? Clock.never
        guard next != systemWakeTime else { return }
        systemWakeTime = next
        systemWakeGeneration &+= 1
        if next != Clock.never { schedule(.systemWake, at: next, payload: systemWakeGeneration) }
    }

    /// The platform's own wake falls due: counted as a request, admitted or denied like one
    /// (the policy hears of a denial as of any, and its answer is dropped). After a state
    /// gate the next wake waits for the next open, session end, state change or midnight.
    private mutating func systemWake(at t: SimTime) {
        systemWakeTime = Clock.never
        if counting(t) { tally.requested += 1 }
        if tracing {
            log("requested", "system", Clock.seconds(t), at: t)
        }
        if inFlight { return deny(.busy, retryAt: nil, at: t) }
        if hasBattery { battery.advance(to: t) }
        switch platform.admit(at: t, gates: gates()) {
        case .run: startRun(at: t)
        case .deny(let reason, let retryAt):
            deny(reason, retryAt: retryAt, at: t)
            if retryAt != nil { planSystemWake(at: t) }
        }
    }
}

// MARK: - Content kinds and the processing task (docs/content.md)

extension DeviceSimulation {
    /// The events of the content kinds and the processing task, out of the news path.
    @inline(never)
    private mutating func contentEvent(_ kind: SimEvent, payload: UInt16, at t: SimTime) {
        switch kind {
        case .serverJob: serverJob(at: t)
        case .transferDone: if transfer.pending && payload == transfer.generation { transferDue(at: t) }
        case .processingDue: considerProcessing(at: t)
        case .processingEnd: if processing.running && payload == processing.generation { processingCompleted(at: t) }
        case .processingDeadline:
            if processing.deadlinePassed(instance: payload) && counting(t) { tally.processingMissed += 1 }
        default: break
        }
    }

    /// `catalog`: the images a stale open fetches with the metadata, and whether the cache
    /// then holds everything (not when the images are Wi-Fi-only and the device is on cellular).
    @inline(__always)  // non-mutating: inlined, so self is not copied
    private func foregroundImages(items: Int, on net: NetworkKind) -> (bytes: Double, holds: Bool) {
        let images = imageBytes(items: items)
        let skips = images > 0 && net.isCellular && ctx.scenario.content.catalog.wifiOnly
        return skips ? (0, false) : (images, true)
    }

    /// `sync`: the first daily server job, at `server_job_at` UTC in device-local time.
    @inline(__always)  // non-mutating: inlined, so self is not copied
    private func firstServerJob() -> SimTime {
        let at = ctx.scenario.content.sync.serverJobAt.ticks + traits.utcOffset
        return ((at % Clock.day) + Clock.day) % Clock.day
    }

    /// `sync`: the server reads its copy; the lag is the age of the oldest item the device
    /// has not uploaded (0 when it has uploaded everything).
    @inline(never)
    private mutating func serverJob(at t: SimTime) {
        if counting(t) {
            let first = cursor.firstMissingTime
            let lag = first <= t ? t - first : 0
            let onTime = lag <= ctx.scenario.content.sync.targetAge.ticks
            tally.serverJobs += 1
            tally.serverLagTicks += lag
            if onTime { tally.serverOnTime += 1 }
            if tracing { log("server_job", onTime ? "on_time" : "late", Clock.seconds(lag), at: t) }
        }
        schedule(.serverJob, at: t + Clock.day)
    }

    /// `catalog`: the image bytes of `items` new items (a full refresh: of the full set).
    @inline(__always)  // non-mutating: inlined, so self is not copied
    private func imageBytes(items: Int) -> Double {
        let app = ctx.scenario.app
        let count = app.sync == .delta ? items : (items > 0 ? app.fullSetItems : 0)
        return Double(count) * ctx.scenario.content.catalog.imageKilobytesPerItem * 1000
    }

    /// `catalog`: what a run starting on `net` does with the images of `items` new items:
    /// returns the bytes it downloads itself, and sets whether its success brings the
    /// cache to its start and what it hands to a background transfer.
    @inline(never)
    private mutating func planImages(items: Int, on net: NetworkKind) -> Double {
        let c = ctx.scenario.content.catalog
        let images = imageBytes(items: items)
        inFlightHolds = true
        inFlightTransferBytes = 0
        guard images > 0 else { return 0 }
        if c.backgroundTransfer {
            inFlightHolds = false
            inFlightTransferBytes = images
            return 0
        }
        if c.wifiOnly && net.isCellular {
            inFlightHolds = false  // the metadata only: the images wait for a run on Wi-Fi
            return 0
        }
        return images
    }

    /// A successful run hands its images to the background transfer.
    @inline(never)
    private mutating func handToTransfer(at t: SimTime) {
        let c = ctx.scenario.content.catalog
        let delay = Clock.ticks(seconds: transferRNG.lognormal(median: c.transferDelayMedian.seconds, sigma: c.transferDelaySigma))
        if let due = transfer.hand(bytes: inFlightTransferBytes, holdsUpTo: inFlightStart, at: t, delay: delay) {
            schedule(.transferDone, at: due, payload: transfer.generation)
        }
        if tracing { log("transfer", "handed", inFlightTransferBytes, at: t) }
    }

    /// The system runs the pending transfer: off Wi-Fi (Wi-Fi-only) or offline it waits
    /// `transfer_retry`; else it downloads the images and the cache holds the items.
    @inline(never)
    private mutating func transferDue(at t: SimTime) {
        let c = ctx.scenario.content.catalog
        let net = network.at(t)
        if net == .offline || (c.wifiOnly && net != .wifi) {
            schedule(.transferDone, at: t + c.transferRetry.ticks, payload: transfer.generation)
            return
        }
        let bytes = transfer.bytes
        let energy = task.transferEnergy(bytes: bytes, on: net)
        if hasBattery { battery.spend(energy, at: t) }
        if counting(t) {
            tally.transfers += 1
            tally.backgroundEnergy += energy
            record(.backgroundEnergy, energy, at: t)
            load.add(1, atUTC: t - traits.utcOffset)
            if net.isCellular {
                tally.cellularBytes += bytes
                tally.cellularImageBytes += bytes
            } else {
                tally.wifiBytes += bytes
            }
        }
        if tracing { log("transfer", net.label, bytes, at: t) }
        if transfer.holdsUpTo > cacheTime {
            cacheTime = transfer.holdsUpTo
            cursor.cache(upTo: cacheTime)
        }
        transfer.finish()
    }

    /// Starts the processing task if it is due and the device is idle (screen off) with
    /// its requirements met: power and network as asked, and the gates a discretionary
    /// task obeys (Background App Refresh on, not force-quit, no Low Power Mode, battery
    /// not low). Called whenever one of these may have come to hold.
    @inline(never)
    private mutating func considerProcessing(at t: SimTime) {
        guard processingEnabled, !processing.running, t >= processing.due, screenCount == 0, !foreground,
              !traits.barOff, !forceQuit, !processing.requiresPower || chargeCount > 0 else { return }
        if hasBattery {
            battery.advance(to: t)
            if battery.lowPower || battery.isLow { return }
        }
        if processing.requiresNetwork && network.at(t) == .offline { return }
        let end = processing.start(at: t)
        schedule(.processingEnd, at: end, payload: processing.generation)
        if tracing { log("processing", "started", Clock.seconds(end - t), at: t) }
    }

    /// The screen came on or the phone was unplugged: the task stops, keeping its work.
    @inline(never)
    private mutating func interruptProcessing(at t: SimTime) {
        let energy = processing.interrupt(at: t)
        bookProcessing(energy, at: t)
        if counting(t) { tally.processingInterruptions += 1 }
        if tracing { log("processing", "interrupted", Clock.seconds(processing.remaining), at: t) }
    }

    @inline(never)
    private mutating func processingCompleted(at t: SimTime) {
        let (energy, onTime) = processing.complete(at: t)
        bookProcessing(energy, at: t)
        if counting(t) {
            tally.processingCompleted += 1
            if onTime { tally.processingOnTime += 1 }
        }
        if tracing { log("processing", onTime ? "completed" : "completed_late", chargeCount > 0 ? 1 : 0, at: t) }
        schedule(.processingDue, at: processing.due)
        schedule(.processingDeadline, at: processing.due + processing.deadline, payload: processing.instance)
    }

    @inline(never)
    private mutating func bookProcessing(_ energy: Double, at t: SimTime) {
        if hasBattery { battery.spend(energy, at: t) }
        if counting(t) { tally.processingEnergy += energy }
    }
}
