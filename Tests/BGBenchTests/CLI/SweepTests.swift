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
        #expect(all[0] == ["policies.fixed.interval", "population.bar_off_share"] + SummarySchema.header + ["pareto"])
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
                e: Double($0[energy]) ?? .infinity, pareto: $0.last!
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
        for (line, row) in zip(lines.dropFirst(), rows.dropFirst()) {
            let cells = line.split(separator: " ").map(String.init)
            let mark = row.last! == "true" ? ["*"] : []
            let percent = Double(row[fresh]).map { String(format: "%.1f", $0 * 100) } ?? "-"
            #expect(
                cells
                    == [
                        row[0], row[1], row[3], percent, String(format: "%.0f", Double(row[stale]) ?? .nan),
                        String(format: "%.1f", Double(row[energy])!), String(format: "%.2f", Double(row[runs])!),
                    ] + mark,
                "\(line)")
        }
        #expect(
            lines[9]
                == "* on the freshness–energy frontier of its world (the environment axes' values; summary.csv's pareto)"
        )
        #expect(lines[10] == "fresh %: percent; the CSV files hold ratios (0 to 1)")
        #expect(lines[11].hasPrefix("4 points × 2 policies, seed 1: "))
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
        let none = bgbench(["sweep", "--out", out])
        #expect(
            none.errors
                == "error: 'sweep' needs at least one '--set PATH=V1,V2,...' to sweep over\nsee 'bgbench --help'\n")
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
