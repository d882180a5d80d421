/// daily.csv, hourly.csv, devices.csv and paired.csv (Reports/README.md has the schema).
public enum SeriesReports {
    /// The series columns: name, and how a row's estimate is computed.
    struct Column: Sendable {
        let name: String
        let interval: Bool
        let estimate: @Sendable (SeriesTally, Int, Double) -> Estimate  // tally, row, per-device-day scale
        let support: ClosedRange<Double>
        /// A per-server-job metric (`sync`): empty in a run without server jobs, as in summary.csv.
        var perServerJob = false
    }

    /// The series columns: ``MetricTable``'s metrics marked for the series, in its order;
    /// metric i is series field i (MetricTableTests checks the two agree; the fields after
    /// the last metric's are denominators, no column).
    /// A per-server-job metric is summary.csv's estimator on the row: the server jobs' sum
    /// per device-day (one job a device-day: the daily mean; hourly, per device and counted
    /// day, so the 24 hours add up to the day's), so the mean of a run's daily rows is
    /// summary.csv's figure.
    static let seriesColumns: [Column] = MetricTable.seriesMetrics.enumerated().map { i, m in
        let field = SeriesField(rawValue: i)!
        let interval = m.series == .interval
        if case .perServerJob = m.kind {
            return Column(
                name: m.name, interval: interval,
                estimate: { s, r, k in Estimators.mean(s.moments(row: r, field), scale: k) },
                support: m.support, perServerJob: true)
        }
        // A share (the processing task): summary.csv's estimator on the row, the tasks on time
        // over those resolved in it (on time, or their deadline passed in it); no interval.
        if case .share(_, let missed) = m.kind {
            let other = SeriesField.following(missed)!
            return Column(
                name: m.name, interval: false,
                estimate: { s, r, _ in
                    let a = s[r, field], b = s[r, other]
                    return Estimate(a + b > 0 ? a / (a + b) : .nan)
                }, support: m.support)
        }
        return m.kind.perOpen
            ? Column(
                name: m.name, interval: interval, estimate: { s, r, _ in Estimators.ratio(s.moments(row: r, field)) },
                support: m.support)
            : Column(
                name: m.name, interval: interval,
                estimate: { s, r, k in Estimators.mean(s.moments(row: r, field), scale: k) },
                support: m.support)
    }

    static var seriesHeader: [String] {
        seriesColumns.flatMap { $0.interval ? [$0.name, $0.name + "_ci_low", $0.name + "_ci_high"] : [$0.name] }
    }

    static func seriesFields(_ tally: SeriesTally, row: Int, scale: Double, serverJobs: Bool) -> [String] {
        seriesColumns.flatMap { c -> [String] in
            let e = c.perServerJob && !serverJobs ? Estimate(.nan) : c.estimate(tally, row, scale).within(c.support)
            return c.interval
                ? [CSVNumber.format(e.value), CSVNumber.format(e.low), CSVNumber.format(e.high)]
                : [CSVNumber.format(e.value)]
        }
    }

    public static let dailyHeader = ["scenario", "policy", "seed", "day", "devices"] + seriesHeader
    public static let hourlyHeader = ["scenario", "policy", "seed", "hour", "devices"] + seriesHeader

    /// daily.csv: one row per counted day × policy, the learning curves.
    public static func dailyCSV(_ report: RunReport) -> String {
        var csv = CSVWriter("")
        csv.row(dailyHeader)
        let name = report.request.scenario.scenario.name
        for r in report.results {
            let daily = r.result.daily
            for day in report.request.options.warmupDays..<report.request.options.days {
                csv.row(
                    [name, r.policy, String(r.seed), String(day), String(daily.devices)]
                        + seriesFields(daily, row: day, scale: 1, serverJobs: r.tally[.serverJobs] > 0))
            }
        }
        return csv.output
    }

    /// hourly.csv: one row per hour of the day × policy, over the counted days (per-day
    /// figures are per device and per counted day).
    public static func hourlyCSV(_ report: RunReport) -> String {
        var csv = CSVWriter("")
        csv.row(hourlyHeader)
        let name = report.request.scenario.scenario.name
        let scale = 1 / Double(max(1, report.countedDays))
        for r in report.results {
            for hour in 0..<24 {
                csv.row(
                    [name, r.policy, String(r.seed), String(hour), String(r.result.hourly.devices)]
                        + seriesFields(
                            r.result.hourly, row: hour, scale: scale, serverJobs: r.tally[.serverJobs] > 0))
            }
        }
        return csv.output
    }

