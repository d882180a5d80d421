/// Everything counted for one device over the counted period (MODEL.md §9): one slot per
/// ``Quantity``. Counts are exact integers; times are integer ticks; energy and bytes are
/// doubles summed in event order, so a device's tally does not depend on where or when it
/// was simulated. The simulation adds to it by quantity: `tally.increment(.opens)`,
/// `tally[ticks: .staleness] += t`, `tally[amount: .backgroundEnergy] += joules`.
public struct DeviceTally: Sendable {
    /// One slot per quantity, in ``Quantity`` order: counts and ticks as integers, amounts
    /// as the bit patterns of doubles. 52 = `Quantity.count` (MetricTableTests checks it).
    ///
    /// The hot accessors below read and write the slots unchecked (`slots[unchecked:]`):
    /// every index is a quantity's raw value, 0..<Quantity.count = 52, or a run status or
    /// denial reason added to the first slot of its block (the cases follow each other in
    /// ``Quantity``), so none can fall outside.
    var slots = InlineArray<52, Int64>(repeating: 0)

    public init() {}

    /// A count.
    @inline(__always)
    public subscript(_ q: Quantity) -> Int {
        get { Int(slots[unchecked: q.rawValue]) }
        set { slots[unchecked: q.rawValue] = Int64(newValue) }
    }

    /// Adds one to a count. Wrapping: a device counts at most a few things per event, far
    /// below 2⁶³, and the check would cost the hot loop a load, a branch and a store where
    /// one increment of memory does.
    @inline(__always)
    public mutating func increment(_ q: Quantity) { slots[unchecked: q.rawValue] &+= 1 }

    /// A time, in ticks.
    @inline(__always)
    public subscript(ticks q: Quantity) -> SimTime {
        get { slots[unchecked: q.rawValue] }
        set { slots[unchecked: q.rawValue] = newValue }
    }

    /// An amount: joules or bytes.
    @inline(__always)
    public subscript(amount q: Quantity) -> Double {
        get { Double(bitPattern: UInt64(bitPattern: slots[unchecked: q.rawValue])) }
        set { slots[unchecked: q.rawValue] = Int64(bitPattern: newValue.bitPattern) }
    }

    public func outcome(_ s: RunStatus) -> Int { Int(slots[Quantity.newData.rawValue + Int(s.rawValue)]) }
    public func denials(_ r: DenialReason) -> Int { Int(slots[Quantity.deniedForeground.rawValue + Int(r.rawValue)]) }

    /// Counts a denial: its reason and the total (hot path: the slot without a lookup).
    @inline(__always)
    mutating func countDenial(_ r: DenialReason) {
        slots[unchecked: Quantity.deniedForeground.rawValue &+ Int(r.rawValue)] &+= 1
        slots[unchecked: Quantity.denied.rawValue] &+= 1  // counts: far below 2⁶³
    }

    /// Counts a run's outcome.
    @inline(__always)
    mutating func countOutcome(_ s: RunStatus) { slots[unchecked: Quantity.newData.rawValue &+ Int(s.rawValue)] &+= 1 }
}

/// The per-device quantities the reports aggregate, in one fixed order: the slots of
/// ``DeviceTally`` and the columns of devices.csv. Each case's column name (`label`) and
/// how it is stored (`storage`) are the two switches below. Times are in seconds, energy
/// in joules, bytes in bytes; each is a device's total over the counted period.
/// ``MetricTable`` says what the reports make of them.
public enum Quantity: Int, CaseIterable, Sendable {
    /// Opens, fresh opens, and the sums over opens of staleness and age of information.
    case opens, freshOpens, staleness, age
    /// At stale opens: the total wait of the foreground fetches, their count, the stale
    /// opens that found no network and so fetched nothing (not among the fetches: fetches
    /// + failures = stale opens), the fetches' energy.
    case foregroundWait, foregroundFetches, foregroundFailures, foregroundEnergy
    /// The request life cycle: requested = runs − push runs + denied + replaced + pending
    /// (rule 3); `denied` is the sum of the reasons after it (in ``DenialReason`` order).
    case requested, replaced, pending, runs, denied
    case deniedForeground, deniedBarOff, deniedForceQuit, deniedLowPower, deniedLowBattery
    case deniedNotSubmitted, deniedSpacing, deniedBudget, deniedBusy, deniedDoze, deniedQuota, deniedLightDoze
    /// Runs by how they ended (in ``RunStatus`` order).
    case newData, noData, failed, expired, killed
    /// Budget cuts; background energy (J) and bytes by network; time at 0 % battery; time
    /// in Low Power Mode; simulation events processed (all of them, warm-up included).
    case throttleEvents, backgroundEnergy, cellularBytes, wifiBytes, zeroBattery, lowPower, events
    /// Silent pushes (MODEL.md §6), counted when their fate is known (lost: at the send;
    /// else at arrival): sent = push runs + lost + gated + throttled. Push runs are also
    /// in `runs` and its outcomes, not in `requested`.
    case pushSent, pushLost, pushGated, pushThrottled, pushRuns
    /// Content kinds (docs/content.md). `sync`: daily server jobs, the sum of their lags
    /// (age of the oldest item not yet uploaded, 0 when none), those within the target.
    /// `catalog`: background transfers completed, image bytes received on cellular.
    case serverJobs, serverLag, serverOnTime, transfers, cellularImageBytes
    /// The processing task: instances completed (late ones too), completed within their
    /// deadline, whose deadline passed first, interruptions, and its energy (J).
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
            .deniedNotSubmitted, .deniedSpacing, .deniedBudget, .deniedBusy, .deniedDoze, .deniedQuota,
            .deniedLightDoze:
            "denied_" + DenialReason(rawValue: UInt8(rawValue - Quantity.deniedForeground.rawValue))!.label
        case .newData, .noData, .failed, .expired, .killed:
            RunStatus(rawValue: UInt8(rawValue - Quantity.newData.rawValue))!.label
        case .throttleEvents: "throttle_events"
        case .backgroundEnergy: "background_energy_j"
        case .cellularBytes: "cellular_bytes"
        case .wifiBytes: "wifi_bytes"
        case .zeroBattery: "zero_battery_s"
        case .lowPower: "low_power_s"
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

    /// How a quantity is kept in the tally.
    public enum Storage: Sendable { case count, ticks, amount }

    @inline(__always)
    public var storage: Storage {
        switch self {
        case .staleness, .age, .foregroundWait, .zeroBattery, .lowPower, .serverLag: .ticks
        case .foregroundEnergy, .backgroundEnergy, .cellularBytes, .wifiBytes, .cellularImageBytes, .processingEnergy:
            .amount
        default: .count
        }
    }

    /// The quantity's value in a device's tally: counts as they are, ticks in seconds.
    @inline(__always)
    func value(in t: DeviceTally) -> Double {
        switch storage {
        case .count: Double(t[self])
        case .ticks: Clock.seconds(t[ticks: self])
        case .amount: t[amount: self]
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
