/// THE metric table: every metric of summary.csv, in column order, with everything the
/// reports, `bgbench check`, the terminal summary and Reports/README.md know about it.
/// summary.csv's columns (`SummarySchema.metrics`), daily.csv's and hourly.csv's
/// (`SeriesReports.seriesColumns`), paired.csv's metrics, `CheckMetrics.table`, the
/// terminal table (`terminal`) and the README's column list (`MetricTable.readmeColumns`,
/// checked by MetricTableTests) are all derived from it. The per-device quantities the
/// metrics are estimated from are ``Quantity`` (devices.csv, in its own column order).
public enum MetricTable {
    static func m(
        _ name: String, _ unit: String, _ kind: MetricKind, interval: Bool = false,
        _ direction: MetricDirection, series: MetricSeries = .none,
        terminal: TerminalColumn? = nil, _ definition: String
    ) -> Metric {
        Metric(
            name: name, unit: unit, kind: kind, interval: interval, direction: direction, tolerancePercent: 1,
            series: series, terminal: terminal, definition: definition)
    }
    static func t(
        _ header: String, _ width: Int, _ decimals: Int, percent: Bool = false, total: Bool = false,
        _ group: TerminalColumn.Group = .main
    ) -> TerminalColumn {
        TerminalColumn(header: header, width: width, decimals: decimals, percent: percent, total: total, group: group)
    }

