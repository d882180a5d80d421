import Foundation

/// One device as a small discrete-event simulation (MODEL.md §2): the user's opens, phone
/// use, charging and network are exogenous and drawn from the device's own streams; the
/// policy asks for wakes, the platform decides, the app's task runs, and every open is
/// scored for freshness. Generic over the platform, whose rules the loop consults at
/// every step, so they are specialised into it; the policy is called through its type's
/// table (`PolicyCalls`), so the loop is compiled once per platform, not once per policy
/// and platform. The loop allocates nothing.
///
/// This file holds the state, the set-up and the loop; the handlers are extensions in
/// their own files: the request life cycle (DeviceRequests.swift), the user and charging
/// (DeviceUser.swift), silent push and the platform's own wakes (DevicePush.swift), and
/// the content kinds and the processing task (DeviceContent.swift). Everything counted
/// goes to the recorder (`rec`, Metrics/DeviceRecorder.swift), whose output `run()`
/// returns.
struct DeviceSimulation<Platform: PlatformRules> {
    let traits: DeviceTraits
    let queue: EventQueue<SimEvent>
    let policy: DevicePolicy
    /// The policy's `observesPublications` and `callbacks`, read once.
    let observesPublications: Bool
    let callbacks: PolicyCallbacks
    var platform: Platform
    var opens: UserOpens
    var screen: ProfiledPoisson
    var screenRNG: RandomStream
    var chargeRNG: RandomStream
    var network: NetworkState
    var battery: Battery
    var task: AppTask
    var push: PushChannel
    var cursor: FeedCursor
    let hasBattery: Bool
    let screenMedianSeconds: Double, screenSigma: Double
    let averageItemBytes: Double

    // App and device state.
    var cacheTime: SimTime = 0
    var foreground = false
    var forceQuit = false
    var submitted = true
    var screenCount = 0
    var chargeCount = 0
    var opensToday = 0
    var lowPowerGeneration: UInt16 = 0
    /// When the battery's state next changes between events (MODEL.md §6.4 rule 2): the
    /// tick its level falls below the low level at the present power, or the time of an
    /// event whose booked energy changed it; `Clock.never` when neither can happen. The
    /// loop handles it before any event at or after it, so no event at all is queued for
    /// it; with the state last told to the policy.
    var lowCrossing = Clock.never
    /// Whether `lowCrossing` is exact or a bound from `Battery.lowCrossingBound`.
    var crossingExact = true
    var toldLowPower = false
    var toldLowBattery = false
    /// Time at 0 % before the counted period (MODEL.md §9 warm-up), taken at its start.
    var emptyBeforeCounting: SimTime = 0
    /// Time in Low Power Mode before the counted period, taken at its start; nights on the
    /// charger and nights counted (devices.csv's charging habit).
    var lowPowerBeforeCounting: SimTime = 0
    var nightsCharging = 0, nights = 0
    /// The next open's session length, kept aside (a payload is only 16 bits).
    var nextSession: SimTime = 0
    var nextForceQuit = false
    // The request life cycle.
    var requestPending = false
    /// The pending request is one the platform kept after a denial for `keptReason`
    /// (`PlatformRules.keepsPending`): a state change may let it be tried at once.
    var keptPending = false
    var keptReason = DenialReason.spacing
    /// When the pending request falls due. The request is no event in the queue: the
    /// loop compares this slot with the queue's earliest event (rule 1: at most one
    /// request is pending), so a replaced request leaves nothing behind to pop.
    var requestTime: SimTime = 0
    /// `requestTime` while a pending request falls before the horizon, else `Clock.never`.
    var nextRequest = Clock.never
    /// Requests before this time are denied for `decidedReason`: the platform decided so
    /// at the last denial (`PlatformRules.deniesUntil`).
    var decidedUntil: SimTime = 0
    var decidedReason = DenialReason.budget
    var inFlight = false
    var inFlightStart: SimTime = 0
    var inFlightStatus = RunStatus.noData
    var inFlightContent = false
    // Silent push (server-side policies only): the next publication the server hears of,
    // and the server's pending send (one at a time; later changes are coalesced into it).
    var nextPublication = 0
    var pushSendPending = false
    var pushSendTime: SimTime = 0
    /// The platform's own next wake (platforms that initiate wakes), with a generation
    /// that tells the live event from replaced ones.
    var systemWakeTime = Clock.never
    var systemWakeGeneration: UInt16 = 0

