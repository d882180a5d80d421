import BGBench

/// The summary printed after a run: one line per policy with the metrics ``MetricTable``
/// marks for the terminal (`terminal`, group `main`), then a second small table for the
/// content kind's and the processing task's.
enum SummaryTable {
    static func render(_ report: RunReport) -> String {
        let main = MetricTable.metrics.filter { $0.terminal?.group == .main }
        let columns: [(String, Int)] = [("policy", 12)] + main.map { ($0.terminal!.header, $0.terminal!.width) }
        func pad(_ s: String, _ w: Int) -> String { String(repeating: " ", count: max(0, w - s.count)) + s }
        var lines = [columns.map { pad($0.0, $0.1) }.joined(separator: " ")]
        let scenario = report.request.scenario.scenario
        let battery = scenario.device.batteryWh * 3600
        for r in report.results {
            let e = FleetEstimates(tally: r.tally, days: report.countedDays)
            let replicated = report.request.replications > 1
            let values = [replicated ? "\(r.policy)@\(r.seed)" : r.policy] + main.map { cell($0, e, battery: battery) }
            lines.append(zip(values, columns).map { pad($0, $1.1) }.joined(separator: " "))
        }
        if let legend = percentLegend(main) { lines.append(legend) }
        if report.results.contains(where: { r in
            main.contains { $0.unstable(FleetEstimates(tally: r.tally, days: report.countedDays)) == true }
        }) {
            lines.append(
                "! unstable quantile: 1 % of the opens either side of its rank moves it more than "
                    + "\(fixed(QuantileStability.jumpFactor, 0))× (a group of opens that never refreshes; Reports/README.md, \"Quantiles\")"
            )
        }
        lines += kindLines(report, pad: pad)
        lines += noRunsLines(report)
        lines += pairedLines(report, pad: pad)
        let o = report.request.options
        let rate = Double(report.simulatedDeviceDays) / max(report.wallSeconds, 1e-9)
        let seeds =
            report.request.replications > 1
            ? "seeds \(o.seed)–\(o.seed &+ UInt64(report.request.replications - 1))" : "seed \(o.seed)"
        let speed =
            report.mergedShards.isEmpty
            ? "\(fixed(report.wallSeconds, 2)) s, \(fixed(rate, 0)) device-days/s on \(report.threads) thread\(report.threads == 1 ? "" : "s")"
            : "merged from \(report.mergedShards.count) shards"
        lines.append(
            "\(o.devices) devices × \(o.days) days × \(report.request.policies.count) policies, \(seeds): " + speed)
        return lines.joined(separator: "\n") + "\n"
    }

    /// A line under the table when policies that wake made no run at all and the scenario
    /// says why: its platform admits none (naming the setting that would), or every user
    /// turned Background App Refresh off.
    static func noRunsLines(_ report: RunReport) -> [String] {
        let idle = report.results.filter { $0.tally[.runs] == 0 && $0.policy != NoWakePolicy.name }
        guard !idle.isEmpty else { return [] }
        let scenario = report.request.scenario.scenario
        let reason =
            PlatformRegistry.named(scenario.platform.name)?.admitsNoRuns(scenario)
            ?? (scenario.population.barOffShare >= 1
                ? "population.bar_off_share is 1: every user turned Background App Refresh off; lower it" : nil)
        guard let reason else { return [] }
        var names: [String] = []
        for r in idle where !names.contains(r.policy) { names.append(r.policy) }
        return ["no runs for \(names.joined(separator: ", ")): \(reason)"]
    }

    /// A metric's cell: its estimate (× 100 for a percentage), or its fleet total.
    static func cell(_ m: Metric, _ e: FleetEstimates, battery: Double) -> String {
        let c = m.terminal!
        if c.total, let q = m.kind.quantity { return String(Int(e.tally[q])) }
        let value = m.kind.estimate(e, batteryJoules: battery).value
        return fixed(c.percent ? 100 * value : value, c.decimals) + (m.unstable(e) == true ? "!" : "")
    }

