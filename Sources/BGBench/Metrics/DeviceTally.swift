/// Everything counted for one device over the counted period (MODEL.md §9). Counts are
/// exact integers; times are integer ticks; energy and bytes are summed in event order,
/// so a device's tally does not depend on where or when it was simulated.
public struct DeviceTally: Sendable {
    public var opens = 0
    public var freshOpens = 0
    /// Sums over opens of staleness and age of information, in ticks.
    public var stalenessTicks: Int64 = 0
    public var ageTicks: Int64 = 0
    /// Foreground fetches at stale opens, their total wait, and those that found no network.
    public var foregroundFetches = 0
    public var foregroundWaitTicks: Int64 = 0
    public var foregroundFailures = 0
    public var foregroundEnergy = 0.0
    /// The request life cycle: requested = runs + denied + replaced + pending (rule 3).
    public var requested = 0
    public var replaced = 0
    public var pendingAtHorizon = 0
    public var denied = InlineArray<11, Int>(repeating: 0)
    public var runs = 0
    public var outcomes = InlineArray<5, Int>(repeating: 0)
    public var throttleEvents = 0
    /// Background energy (J) and bytes by network.
    public var backgroundEnergy = 0.0
    public var cellularBytes = 0.0
    public var wifiBytes = 0.0
    public var ticksAtZeroBattery: SimTime = 0
    /// Silent pushes (MODEL.md §6), counted when their fate is known (lost: at the send;
    /// else at arrival): sent = push runs + lost + gated + throttled.
    public var pushSent = 0
    public var pushLost = 0
    public var pushGated = 0
    public var pushThrottled = 0
    /// Runs a delivered push launched (also counted in `runs` and its outcomes; not in
    /// `requested`: requested = runs − push runs + denied + replaced + pending).
    public var pushRuns = 0
    /// Simulation events processed (all of them, warm-up included).
    public var events = 0
    /// `sync`: daily server jobs, the sum of their lags (age of the oldest item not yet
    /// uploaded, 0 when none), and those with a lag within the target (docs/content.md).
    public var serverJobs = 0
    public var serverLagTicks: Int64 = 0
    public var serverOnTime = 0
    /// `catalog`: background transfers completed, and image bytes received on cellular.
    public var transfers = 0
    public var cellularImageBytes = 0.0
    /// The processing task: instances completed (late ones too), completed within their
    /// deadline, whose deadline passed first, interruptions, and its energy (J).
    public var processingCompleted = 0
    public var processingOnTime = 0
    public var processingMissed = 0
    public var processingInterruptions = 0
    public var processingEnergy = 0.0

    public init() {}

    public var deniedTotal: Int {
        var total = 0
        for i in 0..<11 { total += denied[i] }
        return total
    }

    public func outcome(_ s: RunStatus) -> Int { outcomes[Int(s.rawValue)] }
    public func denials(_ r: DenialReason) -> Int { denied[Int(r.rawValue)] }
}
