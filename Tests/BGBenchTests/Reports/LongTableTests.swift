import Foundation
import Testing
@testable import BGBench
@testable import BGHarness
import BGBenchTestSupport

/// long.csv in every folder kind (issue 24 item 5, Reports/README.md "long.csv"): its
/// documented header, rows that carry the source files' fields with a unit and an
/// interval kind, integer seeds with pooled rows marked apart, seconds beside every
/// duration label, and the README's pandas and readr loaders run on each kind.
@Suite(.serialized) struct LongTableTests {
    /// The columns after the leading ones, written out by hand: a change is deliberate.
    static let header = [
        "scenario", "policy", "seed", "pooled", "archetype", "metric", "baseline", "value", "unit",
        "interval_kind", "ci_low", "ci_high", "unstable",
    ]
    /// Above 2^53, where a double (pandas' float, R's numeric) loses the last digit.
    static let seed = "9007199254740993"

    /// One folder of each kind, made once: a replicated run with oracle (gap_closed), a
    /// sweep over a duration, a frontier over durations, and the run merged from shards.
    static let folders: [String: String] = {
        let root = freshFolder("long")
        let run = ["--policy", "fixed,none,oracle", "--days", "3", "--devices", "20", "--replications", "2"]
        let commands: [(String, [String])] = [
            ("run", run + ["--seed", seed]),
            (
                "sweep",
                [
                    "sweep", "--set", "policies.fixed.interval=30m,2h", "--policy", "fixed,none", "--days", "3",
                    "--devices", "20",
                ]
            ),
            (
                "frontier",
                ["frontier", "--policy", "fixed,none", "--knob", "fixed=30m,2h", "--days", "3", "--devices", "20"]
            ),
            ("shard0", run + ["--seed", seed, "--shard", "0/2"]),
            ("shard1", run + ["--seed", seed, "--shard", "1/2"]),
        ]
        var out: [String: String] = [:]
        for (name, arguments) in commands {
            let result = bgbench(arguments + ["--quiet", "--out", root + "/" + name])
            precondition(result.code == 0, "\(name): \(result.errors)")
            out[name] = root + "/" + name
        }
        let merged = bgbench(["merge", "--out", root + "/merged", out["shard0"]!, out["shard1"]!])
        precondition(merged.code == 0, merged.errors)
        out["merged"] = root + "/merged"
        return out
    }()
    static let kinds = ["run", "sweep", "frontier", "merged"]

    static func records(_ kind: String, _ file: String) throws -> [[String: String]] {
        try csvRecords(folders[kind]! + "/" + file)
    }

    static func header(_ kind: String) throws -> [String] {
        try CSVTable(parsing: String(contentsOfFile: folders[kind]! + "/long.csv", encoding: .utf8)).header
    }

    /// The long.csv row of a figure, by its identity; exactly one must match.
    static func row(
        _ rows: [[String: String]], policy: String, metric: String, seed: String = seed, pooled: Bool = false,
        baseline: String = "", archetype: String = "all", where extra: [String: String] = [:]
    ) throws -> [String: String] {
        let found = rows.filter { r in
            r["policy"] == policy && r["metric"] == metric && r["seed"] == (pooled ? "" : seed)
                && r["pooled"] == (pooled ? "true" : "false") && r["baseline"] == baseline
                && r["archetype"] == archetype && extra.allSatisfy { r[$0.key] == $0.value }
        }
        try #require(found.count == 1, "\(found.count) rows for \(policy) \(metric) \(seed) \(pooled) \(baseline)")
        return found[0]
    }

    @Test(arguments: kinds) func headerIsTheDocumentedOne(_ kind: String) throws {
        let leading: [String] =
            switch kind {
            case "sweep": ["policies.fixed.interval", "policies.fixed.interval_s"]
            case "frontier": ["arm_policy", "knob", "knob_value", "knob_value_s"]
            default: []
            }
        #expect(try Self.header(kind) == leading + Self.header)
        #expect(LongTable.header == Self.header)
        // Reports/README.md's long.csv table names every column.
        let readme = try String(
            contentsOf: TestSupport.packageRoot.appendingPathComponent("Reports/README.md"), encoding: .utf8)
        let section = try #require(readme.range(of: "## long.csv\n")).upperBound
        let text = readme[section...]
        for column in Self.header + ["arm_policy", "knob_value_s", "<path>_s"] {
            #expect(text.contains("`\(column)`"), "Reports/README.md's long.csv section lacks \(column)")
        }
    }