    public static let devicesHeader =
        ["scenario", "policy", "seed", "device", "archetype"] + DeviceAttributes.labels
        + Quantity.allCases.map { $0.label }

    /// devices.csv: every device's totals over the counted period, one row per device ×
    /// policy (`--per-device`).
    public static func devicesCSV(_ report: RunReport) -> String {
        var csv = CSVWriter("")
        csv.row(devicesHeader)
        let name = report.request.scenario.scenario.name
        for r in report.results {
            let labels = [name, r.policy, String(r.seed)]
            for d in r.result.devices {
                csv.row(deviceFields(d, labels, archetypeNames: r.result.archetypeNames))
            }
        }
        return csv.output
    }

    /// One row of devices.csv: `labels` are its leading fields (the scenario, policy and
    /// seed; in a sweep, the point's values before them).
    static func deviceFields(_ d: DeviceRow, _ labels: [String], archetypeNames: [String]) -> [String] {
        labels + [String(d.device), archetypeNames[d.archetype]]
            + d.attributes.fields + d.values.map { CSVNumber.format($0) }
    }

    /// The metrics paired.csv compares: every metric that splits by device.
    static var pairedMetrics: [PairedMetric] { MetricTable.pairedMetrics }

    public static let pairedHeader = [
        "scenario", "policy", "baseline", "seed", "metric", "devices", "policy_value",
        "baseline_value", "difference", "difference_ci_low", "difference_ci_high",
        "excludes_zero",
    ]

    /// A policy's paired comparisons with the baseline of the same seed, one per metric of
    /// `pairedMetrics`; nil for the baseline itself (or a run without one).
    public static func pairedEstimates(_ report: RunReport, _ r: PolicyResult) -> [PairedEstimate]? {
        guard let paired = r.paired, let baseline = report.baselinePolicy,
            let base = report.results.first(where: { $0.policy == baseline && $0.seed == r.seed })
        else { return nil }
        let battery = report.request.scenario.scenario.device.batteryWh * 3600
        let serverJobs = r.tally[.serverJobs] > 0 || base.tally[.serverJobs] > 0
        return zip(pairedMetrics, paired.moments).map { metric, m in
            metric.estimate(m, days: report.countedDays, batteryJoules: battery, serverJobs: serverJobs)
        }
    }

    /// "true" when an interval excludes zero, "false" when it does not, empty without one.
    package static func mark(_ excludesZero: Bool?) -> String { excludesZero.map { $0 ? "true" : "false" } ?? "" }

    /// paired.csv: for each policy other than the baseline, the device-by-device paired
    /// difference (policy − baseline) of every metric that splits by device, with its 95 %
    /// interval (device-clustered, delta method) and whether it excludes zero. Every policy
    /// meets the same users (MODEL.md §2), so device i's opens are the same under both and
    /// the per-device differences carry no between-user noise. Accumulated while the
    /// policies ran side by side (`PairedTally`): no per-device rows needed.
    public static func pairedCSV(_ report: RunReport, baseline: String) -> String {
        var csv = CSVWriter("")
        csv.row(pairedHeader)
        let name = report.request.scenario.scenario.name
        for r in report.results where r.policy != baseline {
            guard let paired = r.paired, let estimates = pairedEstimates(report, r) else { continue }
            for (metric, e) in zip(pairedMetrics, estimates) {
                csv.row([
                    name, r.policy, baseline, String(r.seed), metric.metric.name, String(paired.devices),
                    CSVNumber.format(e.policy), CSVNumber.format(e.baseline),
                    CSVNumber.format(e.difference.value), CSVNumber.format(e.difference.low),
                    CSVNumber.format(e.difference.high), mark(e.excludesZero),
                ])
            }
        }
        return csv.output
    }

    public static let pairedArchetypesHeader = [
        "scenario", "policy", "baseline", "archetype", "seed", "interval_kind", "metric", "devices", "policy_value",
        "baseline_value", "difference", "difference_ci_low", "difference_ci_high", "excludes_zero",
    ]