    public static let metrics: [Metric] =
        [
            m(
                // the users, not the policy
                "opens_per_day", "1/device-day", .perDeviceDay(.opens), interval: true, .neutral, series: .plain,
                terminal: t("opens/d", 8, 2), "app opens (reopens included) per device-day"),
            m(
                "fresh_open_rate", "ratio", .perOpen(.freshOpens), interval: true, .higherIsBetter, series: .interval,
                terminal: t("fresh %", 8, 1, percent: true),
                "fresh opens / opens; an open is fresh if no item was published since the last successful fetch"),
            m(
                "staleness_mean_s", "s", .perOpen(.staleness), interval: true, .lowerIsBetter, series: .interval,
                terminal: t("stale s", 9, 0),
                "mean over opens of staleness: time since the first item the cache missed (0 when fresh)"),
            m(
                "staleness_median_s", "s", .stalenessQuantile(0.5), .lowerIsBetter,
                "median staleness over opens (fixed log bins, 1 % wide)"),
            m(
                "staleness_p95_s", "s", .stalenessQuantile(0.95), .lowerIsBetter, terminal: t("p95 s", 9, 0),
                "95th percentile of staleness over opens (fixed log bins, 1 % wide)"),
            m(
                "age_mean_s", "s", .perOpen(.age), interval: true, .lowerIsBetter, series: .plain,
                "mean over opens of age of information: time since the last successful fetch"),
            m(
                "foreground_wait_per_open_s", "s", .perOpen(.foregroundWait), interval: true, .lowerIsBetter,
                series: .plain,
                "mean over opens of the wait for a foreground fetch at stale opens"),
            m(
                // stale opens that waited
                "foreground_fetches_per_day", "1/device-day", .perDeviceDay(.foregroundFetches), .lowerIsBetter,
                "foreground fetches at stale opens"),
            m(
                "foreground_failures_per_day", "1/device-day", .perDeviceDay(.foregroundFailures), .lowerIsBetter,
                "stale opens that found no network"),
            m(
                "foreground_energy_j_per_day", "J/device-day", .perDeviceDay(.foregroundEnergy), .lowerIsBetter,
                "energy of foreground fetches (user-initiated, not background)"),
            m(
                // a policy's means, not an outcome
                "requested_per_day", "1/device-day", .perDeviceDay(.requested), .neutral,
                "wake requests resolved: runs − push runs + denied + replaced (+ pending at the horizon)"),
            m(
                // paid for in energy
                "runs_per_day", "1/device-day", .perDeviceDay(.runs), interval: true, .neutral, series: .interval,
                terminal: t("runs/d", 7, 2), "background runs started"),
            // Neutral: denials follow the number of requests (a policy that asks less is denied
            // less, and nothing is saved); what they cost shows in freshness, energy and throttles.
            m(
                "denied_per_day", "1/device-day", .perDeviceDay(.denied), .neutral, series: .plain,
                terminal: t("denied/d", 9, 2), "requests denied, all reasons"),
        ]
        + DenialReason.allCases.map { r in
            m(
                "denied_\(r.label)_per_day", "1/device-day", .perDeviceDay(.denied(r)), .neutral,
                "requests denied for `\(r.label)`")  // as denied_per_day
        } + [
            m(
                "replaced_per_day", "1/device-day", .perDeviceDay(.replaced), .neutral,
                "pending requests replaced or withdrawn by the policy"),
            m(
                "pending_at_horizon_per_day", "1/device-day", .perDeviceDay(.pending), .neutral,
                "requests still pending at the horizon"),
        ]
        + RunStatus.allCases.map { s in
            // Runs by outcome: new_data and no_data are the good ones; the others are bad.
            m(
                "\(s.label)_per_day", "1/device-day", .perDeviceDay(.outcome(s)), interval: s == .killed,
                s == .newData || s == .noData ? .neutral : .lowerIsBetter,
                series: s == .killed ? .plain : .none,
                terminal: s == .killed ? t("kills", 7, 0, total: true) : nil, "runs that ended `\(s.label)`")
        } + [
            m(
                "throttle_events_per_day", "1/device-day", .perDeviceDay(.throttleEvents), .lowerIsBetter,
                "runs after which the platform cut the app's budget (kill, expiry, failure, false newData)"),
            m(
                "background_energy_j_per_day", "J/device-day", .perDeviceDay(.backgroundEnergy), interval: true,
                .lowerIsBetter,
                series: .interval, terminal: t("J/d", 8, 1),
                "energy of background runs: launch plus radio (promotion, transfer, tail)"),
            // The same energy in % of the battery: the scale cancels in check's tests.
            m(
                "battery_pct_per_day", "%/device-day", .batteryPercentPerDay(.backgroundEnergy), interval: true,
                .lowerIsBetter,
                terminal: t("%batt/d", 8, 3), "background energy as percent of the battery capacity"),
            m(
                "cellular_bytes_per_day", "B/device-day", .perDeviceDay(.cellularBytes), .lowerIsBetter,
                "bytes received on LTE or 5G, background and foreground"),
            // Neutral: Wi-Fi bytes cost the user nothing (no data plan) and follow the content
            // fetched; their energy is in background_energy_j_per_day.
            m(
                "wifi_bytes_per_day", "B/device-day", .perDeviceDay(.wifiBytes), .neutral,
                "bytes received on Wi-Fi, background and foreground"),
            m(
                "zero_battery_s_per_day", "s/device-day", .perDeviceDay(.zeroBattery), .lowerIsBetter,
                "time spent at 0 % battery"),
            // Neutral: the user's and the battery's state, which gates the policy's runs.
            m(
                "low_power_s_per_day", "s/device-day", .perDeviceDay(.lowPower), interval: true, .neutral,
                "time in Low Power Mode (turned on at the 20 % crossing, or kept on: `population.low_power_share`)"),
            m(
                // a server's means, not an outcome
                "push_sent_per_day", "1/device-day", .perDeviceDay(.pushSent), .neutral,
                terminal: t("push sent/d", 12, 2, .messages),
                "silent pushes the server sent (server-side policies): push runs + lost + gated + throttled"),
            m(
                "push_lost_per_day", "1/device-day", .perDeviceDay(.pushLost), .lowerIsBetter, series: .interval,
                terminal: t("push lost/d", 12, 2, .messages), "pushes lost on the way (push service, network)"),
            m(
                "push_gated_per_day", "1/device-day", .perDeviceDay(.pushGated), .lowerIsBetter,
                "pushes that arrived and were refused by a gate (app open, switch off, force-quit, Low Power Mode, low battery, run in flight)"
            ),
            m(
                "push_throttled_per_day", "1/device-day", .perDeviceDay(.pushThrottled), .lowerIsBetter,
                "pushes that arrived above the platform's hourly push budget: not delivered"),
            m(
                // runs: scored in energy
                "push_runs_per_day", "1/device-day", .perDeviceDay(.pushRuns), .neutral, series: .interval,
                terminal: t("push runs/d", 12, 2, .messages),
                "background runs launched by a delivered push (included in runs_per_day)"),
            // Content kinds and the processing task (docs/content.md): empty where they do not apply.
            m(
                "server_lag_mean_s", "s", .perServerJob(.serverLag), interval: true, .lowerIsBetter, series: .interval,
                terminal: t("server lag s", 13, 0, .sync),
                "`sync`: mean over the daily server jobs of the age of the oldest item the server did not have yet (0 when it had everything)"
            ),
            m(
                "server_on_time_rate", "ratio", .perServerJob(.serverOnTime), interval: true, .higherIsBetter,
                series: .interval,
                terminal: t("on time %", 10, 1, percent: true, .sync),
                "`sync`: share of the daily server jobs that found every item older than `content.sync.target_age` uploaded"
            ),
            m(
                // a means of freshness, like runs
                "transfers_per_day", "1/device-day", .perDeviceDay(.transfers), .neutral,
                terminal: t("transfers/d", 12, 2, .catalog), "`catalog`: background transfers of images completed"),
            m(
                "cellular_image_bytes_per_day", "B/device-day", .perDeviceDay(.cellularImageBytes), .lowerIsBetter,
                series: .interval, terminal: t("cell img B/d", 13, 0, .catalog),
                "`catalog`: image bytes received on LTE or 5G, background and foreground (part of `cellular_bytes_per_day`)"
            ),
            m(
                "processing_on_time_rate", "ratio", .share(.processingOnTime, missed: .processingMissed),
                .higherIsBetter, series: .plain,
                terminal: t("proc on time %", 15, 1, percent: true, .processing),
                "processing tasks completed within their deadline / those completed in time or whose deadline passed"),
            m(
                "processing_completed_per_day", "1/device-day", .perDeviceDay(.processingCompleted), .neutral,
                terminal: t("proc done/d", 12, 3, .processing), "processing tasks completed, late ones included"),
            m(
                "processing_interruptions_per_day", "1/device-day", .perDeviceDay(.processingInterruptions),
                .lowerIsBetter,
                terminal: t("interrupts/d", 13, 3, .processing),
                "processing tasks stopped by the screen coming on or the phone being unplugged"),
            m(
                "processing_energy_j_per_day", "J/device-day", .perDeviceDay(.processingEnergy), .lowerIsBetter,
                series: .interval,
                "energy of the processing task (not in `background_energy_j_per_day`)"),
        ]

