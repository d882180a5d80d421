import Foundation
#if canImport(FoundationXML)
    import FoundationXML
#endif
import Testing
@testable import BGBench
@testable import BGHarness
@testable import BGBenchCLI
import BGNumerics
import BGBenchTestSupport

/// The default scenario, two policies, 200 devices × 7 days, with devices.csv: small
/// enough to run in tens of milliseconds, large enough for the tests to have power.
private let standard = ["--policy", "adaptive,fixed", "--days", "7", "--devices", "200", "--per-device", "--quiet"]

/// Runs bgbench into a fresh report folder and returns the folder.
private func report(_ arguments: [String], stem: String = "run") -> String {
    let out = freshPath(stem)
    let result = bgbench(arguments + ["--out", out])
    #expect(result.code == 0, "bgbench \(arguments.joined(separator: " ")): \(result.errors)")
    return out
}

private func read(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }
private func write(_ text: String, _ path: String) throws {
    try text.write(toFile: path, atomically: true, encoding: .utf8)
}

/// A run.json field's value as written (a string without its quotes).
private func runField(_ folder: String, _ key: String) throws -> String {
    let json = try #require(
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/run.json")))
            as? [String: Any])
    return "\(json[key]!)"
}

/// Replaces one field of a CSV file, found by row and column name.
private func editCSV(_ path: String, row: Int, column: String, to value: String) throws -> (old: String, line: Int) {
    var table = try CSVTable(parsing: read(path))
    let j = try #require(table.index(of: column))
    let old = table.rows[row][j]
    table.rows[row][j] = value
    var csv = CSVWriter("")
    csv.row(table.header)
    for r in table.rows { csv.row(r) }
    try write(csv.output, path)
    try reseal(path)
    return (old, table.lines[row])
}

/// After run.json got the baseline's resolved-scenario hash: scenario.json (whose hash it
/// is) becomes the baseline's too, as after a code change that keeps the parameters, and
/// the manifest says so.
func keepParameters(_ b: String, _ c: String) throws {
    try FileManager.default.removeItem(atPath: c + "/scenario.json")
    try FileManager.default.copyItem(atPath: b + "/scenario.json", toPath: c + "/scenario.json")
    try reseal(c + "/scenario.json")
}

/// Removes a report file and its manifest entry, as if the run had not written it.
func unlist(_ path: String) throws {
    let folder = (path as NSString).deletingLastPathComponent, name = (path as NSString).lastPathComponent
    let runPath = folder + "/run.json"
    let json = try String(contentsOfFile: runPath, encoding: .utf8)
    let pattern =
        #"(,\n    \{\n      "bytes" : \d+,\n      "name" : ""# + name
        + #"",\n      "sha256" : "[0-9a-f]+"\n    \})|(\n    \{\n      "bytes" : \d+,\n      "name" : ""# + name
        + #"",\n      "sha256" : "[0-9a-f]+"\n    \},)"#
    let edited = json.replacingOccurrences(of: pattern, with: "", options: .regularExpression)
    #expect(edited != json)
    try edited.write(toFile: runPath, atomically: true, encoding: .utf8)
    try FileManager.default.removeItem(atPath: path)
}

/// Rewrites the manifest entry of an edited report file in its folder's run.json, as if the
/// run had written the file so: the tests that plant a change in a file test `check`'s
/// comparisons, not its manifest check (FolderUnitTests tests that).
func reseal(_ path: String) throws {
    let folder = (path as NSString).deletingLastPathComponent, name = (path as NSString).lastPathComponent
    let runPath = folder + "/run.json"
    let json = try String(contentsOfFile: runPath, encoding: .utf8)
    let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    let entries = try #require(object["manifest"] as? [[String: Any]])
    let entry = try #require(entries.first { $0["name"] as? String == name })
    let oldSHA = try #require(entry["sha256"] as? String), oldBytes = try #require(entry["bytes"] as? Int)
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    let old = "\"bytes\" : \(oldBytes),\n      \"name\" : \"\(name)\",\n      \"sha256\" : \"\(oldSHA)\""
    let new = "\"bytes\" : \(bytes.count),\n      \"name\" : \"\(name)\",\n      \"sha256\" : \"\(SHA256.hex(bytes))\""
    #expect(json.contains(old))
    try json.replacingOccurrences(of: old, with: new).write(toFile: runPath, atomically: true, encoding: .utf8)
}

private let remedy =
    "; compare runs of one configuration, compare two configurations with 'bgbench check --ab', or replace the baseline with 'bgbench check --update --accept-configuration'"

/// JUnit XML read with Foundation's XMLParser: the root's counts and every test case.
private final class JUnitReader: NSObject, XMLParserDelegate {
    var rootTests = -1, rootFailures = -1
    var suiteTests = 0, suiteFailures = 0
    var cases: [(classname: String, name: String)] = []
    var failures = 0

    func parser(
        _ parser: XMLParser, didStartElement element: String, namespaceURI: String?,
        qualifiedName: String?, attributes: [String: String] = [:]
    ) {
        switch element {
        case "testsuites":
            rootTests = Int(attributes["tests"] ?? "") ?? -1
            rootFailures = Int(attributes["failures"] ?? "") ?? -1
        case "testsuite":
            suiteTests += Int(attributes["tests"] ?? "") ?? 0
            suiteFailures += Int(attributes["failures"] ?? "") ?? 0
        case "testcase": cases.append((attributes["classname"] ?? "", attributes["name"] ?? ""))
        case "failure": failures += 1
        default: break
        }
    }

    static func read(_ path: String) throws -> JUnitReader {
        let parser = try #require(XMLParser(contentsOf: URL(fileURLWithPath: path)))
        let reader = JUnitReader()
        parser.delegate = reader
        #expect(parser.parse(), "JUnit XML does not parse: \(String(describing: parser.parserError))")
        return reader
    }
}

@Suite struct CheckTests {
    // MARK: The command on real runs

    /// The same command twice: byte-identical reports, so the statistical check sees no
    /// change and the exact check no difference.
    @Test func identicalRerunPasses() throws {
        let b = report(standard), c = report(standard)
        let result = bgbench(["check", "--baseline", b, "--current", c])
        #expect(result.code == 0)
        #expect(result.errors == "")
        #expect(
            result.output.hasPrefix(
                "baseline '\(b)', current '\(c)': scenario default, policies adaptive,fixed, 200 devices × 7 days, seed 1 in both: paired t-tests, device by device\n"
            ))
        #expect(result.output.contains("nothing moved beyond its tolerance\n"))
        let metrics = SummarySchema.metrics.count, rows = 2 * 5
        #expect(result.output.contains("\(metrics * rows) comparisons: 0 regressions, 0 improvements, "))