    /// A run's rows against its summary.csv, paired.csv and replications.csv, field by
    /// field, with the units and interval kinds written out by hand.
    @Test func runRowsCarryTheSourceFields() throws {
        let long = try Self.records("run", "long.csv")
        let summary = try Self.records("run", "summary.csv")
        let fleet = try #require(
            summary.first { $0["policy"] == "fixed" && $0["seed"] == Self.seed && $0["archetype"] == "all" })
        let fresh = try Self.row(long, policy: "fixed", metric: "fresh_open_rate")
        #expect(fresh["value"] == fleet["fresh_open_rate"] && fresh["value"] != "")
        #expect(
            fresh["ci_low"] == fleet["fresh_open_rate_ci_low"] && fresh["ci_high"] == fleet["fresh_open_rate_ci_high"])
        #expect(fresh["unit"] == "ratio" && fresh["interval_kind"] == "devices" && fresh["unstable"] == "")
        let energy = try Self.row(long, policy: "fixed", metric: "background_energy_j_per_day")
        #expect(energy["value"] == fleet["background_energy_j_per_day"] && energy["unit"] == "J/device-day")
        #expect(try Self.row(long, policy: "fixed", metric: "opens_per_day")["unit"] == "1/device-day")
        #expect(try Self.row(long, policy: "fixed", metric: "staleness_mean_s")["unit"] == "s")
        #expect(try Self.row(long, policy: "fixed", metric: "battery_pct_per_day")["unit"] == "%/device-day")
        #expect(try Self.row(long, policy: "fixed", metric: "wifi_bytes_per_day")["unit"] == "B/device-day")
        // A quantile: no interval, its instability flag carried.
        let p95 = try Self.row(long, policy: "fixed", metric: "staleness_p95_s")
        #expect(p95["value"] == fleet["staleness_p95_s"] && p95["unit"] == "s" && p95["interval_kind"] == "none")
        #expect(p95["ci_low"] == "" && p95["unstable"] == fleet["staleness_p95_s_unstable"])
        #expect(["true", "false"].contains(p95["unstable"]!))
        // An archetype's row.
        let archetype = try #require(
            summary.first { $0["policy"] == "none" && $0["archetype"] == "heavy" && $0["seed"] == Self.seed })
        #expect(
            try Self.row(long, policy: "none", metric: "runs_per_day", archetype: "heavy")["value"]
                == archetype["runs_per_day"])

        // paired.csv: the difference from the baseline, over devices.
        let paired = try #require(
            try Self.records("run", "paired.csv").first {
                $0["policy"] == "oracle" && $0["seed"] == Self.seed && $0["metric"] == "fresh_open_rate"
            })
        let difference = try Self.row(long, policy: "oracle", metric: "fresh_open_rate", baseline: "fixed")
        #expect(difference["value"] == paired["difference"] && difference["ci_low"] == paired["difference_ci_low"])
        #expect(difference["unit"] == "ratio" && difference["interval_kind"] == "devices")

        // replications.csv: pooled, no seed, across the seeds.
        let replications = try Self.records("run", "replications.csv")
        let mean = try #require(replications.first { $0["policy"] == "none" && $0["metric"] == "staleness_mean_s" })
        let pooled = try Self.row(long, policy: "none", metric: "staleness_mean_s", pooled: true)
        #expect(pooled["value"] == mean["mean"] && pooled["ci_high"] == mean["ci_high"] && pooled["seed"] == "")
        #expect(pooled["interval_kind"] == "seeds" && pooled["unit"] == "s")
        let pooledDifference = try Self.row(
            long, policy: "none", metric: "staleness_mean_s", pooled: true, baseline: "fixed")
        #expect(pooledDifference["value"] == mean["difference"] && pooledDifference["interval_kind"] == "seeds")
        let median = try #require(
            replications.first { $0["policy"] == "oracle" && $0["metric"] == "staleness_median_s" })
        #expect(
            try Self.row(long, policy: "oracle", metric: "staleness_median_s", pooled: true)["unstable"]
                == median["unstable"])
        // gap_closed: a ratio in the file, as replications.csv has it.
        let gap = try #require(replications.first { $0["policy"] == "none" && $0["metric"] == "gap_closed" })
        let gapRow = try Self.row(long, policy: "none", metric: "gap_closed", pooled: true)
        #expect(gapRow["value"] == gap["mean"] && gapRow["unit"] == "ratio" && gapRow["interval_kind"] == "seeds")

        // Seeds: integers (the run's two), empty only in pooled rows.
        let seeds = Set(long.map { $0["seed"]! })
        #expect(seeds == [Self.seed, "9007199254740994", ""])
        #expect(long.allSatisfy { ($0["seed"] == "") == ($0["pooled"] == "true") })
        #expect(long.allSatisfy { $0["seed"] == "" || UInt64($0["seed"]!) != nil })
        // No figure dropped: one row per summary metric, per paired.csv row, and one or two
        // per replications.csv row (52 metric columns in summary.csv today).
        let metrics = SummarySchema.metrics.count
        #expect(metrics == 52)
        let pairedRows = try Self.records("run", "paired.csv").count
        let withDifference = replications.filter { $0["baseline"] != "" }.count
        #expect(long.count == summary.count * metrics + pairedRows + replications.count + withDifference)
        // Every unit is the metric table's, or gap_closed's.
        #expect(long.allSatisfy { $0["unit"] == (MetricTable.named($0["metric"]!)?.unit ?? "ratio") })
    }

    /// A sweep over a duration: the label as typed, its seconds beside it; each point's
    /// rows are its summary.csv rows.
    @Test func sweepHasSecondsBesideTheDuration() throws {
        let long = try Self.records("sweep", "long.csv")
        #expect(
            Set(long.map { $0["policies.fixed.interval"]! + "=" + $0["policies.fixed.interval_s"]! }) == [
                "30m=1800", "2h=7200",
            ])
        let summary = try #require(
            try Self.records("sweep", "summary.csv").first {
                $0["policies.fixed.interval"] == "2h" && $0["policy"] == "fixed" && $0["archetype"] == "all"
            })
        let row = try Self.row(
            long, policy: "fixed", metric: "fresh_open_rate", seed: "1", where: ["policies.fixed.interval": "2h"])
        #expect(row["value"] == summary["fresh_open_rate"] && row["policies.fixed.interval_s"] == "7200")
        #expect(long.allSatisfy { $0["seed"] == "1" && $0["pooled"] == "false" })
    }

    /// A frontier: each arm's policy, knob and value, the value's seconds, and its rows.
    @Test func frontierLeadsWithTheArm() throws {
        let long = try Self.records("frontier", "long.csv")
        let arm = try Self.row(long, policy: "fixed[interval=30m]", metric: "runs_per_day", seed: "1")
        #expect(arm["arm_policy"] == "fixed" && arm["knob"] == "interval" && arm["knob_value"] == "30m")
        #expect(arm["knob_value_s"] == "1800")
        let summary = try #require(
            try Self.records("frontier", "summary.csv").first {
                $0["policy"] == "fixed[interval=30m]" && $0["archetype"] == "all"
            })
        #expect(arm["value"] == summary["runs_per_day"] && arm["ci_low"] == summary["runs_per_day_ci_low"])
        let point = try Self.row(long, policy: "fixed", metric: "runs_per_day", seed: "1")
        #expect(point["arm_policy"] == "fixed" && point["knob"] == "" && point["knob_value_s"] == "")
        #expect(
            try Self.row(long, policy: "fixed[interval=2h]", metric: "runs_per_day", seed: "1")["knob_value_s"]
                == "7200")
        #expect(
            try Self.row(long, policy: "none", metric: "runs_per_day", seed: "1", baseline: "fixed")["arm_policy"]
                == "none")
    }

    /// The merged folder's long.csv is the unsharded run's, byte for byte.
    @Test func mergedIsTheRunsByteForByte() throws {
        let single = try Data(contentsOf: URL(fileURLWithPath: Self.folders["run"]! + "/long.csv"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: Self.folders["merged"]! + "/long.csv")) == single)
    }

    @Test func durationLabelsInSeconds() {
        // Written out by hand.
        #expect(LongTable.seconds("30m") == "1800")
        #expect(LongTable.seconds("15m") == "900")
        #expect(LongTable.seconds("1.5h") == "5400")
        #expect(LongTable.seconds("90s") == "90")
        #expect(LongTable.seconds("1d") == "86400")
        #expect(LongTable.seconds("250ms") == "0.25")
        #expect(LongTable.seconds("07:30") == "27000")
        for text in ["0.5", "12", "fixed", "", "[1,2]"] { #expect(LongTable.seconds(text) == nil, "\(text)") }
        #expect(LongTable.isDuration(SweepAxis(path: "p", values: ["0", "30m"])))
        #expect(!LongTable.isDuration(SweepAxis(path: "p", values: ["0.1", "0.5"])))
        #expect(!LongTable.isDuration(SweepAxis(path: "p", values: ["30m", "fast"])))
        #expect(
            LongTable.sweepColumns([SweepAxis(path: "a", values: ["1h"]), SweepAxis(path: "b", values: ["1"])])
                == ["a", "a_s", "b"])
    }

    // MARK: The README's loaders

    /// The code block after `marker` in Reports/README.md, as documented.
    static func snippet(_ marker: String, _ language: String) throws -> String {
        let readme = try String(
            contentsOf: TestSupport.packageRoot.appendingPathComponent("Reports/README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "<!-- \(marker) -->\n```\(language)\n"))
        let end = try #require(readme.range(of: "\n```", range: start.upperBound..<readme.endIndex))
        return String(readme[start.upperBound..<end.lowerBound]) + "\n"
    }

    /// Runs `program arguments...`; (exit status, output and errors).
    static func run(_ arguments: [String]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, out)
    }

    static func available(_ arguments: [String], _ what: String) -> Bool {
        if let (status, _) = try? run(arguments), status == 0 { return true }
        print("LongTableTests: skipped: \(what) (CI installs it: .ci/run)")
        return false
    }

    /// The pandas loader, then checks on what it loaded: the seed exact as an integer, the
    /// pooled rows without one, the documented columns.
    @Test(arguments: kinds) func pandasLoaderRuns(_ kind: String) throws {
        guard Self.available(["python3", "-c", "import pandas"], "python3 with pandas is not installed") else { return }
        let seeds = kind == "run" || kind == "merged" ? "[\(Self.seed), 9007199254740994]" : "[1]"
        let script =
            try Self.snippet("long-pandas", "python") + """
                assert str(long.seed.dtype) == "UInt64", long.seed.dtype
                assert sorted(int(s) for s in long.seed.dropna().unique()) == \(seeds), long.seed.unique()
                assert long[long.pooled].seed.isna().all() and long[~long.pooled].seed.notna().all()
                assert list(long.columns[len(lead):]) == \(Self.header), list(long.columns)
                assert set(long.interval_kind) <= {"devices", "seeds", "none"}
                assert (long[long.metric == "fresh_open_rate"].unit == "ratio").all()
                assert len(table) > 0, table
                print("ok")
                """
        let (status, out) = try Self.run(["python3", "-c", script, Self.folders[kind]!])
        #expect(status == 0 && out.hasSuffix("ok\n"), "python on \(kind): \(out)")
    }

    /// The readr loader, then the same checks in R.
    @Test(arguments: kinds) func readrLoaderRuns(_ kind: String) throws {
        guard
            Self.available(
                ["Rscript", "-e", "library(readr)"],
                "Rscript with readr is not installed (apt-get install r-base-core r-cran-readr)")
        else { return }
        let seeds = kind == "run" || kind == "merged" ? "c(\"\(Self.seed)\", \"9007199254740994\")" : "c(\"1\")"
        let script =
            try Self.snippet("long-readr", "r") + """
                stopifnot(is.character(long$seed), is.logical(long$pooled), is.logical(long$unstable))
                stopifnot(identical(sort(unique(long$seed[!is.na(long$seed)])), \(seeds)))
                stopifnot(all(is.na(long$seed) == long$pooled))
                stopifnot(is.numeric(long$value), is.numeric(long$ci_low), all(long$interval_kind %in% c("devices", "seeds", "none")))
                stopifnot(all(long$unit[long$metric == "fresh_open_rate"] == "ratio"), nrow(headline) > 0)
                cat("ok\\n")
                """
        let file = freshPath("long-readr") + ".R"
        defer { try? FileManager.default.removeItem(atPath: file) }
        try script.write(toFile: file, atomically: true, encoding: .utf8)
        let (status, out) = try Self.run(["Rscript", file, Self.folders[kind]!])
        #expect(status == 0 && out.hasSuffix("ok\n"), "R on \(kind): \(out)")
    }
}
