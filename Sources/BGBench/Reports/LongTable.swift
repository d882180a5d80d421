/// long.csv (Reports/README.md, "long.csv"; issue 24 item 5): every figure of a folder's
/// summary.csv, paired.csv and replications.csv in long (tidy) form, one row per figure,
/// each with its unit, the kind of its interval and, for a quantile, its instability flag.
/// Every folder kind writes it: a run (and a shard, and a merged run: it is made from the
/// files both have, so a merged folder's is the unsharded run's byte for byte), a sweep
/// (each row led by the point's axis values, a seconds column beside each duration axis)
/// and a frontier (each row led by its arm's policy, knob and knob value, with seconds).
public enum LongTable {
    /// The columns after the leading ones (a sweep's axes, a frontier's arm).
    public static let header = [
        "scenario", "policy", "seed", "pooled", "archetype", "metric", "baseline", "value", "unit",
        "interval_kind", "ci_low", "ci_high", "unstable",
    ]

    /// The columns that lead a frontier's rows: the arm's policy, knob and knob value as
    /// typed (empty for an arm at the scenario's own parameters), and that value in seconds
    /// when it is a duration.
    public static let frontierColumns = ["arm_policy", "knob", "knob_value", "knob_value_s"]

    /// `interval_kind`: what `ci_low` and `ci_high` are an interval over.
    public enum IntervalKind: String, Sendable {
        /// Devices as clusters, one seed (summary.csv's, paired.csv's).
        case devices
        /// Across the seeds (replications.csv's: Student t with R − 1 degrees of freedom).
        case seeds
        /// No interval: the metric has none (a quantile, a share), or its source leaves it
        /// empty (fewer than 2 devices or seeds with a value).
        case none
    }

    /// A figure's unit: the metric table's (`Metric.unit`), or `gap_closed`'s. A
    /// difference has its metric's unit (a difference of two ratios is on the same 0–1
    /// scale: 0.05 is 5 percentage points).
    public static func unit(of metric: String) -> String {
        if metric == GapClosed.metric { return GapClosed.unit }
        return MetricTable.named(metric)?.unit ?? ""
    }

    /// A duration label's seconds as a report number ("30m" → "1800", "1.5h" → "5400");
    /// nil for text that is not a duration with a unit or a clock time (a plain number, a
    /// share, a name).
    public static func seconds(_ label: String) -> String? {
        let text = label.trimmingCharacters(in: .whitespaces)
        guard Double(text) == nil, let span = TimeSpan.parse(text) else { return nil }
        return CSVNumber.format(span.seconds)
    }

    /// Whether a sweep axis holds durations: every value is one (a plain number counts as
    /// seconds, as in a scenario file) and at least one is written with a unit.
    public static func isDuration(_ axis: SweepAxis) -> Bool {
        axis.values.contains { seconds($0) != nil } && axis.values.allSatisfy { TimeSpan.parse($0) != nil }
    }

    /// The columns that lead a sweep's rows: each axis by its path, followed by
    /// `<path>_s` (its value in seconds) when it is a duration axis.
    public static func sweepColumns(_ axes: [SweepAxis]) -> [String] {
        axes.flatMap { isDuration($0) ? [$0.path, $0.path + "_s"] : [$0.path] }
    }

    /// A sweep point's leading fields, as ``sweepColumns(_:)`` names them.
    static func sweepFields(_ axes: [SweepAxis], values: [String]) -> [String] {
        zip(axes, values).flatMap { axis, value -> [String] in
            guard isDuration(axis) else { return [value] }
            return [value, TimeSpan.parse(value).map { CSVNumber.format($0.seconds) } ?? ""]
        }
    }

    /// A frontier arm's leading fields, as ``frontierColumns`` names them.
    public static func frontierFields(policy: String, knob: String?, value: String?) -> [String] {
        [policy, knob ?? "", value ?? "", value.flatMap(seconds) ?? ""]
    }

