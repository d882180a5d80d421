/// `push` (MODEL.md §7): the app's server sends a silent push when content changes, within
/// its hourly budget, and the app keeps a background refresh as a fallback for pushes
/// that never arrive (MODEL.md §6: delivery is not guaranteed).
///
/// Server side: a change is pushed at once while fewer than `per_hour` pushes went out in
/// the last hour; otherwise one push is sent when the hour's window frees up, and every
/// change until then rides on it (coalescing, as Apple advises for background updates).
/// The server hears of a change when it publishes it, which is what a real server knows;
/// it knows nothing of the device (whether the push arrived, the app's state).
/// Device side: the fallback asks for a refresh `fallback_interval` after the last run
/// started or the last open, so a lost or refused push leaves the cache stale for at most
/// about that long (beyond what the platform itself refuses).
public struct PushPolicy: WakePolicy {
    public static let name = "push"
    public static let summary = "server-side: silent push on content change within the push budget, refresh fallback"
    public static let callbacks: PolicyCallbacks = .all.subtracting([.runEnded, .midnight])
    public static var observesPublications: Bool { true }

    private let perHour: Int
    private let fallback: SimTime
    /// Send times of the server's last `perHour` pushes, a ring; `oldest` indexes the
    /// earliest once it is full.
    private var sends = InlineArray<16, SimTime>(repeating: 0)
    private var sendCount = 0
    private var oldest = 0
    /// A deferred send not yet gone out carries every change until it does.
    private var deferredUntil: SimTime = -1
    /// Denied for a state (no retry time): ask again when the state changes.
    private var waitingForState = false

    public init(_ context: PolicyContext) {
        let p = context.scenario.policies[PushPolicy.self]
        perHour = min(max(1, p.perHour), 16)
        fallback = p.fallbackInterval.ticks
    }

    // MARK: Server

    public mutating func published(_ view: DeviceView) -> PushDecision {
        let now = view.now
        if deferredUntil > now { return .none }
        let at = sendCount < perHour ? now : max(now, sends[oldest] + Clock.hour)
        if sendCount < perHour {
            sends[sendCount] = at
            sendCount += 1
        } else {
            sends[oldest] = at
            oldest = oldest + 1 == perHour ? 0 : oldest + 1
        }
        if at > now { deferredUntil = at }
        return .send(at: at)
    }

    // MARK: Device: the refresh fallback

    private mutating func fallbackRequest(_ view: DeviceView) -> WakeDecision {
        waitingForState = false
        return fallback > 0 ? .request(at: view.now + fallback) : .keep
    }

    public mutating func start(_ view: DeviceView) -> WakeDecision { fallbackRequest(view) }
    public mutating func opened(_ view: DeviceView) -> WakeDecision { fallbackRequest(view) }
    public mutating func runStarted(_ view: DeviceView) -> WakeDecision { fallbackRequest(view) }

    public mutating func denied(_ reason: DenialReason, retryAt: SimTime?, _ view: DeviceView) -> WakeDecision {
        guard fallback > 0 else { return .keep }
        if let retryAt { return .request(at: retryAt) }
        waitingForState = true
        return .keep
    }

    public mutating func stateChanged(_ view: DeviceView) -> WakeDecision {
        guard waitingForState else { return .keep }
        waitingForState = false
        return .request(at: view.now)
    }
}

// MARK: - Parameters

public struct PushParameters: ParameterSet {
    public init() {}

    public var perHour = 2
    public var fallbackInterval = TimeSpan.hours(4)
}
extension PushParameters {
    public static var fields: [ParameterField<Self>] {
        [
            .integer(
                \.perHour, "per_hour", "integer", in: 1...PushChannel.maxPerHour,
                "the server's own limit of pushes per rolling hour to a device, coalescing the changes in between; default: the platform's delivery budget, `push.per_hour`"
            ),
            .duration(
                \.fallbackInterval, "fallback_interval", in: .seconds(0)...(.days(30)),
                "ask for a background refresh this long after the last run or open, so a lost push is recovered (\"0s\": no fallback); assumption"
            ),
        ]
    }

    public static var knob: AggressivenessKnob? {
        AggressivenessKnob("per_hour", moreAggressive: .higher, sweep: ["1", "2", "4", "8"])
    }
}

extension PushPolicy { public typealias Parameters = PushParameters }
