import BGBench
import Foundation

/// `bgbench check`: compares a run's report folder with a baseline's, for CI (README "In
/// CI"). Exit codes: 0 nothing regressed, 1 a regression (or, with `--exact`, any
/// difference), 64 usage, 65 a baseline that does not match or a folder that does not
/// parse, 66 a folder or file that is missing, 73 the JUnit file cannot be written.
extension Command {
    enum CheckOption: String, CommandOption {
        case baseline, current, tolerance, junit, update, exact, force, ab
        case acceptConfiguration = "accept-configuration"
        var isFlag: Bool { self == .update || self == .exact || self == .force || self == .ab || self == .acceptConfiguration }
        var isRepeatable: Bool { self == .tolerance }
    }

    static func check<Out: TextOutputStream>(_ tokens: [Token], output: inout Out) throws {
        var baseline: String?, current: String?, junit: String?
        var tolerances: [String: Double] = [:]
        var update = false, exact = false, force = false, ab = false, acceptConfiguration = false
        var parser = OptionParser(tokens, command: "check")
        try parser.parse(
            option: { (option: CheckOption, value) in
                let name = option.rawValue
                switch option {
                case .baseline: baseline = try required(value, for: name, expected: "a report folder")
                case .current: current = try required(value, for: name, expected: "a report folder")
                case .junit: junit = try required(value, for: name, expected: "a file")
                case .force: force = true
                case .update: update = true
                case .exact: exact = true
                case .ab: ab = true
                case .acceptConfiguration: acceptConfiguration = true
                case .tolerance:
                    let (metric, percent) = try parseTolerance(required(value, for: name, expected: "METRIC=PCT"))
                    guard tolerances.updateValue(percent, forKey: metric) == nil else {
                        throw CLIError.usage("'--tolerance' given twice for \(metric)")
                    }
                }
            },
            positional: { throw CLIError.unexpected($0, command: "check") })
        guard let baseline else { throw CLIError.usage("missing option '--baseline' for 'check': expected a report folder") }
        guard let current else { throw CLIError.usage("missing option '--current' for 'check': expected a report folder") }
        for (set, other, name) in [(update, exact, "--exact"), (update, !tolerances.isEmpty, "--tolerance"),
                                   (update, junit != nil, "--junit")] where set && other {
            throw CLIError.usage("'--update' cannot be combined with '\(name)'")
        }
        if exact && !tolerances.isEmpty { throw CLIError.usage("'--exact' cannot be combined with '--tolerance'") }
        if force && !update && junit == nil { throw CLIError.usage("'--force' needs '--update' or '--junit'") }
        for (set, name) in [(update, "--update"), (exact, "--exact"), (!tolerances.isEmpty, "--tolerance"), (junit != nil, "--junit")]
        where ab && set {
            throw CLIError.usage("'--ab' cannot be combined with '\(name)'")
        }
        if acceptConfiguration && !update {
            throw CLIError.usage("'--accept-configuration' goes with '--update': it lets --update replace a baseline of another configuration")
        }
        if let junit {
            try OutputGuard.checkFile(junit, option: "--junit", kind: JUnitReport.fileKind,
                                      inputs: [.init(path: baseline, role: "--baseline"), .init(path: current, role: "--current")],
                                      force: force)
        }
        if FileManager.default.fileExists(atPath: baseline), canonical(baseline) == canonical(current) {
            throw CLIError.usage("'--baseline' and '--current' name the same folder")
        }

        if update {
            return try updateBaseline(baseline, from: current, force: force, acceptConfiguration: acceptConfiguration, output: &output)
        }

        let pairs = try matchedRuns(baseline: baseline, current: current, output: &output)
        if !exact, let sweep = pairs.flatMap({ [$0.0, $0.1] }).first(where: \.isSweep) {
            throw CLIError.usage("'\(sweep.path)' is a sweep folder: 'check' compares sweep folders with --exact only")
        }
        if ab { return try checkAB(pairs, output: &output) }
        var problems: [String] = []
        for (b, c) in pairs {
            let found = RunComparison.mismatches(b, c, exact: exact)
            if !found.isEmpty {
                problems.append("baseline '\(b.path)' does not match current '\(c.path)': \(found.joined(separator: ", ")); "
                                + "compare runs of one configuration\(exact ? " and seed" : ""), compare two configurations with "
                                + "'bgbench check --ab', or replace the baseline with 'bgbench check --update --accept-configuration'")
            }
        }
        guard problems.isEmpty else { throw CLIError(message: problems.joined(separator: "\nerror: "), code: 65, hint: false) }

        if exact { return try checkExact(pairs, junit: junit, output: &output) }

        var comparisons: [MetricComparison] = []
        var suites: [(name: String, range: Range<Int>)] = []
        for (b, c) in pairs {
            let found = try readingReportFolders { try RunComparison.compare(baseline: b, current: c, tolerances: tolerances) }
            let scenario = found.first?.scenario ?? ""
            output.write("baseline '\(b.path)', current '\(c.path)': scenario \(scenario), policies \(b.policies.joined(separator: ",")), "
                         + "\(b.devices) devices × \(b.days) days\(b.warmupDays > 0 ? " (\(b.warmupDays) warm-up)" : ""), ")
            if RunComparison.pairs(b, c) {
                output.write("seed \(b.seed) in both: paired t-tests, device by device\n")
            } else {
                output.write("seeds \(b.seed) and \(c.seed): independent replications, Welch t-tests\n")
            }
            suites.append((scenario, comparisons.count..<comparisons.count + found.count))
            comparisons += found
        }
        let family = RunComparison.decide(&comparisons)
        output.write(CheckTable.render(comparisons))
        var counts: [Verdict: Int] = [:]
        for m in comparisons { counts[m.verdict, default: 0] += 1 }
        output.write("\(comparisons.count) comparisons: " + Verdict.allCases.map { v in
            let n = counts[v] ?? 0
            return "\(n) \(v.rawValue)\(n != 1 && (v == .regression || v == .improvement) ? "s" : "")"
        }.joined(separator: ", ")
                     + "; significant: Holm–Bonferroni over \(family) tests, family-wise 5 %\n")
        if let junit {
            try write(JUnitReport.statistical(comparisons, suites: suites), to: junit)
        }
        let regressions = counts[.regression] ?? 0
        if regressions > 0 {
            throw CLIError(message: "\(regressions) regression\(regressions == 1 ? "" : "s") against the baseline (listed above)",
                           code: 1, hint: false)
        }
    }

