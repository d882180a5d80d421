import Foundation
import Testing
@testable import BGBench
@testable import BGHarness
@testable import BGBenchCLI
import BGBenchTestSupport

/// A sweep point is a full run (issue 12, point 1): every run option, every report file
/// with a column per swept parameter, long.csv, run.json with a manifest `check` verifies;
/// and the Pareto column within one world (point 2). Part of SweepTests.
extension SweepTests {
    func temporary(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("bgbench-\(name)-\(UUID().uuidString)").path
    }

    func read(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    /// Issue 12's command, with the run options it named, on a small fleet.
    static let issueCommand = [
        "sweep", "--policy", "fixed,adaptive", "--set", "population.bar_off_share=0,0.5",
        "--replications", "2", "--baseline-policy", "fixed", "--per-device", "--trace-devices", "2",
        "--devices", "12", "--days", "2",
    ]
    static let reportCSVs = [
        "summary.csv", "daily.csv", "hourly.csv", "server.csv", "devices.csv", "events.csv",
        "paired.csv", "paired-archetypes.csv", "replications.csv",
    ]

    @Test func everyRunOptionWorksAndEveryFileHasTheAxisColumn() throws {
        let out = temporary("sweep"), again = temporary("sweep-again")
        defer { for f in [out, again] { try? FileManager.default.removeItem(atPath: f) } }
        let result = bgbench(Self.issueCommand + ["--out", out])
        #expect(result.code == 0, "\(result.errors)")
        let files = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        #expect(
            files
                == (Self.reportCSVs + [
                    "long.csv", "pareto-pairs.csv", "run.json", "scenario-1.json", "scenario-2.json",
                ])
                .sorted())
        for name in Self.reportCSVs + ["long.csv"] {
            let table = try CSVTable(parsing: read(out + "/" + name))
            #expect(table.header.first == "population.bar_off_share", "\(name)")
            #expect(Set(table.rows.map { $0[0] }) == ["0", "0.5"], "\(name)")
        }
        // run.json: the sweep's axes and points, each point's hash that of its scenario file.
        let run = try JSONParser.parse(read(out + "/run.json")).root.object!
        let sweep = run["sweep"]!.object!
        #expect(sweep["axes"]!.array!.map { $0.object!["kind"]! } == [.string("environment")])
        let points = sweep["points"]!.array!.map { $0.object! }
        #expect(points.map { $0["values"]! } == [.array([.string("0")]), .array([.string("0.5")])])
        let one = try ScenarioLoader.load(
            json: ScenarioLoader.builtInDefault().resolvedJSON, file: "(built-in default)",
            overrides: ["population.bar_off_share=0.5"])
        #expect(points[1]["resolved_scenario_sha256"] == .string(one.resolvedSha256(policies: ["fixed", "adaptive"])))
        #expect(run["replications"]?.text == "2" && run["seed"]?.text == "1")
        // The manifest verifies (ReportFolder reads only a folder whose files match it) and
        // `check --exact` compares two sweep folders file by file: the same on one thread.
        let folder = try ReportFolder(path: out, role: "current")
        #expect(folder.isSweep && folder.sweepAxes == ["population.bar_off_share"])
        #expect(bgbench(Self.issueCommand + ["--threads", "1", "--out", again]).code == 0)
        let exact = bgbench(["check", "--exact", "--baseline", out, "--current", again])
        #expect(exact.code == 0, "\(exact.errors)")
        #expect(
            exact.output
                == "'\(again)' is identical to baseline '\(out)': summary.csv, daily.csv, hourly.csv, server.csv, "
                + "devices.csv, events.csv, paired.csv, paired-archetypes.csv, replications.csv, pareto-pairs.csv, long.csv, "
                + "scenario-1.json, scenario-2.json, run.json "
                + "(run.json without bgbench_version, execution, git_commit, gsl, manifest)\n")
        // A sweep's own files are compared too: long.csv changed (with its manifest entry).
        let long = try read(again + "/long.csv"),
            edited = long.replacingOccurrences(of: ",all,opens_per_day,,", with: ",all,opens_per_day,,9")
        try edited.write(toFile: again + "/long.csv", atomically: true, encoding: .utf8)
        let runText = try read(again + "/run.json")
            .replacingOccurrences(of: SHA256.hex(Array(long.utf8)), with: SHA256.hex(Array(edited.utf8)))
            .replacingOccurrences(of: "\"bytes\" : \(long.utf8.count),", with: "\"bytes\" : \(edited.utf8.count),")
        try runText.write(toFile: again + "/run.json", atomically: true, encoding: .utf8)
        let differs = bgbench(["check", "--exact", "--baseline", out, "--current", again])
        #expect(differs.code == 1)
        let table = try CSVTable(parsing: long), value = table.rows[0][table.index(of: "value")!]
        #expect(
            differs.errors
                == "error: '\(again)/long.csv' differs from the baseline at line 2 (policy fixed, metric opens_per_day, archetype all), column value: baseline \(value), current 9\(value)\n"
        )
        // Another grid is another configuration, named by the axis value that differs.
        let other = temporary("sweep-other")
        defer { try? FileManager.default.removeItem(atPath: other) }
        #expect(
            bgbench(
                Self.issueCommand.map { $0 == "population.bar_off_share=0,0.5" ? "population.bar_off_share=0,0.3" : $0 }
                    + ["--out", other]
            ).code == 0)
        let mismatch = bgbench(["check", "--exact", "--baseline", out, "--current", other])
        #expect(mismatch.code == 65)
        #expect(
            mismatch.errors == "error: baseline '\(out)' does not match current '\(other)': configurations differ: "
                + "sweep.axes[0].values[1] \"0.5\" vs \"0.3\"; compare runs of one configuration and seed, compare two "
                + "configurations with 'bgbench check --ab', or replace the baseline with 'bgbench check --update --accept-configuration'\n"
        )
        // The statistical comparison does not read sweep folders.
        let statistical = bgbench(["check", "--baseline", out, "--current", again])
        #expect(statistical.code == 64)
        #expect(
            statistical.errors
                == "error: '\(out)' is a sweep folder: 'check' compares sweep folders with --exact only\nsee 'bgbench --help'\n"
        )
    }

    /// A sweep point's files are the same point's run's, byte for byte, with the axis
    /// column first (and summary.csv's pareto last); its scenario-K.json is the run's
    /// scenario.json.
    @Test func aPointIsTheRunAlonePlusTheAxisColumn() throws {
        let out = temporary("sweep"), alone = temporary("run")
        defer { for f in [out, alone] { try? FileManager.default.removeItem(atPath: f) } }
        #expect(bgbench(Self.issueCommand + ["--out", out]).code == 0)
        let run =
            ["run"]
            + Self.issueCommand.dropFirst().map {
                $0 == "population.bar_off_share=0,0.5" ? "population.bar_off_share=0.5" : $0
            }
        #expect(bgbench(run + ["--out", alone]).code == 0)
        for name in Self.reportCSVs {
            let records = SweepReport.records(try read(out + "/" + name))
            var rebuilt = String(records[0].dropFirst("population.bar_off_share,".count)) + "\n"
            for record in records.dropFirst() where record.hasPrefix("0.5,") {
                var line = record.dropFirst("0.5,".count)
                // summary.csv's last two columns: pareto, pareto_in_seed.
                if name == "summary.csv" {
                    line = line[..<line.lastIndex(of: ",")!]
                    line = line[..<line.lastIndex(of: ",")!]
                }
                rebuilt += line + "\n"
            }
            if name == "summary.csv" {
                rebuilt = rebuilt.replacingOccurrences(of: ",pareto,pareto_in_seed\n", with: "\n")
            }
            #expect(rebuilt == (try read(alone + "/" + name)), "\(name)")
        }
        #expect(try read(out + "/scenario-2.json") == read(alone + "/scenario.json"))
    }

    /// Within one world (bar_off_share 0 or 0.5; the archetype), pooled over the seeds: each
    /// seed's row of a point × policy × archetype carries the same mark, the mark of the
    /// seeds' mean fresh-open rate and energy.
    @Test func replicatedParetoUsesThePooledFigures() throws {
        let out = temporary("sweep")
        defer { try? FileManager.default.removeItem(atPath: out) }
        #expect(bgbench(Self.issueCommand + ["--out", out]).code == 0)
        let table = try CSVTable(parsing: read(out + "/summary.csv"))
        func column(_ name: String) -> Int { table.index(of: name)! }
        // The means over seeds of the finite figures (an empty one: no opens in that group).
        var sums: [[String]: (f: [Double], e: [Double], marks: Set<String>, rows: Int)] = [:]
        for row in table.rows {
            let key = [row[0], row[column("policy")], row[column("archetype")]]
            var p = sums[key] ?? ([], [], [], 0)
            if let f = Double(row[column("fresh_open_rate")]) { p.f.append(f) }
            if let e = Double(row[column("background_energy_j_per_day")]) { p.e.append(e) }
            p.marks.insert(row[column("pareto")])
            p.rows += 1
            sums[key] = p
        }
        #expect(sums.values.allSatisfy { $0.rows == 2 && $0.marks.count == 1 })
        let pooled = sums.mapValues { p in
            (
                f: p.f.isEmpty ? -Double.infinity : p.f.reduce(0, +) / Double(p.f.count),
                e: p.e.isEmpty ? Double.infinity : p.e.reduce(0, +) / Double(p.e.count), marks: p.marks
            )
        }
        for (key, c) in pooled {
            let dominated = pooled.contains { k, o in
                k[0] == key[0] && k[2] == key[2] && o.f >= c.f && o.e <= c.e && (o.f > c.f || o.e < c.e)
            }
            #expect(c.marks == [dominated ? "false" : "true"], "\(key)")
        }
        #expect(pooled.values.contains { $0.marks == ["false"] })
    }

    /// A hand-built table where the frontier across worlds and within them differ: world
    /// B's design beats both of world A's, but only within its own world does it count.
    @Test func paretoIsWithinOneWorld() {
        typealias C = SweepReport.ParetoCandidate
        let within = [
            C(world: ["0"], fresh: 0.5, energy: 10), C(world: ["0"], fresh: 0.6, energy: 20),
            C(world: ["0"], fresh: 0.4, energy: 15), C(world: ["0.5"], fresh: 0.7, energy: 5),
        ]
        #expect(SweepReport.pareto(within) == [true, true, false, true])
        let across = within.map { C(world: [], fresh: $0.fresh, energy: $0.energy) }
        #expect(SweepReport.pareto(across) == [false, false, false, true])
        // A tie on both is no domination; a missing figure (−∞ freshness) is dominated.
        #expect(
            SweepReport.pareto([
                C(world: [], fresh: 0.5, energy: 1), C(world: [], fresh: 0.5, energy: 1),
                C(world: [], fresh: -.infinity, energy: 1),
            ]) == [true, true, false])
    }

    /// plot.py draws a sweep's frontier one panel per world: three values of an
    /// environment axis, three panels side by side (5.2 inches each and the legend's 2.4 at
    /// 100 dpi); a sweep of a design axis alone, one panel (7.5 inches). Replicated: the
    /// means over seeds.
    @Test func plotDrawsOnePanelPerWorld() throws {
        for (axes, width) in [
            (["--set", "policies.fixed.interval=15m,60m", "--set", "population.bar_off_share=0,0.5,1"], 1800),
            (["--set", "policies.fixed.interval=15m,60m"], 990),
        ] {
            let out = temporary("sweep")
            defer { try? FileManager.default.removeItem(atPath: out) }
            let run = bgbench(
                [
                    "sweep", "--policy", "fixed,none", "--replications", "2", "--days", "2", "--devices", "12",
                    "--out", out,
                ] + axes)
            #expect(run.code == 0, "\(run.errors)")
            let plot = bgbench(["plot", out])
            #expect(plot.code == 0, "\(plot.errors)")
            let png = try [UInt8](Data(contentsOf: URL(fileURLWithPath: out + "/frontier.png")))
            #expect(png.prefix(4) == [0x89, 0x50, 0x4E, 0x47])
            // IHDR: the width is the big-endian 32-bit number at byte 16.
            #expect(png[16..<20].reduce(0) { $0 << 8 | Int($1) } == width, "\(axes)")
        }
    }

    @Test func badSweepInputIsAUsageErrorBeforeAnythingRuns() {
        let out = temporary("sweep")
        let cases: [([String], String)] = [
            (
                ["--set", "population.bar_off_share=0,1", "--set", "population.bar_off_share=0.5"],
                "parameter 'population.bar_off_share' given twice in '--set': expected each swept parameter once, with all its values"
            ),
            (
                ["--set", "population.bar_off_share=0,1", "--policy", "fixed,adaptive", "--baseline-policy", "none"],
                "invalid value 'none' for '--baseline-policy': expected one of the policies run (fixed, adaptive)"
            ),
            (
                ["--set", "population.bar_off_share=0,1", "--baseline-policy", "adaptive"],
                "'--baseline-policy' needs at least one other policy in '--policy'"
            ),
            (
                ["--set", "population.bar_off_share=0,1", "--replications", "0"],
                "invalid value '0' for '--replications': expected an integer from 1 to 1000"
            ),
            (
                ["--set", "population.bar_off_share=0,1", "--warmup-days", "3", "--days", "3"],
                "invalid value '3' for '--warmup-days': expected an integer from 0 to 2 (fewer than --days)"
            ),
            (["--set", "population.bar_off_share=0,1", "--version"], "unknown option '--version' for 'sweep'"),
        ]
        for (arguments, message) in cases {
            let result = bgbench(["sweep", "--out", out] + arguments)
            #expect(result.code == 64, "\(arguments)")
            #expect(result.errors == "error: \(message)\nsee 'bgbench --help'\n", "\(arguments)")
        }
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
