import Foundation
import Testing
@testable import BGBench
@testable import BGBenchCLI
import BGBenchTestSupport

@Suite struct SweepTests {

    @Test func axesSplitOnTopLevelCommas() throws {
        let axis = try Command.parseAxis("content.hourly_weights=[1,2],[3,4]")
        #expect(axis.path == "content.hourly_weights" && axis.values == ["[1,2]", "[3,4]"])
        #expect(try Command.parseAxis("policies.fixed.interval=15m,30m,60m").values == ["15m", "30m", "60m"])
        #expect(
            Command.grid([.init(path: "a", values: ["1", "2"]), .init(path: "b", values: ["x", "y", "z"])])
                == [["1", "x"], ["1", "y"], ["1", "z"], ["2", "x"], ["2", "y"], ["2", "z"]])
    }

    /// The grid runs every point × policy on one seed; swept values lead each row and the
    /// Pareto column marks rows no other row beats on both freshness and energy.
    @Test func sweepWritesOneTidySummary() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("bgbench-sweep-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = bgbench([
            "sweep", "--policy", "fixed,none", "--set", "policies.fixed.interval=15m,60m",
            "--set", "population.bar_off_share=0,1", "--days", "4", "--devices", "30", "--out", out,
        ])
        #expect(result.code == 0, "\(result.errors)")
        let text = try String(contentsOfFile: out + "/summary.csv", encoding: .utf8)
        let all = text.split(separator: "\n").map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        #expect(
            all[0] == ["policies.fixed.interval", "population.bar_off_share"] + SummarySchema.header + [
                "pareto", "pareto_in_seed",
            ])
        // Every archetype's rows, as a run writes them; the fleet's first.
        let archetype = all[0].firstIndex(of: "archetype")!
        let rows = [all[0]] + all.dropFirst().filter { $0[archetype] == "all" }
        #expect(all.count > rows.count)
        #expect(rows.count == 1 + 4 * 2)
        #expect(
            rows.dropFirst().map { [$0[0], $0[1], $0[3]] } == [
                ["15m", "0", "fixed"], ["15m", "0", "none"], ["15m", "1", "fixed"], ["15m", "1", "none"],
                ["60m", "0", "fixed"], ["60m", "0", "none"], ["60m", "1", "fixed"], ["60m", "1", "none"],
            ])
        let fresh = rows[0].firstIndex(of: "fresh_open_rate")!,
            energy = rows[0].firstIndex(of: "background_energy_j_per_day")!
        let runs = rows[0].firstIndex(of: "runs_per_day")!
        // With the switch off for everyone, fixed makes no runs at all.
        #expect(rows.dropFirst().filter { $0[1] == "1" }.allSatisfy { Double($0[runs]) == 0 })
        // Same seed at every point: `none` sees the same users and feed whatever fixed's
        // interval, so its rows are identical across that axis.
        let noneRows = rows.dropFirst().filter { $0[3] == "none" && $0[1] == "0" }
        #expect(noneRows[0].dropFirst(2) == noneRows[1].dropFirst(2))
        // Pareto by definition within one world (the environment axis bar_off_share and
        // the archetype; fixed's interval is a design axis), checked against the rows. An
        // archetype with no opens in this small fleet has no fresh-open rate (empty): it
        // ranks below any rate (Reports/README.md, "Sweeps").
        let scored = all.dropFirst().map {
            (
                world: [$0[1], $0[archetype]], f: Double($0[fresh]) ?? -.infinity,
                e: Double($0[energy]) ?? .infinity, pareto: $0[$0.count - 2]
            )
        }
        for c in scored {
            let dominated = scored.contains {
                $0.world == c.world && $0.f >= c.f && $0.e <= c.e && ($0.f > c.f || $0.e < c.e)
            }
            #expect(c.pareto == (dominated ? "false" : "true"))
        }
        #expect(scored.contains { $0.pareto == "true" } && scored.contains { $0.pareto == "false" })

        // The terminal prints a line per point and policy: the fleet's headline metrics as
        // summary.csv has them (the default headline: fresh %, staleness, J/day, runs/day)
        // and the Pareto mark.
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(
            lines[0].split(separator: " ") == [
                "policies.fixed.interval", "population.bar_off_share", "policy", "fresh", "%", "stale", "s", "J/d",
                "runs/d", "pareto",
            ])
        let stale = rows[0].firstIndex(of: "staleness_mean_s")!
        // Each number to two significant digits of its interval's half-width (one seed: the
        // interval over devices, summary.csv's _ci_low and _ci_high), else the column's
        // own decimals (1, 0, 1, 2); percent for the fresh-open rate.
        func cell(_ row: [String], _ column: Int, scale: Double, otherwise: Int) -> String {
            guard let value = Double(row[column]) else { return "-" }
            var decimals = otherwise
            if let low = Double(row[column + 1]), let high = Double(row[column + 2]), high > low {
                let half = (high - low) / 2 * scale
                decimals = min(6, max(0, 1 - Int(floor(log10(half)))))
            }
            return String(format: "%.\(decimals)f", value * scale)
        }
        for (line, row) in zip(lines.dropFirst(), rows.dropFirst()) {
            let cells = line.split(separator: " ").map(String.init)
            let mark = row[row.count - 2] == "true" ? ["*"] : []
            #expect(
                cells
                    == [
                        row[0], row[1], row[3], cell(row, fresh, scale: 100, otherwise: 1),
                        cell(row, stale, scale: 1, otherwise: 0), cell(row, energy, scale: 1, otherwise: 1),
                        cell(row, runs, scale: 1, otherwise: 2),
                    ] + mark,
                "\(line)")
        }
        #expect(
            lines[9]
                == "* on the freshness–energy frontier of its world (the environment axes' values; summary.csv's pareto)"
        )
        #expect(lines[10] == "values to the precision of their 95 % interval over devices")
        #expect(lines[11] == "fresh %: percent; the CSV files hold ratios (0 to 1)")
        // Each bar-off share is its own population; in each, fixed at 15m and 60m and `none`
        // (which reads no interval) once: 2 × 3 configurations, not 4 points × 2 policies.
        // Then the frontier pairs that are not significant (ParetoPairsTests), then the timing.
        #expect(lines[12].hasPrefix("pareto-pairs.csv: "))
        #expect(
            lines.contains {
                $0.hasPrefix("4 points × 2 policies (6 distinct configurations simulated per seed), seed 1: ")
            })
    }

    /// With seeds, `pareto` compares the means over the seeds and `pareto_in_seed` each
    /// row with the rows of its own seed; the terminal's k/R counts the seeds in which a
    /// point × policy is on its world's frontier.
    @Test func paretoInSeedIsEachSeedsOwnFrontier() throws {
        let out = freshPath("sweep-pareto-seeds")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = bgbench([
            "sweep", "--policy", "fixed,adaptive,none", "--set", "policies.fixed.interval=15m,1h,4h",
            "--replications", "3", "--days", "3", "--devices", "40", "--out", out,
        ])
        #expect(result.code == 0, "\(result.errors)")
        let rows = try csvRecords(out + "/summary.csv").filter { $0["archetype"] == "all" }
        #expect(rows.count == 3 * 3 * 3)
        func f(_ r: [String: String]) -> Double { Double(r["fresh_open_rate"]!) ?? -.infinity }
        func e(_ r: [String: String]) -> Double { Double(r["background_energy_j_per_day"]!) ?? .infinity }
        for r in rows {
            let sameSeed = rows.filter { $0["seed"] == r["seed"] }
            let dominated = sameSeed.contains { o in f(o) >= f(r) && e(o) <= e(r) && (f(o) > f(r) || e(o) < e(r)) }
            #expect(r["pareto_in_seed"] == (dominated ? "false" : "true"), "\(r)")
        }
        // Some point × policy is on the frontier in some seeds and not in others.
        let lines = result.output.split(separator: "\n").map(String.init)
        for interval in ["15m", "1h", "4h"] {
            for policy in ["fixed", "adaptive", "none"] {
                let mine = rows.filter { $0["policies.fixed.interval"] == interval && $0["policy"] == policy }
                let k = mine.filter { $0["pareto_in_seed"] == "true" }.count
                let star = mine[0]["pareto"] == "true" ? "*" : ""
                let line = lines.first {
                    let c = $0.split(separator: " ")
                    return c.count > 2 && c[0] == interval && c[1] == policy
                }
                #expect(line?.hasSuffix(" \(star)\(k)/3") == true, "\(interval) \(policy): \(line ?? "none")")
            }
        }
        #expect(
            lines.contains(
                "* on the freshness–energy frontier of its world (the environment axes' values; summary.csv's pareto); k/3: the seeds in which it is (pareto_in_seed)"
            ))
        #expect(
            lines.contains("values: means over the 3 seeds, to the precision of their 95 % interval across the seeds"))
    }

    @Test func badAxisIsAUsageErrorBeforeAnythingRuns() {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("bgbench-sweep-\(UUID().uuidString)")
            .path
        let unknown = bgbench(["sweep", "--set", "population.bar_of_share=0,1", "--out", out])
        #expect(unknown.code == 64)
        #expect(
            unknown.errors
                == "error: --set population.bar_of_share: unknown key (did you mean 'bar_off_share'?)\nsee 'bgbench --help'\n"
        )
        let range = bgbench(["sweep", "--set", "population.bar_off_share=0,2", "--out", out])
        #expect(range.code == 64)
        #expect(
            range.errors
                == "error: --set population.bar_off_share: 2 is out of range: expected a number from 0 to 1\nsee 'bgbench --help'\n"
        )
        // One value twice, or two spellings of one value (issue 25 item 8): the points'
        // loaded scenarios compared, each spelling named.
        for (axis, message) in [
            ("policies.fixed.interval=15m,15m", "value '15m' given twice"),
            ("policies.fixed.interval=15m,30m,900s", "'15m' and '900s' are the same value"),
            ("population.bar_off_share=0.1,0.10", "'0.1' and '0.10' are the same value"),
        ] {
            let twice = bgbench(["sweep", "--set", "population.low_power_share=0,0.5", "--set", axis, "--out", out])
            #expect(twice.code == 64)
            #expect(
                twice.errors == "error: invalid value '\(axis)' for '--set': \(message)\nsee 'bgbench --help'\n")
        }
        let none = bgbench(["sweep", "--out", out])
        #expect(
            none.errors
                == "error: 'sweep' needs at least one '--set PATH=V1,V2,...' to sweep over\nsee 'bgbench --help'\n")
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