    // Content kinds and the processing task (docs/content.md); the news path only reads
    // the flags.
    let content: ContentKind
    /// Whether the user waits for a foreground fetch (not for a `sync` upload).
    let userWaits: Bool
    /// A successful run brings the cache to its start (catalog: not when its images were
    /// left for Wi-Fi or handed to a transfer), and the images it hands to a transfer.
    var inFlightHolds = true
    var inFlightTransferBytes = 0.0
    var transfer = BackgroundTransfer()
    var transferRNG: RandomStream
    let processingEnabled: Bool
    var processing: ProcessingTask

    /// Everything counted: the tally, the series, the server load and the event log.
    var rec: DeviceRecorder
    /// Last: the scenario inside is large and grows with every parameter, and fields
    /// after it would move with it (the hot fields' cache-line layout changed measurably
    /// when it grew).
    let ctx: DeviceRunContext

    /// Device `index` of the run under the policy `calls` are of, recording into `storage`
    /// (a worker's buffers, handed back in the record `run()` returns).
    init(
        policy calls: PolicyCalls, index: Int, context ctx: DeviceRunContext, queue: EventQueue<SimEvent>,
        storage: RecorderStorage
    ) {
        self.ctx = ctx
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
        self.queue = queue
        rec = DeviceRecorder(
            device: index, utcOffset: traits.utcOffset, tracing: index < ctx.traceDevices, storage: storage)
        queue.reset()

        // The user's diurnal curves (MODEL.md §3) and the phone's screen sessions.
        let (poisson, routine, screenDay) = Self.userCurves(traits: traits, context: ctx)
        let replay = ctx.opensTrace.map { TraceReplay(trace: $0, device: index, horizon: ctx.horizon) }
        opens = UserOpens(
            poisson: poisson, routine: routine, replay: replay, rng: stream(.opens),
            behaviour: SessionParameters(s.user))
        if routine != nil && replay == nil {
            // MODEL.md §6.4 rule 4: a routine user's usage average starts at their mean opens
            // per day over the first week, counted on a copy of their own generator (the
            // draws of the run are untouched).
            traits.initialUsage = UserOpens.meanOpensPerDay(opens, over: min(7 * Clock.day, ctx.horizon))
        }
        self.traits = traits
        let hasBattery = s.device.batteryEnabled
        self.hasBattery = hasBattery
        screen = screenDay
        screenRNG = stream(.screen)
        chargeRNG = stream(.charging)
        screenMedianSeconds = s.device.screenSessionMedian.seconds
        screenSigma = s.device.screenSessionSigma
        network = NetworkState(traits: traits, model: s.network, rng: stream(.network))
        battery = Battery(model: s.device, rng: stream(.lowPower), keepsLowPower: traits.keepsLowPower)

        platform = Platform(PlatformSetup(scenario: s, initialUsage: traits.initialUsage, barOff: traits.barOff))
        task = AppTask(scenario: s, runtimeLimit: platform.runtimeLimit, rng: stream(.task))
        content = s.content.kind
        userWaits = content != .sync
        transferRNG = stream(.transfer)
        var processingStream = stream(.processing)
        processingEnabled = s.app.processing.enabled
        processing = ProcessingTask(s.app.processing, rng: &processingStream)
        // sync: the device's own data, generated for the whole run at its start.
        let feed =
            content.sharesFeed
            ? ctx.feed
            : index < ctx.deviceFeeds.count
                ? ctx.deviceFeeds[index]
                : NewsFeed(content: s.content, days: Clock.dayIndex(ctx.horizon - 1) + 1, seed: ctx.seed, device: index)
        cursor = FeedCursor(feed: feed)
        push = PushChannel(s.push, rng: stream(.push))
        averageItemBytes = feed.times.isEmpty ? 0 : feed.totalBytes / Double(feed.times.count)
        observesPublications = calls.observesPublications
        callbacks = calls.callbacks
        policy = DevicePolicy(
            calls,
            PolicyContext(
                scenario: s, deviceIndex: index, horizon: ctx.horizon, random: stream(.policy),
                clairvoyance: calls.isClairvoyant ? Clairvoyance(opens: opens, feed: feed) : .none,
                intensity: calls.knowledge == .intensity
                    ? OpenIntensity(opens: poisson, routine: routine, trace: ctx.opensTrace, device: index) : .none,
                platform: Platform.name, prepared: ctx.prepared))
    }