        let exact = bgbench(["check", "--exact", "--baseline", b, "--current", c])
        #expect(exact.code == 0)
        #expect(exact.errors == "")
        #expect(
            exact.output
                == "'\(c)' is identical to baseline '\(b)': summary.csv, daily.csv, hourly.csv, server.csv, devices.csv, paired.csv, paired-archetypes.csv, long.csv, scenario.json, run.json (run.json without bgbench_version, execution, git_commit, gsl, manifest)\n"
        )
    }

    /// A planted regression: more users with Background App Refresh off, so fewer fresh
    /// opens. run.json gets the baseline's scenario hash, as after a code change that keeps
    /// the parameters; same seed, so the paired test applies. The JUnit file parses and
    /// counts one test case per row × metric and one failure per regression.
    @Test func plantedRegressionFails() throws {
        let b = report(standard), c = report(standard + ["--set", "population.bar_off_share=0.4"])
        let shaB = try runField(b, "resolved_scenario_sha256"), shaC = try runField(c, "resolved_scenario_sha256")
        try write(read(c + "/run.json").replacingOccurrences(of: shaC, with: shaB), c + "/run.json")
        try keepParameters(b, c)
        let junit = freshPath("junit") + ".xml"
        let result = bgbench(["check", "--baseline", b, "--current", c, "--junit", junit])
        #expect(result.code == 1)
        let lines = result.output.split(separator: "\n").map(String.init)
        let regressions = lines.filter { $0.hasSuffix("  regression") }
        #expect(regressions.count > 0)
        #expect(result.errors == "error: \(regressions.count) regressions against the baseline (listed above)\n")
        for policy in ["adaptive", "fixed"] {
            #expect(
                regressions.contains {
                    $0.hasPrefix("default   \(policy)") && $0.contains(" all ") && $0.contains(" fresh_open_rate ")
                },
                "no fresh_open_rate regression for \(policy)")
        }
        // The energy spent falls with fewer runs: reported as improvements.
        #expect(lines.contains { $0.contains(" background_energy_j_per_day ") && $0.hasSuffix("  improvement") })

        let xml = try JUnitReader.read(junit)
        let expected = SummarySchema.metrics.count * 2 * 5
        #expect(xml.rootTests == expected && xml.suiteTests == expected && xml.cases.count == expected)
        #expect(
            xml.rootFailures == regressions.count && xml.suiteFailures == regressions.count
                && xml.failures == regressions.count)
        #expect(xml.cases.contains { $0.classname == "default.adaptive.all" && $0.name == "fresh_open_rate" })
    }

    /// `--tolerance` widens one metric's band: the same fall in fresh_open_rate (about 2 %)
    /// is no change within 5 %.
    @Test func toleranceWidensOneMetric() throws {
        let b = report(standard), c = report(standard + ["--set", "population.bar_off_share=0.4"])
        let shaB = try runField(b, "resolved_scenario_sha256"), shaC = try runField(c, "resolved_scenario_sha256")
        try write(read(c + "/run.json").replacingOccurrences(of: shaC, with: shaB), c + "/run.json")
        try keepParameters(b, c)
        let result = bgbench(["check", "--baseline", b, "--current", c, "--tolerance", "fresh_open_rate=5"])
        #expect(result.code == 1)  // staleness and age still regress
        #expect(
            !result.output.split(separator: "\n").contains { $0.contains(" all ") && $0.contains(" fresh_open_rate ") })
        #expect(
            result.output.split(separator: "\n").contains {
                $0.contains(" all ") && $0.contains(" staleness_mean_s ") && $0.hasSuffix("regression")
            })
    }

    /// Seeds 1 and 2 of one configuration are independent replications: Welch's test, and
    /// no regression, with and without devices.csv.
    @Test(arguments: [true, false])
    func independentReplicationsPass(perDevice: Bool) throws {
        let arguments = perDevice ? standard : standard.filter { $0 != "--per-device" }
        let b = report(arguments), c = report(arguments + ["--seed", "2"])
        let result = bgbench(["check", "--baseline", b, "--current", c])
        #expect(result.code == 0, "\(result.output)")
        #expect(result.errors == "")
        #expect(
            result.output.hasPrefix(
                "baseline '\(b)', current '\(c)': scenario default, policies adaptive,fixed, 200 devices × 7 days, seeds 1 and 2: independent replications, Welch t-tests\n"
            ))
        #expect(result.output.contains(" 0 regressions, "))
    }

    /// A folder of report folders is checked subfolder by subfolder.
    @Test func folderOfReportFolders() throws {
        let b = freshPath("set-b"), c = freshPath("set-c")
        for root in [b, c] {
            #expect(bgbench(standard + ["--out", root + "/default"]).code == 0)
            #expect(
                bgbench([
                    "--scenario", TestSupport.packageRoot.path + "/Datasets/scenarios/r1.json", "--policy",
                    "fixed,none",
                    "--days", "3", "--devices", "30", "--per-device", "--quiet", "--out", root + "/r1",
                ]).code == 0)
        }
        let result = bgbench(["check", "--exact", "--baseline", b, "--current", c])
        #expect(result.code == 0)
        #expect(result.output.split(separator: "\n").count == 2)
        let statistical = bgbench(["check", "--baseline", b, "--current", c])
        #expect(statistical.code == 0)
        #expect(statistical.output.contains("scenario r1, policies fixed,none, 30 devices × 3 days"))
        try FileManager.default.removeItem(atPath: c + "/r1")
        let missing = bgbench(["check", "--baseline", b, "--current", c])
        #expect(missing.code == 66)
        #expect(missing.errors == "error: current '\(c)' has no report folder 'r1', which the baseline has\n")
    }

    // MARK: Baselines that do not match

    struct Mismatch: Sendable, CustomTestStringConvertible {
        var current: [String]
        /// The mismatch phrase; `SHA` stands for the two hashes.
        var phrase: String
        var testDescription: String { phrase }
    }

    static let mismatches: [Mismatch] = [
        Mismatch(current: ["--devices", "100"], phrase: "devices 200 vs 100"),
        Mismatch(current: ["--days", "6"], phrase: "days 7 vs 6"),
        Mismatch(current: ["--warmup-days", "1"], phrase: "warmup_days 0 vs 1"),
        // The resolved scenario holds the run's policies' parameters, so its hash differs too.
        // The resolved scenario names the parameters that differ (issue 12 point 7).
        Mismatch(
            current: ["--policy", "adaptive"],
            phrase:
                #"configurations differ: policies.fixed.interval "15m" vs (none), policies adaptive,fixed vs adaptive"#),
        Mismatch(
            current: ["--set", "population.bar_off_share=0.2"],
            phrase: "configurations differ: population.bar_off_share 0.15 vs 0.2"),
        Mismatch(current: ["--devices", "100", "--days", "6"], phrase: "devices 200 vs 100, days 7 vs 6"),
    ]

    @Test(arguments: mismatches)
    func mismatchedBaselineIsRejected(_ m: Mismatch) throws {
        let b = report(standard)
        // Later options win: replace the standard ones the case names.
        var arguments = standard
        var i = 0
        while i < m.current.count {
            if let j = arguments.firstIndex(of: m.current[i]), m.current[i] != "--set" {
                arguments[j + 1] = m.current[i + 1]
            } else {
                arguments += [m.current[i], m.current[i + 1]]
            }
            i += 2
        }
        let c = report(arguments)
        let phrase = m.phrase.replacingOccurrences(
            of: "SHA",
            with:
                "\(try runField(b, "resolved_scenario_sha256").prefix(12)) vs \(try runField(c, "resolved_scenario_sha256").prefix(12))"
        )
        for mode in [[], ["--exact"]] {
            let result = bgbench(["check"] + mode + ["--baseline", b, "--current", c])
            #expect(result.code == 65)
            let expected =
                mode.isEmpty
                ? remedy : remedy.replacingOccurrences(of: "one configuration,", with: "one configuration and seed,")
            #expect(result.errors == "error: baseline '\(b)' does not match current '\(c)': \(phrase)\(expected)\n")
            #expect(result.output == "")
        }
    }

    @Test func otherSchemaVersionIsRejected() throws {
        let b = report(standard), c = report(standard)
        let v = ReportWriter.schemaVersion
        try write(
            read(c + "/run.json").replacingOccurrences(
                of: "\"schema_version\" : \(v),", with: "\"schema_version\" : \(v + 1),"), c + "/run.json")
        let result = bgbench(["check", "--baseline", b, "--current", c])
        #expect(result.code == 65)
        #expect(
            result.errors
                == "error: baseline '\(b)' does not match current '\(c)': schema_version \(v) vs \(v + 1)\(remedy)\n")
    }

    @Test func missingBaselinesAreErrors() throws {
        let c = report(standard)
        let nowhere = freshPath("nowhere")
        var result = bgbench(["check", "--baseline", nowhere, "--current", c])
        #expect(result.code == 66)
        #expect(result.errors == "error: cannot read baseline '\(nowhere)': no such file or folder\n")

        // A folder without run.json (an unfinished run).
        let unfinished = report(standard)
        try FileManager.default.removeItem(atPath: unfinished + "/run.json")
        result = bgbench(["check", "--baseline", unfinished, "--current", c])
        #expect(result.code == 66)
        #expect(result.errors == "error: no run.json in baseline '\(unfinished)': not a complete report folder\n")

        // Same seed but no devices.csv: the paired test cannot run.
        let lean = report(standard.filter { $0 != "--per-device" })
        result = bgbench(["check", "--baseline", lean, "--current", c])
        #expect(result.code == 66)
        #expect(
            result.errors
                == "error: baseline '\(lean)' has no devices.csv: runs with the same seed are compared device by device; make both with --per-device\n"
        )

        // --exact needs the same seed.
        let other = report(standard + ["--seed", "2"])
        result = bgbench(["check", "--exact", "--baseline", c, "--current", other])
        #expect(result.code == 65)
        #expect(
            result.errors
                == "error: baseline '\(c)' does not match current '\(other)': seed 1 vs 2; compare runs of one configuration and seed, compare two configurations with 'bgbench check --ab', or replace the baseline with 'bgbench check --update --accept-configuration'\n"
        )

        // A file in the folder names the folder.
        result = bgbench(["check", "--baseline", c + "/run.json", "--current", report(standard)])
        #expect(result.code == 0)
    }

    // MARK: --exact

    @Test func exactNamesTheFirstDifference() throws {
        let b = report(standard), c = report(standard)
        // run.json's execution, commit, version and GSL version do not count.
        var json = try read(c + "/run.json")
        for key in ["git_commit", "bgbench_version", "gsl"] {
            json = json.replacingOccurrences(
                of: "\"\(key)\" : \"\(try runField(c, key))\"", with: "\"\(key)\" : \"other\"")
        }
        try write(json, c + "/run.json")
        #expect(bgbench(["check", "--exact", "--baseline", b, "--current", c]).code == 0)

        // One number of summary.csv: row 2 is adaptive's `daily` archetype.
        let edit = try editCSV(c + "/summary.csv", row: 1, column: "fresh_open_rate", to: "0.5")
        let junit = freshPath("exact") + ".xml"
        var result = bgbench(["check", "--exact", "--baseline", b, "--current", c, "--junit", junit])
        #expect(result.code == 1)
        #expect(result.output == "'\(c)' differs from baseline '\(b)': summary.csv\n")
        #expect(
            result.errors
                == "error: '\(c)/summary.csv' differs from the baseline at line \(edit.line) (policy adaptive, archetype daily), column fresh_open_rate: baseline \(edit.old), current 0.5\n"
        )
        #expect(edit.line == 3)
        let xml = try JUnitReader.read(junit)
        // A test case per file: summary, daily, hourly, server, devices, paired, paired-archetypes, long,
        // scenario.json, run.json.
        #expect(xml.rootTests == 10 && xml.rootFailures == 1 && xml.failures == 1)

        // devices.csv and run.json too, each file's first difference on its own line.
        let device = try editCSV(c + "/devices.csv", row: 210, column: "runs", to: "1000")
        let events = try runField(c, "events")
        try write(
            read(c + "/run.json").replacingOccurrences(
                of: "\"events\" : \(events),", with: "\"events\" : \(Int(events)! + 1),"),
            c + "/run.json")
        result = bgbench(["check", "--exact", "--baseline", b, "--current", c])
        #expect(result.code == 1)
        #expect(result.output == "'\(c)' differs from baseline '\(b)': summary.csv, devices.csv, run.json\n")
        let archetype = try CSVTable(parsing: read(b + "/devices.csv")).rows[210][4]
        #expect(
            result.errors == """
                error: '\(c)/summary.csv' differs from the baseline at line 3 (policy adaptive, archetype daily), column fresh_open_rate: baseline \(edit.old), current 0.5
                error: '\(c)/devices.csv' differs from the baseline at line \(device.line) (policy fixed, archetype \(archetype), device 10), column runs: baseline \(device.old), current 1000
                error: '\(c)/run.json' differs from the baseline at events: baseline \(events), current \(Int(events)! + 1)

                """)
    }

    @Test func exactNeedsTheBaselinesFiles() throws {
        // Two policies: paired.csv in both (by default); events.csv only in the baseline.
        let b = report(standard + ["--trace-devices", "1"]), c = report(standard)
        let result = bgbench(["check", "--exact", "--baseline", b, "--current", c])
        #expect(result.code == 1)
        #expect(result.errors == "error: '\(c)/events.csv' is missing: the baseline has events.csv\n")
        // The other way round, the current run's extra file is a difference too.
        let reverse = bgbench(["check", "--exact", "--baseline", c, "--current", b])
        #expect(reverse.code == 1)
        #expect(reverse.output == "'\(b)' differs from baseline '\(c)': events.csv\n")
        #expect(reverse.errors == "error: '\(b)/events.csv' is not in the baseline: '\(c)' has no events.csv\n")
    }

    /// Every file of the folder counts, byte for byte: server.csv, scenario.json, events.csv
    /// and replications.csv too (main compared only summary, devices, daily, hourly and
    /// paired), and a CSV file written differently with the same fields.
    @Test func exactComparesEveryFile() throws {
        let arguments = standard + ["--trace-devices", "2", "--replications", "2"]
        let b = report(arguments), c = report(arguments)
        var result = bgbench(["check", "--exact", "--baseline", b, "--current", c])
        #expect(result.code == 0)
        #expect(
            result.output
                == "'\(c)' is identical to baseline '\(b)': summary.csv, daily.csv, hourly.csv, server.csv, devices.csv, events.csv, paired.csv, paired-archetypes.csv, replications.csv, long.csv, scenario.json, run.json (run.json without bgbench_version, execution, git_commit, gsl, manifest)\n"
        )

        // One number in each of server.csv, events.csv and replications.csv.
        let server = try editCSV(c + "/server.csv", row: 5, column: "requests_peak", to: "999")
        let event = try editCSV(c + "/events.csv", row: 3, column: "value", to: "-12345")
        let replication = try editCSV(c + "/replications.csv", row: 0, column: "mean", to: "7")
        // scenario.json: one value on its line.
        let scenario = try read(c + "/scenario.json")
        let lines = scenario.split(separator: "\n", omittingEmptySubsequences: false)
        let n = try #require(lines.firstIndex { $0.contains("\"bar_off_share\"") })
        try write(
            scenario.replacingOccurrences(
                of: String(lines[n]), with: lines[n].replacingOccurrences(of: ": 0.", with: ": 1.")),
            c + "/scenario.json")
        try reseal(c + "/scenario.json")
        result = bgbench(["check", "--exact", "--baseline", b, "--current", c])
        #expect(result.code == 1)
        #expect(
            result.output
                == "'\(c)' differs from baseline '\(b)': server.csv, events.csv, replications.csv, scenario.json\n")
        let serverTable = try CSVTable(parsing: read(b + "/server.csv")),
            eventTable = try CSVTable(parsing: read(b + "/events.csv"))
        let replicationTable = try CSVTable(parsing: read(b + "/replications.csv"))
        func field(_ t: CSVTable, _ row: Int, _ column: String) -> String { t.rows[row][t.index(of: column)!] }
        let oldLine = lines[n].trimmingCharacters(in: .whitespaces)
        #expect(
            result.errors == """
                error: '\(c)/server.csv' differs from the baseline at line \(server.line) (policy adaptive, minute \(field(serverTable, 5, "minute"))), column requests_peak: baseline \(server.old), current 999
                error: '\(c)/events.csv' differs from the baseline at line \(event.line) (policy \(field(eventTable, 3, "policy")), device \(field(eventTable, 3, "device")), day \(field(eventTable, 3, "day")), time_s \(field(eventTable, 3, "time_s")), event \(field(eventTable, 3, "event"))), column value: baseline \(event.old.isEmpty ? "(empty)" : event.old), current -12345
                error: '\(c)/replications.csv' differs from the baseline at line 2 (policy \(field(replicationTable, 0, "policy")), baseline \(field(replicationTable, 0, "baseline")), metric \(field(replicationTable, 0, "metric")), archetype all), column mean: baseline \(replication.old), current 7
                error: '\(c)/scenario.json' differs from the baseline at line \(n + 1): baseline '\(oldLine)', current '\(oldLine.replacingOccurrences(of: ": 0.", with: ": 1."))'

                """)

        // The same fields written with other line ends: still a difference, at its byte.
        let d = report(arguments)
        try write(read(d + "/daily.csv").replacingOccurrences(of: "\n", with: "\r\n"), d + "/daily.csv")
        try reseal(d + "/daily.csv")
        result = bgbench(["check", "--exact", "--baseline", b, "--current", d])
        #expect(result.code == 1)
        let headerBytes = try read(b + "/daily.csv").split(separator: "\n")[0].utf8.count
        #expect(
            result.errors
                == "error: '\(d)/daily.csv' differs from the baseline at line 1, byte \(headerBytes + 1): the same text, written with other spaces or line ends\n"
        )

        // A file only the current folder has, and one only the baseline has.
        let e = report(arguments)
        try unlist(e + "/events.csv")
        result = bgbench(["check", "--exact", "--baseline", e, "--current", b])
        #expect(result.code == 1)
        #expect(result.errors == "error: '\(b)/events.csv' is not in the baseline: '\(e)' has no events.csv\n")
        result = bgbench(["check", "--exact", "--baseline", b, "--current", e])
        #expect(result.errors == "error: '\(e)/events.csv' is missing: the baseline has events.csv\n")
    }

    // MARK: Issue 12: a check that explains itself

    /// The planted change of issue 12 (`--set policies.adaptive.habit_lift=4`): check names
    /// the parameter by JSON path with both values, one phrase per differing parameter.
    @Test func configurationMismatchNamesEveryParameter() throws {
        let b = report(standard)
        let c = report(standard + ["--set", "policies.adaptive.habit_lift=4", "--set", "population.bar_off_share=0.3"])
        let result = bgbench(["check", "--baseline", b, "--current", c])
        #expect(result.code == 65)
        #expect(result.output == "")
        #expect(
            result.errors == "error: baseline '\(b)' does not match current '\(c)': configurations differ: "
                + "policies.adaptive.habit_lift 2 vs 4, population.bar_off_share 0.15 vs 0.3\(remedy)\n")
        // Without scenario.json (a folder that never had one: the file and its manifest
        // entry gone), run.json's scenario object is compared.
        for folder in [b, c] { try unlist(folder + "/scenario.json") }
        let fallback = bgbench(["check", "--baseline", b, "--current", c])
        #expect(fallback.code == 65)
        #expect(
            fallback.errors.contains("configurations differ: ") && fallback.errors.contains("habit_lift 2 vs 4")
                && fallback.errors.contains("bar_off_share 0.15 vs 0.3"), "\(fallback.errors)")
    }

    /// `--update` refuses a run of another configuration (exit 65, naming the parameter and
    /// the flag) and leaves the baseline as it was; `--accept-configuration` lets it through.
    @Test func updateRefusesAnotherConfiguration() throws {
        let b = report(standard), c = report(standard + ["--set", "policies.adaptive.habit_lift=4"])
        let before = try read(b + "/summary.csv")
        let refused = bgbench(["check", "--update", "--baseline", b, "--current", c])
        #expect(refused.code == 65)
        #expect(refused.output == "")
        #expect(
            refused.errors == "error: '\(c)' is another configuration than baseline '\(b)': configurations differ: "
                + "policies.adaptive.habit_lift 2 vs 4; add --accept-configuration to --update if the change is meant\n"
        )
        #expect(try read(b + "/summary.csv") == before)
        let accepted = bgbench(["check", "--update", "--accept-configuration", "--baseline", b, "--current", c])
        #expect(accepted.code == 0, "\(accepted.errors)")
        #expect(bgbench(["check", "--exact", "--baseline", b, "--current", c]).code == 0)
        let alone = bgbench(["check", "--accept-configuration", "--baseline", b, "--current", c])
        #expect(alone.code == 64)
        #expect(alone.errors.hasPrefix("error: '--accept-configuration' goes with '--update'"))
    }

    /// `--ab`: two configurations on the same users, paired, with intervals and no verdict.
    @Test func abComparesTwoConfigurations() throws {
        let a = report(standard), b = report(standard + ["--set", "population.bar_off_share=0.4"])
        let result = bgbench(["check", "--ab", "--baseline", a, "--current", b])
        #expect(result.code == 0, "\(result.errors)")
        #expect(result.errors == "")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(
            lines[0]
                == "A/B: A '\(a)', B '\(b)': adaptive,fixed, 200 devices × 7 days, seed 1 in both: paired, device by device; no verdict"
        )
        #expect(lines[1] == "configurations differ: population.bar_off_share 0.15 vs 0.4")
        #expect(
            lines[2].split(separator: " ") == [
                "scenario", "policy", "archetype", "metric", "A", "B", "B", "-", "A", "95", "%",
                "interval", "change", "%", "p",
            ])
        #expect(!result.output.contains("regression") && !result.output.contains("improvement"))
        #expect(lines.last!.contains(" of \(SummarySchema.metrics.count * 2 * 5) metrics differ ("))
        #expect(lines.last!.hasSuffix(" the same); intervals: paired t, 95 %, not corrected for multiple comparisons"))
        // The fleet's fresh-open rate falls with more users without BAR: B − A and its
        // interval, below zero, agree with the two summaries.
        let fields = try #require(
            lines.map { $0.split(separator: " ").map(String.init) }
                .first { $0.prefix(4) == ["default", "adaptive", "all", "fresh_open_rate"] })
        let (va, vb, d) = (
            try #require(Double(fields[4])), try #require(Double(fields[5])), try #require(Double(fields[6]))
        )
        #expect(abs((vb - va) - d) < 1e-5)
        let low = try #require(Double(fields[7].dropFirst().dropLast())),
            high = try #require(Double(fields[8].dropLast()))
        #expect(low < d && d < high && high < 0)

        // The library's interval is the paired test's: p < 0.05 exactly when 0 is outside.
        let differences = try RunComparison.abDifferences(
            baseline: ReportFolder(path: a, role: "baseline"),
            current: ReportFolder(path: b, role: "current"))
        for x in differences {
            guard let i = x.interval, let p = x.pValue, abs(p - 0.05) > 1e-9 else { continue }
            #expect((i.low > 0 || i.high < 0) == (p < 0.05), "\(x.policy) \(x.archetype) \(x.metric)")
        }

        // Bad input: another seed (not the same users), a folder without devices.csv.
        let other = report(standard + ["--seed", "2"])
        let seed = bgbench(["check", "--ab", "--baseline", a, "--current", other])
        #expect(seed.code == 65)
        #expect(
            seed.errors
                == "error: '\(a)' and '\(other)' are not runs of the same users: seed 1 vs 2; --ab needs the same seed, policies, devices, days, warm-up and trace\n"
        )
        let lean = report(standard.filter { $0 != "--per-device" })
        let missing = bgbench(["check", "--ab", "--baseline", lean, "--current", b])
        #expect(missing.code == 66)
        #expect(
            missing.errors
                == "error: baseline '\(lean)' has no devices.csv: --ab compares device by device; make both with --per-device\n"
        )
        #expect(bgbench(["check", "--ab", "--update", "--baseline", a, "--current", b]).code == 64)
        // The same configuration twice: nothing differs.
        let same = bgbench(["check", "--ab", "--baseline", a, "--current", report(standard)])
        #expect(same.code == 0)
        #expect(same.output.contains("\nconfigurations: the same parameters\nno metric differs\n"))
    }

    /// Issue 12, seen item 8: denials that follow the requests and Wi-Fi bytes are neutral,
    /// never a regression or an improvement; a large change not significant after Holm
    /// says so.
    @Test func verdictsOfRequestCountsAndWifiBytes() throws {
        let b = report(standard), c = report(standard + ["--set", "population.bar_off_share=0.4"])
        let shaB = try runField(b, "resolved_scenario_sha256"), shaC = try runField(c, "resolved_scenario_sha256")
        try write(read(c + "/run.json").replacingOccurrences(of: shaC, with: shaB), c + "/run.json")
        try keepParameters(b, c)
        let result = bgbench(["check", "--baseline", b, "--current", c])
        let lines = result.output.split(separator: "\n").map(String.init)
        let judged = lines.filter { $0.contains(" denied_") || $0.contains(" wifi_bytes_per_day ") }
        #expect(judged.contains { $0.contains(" denied_bar_off_per_day ") }, "the planted change moves bar_off denials")
        for line in judged { #expect(line.hasSuffix("  neutral"), "\(line)") }
        // The table lists what moved beyond tolerance: nothing there reads "unchanged"; a
        // tested move that Holm does not confirm reads "not significant after Holm".
        #expect(!lines.contains { $0.hasSuffix("  unchanged") })
        #expect(lines.contains { $0.hasSuffix("  not significant after Holm") })
        #expect(lines.last?.contains(" not significant after Holm, ") == true)
    }

    // MARK: --update

    @Test func updateReplacesTheBaseline() throws {
        let b = report(standard + ["--trace-devices", "1"]), c = report(standard + ["--seed", "2"])
        let result = bgbench(["check", "--update", "--baseline", b, "--current", c])
        #expect(result.code == 0)
        #expect(result.errors == "")
        #expect(
            result.output
                == "updated baseline '\(b)' from '\(c)': copied summary.csv, daily.csv, hourly.csv, server.csv, devices.csv, paired.csv, paired-archetypes.csv, long.csv, scenario.json, run.json; removed events.csv\n"
        )
        for name in ReportFolder.reportFiles
        where name != "events.csv" && FileManager.default.fileExists(atPath: c + "/" + name) {
            #expect(try read(b + "/" + name) == read(c + "/" + name), "\(name) not copied")
        }
        #expect(!FileManager.default.fileExists(atPath: b + "/events.csv"))
        #expect(bgbench(["check", "--exact", "--baseline", b, "--current", c]).code == 0)

        // A new baseline folder is created.
        let fresh = freshPath("new-baseline")
        #expect(bgbench(["check", "--update", "--baseline", fresh, "--current", c]).code == 0)
        #expect(bgbench(["check", "--exact", "--baseline", fresh, "--current", c]).code == 0)
    }

    // MARK: Usage

    static let usageErrors: [(arguments: [String], message: String)] = [
        (["check"], "missing option '--baseline' for 'check': expected a report folder"),
        (["check", "--baseline", "b"], "missing option '--current' for 'check': expected a report folder"),
        (["check", "--baseline"], "missing value for '--baseline': expected a report folder"),
        (
            ["check", "--baseline", "b", "--current", "c", "extra"],
            "unexpected argument 'extra': 'check' takes only options"
        ),
        (
            ["check", "--baseline", "b", "--current", "c", "--tolerance", "fresh_open_rate"],
            "invalid value 'fresh_open_rate' for '--tolerance': expected METRIC=PCT, e.g. fresh_open_rate=2"
        ),
        (
            ["check", "--baseline", "b", "--current", "c", "--tolerance", "fresh_open_rat=2"],
            "unknown metric 'fresh_open_rat' for '--tolerance': expected a metric column of summary.csv (did you mean 'fresh_open_rate'?)"
        ),
        (
            ["check", "--baseline", "b", "--current", "c", "--tolerance", "fresh_open_rate=-1"],
            "invalid value 'fresh_open_rate=-1' for '--tolerance': expected a percentage of 0 or more after '='"
        ),
        (
            [
                "check", "--baseline", "b", "--current", "c", "--tolerance", "age_mean_s=2", "--tolerance",
                "age_mean_s=3",
            ],
            "'--tolerance' given twice for age_mean_s"
        ),
        (
            ["check", "--baseline", "b", "--current", "c", "--update", "--exact"],
            "'--update' cannot be combined with '--exact'"
        ),
        (
            ["check", "--baseline", "b", "--current", "c", "--update", "--junit", "j.xml"],
            "'--update' cannot be combined with '--junit'"
        ),
        (
            ["check", "--baseline", "b", "--current", "c", "--exact", "--tolerance", "age_mean_s=2"],
            "'--exact' cannot be combined with '--tolerance'"
        ),
        (["check", "--baseline", "b", "--current", "c", "--exact=yes"], "'--exact' takes no value"),
        (["check", "--baseline", "b", "--current", "c", "--baseline", "d"], "'--baseline' given twice"),
        (["check", "--basline", "b"], "unknown option '--basline' for 'check' (did you mean '--baseline'?)"),
        (["bench", "--baseline"], "missing value for '--baseline': expected a bench CSV file"),
        (["bench", "--csv"], "missing value for '--csv': expected a file"),
    ]

    @Test(arguments: usageErrors.indices)
    func usageError(_ i: Int) {
        let (arguments, message) = Self.usageErrors[i]
        let result = bgbench(arguments)
        #expect(result.code == 64)
        #expect(result.errors == "error: \(message)\nsee 'bgbench --help'\n")
        #expect(result.output == "")
    }

    @Test func sameFolderIsAUsageError() {
        let b = report(standard)
        let result = bgbench(["check", "--baseline", b, "--current", b + "/"])
        #expect(result.code == 64)
        #expect(result.errors == "error: '--baseline' and '--current' name the same folder\nsee 'bgbench --help'\n")
    }

    @Test func toleranceAcceptsAPercentSign() throws {
        #expect(try Command.parseTolerance("fresh_open_rate=2.5%") == ("fresh_open_rate", 2.5))
        #expect(try Command.parseTolerance("killed_per_day=0") == ("killed_per_day", 0))
    }

    // MARK: The statistics

    /// Every metric of summary.csv has a direction, and its per-device source is a column
    /// of devices.csv; only the two quantiles have none.
    @Test func directionTableCoversTheSchema() {
        let names = CheckMetrics.table.map(\.name)
        #expect(names == SummarySchema.metrics.map(\.name))
        for m in CheckMetrics.table {
            switch m.source {
            case .perOpen(let column), .perDevice(let column):
                #expect(SeriesReports.devicesHeader.contains(column), "\(m.name): no column \(column) in devices.csv")
            case .quantile:
                #expect(["staleness_median_s", "staleness_p95_s"].contains(m.name))
            }
            #expect(m.tolerancePercent == 1)
        }
        #expect(CheckMetrics.named("fresh_open_rate")?.direction == .higherIsBetter)
        #expect(
            CheckMetrics.table.filter { $0.direction == .higherIsBetter }.map(\.name)
                == ["fresh_open_rate", "server_on_time_rate", "processing_on_time_rate"])
        #expect(
            Set(CheckMetrics.table.filter { $0.direction == .neutral }.map(\.name))
                == Set<String>([
                    "opens_per_day", "requested_per_day", "runs_per_day", "replaced_per_day",
                    "pending_at_horizon_per_day",
                    "new_data_per_day", "no_data_per_day", "push_sent_per_day", "push_runs_per_day",
                    "transfers_per_day", "processing_completed_per_day",
                    // Issue 12: denials follow the requests; Wi-Fi bytes cost the user nothing.
                    "denied_per_day", "wifi_bytes_per_day",
                    // Issue 12 point 9: time in Low Power Mode is the user's and battery's state.
                    "low_power_s_per_day",
                ])
                .union(DenialReason.allCases.map { "denied_\($0.label)_per_day" }))
    }

    /// The paired test's standard error is paired.csv's, device by device: comparing policy
    /// `fixed` (as the baseline) with `adaptive` (as the current run) over the same users
    /// gives the p-value of paired.csv's difference and interval, for every metric there.
    @Test func pairedTestAgreesWithPairedCSV() throws {
        let folder = report([
            "--policy", "adaptive,fixed", "--days", "5", "--devices", "150", "--baseline-policy", "fixed",
            "--per-device", "--quiet",
        ])
        let devices = try CSVTable(parsing: read(folder + "/devices.csv"))
        func only(_ policy: String) throws -> DeviceTable {
            var t = devices
            t.rows = devices.rows.filter { $0[1] == policy }.map {
                var r = $0; r[1] = "x"; return r
            }
            t.lines = Array(repeating: 0, count: t.rows.count)
            return try DeviceTable(t, path: policy)
        }
        let fixed = try only("fixed"), adaptive = try only("adaptive")
        let paired = try CSVTable(parsing: read(folder + "/paired.csv"))
        #expect(paired.rows.count == MetricTable.pairedMetrics.count)
        // Means and ratios over opens (check's paired test covers these; a share and the
        // per-server-job metrics, empty without server jobs, are compared elsewhere).
        let tested = Set(
            MetricTable.pairedMetrics.filter { $0.denominator != .resolved(missed: .processingMissed) }
                .filter { if case .perServerJob = $0.metric.kind { false } else { true } }.map(\.metric.name))
        for row in paired.rows where tested.contains(row[4]) {
            let metric = row[4], n = Double(row[5])!
            let difference = Double(row[8])!, low = Double(row[9])!, high = Double(row[10])!
            let se = (high - low) / 2 / Distribution.studentTQuantile(0.975, degreesOfFreedom: n - 1)
            guard se > 0 else {
                #expect(
                    try RunComparison.pairedP(
                        fixed, adaptive, policy: "x", archetype: "all",
                        source: CheckMetrics.named(metric)!.source) == (difference == 0 ? 1 : 0))
                continue
            }
            let expected = 2 * Distribution.studentTUpperTail(abs(difference) / se, degreesOfFreedom: n - 1)
            let p = try #require(
                try RunComparison.pairedP(
                    fixed, adaptive, policy: "x", archetype: "all",
                    source: CheckMetrics.named(metric)!.source))
            #expect(abs(p - expected) <= 1e-9 + 1e-6 * expected, "\(metric): \(p) vs \(expected)")
        }
    }

    /// A plain paired t-test: device totals 0 in the baseline, 1, 2, 3, 4, 6 now; t = 3.72
    /// with 4 degrees of freedom, p = 0.020476 (by numerical integration of t's density).
    @Test func pairedTestByHand() throws {
        func table(_ runs: [Int]) throws -> DeviceTable {
            let text =
                "scenario,policy,device,archetype,opens,runs\n"
                + runs.enumerated().map { "s,p,\($0.offset),a,1,\($0.element)\n" }.joined()
            return try DeviceTable(CSVTable(parsing: text), path: "t")
        }
        let p = try #require(
            try RunComparison.pairedP(
                table([0, 0, 0, 0, 0]), table([1, 2, 3, 4, 6]), policy: "p",
                archetype: "all", source: .perDevice("runs")))
        #expect(abs(p - 0.0204758744) < 1e-6)
        // No change, no spread: p = 1.
        #expect(
            try RunComparison.pairedP(
                table([1, 2]), table([1, 2]), policy: "p", archetype: "all", source: .perDevice("runs")) == 1)
    }

    /// Welch: difference 1, standard errors 0.3 (9 dof) and 0.4 (19 dof): Welch–Satterthwaite
    /// 27.81 dof, p = 0.055353 (by numerical integration).
    @Test func welchByHand() throws {
        let p = try #require(RunComparison.welchP(difference: 1, (0.3, 9), (0.4, 19)))
        #expect(abs(p - 0.0553528403) < 1e-6)
        #expect(RunComparison.welchP(difference: 0, (0, 9), (0, 9)) == 1)
    }

    /// Holm's step-down: the k-th smallest p-value is compared with α/(m − k + 1), and the
    /// first that fails stops the rest. Neutral metrics are outside the family.
    @Test func holmStepDown() {
        func comparisons(_ ps: [Double]) -> [MetricComparison] {
            ps.map { p in
                var m = MetricComparison(
                    scenario: "s", policy: "p", archetype: "all", metric: "fresh_open_rate",
                    direction: .higherIsBetter, baseline: 1, current: 0.5, tolerancePercent: 1)
                m.pValue = p
                return m
            }
        }
        var all = comparisons([0.04, 0.001, 0.02, 0.01])
        #expect(RunComparison.decide(&all) == 4)
        #expect(all.map(\.verdict) == [.regression, .regression, .regression, .regression])
        var some = comparisons([0.04, 0.001, 0.03, 0.02])
        RunComparison.decide(&some)
        // Beyond tolerance (−50 %) but not significant after Holm: said so, not "unchanged"
        // (issue 12, seen item 8).
        #expect(some.map(\.verdict) == [.notSignificant, .regression, .notSignificant, .notSignificant])
        #expect(Verdict.notSignificant.rawValue == "not significant after Holm")
        var mixed = comparisons([0.001, 0.001])
        mixed[1].direction = .neutral
        mixed.append(
            MetricComparison(
                scenario: "s", policy: "p", archetype: "all", metric: "staleness_p95_s",
                direction: .lowerIsBetter, baseline: 1, current: 2, tolerancePercent: 1))
        mixed.append(
            MetricComparison(
                scenario: "s", policy: "p", archetype: "all", metric: "age_mean_s",
                direction: .lowerIsBetter, baseline: 100, current: 100.5, tolerancePercent: 1))
        #expect(RunComparison.decide(&mixed) == 1)
        #expect(mixed.map(\.verdict) == [.regression, .neutral, .untested, .unchanged])
        // Better beyond tolerance and significant: an improvement.
        var better = comparisons([0.001])
        better[0].current = 2
        RunComparison.decide(&better)
        #expect(better[0].verdict == .improvement)
    }

    @Test func changePercent() {
        var m = MetricComparison(
            scenario: "s", policy: "p", archetype: "all", metric: "killed_per_day",
            direction: .lowerIsBetter, baseline: 0, current: 0, tolerancePercent: 1)
        #expect(m.changePercent == 0 && !m.beyondTolerance)
        m.current = 0.1
        #expect(m.changePercent == .infinity && m.beyondTolerance && m.worse)
        m.baseline = -2; m.current = -1
        #expect(m.changePercent == 50)
        m.current = nil
        #expect(m.changePercent == nil && m.beyondTolerance)
        m.baseline = nil
        #expect(!m.beyondTolerance)
    }

    // MARK: Files

    @Test func csvParserFollowsRFC4180() throws {
        let t = try CSVTable(parsing: "a,b,c\r\n1,\"x,y\",\"he said \"\"hi\"\"\"\n2,\"two\nlines\",\n3,,\"\"")
        #expect(t.header == ["a", "b", "c"])
        #expect(t.rows == [["1", "x,y", "he said \"hi\""], ["2", "two\nlines", ""], ["3", "", ""]])
        #expect(t.lines == [2, 3, 5])
        // What CSVWriter writes reads back.
        let fields = ["plain", "com,ma", "quo\"te", "line\nbreak", "cr\r\nlf", "", "é ünicode"]
        var csv = CSVWriter("")
        csv.row(fields.indices.map { "c\($0)" })
        csv.row(fields)
        #expect(try CSVTable(parsing: csv.output).rows == [fields])

        for (text, line, message) in [
            ("a,b\n1\n", 2, "1 fields where the header has 2"),
            ("a\n\"open\n", 2, "a quoted field is not closed"),
            ("a\nx\"y\n", 2, "a quote inside an unquoted field"),
            ("a\n\"x\"y\n", 2, "text after a closing quote"),
            ("", 1, "no header"),
            ("\n\n", 1, "no header"),
        ] {
            #expect(throws: CSVParseError(line: line, message: message)) { try CSVTable(parsing: text) }
        }
    }

    /// The one reader behind CSVTable, traces and LSApp logs: CR, LF and CRLF line ends, a
    /// byte order mark, empty lines skipped, byte columns of fields.
    @Test func csvReaderDialects() throws {
        let t = try CSVTable(parsing: "\u{FEFF}a,b\r1,2\r\n\n3,\"x\ry\"\n")
        #expect(t.header == ["a", "b"])
        #expect(t.rows == [["1", "2"], ["3", "x\ry"]])
        #expect(t.lines == [2, 4])
        var records: [(Int, [String], [Int])] = [], failures: [CSVReader.Failure] = []
        CSVReader(bytes: Array("a\tb \"c\"\n\n\"d\te\"\tf\n\"open\tg\nh\"x\"\ti\n".utf8), dialect: .tabSeparatedLines)
            .forEachRecord({ records.append(($0, $1.map(\.text), $1.map(\.column))) }, failure: { failures.append($0) })
        #expect(records.map(\.0) == [1, 3, 5])
        #expect(records.map(\.1) == [["a", "b \"c\""], ["d\te", "f"], ["h\"x\"", "i"]])
        #expect(records.map(\.2) == [[1, 3], [1, 7], [1, 6]])
        #expect(
            failures.map { "\($0.line):\($0.column): \($0.message)" } == [
                "4:1: a quoted field is not closed on its line"
            ])
    }

    /// Scenario names may hold any character: the JUnit file still parses and keeps them.
    @Test func junitEscapesNames() throws {
        let name = "a<b>&\"c\",'d'"
        let arguments = standard + ["--set", "name=\(name)"]
        let b = report(arguments), c = report(arguments)
        let junit = freshPath("escape") + ".xml"
        let result = bgbench(["check", "--baseline", b, "--current", c, "--junit", junit])
        #expect(result.code == 0)
        let xml = try JUnitReader.read(junit)
        #expect(xml.rootFailures == 0 && xml.failures == 0)
        #expect(xml.cases.contains { $0.classname == "\(name).fixed.heavy" && $0.name == "killed_per_day" })
        #expect(JUnitReport.escape("a\u{1}b\tc") == "a\u{FFFD}b&#9;c")
    }

    @Test func junitCannotBeWritten() {
        let b = report(standard), c = report(standard)
        let junit = freshPath("no-folder") + "/j.xml"
        let result = bgbench(["check", "--baseline", b, "--current", c, "--junit", junit])
        #expect(result.code == 73)
        #expect(result.errors == "error: cannot write '\(junit)': No such file or directory\n")
    }

    // MARK: bench --baseline

    private static func benchCSV(_ rows: [(String, Int, Double, Int)]) -> String {
        "workload,device_days,median_s,device_days_per_s,events_per_s,ns_per_event,peak_mb,threads\n"
            + rows.map { "\($0.0),\($0.1),1.000,\($0.2),1000,30.0,28.0,\($0.3)\n" }.joined()
    }

    /// Slower means below 85 % of the baseline's median rate; 85 % itself is not slower.
    /// Rows are matched by workload and threads; another size or thread count is not compared.
    @Test func benchSlowdownRule() throws {
        let baseline = try BenchBaseline.parse(
            Self.benchCSV([
                ("a", 100, 1000, 2), ("b", 100, 1000, 2), ("c", 100, 1000, 2), ("d", 100, 1000, 2), ("e", 100, 1000, 2),
                ("gone", 100, 1000, 2),
            ]), path: "base.csv")
        let current = try BenchBaseline.parse(
            Self.benchCSV([
                ("a", 100, 849, 2), ("b", 100, 850, 2), ("c", 100, 1200, 2), ("d", 100, 500, 1), ("e", 10, 500, 2),
                ("new", 100, 1, 2),
            ]), path: "now.csv")
        let lines = BenchBaseline.compare(baseline: baseline, current: current)
        #expect(lines.map(\.workload) == ["a", "b", "c", "d", "e", "new", "gone"])
        #expect(
            lines.map(\.verdict) == [.slower, .same, .faster, .notCompared, .notCompared, .notCompared, .notCompared])
        #expect(
            lines.map(\.note) == [
                "", "", "", "threads 2 vs 1", "device-days 100 vs 10", "not in the baseline", "not run now",
            ])
        #expect(
            throws: CLIError(
                message: "slower than the baseline: a on 2 threads at 0.849 × its device-days/s (threshold 0.85)",
                code: 1, hint: false)
        ) {
            try BenchBaseline.verdict(lines, path: "base.csv")
        }
        #expect(throws: Never.self) { try BenchBaseline.verdict(Array(lines.dropFirst()), path: "base.csv") }
        #expect(
            throws: CLIError(
                message:
                    "no workload of bench baseline 'base.csv' matches this run (same workload, threads and device-days)",
                code: 65, hint: false)
        ) {
            try BenchBaseline.verdict(Array(lines.dropFirst(3)), path: "base.csv")
        }
        #expect(
            throws: CLIError(
                message: "'x.csv' is not a bench CSV: it has no column device_days_per_s", code: 65, hint: false)
        ) {
            try BenchBaseline.parse("workload,device_days\nr1,5\n", path: "x.csv")
        }
        // The file as bench prints it, recorded in Benchmarks/, reads back.
        let recorded = try BenchBaseline.load(TestSupport.packageRoot.path + "/Benchmarks/results-2026-11-29.csv")
        #expect(recorded.map(\.workload) == ["r1/fixed", "default/fixed", "default/adaptive", "default/nhpp"])
        #expect(
            throws: CLIError(
                message: "cannot read bench baseline '/nonexistent.csv': no such file", code: 66, hint: false)
        ) {
            try BenchBaseline.load("/nonexistent.csv")
        }
    }
}