    /// `--tolerance METRIC=PCT`: a metric of summary.csv and a percentage (a trailing `%`
    /// is allowed).
    static func parseTolerance(_ text: String) throws -> (String, Double) {
        let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2 else {
            throw CLIError.usage("invalid value '\(text)' for '--tolerance': expected METRIC=PCT, e.g. fresh_open_rate=2")
        }
        guard CheckMetrics.named(parts[0]) != nil else {
            var message = "unknown metric '\(parts[0])' for '--tolerance': expected a metric column of summary.csv"
            if let close = closest(to: parts[0], in: CheckMetrics.table.map(\.name)) { message += " (did you mean '\(close)'?)" }
            throw CLIError.usage(message)
        }
        let number = parts[1].hasSuffix("%") ? String(parts[1].dropLast()) : parts[1]
        guard let percent = Double(number), percent.isFinite, percent >= 0 else {
            throw CLIError.usage("invalid value '\(text)' for '--tolerance': expected a percentage of 0 or more after '='")
        }
        return (parts[0], percent)
    }

    static func canonical(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
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
    static func matchedRuns<Out: TextOutputStream>(baseline: String, current: String,
                                                   output: inout Out) throws -> [(ReportFolder, ReportFolder)] {
        let b = try readingReportFolders { try ReportFolder.locate(baseline, role: "baseline") }
        let c = try readingReportFolders { try ReportFolder.locate(current, role: "current") }
        if (b.first?.name == "") != (c.first?.name == "") {
            let kind = { (runs: [(name: String, path: String)]) in runs.first?.name == "" ? "a report folder" : "a folder of report folders" }
            throw CLIError(message: "baseline '\(baseline)' is \(kind(b)) but current '\(current)' is \(kind(c))", code: 65, hint: false)
        }
        var pairs: [(ReportFolder, ReportFolder)] = []
        for run in b {
            guard let other = c.first(where: { $0.name == run.name }) else {
                throw CLIError(message: "current '\(current)' has no report folder '\(run.name)', which the baseline has", code: 66, hint: false)
            }
            let folders = try readingReportFolders {
                (try ReportFolder(path: run.path, role: "baseline"), try ReportFolder(path: other.path, role: "current"))
            }
            pairs.append(folders)
        }
        let extra = c.map { $0.name }.filter { name in !b.contains { $0.name == name } }
        if !extra.isEmpty { output.write("not in the baseline, not compared: \(extra.joined(separator: ", "))\n") }
        return pairs
    }

    /// `--exact`: every report file either folder has must be in both and the same, byte
    /// for byte; run.json field for field but for `RunComparison.exactIgnoredKeys`.
    static func checkExact<Out: TextOutputStream>(_ pairs: [(ReportFolder, ReportFolder)], junit: String?,
                                                  output: inout Out) throws {
        var failures: [String] = []
        var suites: [JUnitReport.Suite] = []
        for (b, c) in pairs {
            let (differences, compared) = try readingReportFolders { try RunComparison.exactDifferences(baseline: b, current: c) }
            let ignored = RunComparison.exactIgnoredKeys.sorted().joined(separator: ", ")
            if differences.isEmpty {
                output.write("'\(c.path)' is identical to baseline '\(b.path)': \(compared.joined(separator: ", ")) (run.json without \(ignored))\n")
            } else {
                output.write("'\(c.path)' differs from baseline '\(b.path)': \(differences.map(\.file).joined(separator: ", "))\n")
            }
            failures += differences.map(\.message)
            suites.append(JUnitReport.Suite(name: "bgbench check --exact \(c.path)", cases: compared.map { file in
                JUnitReport.Case(classname: "exact", name: file, failure: differences.first { $0.file == file }?.message, note: nil)
            }))
        }
        if let junit { try write(JUnitReport.render(suites), to: junit) }
        guard failures.isEmpty else { throw CLIError(message: failures.joined(separator: "\nerror: "), code: 1, hint: false) }
    }

    /// `--update`: replaces the baseline folder whole with the current run's report files
    /// (a folder of report folders: each run's subfolder; the baseline's other subfolders
    /// are kept), written into a staging folder and swapped into place (FolderTransaction).
    /// Refuses (65) to replace a baseline run by a run of another configuration (another
    /// resolved scenario, policies, fleet, days, warm-up, trace or schema; a seed is not a
    /// configuration, as for `check`) unless `acceptConfiguration` (`--accept-configuration`)
    /// says the change is meant.
    static func updateBaseline<Out: TextOutputStream>(_ baseline: String, from current: String, force: Bool,
                                                      acceptConfiguration: Bool,
                                                      output: inout Out) throws {
        let runs = try readingReportFolders { try ReportFolder.locate(current, role: "current") }
        var target = baseline
        var isDirectory: ObjCBool = false
        let fm = FileManager.default
        if fm.fileExists(atPath: baseline, isDirectory: &isDirectory), !isDirectory.boolValue {
            target = (baseline as NSString).deletingLastPathComponent
        }
        let single = runs.first?.name == ""
        let hasRun = fm.fileExists(atPath: (target as NSString).appendingPathComponent("run.json"))
        if fm.fileExists(atPath: target), !single, hasRun {
            throw CLIError(message: "baseline '\(target)' is a report folder but current '\(current)' is a folder of report folders", code: 65, hint: false)
        }
        var refused: [String] = []
        for run in runs {
            let source = try readingReportFolders { try ReportFolder(path: run.path, role: "current") }  // a complete, readable folder
            let folder = run.name.isEmpty ? target : (target as NSString).appendingPathComponent(run.name)
            guard !acceptConfiguration, fm.fileExists(atPath: (folder as NSString).appendingPathComponent("run.json")) else { continue }
            let old = try readingReportFolders { try ReportFolder(path: folder, role: "baseline") }
            let found = RunComparison.mismatches(old, source, exact: false)
            if !found.isEmpty {
                refused.append("'\(run.path)' is another configuration than baseline '\(folder)': \(found.joined(separator: ", ")); "
                               + "add --accept-configuration to --update if the change is meant")
            }
        }
        guard refused.isEmpty else { throw CLIError(message: refused.joined(separator: "\nerror: "), code: 65, hint: false) }
        let transaction = try FolderTransaction(out: target, force: force, scope: .baselines,
                                                inputs: [.init(path: current, role: "--current")], option: "--baseline")
        if !single {
            // The baseline's runs the current folder does not have stay as they are.
            let kept = ((try? fm.contentsOfDirectory(atPath: target)) ?? []).sorted().filter { name in
                !name.hasPrefix(".") && !runs.contains { $0.name == name }
            }
            for name in kept { try transaction.copy(folder: (target as NSString).appendingPathComponent(name), to: name) }
        }
        var lines: [String] = []
        for run in runs {
            let folder = run.name.isEmpty ? target : (target as NSString).appendingPathComponent(run.name)
            var files: [(String, String)] = [], copied: [String] = [], removed: [String] = []
            // A sweep's manifest lists files beyond the report files (long.csv, scenario-K.json).
            let listed = try readingReportFolders { try ReportFolder(path: run.path, role: "current") }.files
            for name in listed + ReportFolder.reportFiles.filter({ !listed.contains($0) }) {
                let source = (run.path as NSString).appendingPathComponent(name)
                if fm.fileExists(atPath: source) {
                    guard let data = fm.contents(atPath: source), let text = String(data: data, encoding: .utf8) else {
                        throw CLIError(message: "cannot read '\(source)'", code: 66, hint: false)
                    }
                    files.append((run.name.isEmpty ? name : (run.name as NSString).appendingPathComponent(name), text))
                    copied.append(name)
                } else if fm.fileExists(atPath: (folder as NSString).appendingPathComponent(name)) {
                    removed.append(name)
                }
            }
            try transaction.write(files)
            lines.append("updated baseline '\(folder)' from '\(run.path)': copied \(copied.joined(separator: ", "))"
                         + (removed.isEmpty ? "" : "; removed \(removed.joined(separator: ", "))") + "\n")
        }
        try transaction.commit()
        for line in lines { output.write(line) }
    }
}

extension Command {
    /// `--ab`: two configurations on the same users (same seed, fleet, days), device by
    /// device; every metric that differs with its paired 95 % interval and p-value, and no
    /// verdict. Exit 0 unless the input is bad.
    static func checkAB<Out: TextOutputStream>(_ pairs: [(ReportFolder, ReportFolder)], output: inout Out) throws {
        var problems: [String] = []
        for (b, c) in pairs {
            let found = RunComparison.abMismatches(b, c)
            if !found.isEmpty {
                problems.append("'\(b.path)' and '\(c.path)' are not runs of the same users: \(found.joined(separator: ", ")); "
                                + "--ab needs the same seed, policies, devices, days, warm-up and trace")
            }
        }
        guard problems.isEmpty else { throw CLIError(message: problems.joined(separator: "\nerror: "), code: 65, hint: false) }
        for (b, c) in pairs {
            let differences = try readingReportFolders { try RunComparison.abDifferences(baseline: b, current: c) }
            let parameters = RunComparison.configurationDifferences(b, c)
            output.write("A/B: A '\(b.path)', B '\(c.path)': \(b.policies.joined(separator: ",")), \(b.devices) devices × \(b.days) days, "
                         + "seed \(b.seed) in both: paired, device by device; no verdict\n")
            output.write(parameters.isEmpty ? "configurations: the same parameters\n"
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
        let footer = "\(moved.count) of \(differences.count) metrics differ (\(same) the same); intervals: paired t, 95 %, "
            + "not corrected for multiple comparisons\n"
        guard !moved.isEmpty else { return "no metric differs\n" + footer }
        let header = ["scenario", "policy", "archetype", "metric", "A", "B", "B - A", "95 % interval", "change %", "p"]
        let rows = moved.map { d in
            [d.scenario, d.policy, d.archetype, d.metric, CheckTable.number(d.baseline), CheckTable.number(d.current),
             d.difference.map { String(format: "%+.6g", $0) } ?? "-",
             d.interval.map { "[\(CheckTable.number($0.low)), \(CheckTable.number($0.high))]" } ?? "-",
             CheckTable.change(changePercent(d.baseline, d.current)),
             CheckTable.p(d.pValue)]
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

/// The table of what moved: every comparison beyond its tolerance, regressions first.
enum CheckTable {
    static let order: [Verdict] = [.regression, .improvement, .notSignificant, .untested, .unchanged, .neutral]

    static func render(_ comparisons: [MetricComparison]) -> String {
        let moved = comparisons.enumerated().filter { $0.element.beyondTolerance }
            .sorted { (order.firstIndex(of: $0.element.verdict)!, $0.offset) < (order.firstIndex(of: $1.element.verdict)!, $1.offset) }
            .map(\.element)
        guard !moved.isEmpty else { return "nothing moved beyond its tolerance\n" }
        let header = ["scenario", "policy", "archetype", "metric", "baseline", "current", "change %", "tol %", "p", "verdict"]
        let rows = moved.map { m in
            [m.scenario, m.policy, m.archetype, m.metric, number(m.baseline), number(m.current), change(m.changePercent),
             number(m.tolerancePercent), p(m.pValue), m.verdict.rawValue]
        }
        return align([header] + rows, right: [4, 5, 6, 7, 8])
    }

    /// Columns padded to their widest field, `right` ones right-aligned, two spaces apart.
    static func align(_ table: [[String]], right: Set<Int>) -> String {
        let widths = table[0].indices.map { j in table.map { $0[j].count }.max()! }
        return table.map { row in
            row.enumerated().map { j, text in
                let pad = String(repeating: " ", count: widths[j] - text.count)
                return right.contains(j) ? pad + text : text + pad
            }.joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }.joined(separator: "\n") + "\n"
    }

    static func number(_ x: Double?) -> String {
        guard let x else { return "-" }
        return String(format: "%.6g", x)
    }

    static func change(_ x: Double?) -> String {
        guard let x else { return "-" }
        if x.isInfinite { return x > 0 ? "+inf" : "-inf" }
        return String(format: "%+.2f", x)
    }

    static func p(_ x: Double?) -> String {
        guard let x else { return "-" }
        return x < 1e-4 ? String(format: "%.1e", x) : String(format: "%.4f", x)
    }
}

/// JUnit XML (the format of Ant's junit task that CI servers read): one <testsuite> per
/// compared run, one <testcase> per scenario × policy × archetype × metric, a regression as
/// <failure>; counts on each suite and on the root.
enum JUnitReport {
    struct Case { var classname: String; var name: String; var failure: String?; var note: String? }
    struct Suite { var name: String; var cases: [Case] }

    /// The root element every JUnit file of `check` opens with.
    static let root = "<testsuites name=\"bgbench check\""

    /// What `--junit` may overwrite: a JUnit file `check` wrote (its XML declaration and root).
    static let fileKind = OutputGuard.FileKind(description: "a JUnit report of bgbench check") { bytes in
        let head = String(decoding: bytes, as: UTF8.self)
        return head.hasPrefix("<?xml") && head.contains(root)
    }

    static func statistical(_ comparisons: [MetricComparison], suites: [(name: String, range: Range<Int>)]) -> String {
        render(suites.map { suite in
            Suite(name: "bgbench check \(suite.name)", cases: comparisons[suite.range].map { m in
                let text = describe(m)
                return Case(classname: "\(m.scenario).\(m.policy).\(m.archetype)", name: m.metric,
                            failure: m.verdict == .regression ? text : nil, note: m.verdict == .regression ? nil : text)
            })
        })
    }

    /// "regression: 0.337 → 0.301 (-10.65 %, tolerance 1 %), p = 1.2e-08 (paired t)".
    static func describe(_ m: MetricComparison) -> String {
        "\(m.verdict.rawValue): \(CheckTable.number(m.baseline)) → \(CheckTable.number(m.current)) "
            + "(\(CheckTable.change(m.changePercent)) %, tolerance \(CheckTable.number(m.tolerancePercent)) %), "
            + "p = \(CheckTable.p(m.pValue))" + (m.test.map { " (\($0.rawValue))" } ?? "")
    }

    static func render(_ suites: [Suite]) -> String {
        let tests = suites.reduce(0) { $0 + $1.cases.count }
        let failures = suites.reduce(0) { $0 + $1.cases.filter { $0.failure != nil }.count }
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "\(root) tests=\"\(tests)\" failures=\"\(failures)\" errors=\"0\">\n"
        for suite in suites {
            let f = suite.cases.filter { $0.failure != nil }.count
            xml += "  <testsuite name=\"\(escape(suite.name))\" tests=\"\(suite.cases.count)\" failures=\"\(f)\" errors=\"0\" skipped=\"0\" time=\"0\">\n"
            for c in suite.cases {
                xml += "    <testcase classname=\"\(escape(c.classname))\" name=\"\(escape(c.name))\" time=\"0\""
                if let failure = c.failure {
                    xml += ">\n      <failure message=\"\(escape(failure))\" type=\"regression\">\(escape(failure))</failure>\n    </testcase>\n"
                } else if let note = c.note {
                    xml += "><system-out>\(escape(note))</system-out></testcase>\n"
                } else {
                    xml += "/>\n"
                }
            }
            xml += "  </testsuite>\n"
        }
        return xml + "</testsuites>\n"
    }

    /// Text for XML 1.0 attributes and content: the five predefined entities, and
    /// characters XML 1.0 cannot hold (controls other than tab, LF, CR) as U+FFFD.
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t": out += "&#9;"
            case "\n": out += "&#10;"
            case "\r": out += "&#13;"
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF:
                out += "\u{FFFD}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
