import Foundation
import Testing
@testable import BGBench
import BGBenchTestSupport

/// Subgroups (issue 12 points 8 and 9): devices.csv's attributes, `population.low_power_share`,
/// time in Low Power Mode per device-day, and the documented pandas recipe.
@Suite struct SubgroupTests {
    static let checkout = TestSupport.packageRoot

    /// A run of the default scenario with `--set` overrides (so the resolved scenario the
    /// writer records is the one run).
    static func run(
        _ overrides: [String], policies: [String] = ["fixed"], devices: Int = 40,
        days: Int = 4
    ) throws -> RunReport {
        let loaded = try ScenarioLoader.load(json: "{}", overrides: overrides)
        return try Runner.run(
            RunRequest(
                scenario: loaded, policies: policies,
                options: RunOptions(devices: devices, days: days, seed: 3, threads: 2, keepDevices: true)))
    }

    static func estimate(_ report: RunReport, _ policy: String, _ metric: String) -> Double {
        let r = report.results.first { $0.policy == policy }!
        let e = FleetEstimates(tally: r.tally, days: report.countedDays)
        return metric == "fresh_open_rate" ? e.perOpen(.freshOpens).value : e.perDeviceDay(.lowPower).value
    }

    /// Everyone keeping Low Power Mode on: no background run on ios-bgtask (gate
    /// `low_power`), so freshness falls from the default's by more than a point; every device-day is spent in
    /// Low Power Mode (86,400 s), and devices.csv marks every device. The default keeps
    /// none: Low Power Mode only after a 20 % crossing, a small share of the time.
    @Test func lowPowerShareMovesFreshnessAndItsTimeIsReported() throws {
        let none = try Self.run([])
        let all = try Self.run(["population.low_power_share=1"])
        let fresh0 = Self.estimate(none, "fixed", "fresh_open_rate"),
            fresh1 = Self.estimate(all, "fixed", "fresh_open_rate")
        #expect(all.results[0].tally[.runs] == 0)
        // Stale opens still fetch in the foreground, so the drop is what background runs add
        // (3.4 points here); before, no setting moved freshness by even 0.01 points.
        let minimumDrop = 0.01
        #expect(
            fresh1 < fresh0 - minimumDrop,
            "fresh-open rate \(fresh1) with everyone in Low Power Mode, \(fresh0) without")
        #expect(abs(Self.estimate(all, "fixed", "low_power_s_per_day") - 86_400) < 1e-6)
        let lowPower0 = Self.estimate(none, "fixed", "low_power_s_per_day")
        #expect(lowPower0 >= 0 && lowPower0 < 86_400 / 4, "\(lowPower0) s a day in Low Power Mode by default")
        #expect(all.results[0].result.devices.allSatisfy { $0.attributes.keepsLowPower })
        #expect(none.results[0].result.devices.allSatisfy { !$0.attributes.keepsLowPower })
        // The share draws after every other trait: the users are the same.
        #expect(
            zip(none.results[0].result.devices, all.results[0].result.devices).allSatisfy {
                $0.attributes.barOff == $1.attributes.barOff
                    && $0.attributes.expectedOpensPerDay == $1.attributes.expectedOpensPerDay
            })
    }

    /// devices.csv: the attribute columns after `archetype`, with each device's traits:
    /// its platform, the BAR switch (a device with it off never runs on ios-bgtask), Wi-Fi,
    /// its charging habit (a share of nights), its starting usage (its archetype's median)
    /// and its rate; the same under every policy.
    @Test func devicesCSVCarriesTheAttributes() throws {
        let report = try Self.run(["population.bar_off_share=0.5"], policies: ["fixed", "adaptive"])
        let rows = SeriesReports.devicesCSV(report).split(separator: "\n").map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        #expect(rows[0] == SeriesReports.devicesHeader)
        #expect(Array(rows[0][5..<(5 + DeviceAttributes.labels.count)]) == DeviceAttributes.labels)
        let column = { (name: String) in rows[0].firstIndex(of: name)! }
        let body = rows.dropFirst()
        #expect(body.count == 80)
        #expect(body.allSatisfy { $0[column("platform")] == "ios-bgtask" })
        let barOff = body.filter { $0[column("bar_off")] == "1" }
        #expect(barOff.count > 10 && barOff.count < 70, "\(barOff.count) of 80 rows with BAR off")
        #expect(barOff.allSatisfy { $0[column("runs")] == "0" })
        #expect(
            body.allSatisfy {
                ["0", "1"].contains($0[column("home_wifi")]) && ["0", "1"].contains($0[column("keeps_low_power")])
            })
        let medians = Set(
            ScenarioLoader.builtInDefault().scenario.population.archetypes.values.map(\.medianOpensPerDay))
        #expect(body.allSatisfy { medians.contains(Double($0[column("usage_estimate")])!) })
        #expect(body.allSatisfy { (0...1).contains(Double($0[column("overnight_charge_share")])!) })
        let fixed = report.results[0].result.devices, adaptive = report.results[1].result.devices
        #expect(fixed.map(\.attributes) == adaptive.map(\.attributes))
    }

    /// The pandas recipe of Reports/README.md, run as documented on a folder written with
    /// per-device rows: the BAR-off group has no runs, the groups add up to the fleet, and
    /// the fleet's fresh-open rate recomputed from the groups is summary.csv's.
    @Test func pandasRecipeSplitsAMetric() throws {
        let readme = try String(contentsOf: Self.checkout.appendingPathComponent("Reports/README.md"), encoding: .utf8)
        let marker = try #require(readme.range(of: "<!-- subgroup-recipe -->\n```python\n"))
        let end = try #require(readme.range(of: "\n```", range: marker.upperBound..<readme.endIndex))
        let recipe = String(readme[marker.upperBound..<end.lowerBound])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bgbench-subgroups-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let report = try Self.run(["population.bar_off_share=0.5"])
        try ReportWriter.write(report, to: folder)
        let fresh = Self.estimate(report, "fixed", "fresh_open_rate")
        let script =
            recipe + """

                t = split("bar_off")
                assert t.loc[("fixed", 3, 1), "runs_per_day"] == 0, t
                assert t["devices"].sum() == len(devices), t
                fleet = (t["fresh_open_rate"] * (t["devices"] * 0 + devices.groupby(["policy", "seed", "bar_off"])["opens"].sum())).sum() / devices["opens"].sum()
                assert abs(fleet - \(fresh)) < 1e-12, (fleet, \(fresh))
                print("ok")
                """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, folder]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0 && out.hasSuffix("ok\n"), "python: \(out)")
    }

    /// With `--replications 3` devices.csv holds each of the 40 devices three times; the
    /// recipe's groups of one seed add up to the 40 devices, not 120 (it pooled the seeds:
    /// "devices 4213 + 787" for a fleet of 1,000 at 5 seeds).
    @Test func pandasRecipeKeepsSeedsApart() throws {
        let readme = try String(contentsOf: Self.checkout.appendingPathComponent("Reports/README.md"), encoding: .utf8)
        let marker = try #require(readme.range(of: "<!-- subgroup-recipe -->\n```python\n"))
        let end = try #require(readme.range(of: "\n```", range: marker.upperBound..<readme.endIndex))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bgbench-subgroups-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let run = bgbench([
            "--policy", "fixed,adaptive", "--devices", "40", "--days", "3", "--replications", "3", "--per-device",
            "--set", "population.bar_off_share=0.5", "--out", folder, "--quiet",
        ])
        try #require(run.code == 0, "\(run.errors)")
        let script =
            String(readme[marker.upperBound..<end.lowerBound]) + """

                t = split("bar_off")
                assert devices["seed"].nunique() == 3 and len(devices) == 2 * 3 * 40, len(devices)
                per_seed = t["devices"].groupby(level=["policy", "seed"]).sum()
                assert len(per_seed) == 6 and (per_seed == 40).all(), per_seed
                print("ok")
                """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, folder]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0 && out.hasSuffix("ok\n"), "python: \(out)")
    }

    /// The paired recipe (issue 24: paired differences per subgroup, within each seed): with
    /// no device BAR-off, its one group is the fleet, so its per-seed differences and
    /// intervals are paired.csv's and its row across the seeds is replications.csv's, both
    /// computed by bgbench from its own sums; with half the devices BAR-off, each seed's
    /// groups hold the 40 devices once.
    @Test func pandasPairedRecipeIsPairedCSVForTheWholeFleet() throws {
        let readme = try String(contentsOf: Self.checkout.appendingPathComponent("Reports/README.md"), encoding: .utf8)
        func block(_ marker: String) throws -> String {
            let start = try #require(readme.range(of: "<!-- \(marker) -->\n```python\n"))
            let end = try #require(readme.range(of: "\n```", range: start.upperBound..<readme.endIndex))
            return String(readme[start.upperBound..<end.lowerBound])
        }
        let recipe = try block("subgroup-recipe") + "\n" + block("subgroup-paired-recipe")
        for share in ["0", "0.5"] {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "bgbench-subgroups-\(UUID().uuidString)"
            ).path
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let run = bgbench([
                "--policy", "fixed,adaptive", "--devices", "40", "--days", "3", "--replications", "2", "--per-device",
                "--set", "population.bar_off_share=\(share)", "--out", folder, "--quiet",
            ])
            try #require(run.code == 0, "\(run.errors)")
            let check =
                share == "0"
                ? """
                paired_csv = pd.read_csv(f"{folder}/paired.csv")
                paired_csv = paired_csv[paired_csv.metric == "fresh_open_rate"].set_index(["policy", "seed"])
                assert len(per_seed) == 2, per_seed
                for _, row in per_seed.iterrows():
                    p = paired_csv.loc[(row["policy"], row["seed"])]
                    for mine, theirs in [("difference", "difference"), ("ci_low", "difference_ci_low"),
                                         ("ci_high", "difference_ci_high")]:
                        assert abs(row[mine] - p[theirs]) < 1e-9, (mine, row[mine], p[theirs])
                replications = pd.read_csv(f"{folder}/replications.csv")
                r = replications[(replications.metric == "fresh_open_rate") & (replications.policy == "adaptive")].iloc[0]
                a = across.loc[("adaptive", 0)]
                for mine, theirs in [("mean", "difference"), ("ci_low", "difference_ci_low"),
                                     ("ci_high", "difference_ci_high")]:
                    assert abs(a[mine] - r[theirs]) < 1e-9, (mine, a[mine], r[theirs])
                """
                : """
                assert (per_seed.groupby(["policy", "seed"])["devices"].sum() == 40).all(), per_seed
                assert set(per_seed["bar_off"]) == {0, 1}, per_seed
                """
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-c", recipe + "\n" + check + "\nprint(\"ok\")\n", folder]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            try process.run()
            let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0 && out.hasSuffix("ok\n"), "share \(share), python: \(out)")
        }
    }
}