    public static func named(_ name: String) -> Metric? { metrics.first { $0.name == name } }

    // The metrics other code names: the only place a metric's name is written outside the
    // table above (a test greps Sources for others).

    /// Quality: the sweep's Pareto column's and the plots' vertical axis, and a frontier's
    /// unless its scenario or `--quality` names another (BGHarness's `FrontierAxis`).
    public static let freshOpenRate = named("fresh_open_rate")!
    /// Cost: the frontier's (`FrontierAxis.energy`), the Pareto column's and the plots'
    /// horizontal axis.
    public static let backgroundEnergy = named("background_energy_j_per_day")!
    /// The default scenario's question, most important first: fresh opens, staleness and
    /// what they cost. A scenario's `report.headline` starts from it; frontier.csv reports
    /// it for every arm; the terminal's paired table falls back to it.
    public static let defaultHeadline = [
        freshOpenRate.name, named("staleness_mean_s")!.name, backgroundEnergy.name,
        named("runs_per_day")!.name,
    ]

    /// The metrics of the daily and hourly series, in column order.
    static let seriesMetrics = metrics.filter { $0.series != .none }
    /// The metrics paired.csv compares, in order: every metric that splits by device
    /// (all but the staleness quantiles).
    public static let pairedMetrics: [PairedMetric] = metrics.compactMap(PairedMetric.init)

