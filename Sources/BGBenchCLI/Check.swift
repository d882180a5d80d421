import BGBench
import BGHarness
import Foundation

/// `bgbench check`: compares a run's report folder with a baseline's, for CI (README "In
/// CI"). Exit codes: 0 nothing regressed, 1 a regression (or, with `--exact`, any
/// difference), 64 usage, 65 a baseline that does not match or a folder that does not
/// parse, 66 a folder or file that is missing, 73 the JUnit file cannot be written.
struct CheckCommand: CommandDefinition {
    struct Values {
        var baseline: String?, current: String?, junit: String?
        var tolerances: [String: Double] = [:]
        var update = false, exact = false, force = false, ab = false, acceptConfiguration = false
    }

    static let name = "check"
    static let synopsis = """
        bgbench check --baseline FILE_OR_DIR --current DIR [--tolerance METRIC=PCT ...]
                      [--junit FILE [--force]] [--exact] [--update [--force] [--accept-configuration]] [--ab]
                                     compare a run's reports with a baseline's (CI): exit 1
                                     on a significant regression, or any difference with
                                     --exact; --update makes the current run the baseline;
                                     --ab compares two configurations, no verdict
        """
    static let reference: String? = "README.md, \"In CI\""
    static let defaults = Values()
    static var options: [Option<Values>] {
        [
            .text(
                "baseline", "FILE_OR_DIR", \.baseline, expected: "a report folder",
                help: "the baseline: a report folder (or a file in one), or a folder of report folders, matched with "
                    + "--current's by name"),
            .text(
                "current", "DIR", \.current, expected: "a report folder",
                help: "the report folder (or folder of them) to check"),
            .value(
                "tolerance", "METRIC=PCT", expected: "METRIC=PCT",
                help: "a change of METRIC (a summary.csv column) within PCT % of the baseline is no change",
                repeatable: true, defaultText: "1"
            ) { values, text, _ in
                let (metric, percent) = try Command.parseTolerance(text)
                guard values.tolerances.updateValue(percent, forKey: metric) == nil else {
                    throw CLIError.usage("'--tolerance' given twice for \(metric)")
                }
            },
            .text(
                "junit", "FILE", \.junit, expected: "a file",
                help:
                    "also write JUnit XML, a test case per metric (an existing FILE only if it is check's own JUnit XML)"
            ),
            .flag(
                "exact", \.exact,
                help: "any difference in any report file fails (needs the same seed; run.json's execution and build "
                    + "fields do not count)"),
            .flag(
                "update", \.update,
                help: "replace the baseline folder whole with the current run's report files (refused for another "
                    + "configuration, exit 65)"),
            .flag(
                "force", \.force,
                help:
                    "with --update: replace the baseline folder whole, whatever it holds; with --junit: overwrite FILE "
                    + "whatever it is (never an input)"),
            .flag(
                "accept-configuration", \.acceptConfiguration, help: "with --update: the configuration change is meant"),
            .flag(
                "ab", \.ab,
                help:
                    "A/B: --baseline A and --current B, two configurations on the same seeds and fleet, with 95 % "
                    + "intervals and no verdict: device by device with one seed (needs --per-device), across the "
                    + "seeds when replicated"),
        ]
    }
    static let endsCleanlyOnSignals = true

