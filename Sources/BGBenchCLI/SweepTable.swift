import BGBench

/// What `bgbench sweep` prints (issue 24 item 4): one line per point and policy, the fleet's
/// headline metrics (the scenario's `report.headline`; means over the seeds when
/// replicated) and its Pareto mark, as summary.csv has them. Each number is rounded to two
/// significant digits of its 95 % interval's half-width (as `run`'s paired table).
enum SweepTable {
    static func render(_ report: SweepReport, headline: [String], replications: Int) -> String {
        let metrics = headline.compactMap(MetricTable.named)
        let rows = report.overview(metrics.map(\.name))
        func pad(_ s: String, _ w: Int) -> String { String(repeating: " ", count: max(0, w - s.count)) + s }
        func header(_ m: Metric) -> String {
            guard let t = m.terminal else { return m.support == 0...1 ? m.name + " %" : m.name }
            return t.header
        }
        func cell(_ m: Metric, _ e: Estimate?) -> String {
            guard let e else { return "-" }
            let scale: Double, decimals: Int
            if let t = m.terminal {
                (scale, decimals) = (t.percent ? 100 : 1, t.decimals)
            } else {
                (scale, decimals) = m.support == 0...1 ? (100, 1) : (1, 2)
            }
            return SummaryTable.fixed(e.value * scale, SummaryTable.intervalDecimals(e, scale: scale) ?? decimals)
        }
        func mark(_ r: SweepReport.OverviewRow) -> String {
            let star = r.pareto ? "*" : ""
            return replications > 1 ? "\(star)\(r.paretoSeeds)/\(r.seeds)" : star
        }
        var table: [[String]] = [report.axes.map(\.path) + ["policy"] + metrics.map(header) + ["pareto"]]
        for r in rows {
            table.append(r.values + [r.policy] + zip(metrics, r.metrics).map { cell($0, $1) } + [mark(r)])
        }
        let widths = table[0].indices.map { j in table.map { $0[j].count }.max()! }
        var out = table.map { row in zip(row, widths).map { pad($0, $1) }.joined(separator: "  ") }.joined(
            separator: "\n")
        out += "\n* on the freshness–energy frontier of its world (the environment axes' values; summary.csv's pareto)"
        if replications > 1 {
            out +=
                "; k/\(replications): the seeds in which it is (pareto_in_seed)\nvalues: means over the \(replications) seeds,"
                + " to the precision of their 95 % interval across the seeds"
        } else {
            out += "\nvalues to the precision of their 95 % interval over devices"
        }
        let percent = metrics.filter { $0.terminal?.percent ?? ($0.support == 0...1) }.map(header)
        if !percent.isEmpty {
            out += "\n" + percent.joined(separator: ", ") + ": percent" + SummaryTable.filesHoldRatios
        }
        return out + "\n"
    }

    /// The pairs of pareto-pairs.csv whose relation is not significant, a line each with
    /// the paired differences (fresh opens in percentage points, energy in J/day), to the
    /// precision of their intervals.
    static func paretoLines(_ verdicts: [ParetoPairs.Verdict], replications: Int) -> String {
        let interval = replications > 1 ? "across the \(replications) seeds" : "over devices"
        let weak = verdicts.filter { $0.significant != true }
        guard !verdicts.isEmpty else { return "pareto-pairs.csv: no frontier neighbours and no dominated point\n" }
        guard !weak.isEmpty else {
            return
                "pareto-pairs.csv: every one of the \(verdicts.count) frontier pairs significant (95 % intervals \(interval))\n"
        }
        func difference(_ e: Estimate?, _ scale: Double, _ unit: String) -> String {
            guard let e else { return "-" }
            let decimals = SummaryTable.intervalDecimals(e, scale: scale) ?? 2
            let value = (e.value >= 0 ? "+" : "") + SummaryTable.fixed(e.value * scale, decimals)
            guard let low = e.low, let high = e.high else { return value + " " + unit }
            return
                "\(value) [\(SummaryTable.fixed(low * scale, decimals)), \(SummaryTable.fixed(high * scale, decimals))] \(unit)"
        }
        var out =
            "pareto-pairs.csv: \(weak.count) of \(verdicts.count) frontier pairs not significant (95 % intervals \(interval)):\n"
        for v in weak {
            let relation =
                v.relation == .neighbours
                ? "neighbours on the frontier, the trade-off not shown" : "dominated, not significantly"
            out +=
                "  \(v.point) − \(v.reference) (\(relation)): fresh opens \(difference(v.fresh, 100, "points")), energy \(difference(v.energy, 1, "J/day"))\n"
        }
        return out
    }
}