    /// The headline figures of the content kind and the processing task, when the
    /// scenario has them (docs/content.md): a second small table.
    static func kindLines(_ report: RunReport, pad: (String, Int) -> String) -> [String] {
        let scenario = report.request.scenario.scenario
        var groups: [TerminalColumn.Group] = []
        switch scenario.content.kind {
        case .news: break
        case .sync: groups.append(.sync)
        case .catalog: groups.append(.catalog)
        case .messages: groups.append(.messages)  // silent push carries a messaging app (0 for non-push policies)
        }
        if scenario.app.processing.enabled { groups.append(.processing) }
        let metrics = groups.flatMap { g in MetricTable.metrics.filter { $0.terminal?.group == g } }
        guard !metrics.isEmpty else { return [] }
        let battery = scenario.device.batteryWh * 3600
        var lines = [
            pad("policy", 12) + " "
                + metrics.map { pad($0.terminal!.header, $0.terminal!.width) }.joined(separator: " ")
        ]
        for r in report.results {
            let e = FleetEstimates(tally: r.tally, days: report.countedDays)
            let name = report.request.replications > 1 ? "\(r.policy)@\(r.seed)" : r.policy
            lines.append(
                pad(name, 12) + " "
                    + metrics.map { pad(cell($0, e, battery: battery), $0.terminal!.width) }.joined(separator: " "))
        }
        if let legend = percentLegend(metrics) { lines.append(legend) }
        return lines
    }

    /// The metrics of the paired table, by name: the scenario's headline metrics
    /// (`report.headline`) first, then the default headline's (fresh-open rate, staleness,
    /// J/day, runs) when not listed; only those that split by device (quantiles are not
    /// paired).
    static func pairedColumns(_ report: RunReport) -> [String] {
        let names = report.request.scenario.scenario.report.headline + MetricTable.defaultHeadline
        return names.enumerated().filter { i, n in !names[..<i].contains(n) }.map(\.element)
    }

    /// When more than one policy runs: each policy's paired difference from the baseline
    /// (Reports/README.md, "paired.csv") in the headline metrics, with its 95 % interval and
    /// `*` where the interval excludes zero. With one seed the interval is the
    /// device-clustered one; with `--replications` the one across seeds.
    static func pairedLines(_ report: RunReport, pad: (String, Int) -> String) -> [String] {
        guard let baseline = report.baselinePolicy else { return [] }
        let metrics = pairedColumns(report).compactMap { name in
            MetricTable.pairedMetrics.firstIndex { $0.metric.name == name }
        }
        let replications = report.request.replications
        var rows: [[String]] = []
        // With `oracle`: the share of the gap from the baseline to oracle each policy closes.
        let gapColumn = report.request.policies.contains(GapClosed.bound)
        for policy in report.request.policies where policy != baseline {
            let differences: [Estimate]
            if replications > 1 {
                guard let d = SeriesReports.pairedAcrossSeeds(report, policy: policy) else { continue }
                differences = metrics.map { d[$0].mean }
            } else {
                guard let r = report.results.first(where: { $0.policy == policy }),
                    let e = SeriesReports.pairedEstimates(report, r)
                else { continue }
                differences = metrics.map { e[$0].difference }
            }
            rows.append(
                [policy]
                    + zip(metrics, differences).map { k, d in
                        let m = MetricTable.pairedMetrics[k].metric
                        let scale = m.terminal?.percent == true ? 100.0 : 1.0
                        let decimals = intervalDecimals(d, scale: scale) ?? m.terminal?.decimals ?? 3
                        func f(_ x: Double?) -> String { x.map { fixed($0 * scale, decimals) } ?? "-" }
                        let sign = d.value > 0 ? "+" : ""
                        guard let low = d.low, let high = d.high else { return sign + f(d.value) }
                        return sign + f(d.value) + " [" + f(low) + ", " + f(high) + "]"
                            + (low > 0 || high < 0 ? "*" : " ")
                    } + (gapColumn ? [gapCell(report, policy)] : []))
        }
        guard !rows.isEmpty else { return [] }
        let headers =
            ["policy"]
            + metrics.map { k -> String in
                let m = MetricTable.pairedMetrics[k].metric
                guard let c = m.terminal else { return "Δ " + m.name }  // a headline metric without a terminal column
                return "Δ " + (c.percent ? c.header.replacingOccurrences(of: "%", with: "pts") : c.header)
            } + (gapColumn ? ["gap closed %"] : [])
        let widths = headers.indices.map { i in max(i == 0 ? 12 : 0, rows.map { $0[i].count }.max()!, headers[i].count)
        }
        let interval = replications > 1 ? "95 % interval across \(replications) seeds" : "95 % interval over devices"
        var lines = ["paired difference from \(baseline), same users and feed (\(interval); * excludes 0):"]
        lines.append(zip(headers, widths).map { pad($0, $1) }.joined(separator: " "))
        for row in rows { lines.append(zip(row, widths).map { pad($0, $1) }.joined(separator: " ")) }
        let points = metrics.contains { MetricTable.pairedMetrics[$0].metric.terminal?.percent == true }
        var legend: [String] = []
        if points { legend.append("pts: percentage points") }
        if gapColumn {
            legend.append(
                "gap closed %: percent of the gap from \(baseline) (0 %) to \(GapClosed.bound) (100 %) in fresh-open rate"
            )
        }
        if !legend.isEmpty {
            lines.append(legend.joined(separator: "; ") + Self.filesHoldRatios + " and their differences")
        }
        return lines
    }

