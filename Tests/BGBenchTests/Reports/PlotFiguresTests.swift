import BGBenchTestSupport
import Foundation
import Testing
@testable import BGBench
@testable import BGBenchCLI

/// `bgbench plot` on every kind of report folder (issue 24 item 3): it draws exactly its
/// kind's figures (ReportFile's PNG entries of that kind), each a signed PNG under 2,000
/// px a side (read from the IHDR chunk) whatever the number of policies or arms, with
/// nothing else on the output (no library warning); `--metric` and `--policy` name what
/// the folder has when a name is unknown. Skipped, saying so, without python3, matplotlib
/// and pandas (CI has them).
@Suite(.serialized) struct PlotFiguresTests {
    static let small = ["--devices", "16", "--days", "3", "--quiet", "--threads", "2"]

    /// The folder kinds, each made by its command: (name, kind, the commands).
    static func folders(in root: String) -> [(name: String, kind: ReportKind, commands: [[String]])] {
        let shards = root + "/shards"
        return [
            ("run", .run, [["--policy", "fixed,adaptive,oracle", "--trace-devices", "4"] + small]),
            ("replicated", .run, [["--policy", "fixed,adaptive,none", "--replications", "3"] + small]),
            ("preset", .run, [["--scenario", "fitness-sync", "--policy", "fixed,adaptive,usage"] + small]),
            (
                "sweep", .sweep,
                [
                    [
                        "sweep", "--set", "platform.name=ios-bgtask,ios-fetch,android-workmanager", "--policy",
                        "fixed,push",
                    ] + small
                ]
            ),
            (
                "sweep-knob", .sweep,
                [["sweep", "--set", "policies.fixed.interval=15m,1h,4h", "--policy", "fixed,adaptive"] + small]
            ),
            // Every policy at every value of its knob: 53 arms.
            ("frontier", .frontier, [["frontier"] + small]),
            (
                "merged", .run,
                [
                    [
                        "--policy", "fixed,adaptive", "--devices", "128", "--days", "3", "--quiet", "--shard", "0/2",
                        "--out", shards + "/0",
                    ],
                    [
                        "--policy", "fixed,adaptive", "--devices", "128", "--days", "3", "--quiet", "--shard", "1/2",
                        "--out", shards + "/1",
                    ],
                    ["merge", "--quiet", shards],
                ]
            ),
        ]
    }

    /// The figures plot draws in a folder of this kind, in the order it prints them.
    static let drawn: [ReportKind: [String]] = [
        .run: ["headline.png", "frontier.png", "daily.png", "hourly.png", "staleness.png", "energy.png"],
        .sweep: ["frontier.png"],
        .frontier: ["headline.png", "frontier.png", "frontier-curves.png"],
    ]

    static var hasPython: Bool {
        PlotCommand.launch(["python3", "-c", "import matplotlib, pandas"]).status == 0
    }

