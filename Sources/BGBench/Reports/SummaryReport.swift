/// The results of one policy over the fleet.
public struct PolicyResult: Sendable {
    public var policy: String
    /// The seed of this replication.
    public var seed: UInt64
    public var result: FleetResult
    public var wallSeconds: Double
    /// The worker threads the fleet run started.
    public var workers: Int
    /// The fleet totals.
    public var tally: FleetTally { result.fleet }
    public init(policy: String, seed: UInt64, result: FleetResult, wallSeconds: Double, workers: Int = 1) {
        self.policy = policy; self.seed = seed; self.result = result; self.wallSeconds = wallSeconds
        self.workers = workers
    }
}

/// One column of summary.csv: its name, unit and definition (Reports/README.md is written
/// from the same words) and how it is computed. Columns with `interval` are followed by
/// `<name>_ci_low` and `<name>_ci_high`.
public struct SummaryColumn: Sendable {
    public let name: String
    public let unit: String
    public let definition: String
    public let interval: Bool
    let compute: @Sendable (FleetEstimates, SummaryContext) -> Estimate
}

/// What a summary column may need beyond the tally.
struct SummaryContext {
    /// Battery capacity in joules (for % of battery).
    var batteryJoules: Double
}

/// summary.csv: one row per scenario × policy, every metric of MODEL.md §9 the simulator
/// produces so far. The column list is the schema; its order is stable.
public enum SummarySchema {
    static func perOpen(_ name: String, _ unit: String, _ q: Quantity, _ definition: String) -> SummaryColumn {
        SummaryColumn(name: name, unit: unit, definition: definition, interval: true) { e, _ in e.perOpen(q) }
    }
    static func perDay(_ name: String, _ unit: String, _ q: Quantity, _ definition: String, interval: Bool = false) -> SummaryColumn {
        SummaryColumn(name: name, unit: unit, definition: definition, interval: interval) { e, _ in e.perDeviceDay(q) }
    }

    public static let identity = ["scenario", "policy", "archetype", "platform", "seed", "devices", "days", "warmup_days", "device_days"]