    /// How the legends end: the files keep ratios (Reports/README.md, long.csv's `unit`).
    static let filesHoldRatios = "; the CSV files hold ratios (0 to 1)"

    /// The line that says which columns of a table are percentages, nil when none is.
    static func percentLegend(_ metrics: [Metric]) -> String? {
        let headers = metrics.compactMap { m in m.terminal.flatMap { $0.percent ? $0.header : nil } }
        guard !headers.isEmpty else { return nil }
        return headers.joined(separator: ", ") + ": percent" + filesHoldRatios
    }

    /// The decimals that show an interval's half-width (× `scale`) to two significant
    /// digits, so a difference and its bounds print as precisely as they are known: ±0.099
    /// gets 3, ±1.4 gets 1, ±14 and wider get 0 (at most 6). nil without an interval or
    /// with a zero-width one (the table's own decimals then).
    static func intervalDecimals(_ e: Estimate, scale: Double) -> Int? {
        guard let low = e.low, let high = e.high else { return nil }
        let half = (high - low) / 2 * scale
        guard half.isFinite, half > 0 else { return nil }
        return min(6, max(0, 1 - Int(log10(half).rounded(.down))))
    }

    /// The share of the baseline → oracle gap a policy closes, in percent, with its interval
    /// across seeds when replicated (``GapClosed``); 100 for oracle itself.
    static func gapCell(_ report: RunReport, _ policy: String) -> String {
        if policy == GapClosed.bound { return "100" }
        guard let gap = GapClosed.estimate(report, policy: policy) else { return "-" }
        let e = gap.mean
        guard let low = e.low, let high = e.high else { return fixed(e.value * 100, 1) }
        return fixed(e.value * 100, 1) + " [" + fixed(low * 100, 1) + ", " + fixed(high * 100, 1) + "]"
    }

    /// A number with a fixed count of decimals, independent of the locale. Any Double
    /// prints, none traps: NaN as "-" (no value), the infinities as "inf" and "-inf", and a
    /// number too large for the integer path (scaled, 2^62 or more) in full through printf.
    static func fixed(_ x: Double, _ decimals: Int) -> String {
        if x.isNaN { return "-" }
        if x.isInfinite { return x < 0 ? "-inf" : "inf" }
        let scale = pow(10.0, Double(decimals))
        guard (x * scale).magnitude < 0x1p62 else { return String(format: "%.\(decimals)f", x) }
        let rounded = (x * scale).rounded() / scale
        var text = String(Int64(rounded.magnitude.rounded(.down)))
        if decimals > 0 {
            let fraction = Int64(((rounded.magnitude - rounded.magnitude.rounded(.down)) * scale).rounded())
            let digits = String(fraction)
            text += "." + String(repeating: "0", count: decimals - digits.count) + digits
        }
        return (rounded < 0 ? "-" : "") + text
    }
}

import Foundation
