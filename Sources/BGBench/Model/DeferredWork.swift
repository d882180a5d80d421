/// One device's processing task (BGProcessingTask, MODEL.md §6; docs/content.md): an
/// instance becomes due, runs while the device is idle and its requirements hold, is
/// interrupted (keeping the work done: the app checkpoints) when they stop holding, and
/// resumes later. When an instance completes, the next is due `interval` later (the app
/// submits its next request on completion). Each instance is resolved once for the
/// deadline share: on time when it completes within `deadline` of becoming due, missed
/// when the deadline passes first (it still completes later, counted as completed).
/// The device's simulation owns the events; this type is the bookkeeping.
struct ProcessingTask {
    let interval: SimTime, work: SimTime, deadline: SimTime
    let requiresPower: Bool, requiresNetwork: Bool
    private let powerW: Double
    /// When the current instance becomes (or became) due.
    private(set) var due: SimTime
    /// Work left on the current instance.
    private(set) var remaining: SimTime
    private(set) var running = false
    private var started: SimTime = 0
    /// Tells the live end event from stale ones: bumped at every start.
    private(set) var generation: UInt16 = 0
    /// The current instance's number, the payload of its deadline event.
    private(set) var instance: UInt16 = 0
    /// The current instance's deadline passed before it completed.
    private var missed = false

    /// The first instance is due at a uniform time in the first interval.
    init(_ p: ProcessingTaskParameters, rng: inout RandomStream) {
        interval = p.interval.ticks; work = p.work.ticks; deadline = p.deadline.ticks
        requiresPower = p.requiresPower; requiresNetwork = p.requiresNetwork
        powerW = p.powerW
        due = SimTime(rng.uniform() * Double(interval))
        remaining = work
    }

    /// Starts (or resumes) the current instance at t; returns when it will end.
    mutating func start(at t: SimTime) -> SimTime {
        running = true
        started = t
        generation &+= 1
        return t + remaining
    }

    /// Stops the running instance at t, keeping the work done; returns its energy (J).
    mutating func interrupt(at t: SimTime) -> Double {
        running = false
        generation &+= 1
        remaining -= t - started
        return energy(t - started)
    }

    /// The running instance finished at t: returns its energy since the last start and
    /// whether it was on time; the next instance becomes due `interval` later.
    mutating func complete(at t: SimTime) -> (energy: Double, onTime: Bool) {
        let result = (energy(t - started), !missed)
        running = false
        due = t + interval
        remaining = work
        instance &+= 1
        missed = false
        return result
    }

    /// Instance `k`'s deadline passed: true if it is the current one and not yet complete
    /// (it is then missed).
    mutating func deadlinePassed(instance k: UInt16) -> Bool {
        guard k == instance && !missed else { return false }
        missed = true
        return true
    }

    private func energy(_ ticks: SimTime) -> Double { powerW * Clock.seconds(ticks) }
}

/// A background transfer of catalog images (docs/content.md): handed over by a successful
/// run, it completes `delay` after the run at the system's discretion (a Wi-Fi-only one
/// waits for Wi-Fi, rechecked every `retry`), and then the cache holds every item up to
/// the run's start. A run while one is pending adds its images to it (the same session);
/// its completion time stays. A foreground fetch that holds everything cancels it.
struct BackgroundTransfer {
    private(set) var pending = false
    /// The cache time it brings: the start of the last run that handed it images.
    private(set) var holdsUpTo: SimTime = 0
    /// Image bytes of every item in (c, holdsUpTo].
    private(set) var bytes = 0.0
    /// Tells the live completion event from stale ones.
    private(set) var generation: UInt16 = 0

    /// A run that started at `start` hands over `bytes` of images at t; returns when the
    /// transfer is due if a new one was created (the caller schedules it), else nil.
    mutating func hand(bytes: Double, holdsUpTo start: SimTime, at t: SimTime, delay: SimTime) -> SimTime? {
        self.bytes = bytes
        holdsUpTo = start
        if pending { return nil }
        pending = true
        generation &+= 1
        return t + delay
    }

    mutating func finish() {
        pending = false
        generation &+= 1
    }
}