    /// The column list of Reports/README.md's summary.csv section, one table row per
    /// metric (docs/make-metric-columns.sh writes it between the markers; a test checks it).
    public static var readmeColumns: String {
        var lines = ["| column | unit | estimator | definition |", "|---|---|---|---|"]
        for m in metrics {
            let names =
                m.interval
                ? "`\(m.name)`, `\(m.name)_ci_low`, `\(m.name)_ci_high`"
                : m.flagsUnstable ? "`\(m.name)`, `\(m.name)_unstable`" : "`\(m.name)`"
            lines.append("| \(names) | \(m.unit) | \(m.kind.estimator) | \(m.definition) |")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// One metric of summary.csv: a row of ``MetricTable``.
public struct Metric: Sendable {
    /// The column name (with `_ci_low`, `_ci_high` after it when `interval`).
    public let name: String
    public let unit: String
    public let kind: MetricKind
    public let interval: Bool
    /// Which way `bgbench check` counts as worse, and the change it ignores (% of the baseline).
    public let direction: MetricDirection
    public let tolerancePercent: Double
    /// Whether daily.csv and hourly.csv have it, and with an interval.
    public let series: MetricSeries
    /// Its column in the terminal summary, if it has one.
    public let terminal: TerminalColumn?
    /// One line for Reports/README.md.
    public let definition: String

    /// The values the metric can take: a ratio lies in [0, 1], everything else in
    /// [0, ∞); its intervals are cut to it (`Estimate.within`).
    public var support: ClosedRange<Double> { unit == "ratio" ? 0...1 : 0...Double.infinity }

    /// Whether summary.csv follows the column with `<name>_unstable` (the quantiles:
    /// `QuantileStability`).
    public var flagsUnstable: Bool { if case .stalenessQuantile = kind { true } else { false } }

    /// The metric's estimate over a fleet's totals, its interval within `support`.
    public func estimate(_ e: FleetEstimates, batteryJoules: Double) -> Estimate {
        kind.estimate(e, batteryJoules: batteryJoules).within(support)
    }

    /// `true`/`false` for a quantile whose rank sits at a jump (`QuantileStability`), nil
    /// for other metrics and without opens.
    public func unstable(_ e: FleetEstimates) -> Bool? {
        guard case .stalenessQuantile(let q) = kind else { return nil }
        return QuantileStability.unstable(e.tally.staleness, q)
    }
}

/// How a metric is estimated from a fleet's totals (MODEL.md §9).
public enum MetricKind: Sendable, Equatable {
    /// Σ quantity / Σ opens over the fleet, with a cluster-robust interval.
    case perOpen(Quantity)
    /// The mean over devices of the quantity per counted day, with a Student-t interval.
    case perDeviceDay(Quantity)
    /// `perDeviceDay` in percent of the battery capacity.
    case batteryPercentPerDay(Quantity)
    /// `perDeviceDay` (every device has one server job a counted day), empty without
    /// server jobs (`sync` only).
    case perServerJob(Quantity)
    /// Fleet totals a / (a + missed), no interval (a processing task is resolved once).
    case share(Quantity, missed: Quantity)
    /// A quantile of the staleness histogram, no interval.
    case stalenessQuantile(Double)

    /// The per-device quantity the metric is estimated from (devices.csv's column), nil
    /// for a quantile.
    public var quantity: Quantity? {
        switch self {
        case .perOpen(let q), .perDeviceDay(let q), .batteryPercentPerDay(let q), .perServerJob(let q),
            .share(let q, _):
            q
        case .stalenessQuantile: nil
        }
    }

    public var perOpen: Bool { if case .perOpen = self { true } else { false } }

    /// The estimator's name in Reports/README.md.
    public var estimator: String {
        switch self {
        case .perOpen: "per open"
        case .perDeviceDay, .batteryPercentPerDay: "per device-day"
        case .perServerJob: "per server job"
        case .share: "per resolved task"
        case .stalenessQuantile: "quantile"
        }
    }

    /// The metric's estimate over a fleet's totals.
    public func estimate(_ e: FleetEstimates, batteryJoules: Double) -> Estimate {
        switch self {
        case .perOpen(let q): e.perOpen(q)
        case .perDeviceDay(let q): e.perDeviceDay(q)
        case .batteryPercentPerDay(let q): e.perDeviceDay(q, scale: 100 / batteryJoules)
        case .perServerJob(let q): e.tally[.serverJobs] > 0 ? e.perDeviceDay(q) : Estimate(.nan)
        case .share(let q, let missed):
            Estimate(e.tally[q] + e.tally[missed] > 0 ? e.tally[q] / (e.tally[q] + e.tally[missed]) : .nan)
        case .stalenessQuantile(let p): Estimate(e.tally.staleness.quantile(p) ?? .nan)
        }
    }
}

/// Whether a metric is in daily.csv and hourly.csv, and with its interval.
public enum MetricSeries: Sendable, Equatable {
    case none, plain, interval
}

/// A metric's column in the terminal summary printed after a run.
public struct TerminalColumn: Sendable {
    /// The main table, or the second small table of a content kind or the processing task.
    public enum Group: Sendable, Equatable { case main, sync, catalog, messages, processing }
    public let header: String
    public let width: Int
    public let decimals: Int
    /// Shown × 100.
    public let percent: Bool
    /// Shown as the fleet's total count instead of the estimate.
    public let total: Bool
    public let group: Group
}