    /// A PNG's (width, height): IHDR is the first chunk, its two big-endian 32-bit numbers
    /// at bytes 16 and 20.
    static func dimensions(_ path: String) throws -> (width: Int, height: Int) {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)).prefix(24))
        #expect(bytes.count == 24 && bytes[0..<8] == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(String(decoding: bytes[12..<16], as: UTF8.self) == "IHDR", "\(path)")
        let number = { (i: Int) in bytes[i..<i + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (number(16), number(20))
    }

    @Test func everyFolderKindDrawsItsFiguresWithinTheirSize() throws {
        guard Self.hasPython else {
            print("PlotFiguresTests: SKIPPED: python3 with matplotlib and pandas is missing")
            return
        }
        let root = freshFolder("plot-kinds")
        defer { try? FileManager.default.removeItem(atPath: root) }
        // Each kind's list is ReportFile's: the PNG entries whose folders hold the kind.
        for (kind, names) in Self.drawn {
            let entries = ReportFile.all.filter { $0.format == .png && $0.folders.contains(kind) }.map(\.name)
            #expect(Set(entries) == Set(names), "\(kind)")
        }
        for folder in Self.folders(in: root) {
            let out = root + "/" + folder.name
            for command in folder.commands {
                let made = bgbench(command + (command.contains("--out") ? [] : ["--out", out]))
                #expect(made.code == 0, "\(folder.name): \(made.errors)")
            }
            let plot = bgbench(["plot", out])
            #expect(plot.code == 0, "\(folder.name): \(plot.errors)")
            let names = Self.drawn[folder.kind]!
            // Exactly the figures' paths: a warning or any other line would show here.
            #expect(plot.output == names.map { out + "/" + $0 + "\n" }.joined(), "\(folder.name)")
            let onDisk = try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasSuffix(".png") }
            #expect(Set(onDisk) == Set(names), "\(folder.name)")
            for name in names {
                let path = out + "/" + name
                let (width, height) = try Self.dimensions(path)
                #expect(width < 2000 && height < 2000, "\(folder.name)/\(name) is \(width) × \(height) px")
                #expect(width >= 400 && height >= 200, "\(folder.name)/\(name) is \(width) × \(height) px")
                #expect(PlotFiles.isDrawnByBGBench(path, name: name), "\(folder.name)/\(name) is signed")
            }
        }
    }

    /// The preset's `report.headline` drives daily.png, hourly.png and frontier.png: on a
    /// messaging and a finance run, plot.py's choice (its `series_metrics` and `quality`,
    /// read through Reports/plot.py, the file bgbench embeds) is the whole headline by day
    /// and by hour, and frontier.png's quality the first headline metric that is not an
    /// energy and that a policy changes; `bgbench plot` draws the run's figures and prints
    /// nothing else.
    @Test func presetHeadlineDrivesTheSeriesFigures() throws {
        guard Self.hasPython else {
            print("PlotFiguresTests: SKIPPED: python3 with matplotlib and pandas is missing")
            return
        }
        let root = freshFolder("plot-headline")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let cases: [(preset: String, policies: String, days: String, headline: [String], quality: String)] = [
            (
                "messaging", "fixed,push", "3",
                ["fresh_open_rate", "push_runs_per_day", "push_lost_per_day", "background_energy_j_per_day"],
                "fresh_open_rate"
            ),
            (
                "finance", "fixed,adaptive", "8",
                [
                    "processing_on_time_rate", "fresh_open_rate", "background_energy_j_per_day",
                    "processing_energy_j_per_day",
                ],
                // The processing task is the same under both policies here (no refresh policy
                // changes it): frontier.png's quality is then the next, fresh opens.
                "fresh_open_rate"
            ),
        ]
        let reports = TestSupport.packageRoot.appendingPathComponent("Reports").path
        for c in cases {
            let out = root + "/" + c.preset
            let made = bgbench([
                "--scenario", c.preset, "--policy", c.policies, "--devices", "16", "--days", c.days, "--quiet",
                "--threads", "2", "--out", out,
            ])
            try #require(made.code == 0, "\(c.preset): \(made.errors)")
            let plot = bgbench(["plot", out])
            #expect(plot.code == 0, "\(c.preset): \(plot.errors)")
            #expect(plot.output == Self.drawn[.run]!.map { out + "/" + $0 + "\n" }.joined(), "\(c.preset)")
            let script = """
                import sys
                sys.path.insert(0, sys.argv[1])
                import plot
                f = plot.Folder(sys.argv[2], None, None, False)
                for name in ("daily.csv", "hourly.csv"):
                    kept, missing, note = plot.series_metrics(f, f.table(name))
                    print(",".join(kept) + "|" + ",".join(missing) + "|" + note)
                print(f.quality())
                """
            let chosen = PlotCommand.launch(["python3", "-c", script, reports, out])
            #expect(chosen.status == 0, "\(chosen.output)")
            let drawn = c.headline.joined(separator: ",") + "||"
            #expect(chosen.output == drawn + "\n" + drawn + "\n" + c.quality + "\n", "\(c.preset)")
            if c.preset == "finance" {
                // That holds: summary.csv's processing_on_time_rate is the same for both policies, seed by seed.
                let summary = try csvRecords(out + "/summary.csv").filter { $0["archetype"] == "all" }
                #expect(Set(summary.map { $0["processing_on_time_rate"]! }).count == 1)
            }
        }
    }

    /// `--metric`, `--policy`, `--no-bounds`: the names are the folder's; an unknown one is
    /// one usage line (exit 64) naming it and what the folder has.
    @Test func metricAndPolicyOptions() throws {
        guard Self.hasPython else {
            print("PlotFiguresTests: SKIPPED: python3 with matplotlib and pandas is missing")
            return
        }
        let out = freshPath("plot-options")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let made = bgbench(["--policy", "fixed,adaptive,oracle", "--out", out] + Self.small)
        #expect(made.code == 0, "\(made.errors)")
        let header = try String(contentsOfFile: out + "/summary.csv", encoding: .utf8)
            .prefix { $0 != "\n" }.split(separator: ",").map(String.init)
        let metrics = header.drop { $0 != "opens_per_day" }
            .filter { !$0.hasSuffix("_ci_low") && !$0.hasSuffix("_ci_high") && !$0.hasSuffix("_unstable") }
        #expect(metrics.first == "opens_per_day" && metrics.contains("server_on_time_rate"))
        let metric = bgbench(["plot", out, "--metric", "fresh_open_rate,fresh_opens"])
        #expect(metric.code == 64)
        #expect(
            metric.errors
                == "error: unknown metric 'fresh_opens' for '--metric': expected one of \(metrics.joined(separator: ", "))\n"
                + "see 'bgbench --help'\n")
        let policy = bgbench(["plot", out, "--policy", "adaptive,fixd"])
        #expect(policy.code == 64)
        #expect(
            policy.errors
                == "error: unknown policy 'fixd' for '--policy': expected one of the folder's policies (fixed, adaptive, oracle)\n"
                + "see 'bgbench --help'\n")
        #expect(metric.output.isEmpty && policy.output.isEmpty)
        let chosen = bgbench([
            "plot", out, "--metric", "server_lag_mean_s,runs_per_day", "--policy", "adaptive", "--no-bounds",
        ])
        #expect(chosen.code == 0, "\(chosen.errors)")
        #expect(chosen.output == Self.drawn[.run]!.map { out + "/" + $0 + "\n" }.joined())
    }
}
