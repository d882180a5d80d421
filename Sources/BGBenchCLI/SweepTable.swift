import BGBench

/// What `bgbench sweep` prints (issue 24 item 4): one line per point and policy, the fleet's
/// headline metrics (the scenario's `report.headline`; means over the seeds when
/// replicated) and its Pareto mark, as summary.csv has them.
enum SweepTable {
    static func render(_ report: SweepReport, headline: [String], replications: Int) -> String {
        let metrics = headline.compactMap(MetricTable.named)
        let rows = report.overview(metrics.map(\.name))
        func pad(_ s: String, _ w: Int) -> String { String(repeating: " ", count: max(0, w - s.count)) + s }
        func header(_ m: Metric) -> String {
            guard let t = m.terminal else { return m.support == 0...1 ? m.name + " %" : m.name }
            return t.header
        }
        func cell(_ m: Metric, _ v: Double?) -> String {
            guard let v else { return "-" }
            if let t = m.terminal { return SummaryTable.fixed(t.percent ? 100 * v : v, t.decimals) }
            return m.support == 0...1 ? SummaryTable.fixed(100 * v, 1) : SummaryTable.fixed(v, 2)
        }
        var table: [[String]] = [report.axes.map(\.path) + ["policy"] + metrics.map(header) + ["pareto"]]
        for r in rows {
            table.append(r.values + [r.policy] + zip(metrics, r.metrics).map { cell($0, $1) } + [r.pareto ? "*" : ""])
        }
        let widths = table[0].indices.map { j in table.map { $0[j].count }.max()! }
        var out = table.map { row in zip(row, widths).map { pad($0, $1) }.joined(separator: "  ") }.joined(
            separator: "\n")
        out += "\n* on the freshness–energy frontier of its world (the environment axes' values; summary.csv's pareto)"
        if replications > 1 { out += "; values are means over the \(replications) seeds" }
        let percent = metrics.filter { $0.terminal?.percent ?? ($0.support == 0...1) }.map(header)
        if !percent.isEmpty {
            out += "\n" + percent.joined(separator: ", ") + ": percent" + SummaryTable.filesHoldRatios
        }
        return out + "\n"
    }
}
