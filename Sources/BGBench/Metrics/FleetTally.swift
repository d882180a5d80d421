/// The per-device quantities the reports aggregate, in one fixed order. Times are in
/// seconds, energy in joules, bytes in bytes; each is a device's total over the counted
/// period.
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

    public static func denied(_ reason: DenialReason) -> Quantity {
        Quantity(rawValue: Quantity.deniedForeground.rawValue + Int(reason.rawValue))!
    }
    public static func outcome(_ status: RunStatus) -> Quantity {
        Quantity(rawValue: Quantity.newData.rawValue + Int(status.rawValue))!
    }
}

extension DeviceTally {
    /// The device's value of each ``Quantity``.
    func values() -> [Double] {
        var v = [Double](repeating: 0, count: Quantity.count)
        v[Quantity.opens.rawValue] = Double(opens)
        v[Quantity.freshOpens.rawValue] = Double(freshOpens)
        v[Quantity.staleness.rawValue] = Clock.seconds(stalenessTicks)
        v[Quantity.age.rawValue] = Clock.seconds(ageTicks)
        v[Quantity.foregroundWait.rawValue] = Clock.seconds(foregroundWaitTicks)
        v[Quantity.foregroundFetches.rawValue] = Double(foregroundFetches)
        v[Quantity.foregroundFailures.rawValue] = Double(foregroundFailures)
        v[Quantity.foregroundEnergy.rawValue] = foregroundEnergy
        v[Quantity.requested.rawValue] = Double(requested)
        v[Quantity.replaced.rawValue] = Double(replaced)
        v[Quantity.pending.rawValue] = Double(pendingAtHorizon)
        v[Quantity.runs.rawValue] = Double(runs)
        v[Quantity.denied.rawValue] = Double(deniedTotal)
        for r in DenialReason.allCases { v[Quantity.denied(r).rawValue] = Double(denials(r)) }
        for s in RunStatus.allCases { v[Quantity.outcome(s).rawValue] = Double(outcome(s)) }
        v[Quantity.throttleEvents.rawValue] = Double(throttleEvents)
        v[Quantity.backgroundEnergy.rawValue] = backgroundEnergy
        v[Quantity.cellularBytes.rawValue] = cellularBytes
        v[Quantity.wifiBytes.rawValue] = wifiBytes
        v[Quantity.zeroBattery.rawValue] = Clock.seconds(ticksAtZeroBattery)
        v[Quantity.events.rawValue] = Double(events)
        v[Quantity.pushSent.rawValue] = Double(pushSent)
        v[Quantity.pushLost.rawValue] = Double(pushLost)
        v[Quantity.pushGated.rawValue] = Double(pushGated)
        v[Quantity.pushThrottled.rawValue] = Double(pushThrottled)
        v[Quantity.pushRuns.rawValue] = Double(pushRuns)
        v[Quantity.serverJobs.rawValue] = Double(serverJobs)
        v[Quantity.serverLag.rawValue] = Clock.seconds(serverLagTicks)
        v[Quantity.serverOnTime.rawValue] = Double(serverOnTime)
        v[Quantity.transfers.rawValue] = Double(transfers)
        v[Quantity.cellularImageBytes.rawValue] = cellularImageBytes
        v[Quantity.processingCompleted.rawValue] = Double(processingCompleted)
        v[Quantity.processingOnTime.rawValue] = Double(processingOnTime)
        v[Quantity.processingMissed.rawValue] = Double(processingMissed)
        v[Quantity.processingInterruptions.rawValue] = Double(processingInterruptions)
        v[Quantity.processingEnergy.rawValue] = processingEnergy
        return v
    }
}

/// Totals over a set of devices: for every ``Quantity`` x, Σx, Σx² and Σx·opens over
/// devices (what a mean, a ratio of totals and their cluster-robust intervals need), and
/// the staleness histogram. Tallies are added device by device in index order within a
/// block and blocks are merged in index order, so every sum is the same whatever the
/// thread count (MODEL.md §2).
public struct FleetTally: Sendable {
    public private(set) var devices = 0
    public private(set) var sum = [Double](repeating: 0, count: Quantity.count)
    public private(set) var sumSquares = [Double](repeating: 0, count: Quantity.count)
    public private(set) var sumTimesOpens = [Double](repeating: 0, count: Quantity.count)
    public var staleness = LogHistogram()

    public init() {}

    public mutating func add(_ device: DeviceTally) { add(device.values()) }

    /// Adds one device's values, in ``Quantity`` order.
    mutating func add(_ v: [Double]) {
        let opens = v[Quantity.opens.rawValue]
        devices += 1
        for i in 0..<Quantity.count {
            sum[i] += v[i]
            sumSquares[i] += v[i] * v[i]
            sumTimesOpens[i] += v[i] * opens
        }
    }

    public mutating func merge(_ other: FleetTally) {
        devices += other.devices
        for i in 0..<Quantity.count {
            sum[i] += other.sum[i]
            sumSquares[i] += other.sumSquares[i]
            sumTimesOpens[i] += other.sumTimesOpens[i]
        }
        staleness.merge(other.staleness)
    }

    public subscript(_ q: Quantity) -> Double { sum[q.rawValue] }
}
