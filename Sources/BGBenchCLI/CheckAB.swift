import BGBench
import BGHarness
import Foundation

extension Command {
    /// `--ab`: two configurations on the same users (same seed, fleet, days), device by
    /// device; every metric that differs with its paired 95 % interval and p-value, and no
    /// verdict. Exit 0 unless the input is bad.
    static func checkAB<Out: TextOutputStream>(_ pairs: [(ReportFolder, ReportFolder)], output: inout Out) throws {
        var problems: [String] = []
        for (b, c) in pairs {
            let found = RunComparison.abMismatches(b, c)
            if !found.isEmpty {
                problems.append(
                    "'\(b.path)' and '\(c.path)' are not runs of the same users: \(found.joined(separator: ", ")); "
                        + "--ab needs the same seed, policies, devices, days, warm-up and trace")
            }
        }
        guard problems.isEmpty else {
            throw CLIError(message: problems.joined(separator: "\nerror: "), code: 65, hint: false)
        }
        for (b, c) in pairs {
            let (differences, design) = try readingReportFolders {
                (try RunComparison.abDifferences(baseline: b, current: c), try RunComparison.design(b, c))
            }
            let parameters = RunComparison.configurationDifferences(b, c)
            let how =
                if case .pairedSeeds(let seeds) = design {
                    "seeds \(ComparisonDesign.list(seeds)) in both: A and B are means over the \(seeds.count) seeds, "
                        + "intervals paired across seeds (each seed's B − A, Student-t with \(seeds.count - 1) degrees of freedom)"
                } else {
                    "seed \(b.seed) in both: paired, device by device"
                }
            output.write(
                "A/B: A '\(b.path)', B '\(c.path)': \(b.policies.joined(separator: ",")), \(b.devices) devices × \(b.days) days, "
                    + "\(how); no verdict\n")
            output.write(
                parameters.isEmpty
                    ? "configurations: the same parameters\n"
                    : "configurations differ: \(RunComparison.describe(parameters))\n")
            output.write(ABTable.render(differences))
        }
    }
}

/// The A/B table: every metric whose value differs, B − A with its paired 95 % interval.
enum ABTable {
    static func render(_ differences: [ABDifference]) -> String {
        let moved = differences.filter { $0.baseline != $0.current }
        let same = differences.count - moved.count
        let footer =
            "\(moved.count) of \(differences.count) metrics differ (\(same) the same); intervals: paired t, 95 %, "
            + "not corrected for multiple comparisons\n"
        guard !moved.isEmpty else { return "no metric differs\n" + footer }
        let header = ["scenario", "policy", "archetype", "metric", "A", "B", "B - A", "95 % interval", "change %", "p"]
        let rows = moved.map { d in
            [
                d.scenario, d.policy, d.archetype, d.metric, CheckTable.number(d.baseline),
                CheckTable.number(d.current),
                d.difference.map { String(format: "%+.6g", $0) } ?? "-",
                d.interval.map { "[\(CheckTable.number($0.low)), \(CheckTable.number($0.high))]" } ?? "-",
                CheckTable.change(changePercent(d.baseline, d.current)),
                CheckTable.p(d.pValue),
            ]
        }
        return CheckTable.align([header] + rows, right: [4, 5, 6, 7, 8, 9]) + footer
    }
}

extension ABTable {
    /// As ``MetricComparison/changePercent``: 0 when equal, ±∞ from 0, nil when one is missing.
    static func changePercent(_ b: Double?, _ c: Double?) -> Double? {
        guard let b, let c else { return nil }
        if c == b { return 0 }
        if b == 0 { return c > 0 ? .infinity : -.infinity }
        return (c - b) / abs(b) * 100
    }
}
