/// A silent push's way from the app's server to the app (MODEL.md §6, "Optional silent
/// push"): the push service loses it with a small probability or delivers it after a
/// lognormal delay; on arrival the platform applies the gates of §6.1 except the usage
/// budget (the foreground app, the Background App Refresh switch, a force-quit app, Low
/// Power Mode, low battery, a run already in flight), then its own push budget: at most
/// `push.per_hour` deliveries in any rolling hour. A delivered push launches the app's
/// refresh task at once. Draws from the device's `push` stream only.
struct PushChannel {
    /// The largest hourly budget bgbench models (the rolling window is stored inline).
    static let maxPerHour = 16

    /// What became of a push that arrived.
    enum Arrival: Equatable {
        case delivered
        /// Refused by a state gate (or a run in flight: `busy`).
        case gated(DenialReason)
        /// Above the hourly budget: not delivered.
        case throttled
    }

    private let perHour: Int
    private let dropProbability: Double
    private let delayMedianSeconds: Double
    private let delaySigma: Double
    private var rng: RandomStream
    /// Delivery times of the last `perHour` delivered pushes, a ring; `oldest` indexes the
    /// earliest once the ring is full.
    private var delivered = InlineArray<16, SimTime>(repeating: 0)
    private var deliveredCount = 0
    private var oldest = 0

    init(_ model: PushModel, rng: RandomStream) {
        perHour = model.perHour
        dropProbability = model.dropProbability
        delayMedianSeconds = model.delayMedian.seconds
        delaySigma = model.delaySigma
        self.rng = rng
    }

    /// The server sends a push at t: its arrival time, or nil when it is lost on the way.
    mutating func send(at t: SimTime) -> SimTime? {
        if rng.bernoulli(dropProbability) { return nil }
        return t + max(1, Clock.ticks(seconds: rng.lognormal(median: delayMedianSeconds, sigma: delaySigma)))
    }

    /// A push arrives at t: the platform's decision (a delivered push counts against the
    /// hourly budget; refused ones do not).
    mutating func arrive(at t: SimTime, gates g: GateInputs, busy: Bool) -> Arrival {
        if g.foreground { return .gated(.foreground) }
        if g.barOff { return .gated(.barOff) }
        if g.forceQuit { return .gated(.forceQuit) }
        if g.lowPower { return .gated(.lowPower) }
        if g.lowBattery { return .gated(.lowBattery) }
        if busy { return .gated(.busy) }
        if deliveredCount == perHour {
            // Full ring: the oldest of the last `perHour` deliveries must be an hour old.
            if perHour == 0 || t - delivered[oldest] < Clock.hour { return .throttled }
            delivered[oldest] = t
            oldest = oldest + 1 == perHour ? 0 : oldest + 1
        } else {
            delivered[deliveredCount] = t
            deliveredCount += 1
        }
        return .delivered
    }
}
