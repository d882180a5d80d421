import BGNumerics
import Foundation

/// Which way a metric of summary.csv gets worse.
public enum MetricDirection: String, Sendable {
    /// Down is bad (a fall beyond tolerance is a regression).
    case higherIsBetter
    /// Up is bad.
    case lowerIsBetter
    /// Neither way is bad: the change is reported, never a regression.
    case neutral
}

/// One metric of summary.csv as `bgbench check` sees it: which way is bad, its default
/// tolerance, and where its per-device values are in devices.csv.
public struct CheckMetric: Sendable {
    /// How the metric is computed from devices.csv, for the statistical tests.
    public enum Source: Sendable, Equatable {
        /// Σ column / Σ opens over the devices (a ratio of totals).
        case perOpen(String)
        /// The mean of the column over the devices (per device-day: divided by the counted
        /// days, the same for both runs, so the tests need not divide).
        case perDevice(String)
        /// A quantile of the staleness histogram: no per-device values and no interval,
        /// so no test.
        case quantile
    }

    public let name: String
    public let direction: MetricDirection
    /// A change smaller than this, in percent of the baseline value, is no change.
    public let tolerancePercent: Double
    public let source: Source
}

/// THE direction table: every metric of summary.csv (`SummarySchema.metrics`, a test keeps
/// the two in step), which way is bad, and its default tolerance (1 %). A count that only
/// follows how much a policy asks (requests, runs, denials) or a quantity with no cost to
/// the user (Wi-Fi bytes) is neutral: reported, never a regression nor an improvement.
/// Denials are neutral rather than judged per request because check judges the value
/// summary.csv shows (per device-day); a per-request rate would be another quantity.
public enum CheckMetrics {
    static func m(_ name: String, _ direction: MetricDirection, _ source: CheckMetric.Source) -> CheckMetric {
        CheckMetric(name: name, direction: direction, tolerancePercent: 1, source: source)
    }

    public static let table: [CheckMetric] = [
        m("opens_per_day", .neutral, .perDevice("opens")),                 // the users, not the policy
        m("fresh_open_rate", .higherIsBetter, .perOpen("fresh_opens")),
        m("staleness_mean_s", .lowerIsBetter, .perOpen("staleness_s")),
        m("staleness_median_s", .lowerIsBetter, .quantile),
        m("staleness_p95_s", .lowerIsBetter, .quantile),
        m("age_mean_s", .lowerIsBetter, .perOpen("age_s")),
        m("foreground_wait_per_open_s", .lowerIsBetter, .perOpen("foreground_wait_s")),
        m("foreground_fetches_per_day", .lowerIsBetter, .perDevice("foreground_fetches")),  // stale opens that waited
        m("foreground_failures_per_day", .lowerIsBetter, .perDevice("foreground_failures")),
        m("foreground_energy_j_per_day", .lowerIsBetter, .perDevice("foreground_energy_j")),
        m("requested_per_day", .neutral, .perDevice("requested")),         // a policy's means, not an outcome
        m("runs_per_day", .neutral, .perDevice("runs")),                   // paid for in energy, scored there
        // Issue 12: was lowerIsBetter. Denials per day follow the number of requests (a
        // policy that asks less is denied less, and nothing is saved): neutral; what they
        // cost shows in freshness, energy and throttles.
        m("denied_per_day", .neutral, .perDevice("denied")),
    ] + DenialReason.allCases.map { r in
        // Issue 12: was lowerIsBetter. Each reason's denials per day follow the requests too: neutral.
        m("denied_\(r.label)_per_day", .neutral, .perDevice("denied_\(r.label)"))
    } + [
        m("replaced_per_day", .neutral, .perDevice("replaced")),
        m("pending_at_horizon_per_day", .neutral, .perDevice("pending_at_horizon")),
        m("new_data_per_day", .neutral, .perDevice("new_data")),           // runs by outcome: the good ones
        m("no_data_per_day", .neutral, .perDevice("no_data")),
        m("failed_per_day", .lowerIsBetter, .perDevice("failed")),
        m("expired_per_day", .lowerIsBetter, .perDevice("expired")),
        m("killed_per_day", .lowerIsBetter, .perDevice("killed")),
        m("throttle_events_per_day", .lowerIsBetter, .perDevice("throttle_events")),
        m("background_energy_j_per_day", .lowerIsBetter, .perDevice("background_energy_j")),
        // The same energy in % of the battery: the scale cancels in the tests.
        m("battery_pct_per_day", .lowerIsBetter, .perDevice("background_energy_j")),
        m("cellular_bytes_per_day", .lowerIsBetter, .perDevice("cellular_bytes")),
        // Issue 12: was lowerIsBetter. Wi-Fi bytes cost the user nothing (no data plan) and
        // follow the content fetched; their energy is in background_energy_j_per_day: neutral.
        m("wifi_bytes_per_day", .neutral, .perDevice("wifi_bytes")),
        m("zero_battery_s_per_day", .lowerIsBetter, .perDevice("zero_battery_s")),
        m("push_sent_per_day", .neutral, .perDevice("push_sent")),          // a server's means, not an outcome
        m("push_lost_per_day", .lowerIsBetter, .perDevice("push_lost")),
        m("push_gated_per_day", .lowerIsBetter, .perDevice("push_gated")),
        m("push_throttled_per_day", .lowerIsBetter, .perDevice("push_throttled")),
        m("push_runs_per_day", .neutral, .perDevice("push_runs")),          // runs: scored in energy
        m("server_lag_mean_s", .lowerIsBetter, .perDevice("server_lag_s")),
        m("server_on_time_rate", .higherIsBetter, .perDevice("server_on_time")),
        m("transfers_per_day", .neutral, .perDevice("transfers")),          // a means of freshness, like runs
        m("cellular_image_bytes_per_day", .lowerIsBetter, .perDevice("cellular_image_bytes")),
        // A ratio over resolved tasks; the tests use the on-time count per device.
        m("processing_on_time_rate", .higherIsBetter, .perDevice("processing_on_time")),
        m("processing_completed_per_day", .neutral, .perDevice("processing_completed")),
        m("processing_interruptions_per_day", .lowerIsBetter, .perDevice("processing_interruptions")),
        m("processing_energy_j_per_day", .lowerIsBetter, .perDevice("processing_energy_j")),
    ]

    public static func named(_ name: String) -> CheckMetric? { table.first { $0.name == name } }
}
