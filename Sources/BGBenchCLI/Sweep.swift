import BGBench
import Foundation

/// `bgbench sweep`: the cartesian grid of `--set PATH=V1,V2,...` axes, every point on the
/// same seed (so every point meets the same users and feed: common random numbers, and
/// differences between points are not noise), into one tidy summary.csv with a column
/// per swept parameter and a `pareto` column marking the freshness–energy frontier.
extension Command {
    struct Axis {
        var path: String
        var values: [String]
    }

    static func sweep<Out: TextOutputStream>(_ tokens: [Token], arguments: [String], output: inout Out) throws {
        var common = RunArguments()
        common.out = "Reports/sweep"
        var parser = OptionParser(tokens, command: "sweep")
        try parser.parse(
            RunOption.shared,
            option: { option, value in _ = try common.take(option, value) },
            positional: { throw CLIError.unexpected($0, command: "sweep") })
        try common.finish()
        let axes = try common.overrides.map(parseAxis)
        guard !axes.isEmpty else {
            throw CLIError.usage("'sweep' needs at least one '--set PATH=V1,V2,...' to sweep over")
        }
        // Every point is loaded (and so validated) before anything runs.
        let points = grid(axes)
        let loaded = try points.map { point in
            try loadScenario(common.scenarioFile, overrides: zip(axes, point).map { "\($0.path)=\($1)" })
        }
        let folder = try FolderTransaction(out: common.out, force: common.force)
        let start = DispatchTime.now()
        let progress = ProgressLine.make(total: common.options.deviceDays * common.policies.count * points.count,
                                         quiet: common.quiet)
        var advance: (@Sendable (Int) -> Void)?
        if let progress { advance = { progress.advance($0) } }
        var rows: [(point: [String], report: RunReport)] = []
        for (point, scenario) in zip(points, loaded) {
            let request = RunRequest(scenario: scenario, policies: common.policies, options: common.options,
                                     commandLine: ["bgbench"] + arguments)
            rows.append((point, try Runner.run(request, progress: advance)))
        }
        progress?.finish()
        let csv = sweepCSV(axes: axes, rows: rows)
        try folder.write([("summary.csv", csv)])
        try folder.commit()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        output.write("\(points.count) points × \(common.policies.count) policies, seed \(common.options.seed): "
                     + "\(SummaryTable.fixed(seconds, 2)) s\nreports: \(common.out)/summary.csv\n")
    }

    /// `PATH=V1,V2,...`: commas inside brackets or braces belong to a value (`[1,2]`).
    static func parseAxis(_ text: String) throws -> Axis {
        guard let eq = text.firstIndex(of: "="), eq != text.startIndex else {
            throw CLIError.usage("invalid value '\(text)' for '--set': expected PATH=V1,V2,...")
        }
        var values: [String] = [], current = "", depth = 0
        for ch in text[text.index(after: eq)...] {
            if ch == "[" || ch == "{" { depth += 1 }
            if ch == "]" || ch == "}" { depth -= 1 }
            if ch == "," && depth == 0 { values.append(current); current = "" } else { current.append(ch) }
        }
        values.append(current)
        guard !values.contains(where: \.isEmpty) else {
            throw CLIError.usage("invalid value '\(text)' for '--set': expected PATH=V1,V2,... with no empty value")
        }
        return Axis(path: String(text[..<eq]), values: values)
    }

    /// The cartesian product of the axes' values, the last axis varying fastest.
    static func grid(_ axes: [Axis]) -> [[String]] {
        axes.reduce([[]]) { points, axis in points.flatMap { p in axis.values.map { p + [$0] } } }
    }

    /// One row per point × policy (the fleet: archetype `all`), with the swept values
    /// first and `pareto` last: true when no other row has at least its fresh-open rate
    /// and at most its background energy, one of them strictly better.
    static func sweepCSV(axes: [Axis], rows: [(point: [String], report: RunReport)]) -> String {
        let header = axes.map(\.path) + SummarySchema.header + ["pareto"]
        var table: [[String]] = []
        for (point, report) in rows {
            table += ReportWriter.summaryRows(report).filter { $0[2] == "all" }.map { point + $0 }
        }
        let fresh = header.firstIndex(of: "fresh_open_rate")!, energy = header.firstIndex(of: "background_energy_j_per_day")!
        let scores = table.map { (Double($0[fresh]) ?? -.infinity, Double($0[energy]) ?? .infinity) }
        var csv = CSVWriter("")
        csv.row(header)
        for (i, row) in table.enumerated() {
            let dominated = scores.indices.contains { j in
                j != i && scores[j].0 >= scores[i].0 && scores[j].1 <= scores[i].1
                    && (scores[j].0 > scores[i].0 || scores[j].1 < scores[i].1)
            }
            csv.row(row + [dominated ? "false" : "true"])
        }
        return csv.output
    }
}