    /// One archetype's paired comparisons of a policy with the baseline of the same seed,
    /// one per metric of `pairedMetrics`; nil without them or without a device of it.
    static func pairedEstimates(_ report: RunReport, _ r: PolicyResult, archetype a: Int) -> [PairedEstimate]? {
        guard let paired = r.paired, a < paired.archetypes.count, paired.archetypes[a][0].n > 0,
            let baseline = report.baselinePolicy,
            let base = report.results.first(where: { $0.policy == baseline && $0.seed == r.seed })
        else { return nil }
        let battery = report.request.scenario.scenario.device.batteryWh * 3600
        let serverJobs = r.result.archetypes[a][.serverJobs] > 0 || base.result.archetypes[a][.serverJobs] > 0
        return zip(pairedMetrics, paired.archetypes[a]).map { metric, m in
            metric.estimate(m, days: report.countedDays, batteryJoules: battery, serverJobs: serverJobs)
        }
    }

    /// paired-archetypes.csv: paired.csv within each archetype. For each policy other than
    /// the baseline and each archetype (summary.csv's order), the device-by-device
    /// difference of every metric that splits by device over the archetype's devices, per
    /// seed with its device-clustered 95 % interval (`devices`) and, replicated, the mean
    /// over the seeds with the Student-t interval across them (`seeds`).
    public static func pairedArchetypesCSV(_ report: RunReport, baseline: String) -> String {
        var csv = CSVWriter("")
        csv.row(pairedArchetypesHeader)
        let name = report.request.scenario.scenario.name
        for policy in report.request.policies where policy != baseline {
            let runs = report.results.filter { $0.policy == policy && $0.paired != nil }
            guard let names = runs.first?.result.archetypeNames else { continue }
            for (a, archetype) in names.enumerated() {
                var perSeed: [[PairedEstimate]] = []
                for r in runs {
                    guard let estimates = pairedEstimates(report, r, archetype: a) else { continue }
                    perSeed.append(estimates)
                    let devices = String(Int(r.paired!.archetypes[a][0].n))
                    for (metric, e) in zip(pairedMetrics, estimates) {
                        csv.row([
                            name, policy, baseline, archetype, String(r.seed), "devices", metric.metric.name, devices,
                            CSVNumber.format(e.policy), CSVNumber.format(e.baseline),
                            CSVNumber.format(e.difference.value), CSVNumber.format(e.difference.low),
                            CSVNumber.format(e.difference.high), mark(e.excludesZero),
                        ])
                    }
                }
                guard perSeed.count > 1, perSeed.count == runs.count, let across = acrossSeeds(perSeed) else {
                    continue
                }
                for (k, metric) in pairedMetrics.enumerated() {
                    let finite = perSeed.map { $0[k] }.filter { $0.difference.value.isFinite }
                    func mean(_ x: (PairedEstimate) -> Double) -> Double {
                        finite.isEmpty ? .nan : finite.reduce(0) { $0 + x($1) } / Double(finite.count)
                    }
                    let d = across[k].mean
                    csv.row([
                        name, policy, baseline, archetype, "", "seeds", metric.metric.name, "",
                        CSVNumber.format(mean(\.policy)), CSVNumber.format(mean(\.baseline)), CSVNumber.format(d.value),
                        CSVNumber.format(d.low), CSVNumber.format(d.high), mark(d.low.map { $0 > 0 || d.high! < 0 }),
                    ])
                }
            }
        }
        return csv.output
    }

    /// A policy's paired difference from the baseline across the seeds of a replicated
    /// run, one per metric of `pairedMetrics`: the mean over seeds of the per-seed
    /// differences with a Student-t interval (R − 1 degrees of freedom), their standard
    /// deviation, and the mean half-width of the per-seed device-clustered intervals.
    public static func pairedAcrossSeeds(_ report: RunReport, policy: String)
        -> [(mean: Estimate, sd: Double, seeds: Int, deviceHalfWidth: Double)]?
    {
        acrossSeeds(report.results.filter { $0.policy == policy }.compactMap { pairedEstimates(report, $0) })
    }