    static func run<Out: TextOutputStream>(_ values: Values, _ invocation: Invocation, output: inout Out) throws {
        let (baseline, current, junit, tolerances) = (values.baseline, values.current, values.junit, values.tolerances)
        let (update, exact, force, ab, acceptConfiguration) = (
            values.update, values.exact, values.force, values.ab,
            values.acceptConfiguration
        )
        guard let baseline else {
            throw CLIError.usage("missing option '--baseline' for 'check': expected a report folder")
        }
        guard let current else {
            throw CLIError.usage("missing option '--current' for 'check': expected a report folder")
        }
        for (set, other, name) in [
            (update, exact, "--exact"), (update, !tolerances.isEmpty, "--tolerance"),
            (update, junit != nil, "--junit"),
        ] where set && other {
            throw CLIError.usage("'--update' cannot be combined with '\(name)'")
        }
        if exact && !tolerances.isEmpty { throw CLIError.usage("'--exact' cannot be combined with '--tolerance'") }
        if force && !update && junit == nil { throw CLIError.usage("'--force' needs '--update' or '--junit'") }
        for (set, name) in [
            (update, "--update"), (exact, "--exact"), (!tolerances.isEmpty, "--tolerance"), (junit != nil, "--junit"),
        ]
        where ab && set {
            throw CLIError.usage("'--ab' cannot be combined with '\(name)'")
        }
        if acceptConfiguration && !update {
            throw CLIError.usage(
                "'--accept-configuration' goes with '--update': it lets --update replace a baseline of another configuration"
            )
        }
        if let junit {
            try OutputGuard.checkFile(
                junit, option: "--junit", kind: JUnitReport.fileKind,
                inputs: [.init(path: baseline, role: "--baseline"), .init(path: current, role: "--current")],
                force: force)
        }
        if FileManager.default.fileExists(atPath: baseline),
            OutputGuard.canonical(baseline) == OutputGuard.canonical(current)
        {
            throw CLIError.usage("'--baseline' and '--current' name the same folder")
        }

        if update {
            return try Command.updateBaseline(
                baseline, from: current, force: force, acceptConfiguration: acceptConfiguration, output: &output)
        }

        let pairs = try Command.matchedRuns(baseline: baseline, current: current, output: &output)
        if !exact, let sweep = pairs.flatMap({ [$0.0, $0.1] }).first(where: \.isSweep) {
            throw CLIError.usage("'\(sweep.path)' is a sweep folder: 'check' compares sweep folders with --exact only")
        }
        if !exact {
            // Numbers the tests read are first recomputed where devices.csv determines them.
            try Command.readingReportFolders {
                for (b, c) in pairs {
                    try b.verifySummaryAgreesWithDevices()
                    try c.verifySummaryAgreesWithDevices()
                }
            }
        }
        if ab { return try Command.checkAB(pairs, output: &output) }
        var problems: [String] = []
        for (b, c) in pairs {
            let found = RunComparison.mismatches(b, c, exact: exact)
            if !found.isEmpty {
                problems.append(
                    "baseline '\(b.path)' does not match current '\(c.path)': \(found.joined(separator: ", ")); "
                        + "compare runs of one configuration\(exact ? " and seed" : ""), compare two configurations with "
                        + "'bgbench check --ab', or replace the baseline with 'bgbench check --update --accept-configuration'"
                )
            }
        }
        guard problems.isEmpty else {
            throw CLIError(message: problems.joined(separator: "\nerror: "), code: 65, hint: false)
        }

        if exact { return try Command.checkExact(pairs, junit: junit, output: &output) }

        var comparisons: [MetricComparison] = []
        var suites: [(name: String, range: Range<Int>)] = []
        for (b, c) in pairs {
            let (found, design) = try Command.readingReportFolders {
                (
                    try RunComparison.compare(baseline: b, current: c, tolerances: tolerances),
                    try RunComparison.design(b, c)
                )
            }
            let scenario = found.first?.scenario ?? ""
            output.write(
                "baseline '\(b.path)', current '\(c.path)': scenario \(scenario), policies \(b.policies.joined(separator: ",")), "
                    + "\(b.devices) devices × \(b.days) days\(b.warmupDays > 0 ? " (\(b.warmupDays) warm-up)" : ""), "
                    + "\(design)\(design.acrossSeeds ? "; values are means over the seeds" : "")\n")
            suites.append((scenario, comparisons.count..<comparisons.count + found.count))
            comparisons += found
        }
        let family = RunComparison.decide(&comparisons)
        output.write(CheckTable.render(comparisons))
        var counts: [Verdict: Int] = [:]
        for m in comparisons { counts[m.verdict, default: 0] += 1 }
        output.write(
            "\(comparisons.count) comparisons: "
                + Verdict.allCases.map { v in
                    let n = counts[v] ?? 0
                    return "\(n) \(v.rawValue)\(n != 1 && (v == .regression || v == .improvement) ? "s" : "")"
                }.joined(separator: ", ")
                + "; significant: Holm–Bonferroni over \(family) tests, family-wise 5 %\n")
        if let junit {
            try Command.write(JUnitReport.statistical(comparisons, suites: suites), to: junit)
        }
        let regressions = counts[.regression] ?? 0
        if regressions > 0 {
            throw CLIError(
                message: "\(regressions) regression\(regressions == 1 ? "" : "s") against the baseline (listed above)",
                code: 1, hint: false)
        }
    }
}