    /// Runs the device to the horizon and returns what it recorded: its totals, its
    /// staleness at each open, its days and its hours of the day.
    mutating func run() -> DeviceRecord {
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
        if observesPublications { scheduleNextPublication() }
        planSystemWake(at: 0)

        if hasBattery {
            toldLowPower = battery.lowPower
            toldLowBattery = battery.isLow
            noteBattery(at: 0)
        }

        while true {
            // The next event: the queue's earliest or the pending request, in the queue's
            // order (time, then priority; no queued event has a request's priority).
            let requestFirst =
                nextRequest != Clock.never
                && !queue.firstPrecedes(time: nextRequest, priority: SimEvent.request.priority)
            guard let event = requestFirst ? Event(time: nextRequest, kind: .request) : queue.pop() else { break }
            let t = event.time
            if t >= lowCrossing {
                if !crossingExact {
                    lowCrossing = battery.plannedCrossingTime()
                    crossingExact = true
                }
                if t >= lowCrossing {
                    if !requestFirst { queue.unpop() }
                    batteryChanged()
                    continue
                }
            }
            // A request was counted when it was made (`apply`).
            if !requestFirst { rec.tally.increment(.events) }
            // The most frequent first: the optimiser inlines handlers into the loop in this
            // order until the loop reaches its size budget.
            switch event.kind {
            case .request: request(at: t)
            case .runEnd: runEnded(at: t)
            case .screenOn: screenOn(at: t)
            case .screenOff: screenOff(at: t)
            case .sessionEnd: endSession(at: t, forceQuit: event.payload == 1)
            case .open: open(at: t)
            case .midnight: midnight(at: t)
            case .chargeOn: setCharging(delta: 1, at: t)
            case .chargeOff: setCharging(delta: -1, at: t)
            case .lowPowerOff: if event.payload == lowPowerGeneration { lowPowerEnded(at: t) }
            case .publish: published(at: t)
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
            rec.tally.increment(.pending)
            rec.tally.increment(.requested)
        }
        if hasBattery {
            battery.advance(to: horizon)
            rec.tally[ticks: .zeroBattery] = battery.ticksEmpty - emptyBeforeCounting
            rec.tally[ticks: .lowPower] = battery.ticksLowPower - lowPowerBeforeCounting
        }
        flushDay(Clock.dayIndex(horizon - 1))
        return rec.finish(
            archetype: traits.archetype,
            attributes: DeviceAttributes(
                platform: Platform.name, traits: traits, nights: nights, nightsCharging: nightsCharging))
    }

    /// Low Power Mode ended at t (rare: kept out of the loop's body, so the frequent
    /// handlers fit the optimiser's inlining budget for it).
    @inline(never)
    mutating func lowPowerEnded(at t: SimTime) {
        battery.advance(to: t)
        if processingEnabled { considerProcessing(at: t) }
        toldBattery()
        if callbacks.contains(.stateChanged) { apply(policy.stateChanged(view(at: t)), at: t) }
        planSystemWake(at: t)
    }

    /// Content was published at t: the server side of a push policy hears of it.
    @inline(never)
    mutating func published(at t: SimTime) {
        apply(policy.published(view(at: t)), at: t)
        scheduleNextPublication()
    }

    // MARK: Recording and scheduling

    @inline(__always)
    var tracing: Bool { rec.tracing }

    /// Logs an event of a traced device (callers check `tracing` first, so untraced
    /// devices build no strings).
    mutating func log(_ event: String, _ detail: String, _ value: Double? = nil, at t: SimTime) {
        rec.log(event, detail, value, at: t)
    }

    /// Ends day `day` in the series (its row is kept if the day is counted).
    mutating func flushDay(_ day: Int) {
        rec.flushDay(day, counted: counting(SimTime(day) * Clock.day))
    }

    @inline(__always)
    func counting(_ t: SimTime) -> Bool { t >= ctx.countFrom }

    @inline(__always)
    mutating func schedule(_ kind: SimEvent, at t: SimTime, payload: UInt16 = 0) {
        if t < ctx.horizon { queue.push(Event(time: t, kind: kind, payload: payload)) }
    }

    @inline(__always)
    mutating func view(at t: SimTime) -> DeviceView {
        DeviceView(
            now: t, batteryLevel: hasBattery ? battery.level : 1, charging: chargeCount > 0,
            lowPower: hasBattery && battery.lowPower, network: network.at(t),
            screenOn: screenCount > 0, foreground: foreground)
    }

    /// The device and app state the platform's gates read now (battery advanced by the caller).
    @inline(__always)
    func gates() -> GateInputs {
        GateInputs(
            foreground: foreground, barOff: traits.barOff, forceQuit: forceQuit,
            lowPower: hasBattery && battery.lowPower, lowBattery: hasBattery && battery.isLow,
            charging: chargeCount > 0, submitted: submitted, belowLowLevel: hasBattery && battery.belowLowLevel)
    }
}