    /// The per-seed paired estimates (each one per metric of `pairedMetrics`) across the
    /// seeds: the mean difference with its Student-t interval, sd, seeds, and the mean
    /// half-width of the per-seed device-clustered intervals; nil without a seed.
    static func acrossSeeds(_ perSeed: [[PairedEstimate]])
        -> [(mean: Estimate, sd: Double, seeds: Int, deviceHalfWidth: Double)]?
    {
        guard !perSeed.isEmpty else { return nil }
        return pairedMetrics.indices.map { k in
            let finite = perSeed.map { $0[k].difference }.filter { $0.value.isFinite }
            let n = Double(finite.count)
            var m = Moments(n: n, sy: 0, syy: 0, sxy: 0, sx: 0, sxx: 0)
            for d in finite { m.sy += d.value; m.syy += d.value * d.value }
            let sd = n > 1 ? (max(0, (m.syy - m.sy * m.sy / n) / (n - 1))).squareRoot() : Double.nan
            let halves = finite.compactMap { d in d.high.map { ($0 - d.low!) / 2 } }
            return (
                Estimators.mean(m), sd, finite.count, halves.isEmpty ? .nan : halves.reduce(0, +) / Double(halves.count)
            )
        }
    }

    public static let replicationsHeader = [
        "scenario", "policy", "archetype", "metric", "replications", "mean",
        "sd", "ci_low", "ci_high", "mean_device_ci_half_width",
        "baseline", "difference", "difference_sd", "difference_ci_low",
        "difference_ci_high", "difference_excludes_zero",
        "mean_paired_ci_half_width", "unstable",
    ]

    /// replications.csv (`--replications R`, R ≥ 2): every summary metric of the fleet
    /// (archetype `all`) across the R independent seeds: mean, standard deviation, a
    /// Student-t interval with R − 1 degrees of freedom, and beside it the mean half-width
    /// of the per-device intervals. All devices of a run share one feed, so the interval
    /// across replications is the honest one for a fleet-level figure (MODEL.md §10).
    /// For each policy other than the baseline and each metric that splits by device, the
    /// paired difference from the baseline across the seeds (`pairedAcrossSeeds`): the
    /// headline interval of a replicated run; empty for the baseline and for quantiles.
    public static func replicationsCSV(_ report: RunReport) -> String {
        var csv = CSVWriter("")
        csv.row(replicationsHeader)
        let scenario = report.request.scenario.scenario
        let context = SummaryContext(batteryJoules: scenario.device.batteryWh * 3600)
        let baseline = report.baselinePolicy
        for policy in report.request.policies {
            let runs = report.results.filter { $0.policy == policy }
            let estimates = runs.map { FleetEstimates(tally: $0.tally, days: report.countedDays) }
            let paired = policy == baseline ? nil : pairedAcrossSeeds(report, policy: policy)
            for column in SummarySchema.metrics {
                let values = estimates.map { column.compute($0, context) }
                let finite = values.filter { $0.value.isFinite }
                let n = Double(finite.count)
                var m = Moments(n: n, sy: 0, syy: 0, sxy: 0, sx: 0, sxx: 0)
                for v in finite { m.sy += v.value; m.syy += v.value * v.value }
                let e = Estimators.mean(m).within(column.support)
                let sd = n > 1 ? (max(0, (m.syy - m.sy * m.sy / n) / (n - 1))).squareRoot() : Double.nan
                let halves = finite.compactMap { v in v.high.map { ($0 - v.low!) / 2 } }
                let half = halves.isEmpty ? Double.nan : halves.reduce(0, +) / Double(halves.count)
                var difference = ["", "", "", "", "", "", ""]
                if let paired, let k = pairedMetrics.firstIndex(where: { $0.metric.name == column.name }) {
                    let d = paired[k]
                    let excludes: Bool? = d.mean.low.map { low in low > 0 || d.mean.high! < 0 }
                    difference = [
                        baseline!, CSVNumber.format(d.mean.value), CSVNumber.format(d.sd),
                        CSVNumber.format(d.mean.low), CSVNumber.format(d.mean.high), mark(excludes),
                        CSVNumber.format(d.deviceHalfWidth),
                    ]
                }
                // A quantile: unstable when a seed's rank sits at a jump or the seeds spread widely.
                let unstable: Bool? =
                    column.flagsUnstable
                    ? QuantileStability.unstable(
                        values: finite.map(\.value), flags: estimates.compactMap { column.unstable($0) })
                    : nil
                csv.row(
                    [
                        scenario.name, policy, "all", column.name, String(finite.count), CSVNumber.format(e.value),
                        CSVNumber.format(sd), CSVNumber.format(e.low), CSVNumber.format(e.high), CSVNumber.format(half),
                    ]
                        + difference + [mark(unstable)])
            }
            // With `oracle` in the run: the share of the baseline → oracle gap this policy closes.
            if let gap = GapClosed.estimate(report, policy: policy) {
                csv.row(
                    [
                        scenario.name, policy, "all", GapClosed.metric, String(gap.seeds),
                        CSVNumber.format(gap.mean.value),
                        CSVNumber.format(gap.sd), CSVNumber.format(gap.mean.low), CSVNumber.format(gap.mean.high), "",
                    ]
                        + ["", "", "", "", "", "", "", ""])
            }
        }
        return csv.output
    }