extension Command {
    /// `--tolerance METRIC=PCT`: a metric of summary.csv and a percentage (a trailing `%`
    /// is allowed).
    static func parseTolerance(_ text: String) throws -> (String, Double) {
        let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2 else {
            throw CLIError.usage(
                "invalid value '\(text)' for '--tolerance': expected METRIC=PCT, e.g. fresh_open_rate=2")
        }
        guard CheckMetrics.named(parts[0]) != nil else {
            var message = "unknown metric '\(parts[0])' for '--tolerance': expected a metric column of summary.csv"
            if let close = closest(to: parts[0], in: CheckMetrics.table.map(\.name)) {
                message += " (did you mean '\(close)'?)"
            }
            throw CLIError.usage(message)
        }
        let number = parts[1].hasSuffix("%") ? String(parts[1].dropLast()) : parts[1]
        guard let percent = Double(number), percent.isFinite, percent >= 0 else {
            throw CLIError.usage(
                "invalid value '\(text)' for '--tolerance': expected a percentage of 0 or more after '='")
        }
        return (parts[0], percent)
    }

    /// Runs a library call that reads report folders, mapping its errors to exit codes:
    /// 66 missing, 65 not what a report folder holds.
    static func readingReportFolders<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch ReportFolderError.missing(let m) {
            throw CLIError(message: m, code: 66, hint: false)
        } catch ReportFolderError.invalid(let m) {
            throw CLIError(message: m, code: 65, hint: false)
        }
    }

    /// The baseline's runs and the current folder's of the same names, loaded. Both are
    /// report folders, or both folders of report folders (matched by subfolder name).
    static func matchedRuns<Out: TextOutputStream>(
        baseline: String, current: String,
        output: inout Out
    ) throws -> [(ReportFolder, ReportFolder)] {
        let b = try readingReportFolders { try ReportFolder.locate(baseline, role: "baseline") }
        let c = try readingReportFolders { try ReportFolder.locate(current, role: "current") }
        if (b.first?.name == "") != (c.first?.name == "") {
            let kind = { (runs: [(name: String, path: String)]) in
                runs.first?.name == "" ? "a report folder" : "a folder of report folders"
            }
            throw CLIError(
                message: "baseline '\(baseline)' is \(kind(b)) but current '\(current)' is \(kind(c))", code: 65,
                hint: false)
        }
        var pairs: [(ReportFolder, ReportFolder)] = []
        for run in b {
            guard let other = c.first(where: { $0.name == run.name }) else {
                throw CLIError(
                    message: "current '\(current)' has no report folder '\(run.name)', which the baseline has",
                    code: 66, hint: false)
            }
            let folders = try readingReportFolders {
                (
                    try ReportFolder(path: run.path, role: "baseline"),
                    try ReportFolder(path: other.path, role: "current")
                )
            }
            pairs.append(folders)
        }
        let extra = c.map { $0.name }.filter { name in !b.contains { $0.name == name } }
        if !extra.isEmpty { output.write("not in the baseline, not compared: \(extra.joined(separator: ", "))\n") }
        return pairs
    }

    /// `--exact`: every report file either folder has must be in both and the same, byte
    /// for byte; run.json field for field but for `RunComparison.exactIgnoredKeys`.
    static func checkExact<Out: TextOutputStream>(
        _ pairs: [(ReportFolder, ReportFolder)], junit: String?,
        output: inout Out
    ) throws {
        var failures: [String] = []
        var suites: [JUnitReport.Suite] = []
        for (b, c) in pairs {
            let (differences, compared) = try readingReportFolders {
                try RunComparison.exactDifferences(baseline: b, current: c)
            }
            let ignored = RunComparison.exactIgnoredKeys.sorted().joined(separator: ", ")
            if differences.isEmpty {
                output.write(
                    "'\(c.path)' is identical to baseline '\(b.path)': \(compared.joined(separator: ", ")) (run.json without \(ignored))\n"
                )
            } else {
                output.write(
                    "'\(c.path)' differs from baseline '\(b.path)': \(differences.map(\.file).joined(separator: ", "))\n"
                )
            }
            failures += differences.map(\.message)
            suites.append(
                JUnitReport.Suite(
                    name: "bgbench check --exact \(c.path)",
                    cases: compared.map { file in
                        JUnitReport.Case(
                            classname: "exact", name: file, failure: differences.first { $0.file == file }?.message,
                            note: nil)
                    }))
        }
        if let junit { try write(JUnitReport.render(suites), to: junit) }
        guard failures.isEmpty else {
            throw CLIError(message: failures.joined(separator: "\nerror: "), code: 1, hint: false)
        }
    }
}