    public static let metrics: [SummaryColumn] = [
        perDay("opens_per_day", "1/device-day", .opens, "app opens (reopens included) per device-day", interval: true),
        perOpen("fresh_open_rate", "ratio", .freshOpens, "fresh opens / opens; an open is fresh if no item was published since the last successful fetch"),
        perOpen("staleness_mean_s", "s", .staleness, "mean over opens of staleness: time since the first item the cache missed (0 when fresh)"),
        SummaryColumn(name: "staleness_median_s", unit: "s", definition: "median staleness over opens (fixed log bins, 1 % wide)", interval: false) { e, _ in
            Estimate(e.tally.staleness.quantile(0.5) ?? .nan) },
        SummaryColumn(name: "staleness_p95_s", unit: "s", definition: "95th percentile of staleness over opens (fixed log bins, 1 % wide)", interval: false) { e, _ in
            Estimate(e.tally.staleness.quantile(0.95) ?? .nan) },
        perOpen("age_mean_s", "s", .age, "mean over opens of age of information: time since the last successful fetch"),
        perOpen("foreground_wait_per_open_s", "s", .foregroundWait, "mean over opens of the wait for a foreground fetch at stale opens"),
        perDay("foreground_fetches_per_day", "1/device-day", .foregroundFetches, "foreground fetches at stale opens"),
        perDay("foreground_failures_per_day", "1/device-day", .foregroundFailures, "stale opens that found no network"),
        perDay("foreground_energy_j_per_day", "J/device-day", .foregroundEnergy, "energy of foreground fetches (user-initiated, not background)"),
        perDay("requested_per_day", "1/device-day", .requested, "wake requests resolved: runs − push runs + denied + replaced (+ pending at the horizon)"),
        perDay("runs_per_day", "1/device-day", .runs, "background runs started", interval: true),
        perDay("denied_per_day", "1/device-day", .denied, "requests denied, all reasons"),
    ] + DenialReason.allCases.map { r in
        perDay("denied_\(r.label)_per_day", "1/device-day", .denied(r), "requests denied for `\(r.label)`")
    } + [
        perDay("replaced_per_day", "1/device-day", .replaced, "pending requests replaced or withdrawn by the policy"),
        perDay("pending_at_horizon_per_day", "1/device-day", .pending, "requests still pending at the horizon"),
    ] + RunStatus.allCases.map { s in
        perDay("\(s.label)_per_day", "1/device-day", .outcome(s), "runs that ended `\(s.label)`", interval: s == .killed)
    } + [
        perDay("throttle_events_per_day", "1/device-day", .throttleEvents, "runs after which the platform cut the app's budget (kill, expiry, failure, false newData)"),
        perDay("background_energy_j_per_day", "J/device-day", .backgroundEnergy, "energy of background runs: launch plus radio (promotion, transfer, tail)", interval: true),
        SummaryColumn(name: "battery_pct_per_day", unit: "%/device-day", definition: "background energy as percent of the battery capacity", interval: true) { e, c in
            e.perDeviceDay(.backgroundEnergy, scale: 100 / c.batteryJoules) },
        perDay("cellular_bytes_per_day", "B/device-day", .cellularBytes, "bytes received on LTE or 5G, background and foreground"),
        perDay("wifi_bytes_per_day", "B/device-day", .wifiBytes, "bytes received on Wi-Fi, background and foreground"),
        perDay("zero_battery_s_per_day", "s/device-day", .zeroBattery, "time spent at 0 % battery"),
        perDay("push_sent_per_day", "1/device-day", .pushSent, "silent pushes the server sent (server-side policies): push runs + lost + gated + throttled"),
        perDay("push_lost_per_day", "1/device-day", .pushLost, "pushes lost on the way (push service, network)"),
        perDay("push_gated_per_day", "1/device-day", .pushGated, "pushes that arrived and were refused by a gate (app open, switch off, force-quit, Low Power Mode, low battery, run in flight)"),
        perDay("push_throttled_per_day", "1/device-day", .pushThrottled, "pushes that arrived above the platform's hourly push budget: not delivered"),
        perDay("push_runs_per_day", "1/device-day", .pushRuns, "background runs launched by a delivered push (included in runs_per_day)"),
        // Content kinds and the processing task (docs/content.md): empty where they do not apply.
        perServerJob("server_lag_mean_s", "s", .serverLag,
                     "`sync`: mean over the daily server jobs of the age of the oldest item the server did not have yet (0 when it had everything)"),
        perServerJob("server_on_time_rate", "ratio", .serverOnTime,
                     "`sync`: share of the daily server jobs that found every item older than `content.sync.target_age` uploaded"),
        perDay("transfers_per_day", "1/device-day", .transfers, "`catalog`: background transfers of images completed"),
        perDay("cellular_image_bytes_per_day", "B/device-day", .cellularImageBytes,
               "`catalog`: image bytes received on LTE or 5G, background and foreground (part of `cellular_bytes_per_day`)"),
        SummaryColumn(name: "processing_on_time_rate", unit: "ratio",
                      definition: "processing tasks completed within their deadline / those completed in time or whose deadline passed", interval: false) { e, _ in
            let resolved = e.tally[.processingOnTime] + e.tally[.processingMissed]
            return Estimate(resolved > 0 ? e.tally[.processingOnTime] / resolved : .nan) },
        perDay("processing_completed_per_day", "1/device-day", .processingCompleted, "processing tasks completed, late ones included"),
        perDay("processing_interruptions_per_day", "1/device-day", .processingInterruptions,
               "processing tasks stopped by the screen coming on or the phone being unplugged"),
        perDay("processing_energy_j_per_day", "J/device-day", .processingEnergy, "energy of the processing task (not in `background_energy_j_per_day`)"),
    ]

    /// A mean per daily server job (`sync`): every device has one a counted day, so it is
    /// the per-device-day mean; empty without server jobs.
    static func perServerJob(_ name: String, _ unit: String, _ q: Quantity, _ definition: String) -> SummaryColumn {
        SummaryColumn(name: name, unit: unit, definition: definition, interval: true) { e, _ in
            e.tally[.serverJobs] > 0 ? e.perDeviceDay(q) : Estimate(.nan) }
    }

    /// The header of summary.csv.
    public static var header: [String] {
        identity + metrics.flatMap { $0.interval ? [$0.name, $0.name + "_ci_low", $0.name + "_ci_high"] : [$0.name] }
    }

    /// The metric fields of one row.
    static func fields(_ tally: FleetTally, days: Int, context: SummaryContext) -> [String] {
        let estimates = FleetEstimates(tally: tally, days: days)
        return metrics.flatMap { column -> [String] in
            let e = column.compute(estimates, context)
            return column.interval ? [CSVNumber.format(e.value), CSVNumber.format(e.low), CSVNumber.format(e.high)]
                                   : [CSVNumber.format(e.value)]
        }
    }
}