    /// One run's figures (a run's folder, a sweep point, a frontier's arms), each row led by
    /// `lead(policy)`: summary.csv's (per seed, policy and archetype, every metric, interval
    /// over devices), then paired.csv's (per seed, every paired metric: the difference from
    /// the baseline), then replications.csv's (per policy and metric, pooled: the mean
    /// across the seeds, then the difference from the baseline where there is one).
    /// `summary`: summary.csv's rows without its header.
    static func rows(
        summary: [[String]], files: [(String, String)], lead: (String) -> [String]
    ) -> [[String]] {
        var out: [[String]] = []
        func kind(_ low: String, _ kind: IntervalKind) -> String { low.isEmpty ? "none" : kind.rawValue }
        let header = SummarySchema.header
        let id = ["scenario", "policy", "seed", "archetype"].map { header.firstIndex(of: $0)! }
        let columns = SummarySchema.metrics.map { m in
            (
                metric: m, value: header.firstIndex(of: m.name)!,
                low: m.interval ? header.firstIndex(of: m.name + "_ci_low") : nil,
                unstable: m.flagsUnstable ? header.firstIndex(of: m.name + "_unstable") : nil
            )
        }
        for row in summary {
            let (scenario, policy, seed, archetype) = (row[id[0]], row[id[1]], row[id[2]], row[id[3]])
            for c in columns {
                let low = c.low.map { row[$0] } ?? "", high = c.low.map { row[$0 + 1] } ?? ""
                out.append(
                    lead(policy) + [
                        scenario, policy, seed, "false", archetype, c.metric.name, "", row[c.value], c.metric.unit,
                        kind(low, .devices), low, high, c.unstable.map { row[$0] } ?? "",
                    ])
            }
        }
        func table(_ file: ReportFile) -> CSVTable? {
            files.first { $0.0 == file.name }.flatMap { try? CSVTable(parsing: $0.1) }
        }
        if let paired = table(.paired) {
            for row in paired.rows {
                func f(_ c: String) -> String { row[paired.index(of: c)!] }
                out.append(
                    lead(f("policy")) + [
                        f("scenario"), f("policy"), f("seed"), "false", "all", f("metric"), f("baseline"),
                        f("difference"), unit(of: f("metric")), kind(f("difference_ci_low"), .devices),
                        f("difference_ci_low"), f("difference_ci_high"), "",
                    ])
            }
        }
        if let replications = table(.replications) {
            for row in replications.rows {
                func f(_ c: String) -> String { row[replications.index(of: c)!] }
                let unit = unit(of: f("metric"))
                out.append(
                    lead(f("policy")) + [
                        f("scenario"), f("policy"), "", "true", f("archetype"), f("metric"), "", f("mean"), unit,
                        kind(f("ci_low"), .seeds), f("ci_low"), f("ci_high"), f("unstable"),
                    ])
                if !f("baseline").isEmpty {
                    out.append(
                        lead(f("policy")) + [
                            f("scenario"), f("policy"), "", "true", f("archetype"), f("metric"), f("baseline"),
                            f("difference"), unit, kind(f("difference_ci_low"), .seeds), f("difference_ci_low"),
                            f("difference_ci_high"), "",
                        ])
                }
            }
        }
        return out
    }

    /// A run's long.csv from its folder's files (`files`: name and text; summary.csv,
    /// paired.csv and replications.csv are read).
    public static func runCSV(_ files: [(String, String)]) -> String {
        csv(leading: [], rows: rows(summary: summaryRows(files), files: files) { _ in [] })
    }

    /// A frontier's long.csv: `arm(label)` gives the leading fields of each arm's rows
    /// (``frontierFields(policy:knob:value:)``).
    public static func frontierCSV(_ files: [(String, String)], arm: (String) -> [String]) -> String {
        csv(leading: frontierColumns, rows: rows(summary: summaryRows(files), files: files, lead: arm))
    }

    /// A sweep's long.csv: each point's rows, in grid order, led by its axis values.
    static func sweepCSV(
        axes: [SweepAxis], points: [(values: [String], summary: [[String]], files: [(String, String)])]
    ) -> String {
        var all: [[String]] = []
        for point in points {
            let lead = sweepFields(axes, values: point.values)
            all += rows(summary: point.summary, files: point.files) { _ in lead }
        }
        return csv(leading: sweepColumns(axes), rows: all)
    }

    static func summaryRows(_ files: [(String, String)]) -> [[String]] {
        files.first { $0.0 == ReportFile.summary.name }.flatMap { try? CSVTable(parsing: $0.1) }?.rows ?? []
    }

    static func csv(leading: [String], rows: [[String]]) -> String {
        var csv = CSVWriter("")
        csv.row(leading + header)
        for row in rows { csv.row(row) }
        return csv.output
    }
}
