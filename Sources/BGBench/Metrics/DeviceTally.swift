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
    /// By ``DenialReason`` and by ``RunStatus``: 11 and 5 are their case counts
    /// (MetricTableTests checks them).
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
        for i in denied.indices { total += denied[i] }
        return total
    }

    public func outcome(_ s: RunStatus) -> Int { outcomes[Int(s.rawValue)] }
    public func denials(_ r: DenialReason) -> Int { denied[Int(r.rawValue)] }
}

/// The per-device quantities the reports aggregate, in one fixed order (devices.csv's
/// columns): each case's column name (`label`) and its value in a device's tally
/// (`value(in:)`) are the two switches below, next to the tally's fields. Times are in
/// seconds, energy in joules, bytes in bytes; each is a device's total over the counted
/// period. ``MetricTable`` says what the reports make of them.
public enum Quantity: Int, CaseIterable, Sendable {
    case opens, freshOpens, staleness, age, foregroundWait, foregroundFetches, foregroundFailures
    case foregroundEnergy, requested, replaced, pending, runs, denied
    case deniedForeground, deniedBarOff, deniedForceQuit, deniedLowPower, deniedLowBattery
    case deniedNotSubmitted, deniedSpacing, deniedBudget, deniedBusy, deniedDoze, deniedQuota
    case newData, noData, failed, expired, killed
    case throttleEvents, backgroundEnergy, cellularBytes, wifiBytes, zeroBattery, events
    case pushSent, pushLost, pushGated, pushThrottled, pushRuns
    // Content kinds and the processing task (docs/content.md).
    case serverJobs, serverLag, serverOnTime, transfers, cellularImageBytes
    case processingCompleted, processingOnTime, processingMissed, processingInterruptions, processingEnergy

    public static let count = allCases.count

    /// The column name in devices.csv: snake_case, with the unit for non-counts.
    public var label: String {
        switch self {
        case .opens: "opens"
        case .freshOpens: "fresh_opens"
        case .staleness: "staleness_s"
        case .age: "age_s"
        case .foregroundWait: "foreground_wait_s"
        case .foregroundFetches: "foreground_fetches"
        case .foregroundFailures: "foreground_failures"
        case .foregroundEnergy: "foreground_energy_j"
        case .requested: "requested"
        case .replaced: "replaced"
        case .pending: "pending_at_horizon"
        case .runs: "runs"
        case .denied: "denied"
        case .deniedForeground, .deniedBarOff, .deniedForceQuit, .deniedLowPower, .deniedLowBattery,
             .deniedNotSubmitted, .deniedSpacing, .deniedBudget, .deniedBusy, .deniedDoze, .deniedQuota:
            "denied_" + DenialReason(rawValue: UInt8(rawValue - Quantity.deniedForeground.rawValue))!.label
        case .newData, .noData, .failed, .expired, .killed:
            RunStatus(rawValue: UInt8(rawValue - Quantity.newData.rawValue))!.label
        case .throttleEvents: "throttle_events"
        case .backgroundEnergy: "background_energy_j"
        case .cellularBytes: "cellular_bytes"
        case .wifiBytes: "wifi_bytes"
        case .zeroBattery: "zero_battery_s"
        case .events: "events"
        case .pushSent: "push_sent"
        case .pushLost: "push_lost"
        case .pushGated: "push_gated"
        case .pushThrottled: "push_throttled"
        case .pushRuns: "push_runs"
        case .serverJobs: "server_jobs"
        case .serverLag: "server_lag_s"
        case .serverOnTime: "server_on_time"
        case .transfers: "transfers"
        case .cellularImageBytes: "cellular_image_bytes"
        case .processingCompleted: "processing_completed"
        case .processingOnTime: "processing_on_time"
        case .processingMissed: "processing_missed"
        case .processingInterruptions: "processing_interruptions"
        case .processingEnergy: "processing_energy_j"
        }
    }

    /// The quantity's value in a device's tally: counts as they are, ticks in seconds.
    @inline(__always)
    func value(in t: DeviceTally) -> Double {
        switch self {
        case .opens: Double(t.opens)
        case .freshOpens: Double(t.freshOpens)
        case .staleness: Clock.seconds(t.stalenessTicks)
        case .age: Clock.seconds(t.ageTicks)
        case .foregroundWait: Clock.seconds(t.foregroundWaitTicks)
        case .foregroundFetches: Double(t.foregroundFetches)
        case .foregroundFailures: Double(t.foregroundFailures)
        case .foregroundEnergy: t.foregroundEnergy
        case .requested: Double(t.requested)
        case .replaced: Double(t.replaced)
        case .pending: Double(t.pendingAtHorizon)
        case .runs: Double(t.runs)
        case .denied: Double(t.deniedTotal)
        case .deniedForeground, .deniedBarOff, .deniedForceQuit, .deniedLowPower, .deniedLowBattery,
             .deniedNotSubmitted, .deniedSpacing, .deniedBudget, .deniedBusy, .deniedDoze, .deniedQuota:
            Double(t.denied[rawValue - Quantity.deniedForeground.rawValue])
        case .newData, .noData, .failed, .expired, .killed: Double(t.outcomes[rawValue - Quantity.newData.rawValue])
        case .throttleEvents: Double(t.throttleEvents)
        case .backgroundEnergy: t.backgroundEnergy
        case .cellularBytes: t.cellularBytes
        case .wifiBytes: t.wifiBytes
        case .zeroBattery: Clock.seconds(t.ticksAtZeroBattery)
        case .events: Double(t.events)
        case .pushSent: Double(t.pushSent)
        case .pushLost: Double(t.pushLost)
        case .pushGated: Double(t.pushGated)
        case .pushThrottled: Double(t.pushThrottled)
        case .pushRuns: Double(t.pushRuns)
        case .serverJobs: Double(t.serverJobs)
        case .serverLag: Clock.seconds(t.serverLagTicks)
        case .serverOnTime: Double(t.serverOnTime)
        case .transfers: Double(t.transfers)
        case .cellularImageBytes: t.cellularImageBytes
        case .processingCompleted: Double(t.processingCompleted)
        case .processingOnTime: Double(t.processingOnTime)
        case .processingMissed: Double(t.processingMissed)
        case .processingInterruptions: Double(t.processingInterruptions)
        case .processingEnergy: t.processingEnergy
        }
    }

    public static func denied(_ reason: DenialReason) -> Quantity {
        Quantity(rawValue: Quantity.deniedForeground.rawValue + Int(reason.rawValue))!
    }
    public static func outcome(_ status: RunStatus) -> Quantity {
        Quantity(rawValue: Quantity.newData.rawValue + Int(status.rawValue))!
    }
}

extension DeviceTally {
    /// The device's value of each ``Quantity``, in its order.
    func values() -> [Double] { Quantity.allCases.map { $0.value(in: self) } }
}