    public static let serverHeader = [
        "scenario", "policy", "seed", "minute", "utc_time", "requests_mean", "requests_peak",
    ]

    /// server.csv: the fleet's network requests (background runs' requests and foreground
    /// fetches) per minute of the UTC day, device UTC offsets applied: the mean over the
    /// counted days and the peak day's count.
    public static func serverCSV(_ report: RunReport) -> String {
        var csv = CSVWriter("")
        csv.row(serverHeader)
        let name = report.request.scenario.scenario.name
        for r in report.results {
            for m in 0..<ServerLoad.minutesPerDay {
                let (mean, peak) = r.result.serverLoad.minute(m)
                let clock = (m / 60 < 10 ? "0" : "") + String(m / 60) + ":" + (m % 60 < 10 ? "0" : "") + String(m % 60)
                csv.row([name, r.policy, String(r.seed), String(m), clock, CSVNumber.format(mean), String(peak)])
            }
        }
        return csv.output
    }

    public static let eventsHeader = [
        "scenario", "policy", "seed", "device", "time_s", "day", "event", "detail", "value",
    ]

    /// events.csv (`--trace-devices K`): every decision and outcome of the first K devices,
    /// in time order per device, each with its reason code or status.
    public static func eventsCSV(_ report: RunReport) -> String {
        var bytes = Array((eventsHeader.joined(separator: ",") + "\n").utf8)
        let name = report.request.scenario.scenario.name
        for r in report.results {
            appendEvents(r.result.trace, labels: [name, r.policy, String(r.seed)], to: &bytes)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends rows of events.csv to `bytes`: `labels` are their leading fields (the
    /// scenario, policy and seed; in a sweep, the point's values before them).
    /// Byte by byte, with no array of fields or string per row: a traced run prints about
    /// 200 of these a device-day, and building them as strings cost more than simulating.
    static func appendEvents(
        _ rows: some Sequence<TraceRow>, labels: [String], to bytes: inout [UInt8]
    ) {
        let prefix = Array(labels.map(CSVWriter<String>.quote).joined(separator: ",").utf8)
        let comma = UInt8(ascii: ","), newline = UInt8(ascii: "\n")
        for e in rows {
            bytes.append(contentsOf: prefix)
            bytes.append(comma)
            CSVNumber.appendDecimal(UInt64(e.device), to: &bytes)
            bytes.append(comma)
            CSVNumber.appendSeconds(e.time, to: &bytes)
            bytes.append(comma)
            CSVNumber.appendDecimal(UInt64(Clock.dayIndex(e.time)), to: &bytes)
            bytes.append(comma)
            bytes.append(contentsOf: CSVWriter<String>.quote(e.event).utf8)
            bytes.append(comma)
            bytes.append(contentsOf: CSVWriter<String>.quote(e.detail).utf8)
            bytes.append(comma)
            // Times and durations are whole microseconds: printed exactly.
            if let v = e.value {
                if v == v.rounded() {
                    bytes.append(contentsOf: CSVNumber.format(v).utf8)
                } else {
                    CSVNumber.appendSeconds(Clock.ticks(seconds: v), to: &bytes)
                }
            }
            bytes.append(newline)
        }
    }
}
