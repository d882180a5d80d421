import BGBench
import Foundation
import Testing

// Bring your own policy (issue 3), proven with bgbench's public API alone: this target
// imports `BGBench` without `@testable`, as a researcher's own package would
// (docs/policies.md, "Bring your own policy"). If it stops compiling, the public API
// lost something an outside policy needs.

/// The researcher's policy: ask at ten minutes to every whole hour (00:50, 01:50, ...),
/// after a run and after a denial alike. On `unrestricted` without a cap nothing is
/// refused, so every request runs: 24 runs a day, exactly.
struct TenToTheHourPolicy: WakePolicy {
    static let name = "ten-to-the-hour"
    static let summary = "test: ask at ten minutes to every whole hour"
    static let lead = 10 * Clock.minute

    init(_ context: PolicyContext) {}

    /// The first hh:50 strictly after t.
    static func next(after t: SimTime) -> WakeDecision {
        var at = t - t % Clock.hour + Clock.hour - lead
        if at <= t { at += Clock.hour }
        return .request(at: at)
    }

    mutating func start(_ view: DeviceView) -> WakeDecision { Self.next(after: view.now) }
    mutating func runStarted(_ view: DeviceView) -> WakeDecision { Self.next(after: view.now) }
    mutating func denied(_ reason: DenialReason, retryAt: SimTime?, _ view: DeviceView) -> WakeDecision {
        Self.next(after: retryAt ?? view.now)
    }
}

@Suite struct BringYourOwnPolicyTests {
    static let devices = 64
    static let days = 14
    static let seed: UInt64 = 11
    /// The rule's answer on `unrestricted` without a cap: one run at every hh:50.
    static let runsPerDay = 24.0
    /// Sums of per-device figures in summary.csv's text round-trip to a few ulps.
    static let tolerance = 1e-9

    /// The checkout's root, found from this file (Tests/PublicAPITests/...).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Registers the policy once per process (registering a name twice is a programming
    /// error, and the tests of a suite may run in parallel).
    static let registered: Bool = {
        PolicyRegistry.register(TenToTheHourPolicy.self)
        return true
    }()

    /// summary.csv as (header, rows), each row by column name. The report's fields hold
    /// no commas or quotes (names, numbers), so a split is a parse.
    static func readSummary(_ path: String) throws -> [[String: String]] {
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        let header = try #require(lines.first).split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        return lines.dropFirst().map { line in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            return Dictionary(uniqueKeysWithValues: zip(header, fields))
        }
    }

    static func number(_ row: [String: String], _ column: String) throws -> Double {
        try #require(row[column].flatMap(Double.init), "column \(column)")
    }

    @Test func aPolicyFromOutsideRunsThroughTheRunnerAndTheReports() throws {
        #expect(Self.registered)
        #expect(PolicyRegistry.named(TenToTheHourPolicy.name)?.summary == TenToTheHourPolicy.summary)
        #expect(PolicyRegistry.all.map(\.name).contains(TenToTheHourPolicy.name))

        // The scenario the public way: the default file with an override, as
        // `bgbench --scenario Datasets/scenarios/default.json --set ...` loads it.
        let file = Self.packageRoot.appendingPathComponent("Datasets/scenarios/default.json").path
        let scenario = try ScenarioLoader.load(file: file, overrides: ["platform.name=unrestricted"])
        #expect(scenario.scenario.platform.name == "unrestricted")
        // The registered policy renames no run of the built-in defaults: they are hashed as
        // that file is (run.json's scenario_sha256), whatever this process registered.
        #expect(ScenarioLoader.builtInDefaultText() == (try String(contentsOfFile: file, encoding: .utf8)))
        #expect(ScenarioLoader.builtInDefault().sha256 == (try ScenarioLoader.load(file: file)).sha256)
        #expect(scenario.scenario.platform[Unrestricted.self].dailyCap == 0)

        let request = RunRequest(
            scenario: scenario, policies: ["none", TenToTheHourPolicy.name],
            options: RunOptions(devices: Self.devices, days: Self.days, seed: Self.seed, threads: 2))
        let report = try Runner.run(request)
        #expect(report.results.map(\.policy) == ["none", TenToTheHourPolicy.name])

        let out = FileManager.default.temporaryDirectory
            .appendingPathComponent("bgbench-byop-\(ProcessInfo.processInfo.processIdentifier)").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        try ReportWriter.write(report, to: out)
        let rows = try Self.readSummary(out + "/summary.csv")
        let mine = try #require(
            rows.first { $0["policy"] == TenToTheHourPolicy.name && $0["archetype"] == "all" },
            "summary.csv has the registered policy's fleet row")
        let none = try #require(rows.first { $0["policy"] == "none" && $0["archetype"] == "all" })
        #expect(mine["platform"] == "unrestricted")
        #expect(mine["devices"] == "\(Self.devices)" && mine["days"] == "\(Self.days)")

        // Its rule's answer: a run at every hh:50, nothing denied or replaced, and at
        // the horizon each device has the next day's 00:50 pending.
        let runs = try Self.number(mine, "runs_per_day")
        let denied = try Self.number(mine, "denied_per_day")
        let replaced = try Self.number(mine, "replaced_per_day")
        let pending = try Self.number(mine, "pending_at_horizon_per_day")
        let requested = try Self.number(mine, "requested_per_day")
        #expect(abs(runs - Self.runsPerDay) < Self.tolerance, "runs/day \(runs)")
        #expect(denied == 0 && replaced == 0)
        #expect(abs(pending - 1 / Double(Self.days)) < Self.tolerance, "pending/day \(pending)")
        #expect(
            abs(requested - (Self.runsPerDay + 1 / Double(Self.days))) < Self.tolerance, "requested/day \(requested)")
        // Every request is accounted for (MODEL.md §6.4): it ran, was denied, was
        // replaced or was still pending at the horizon.
        #expect(abs(requested - (runs + denied + replaced + pending)) < Self.tolerance)
        // The same figures as the in-memory report's totals.
        let tally = try #require(report.results.last).tally
        #expect(tally[.runs] == Self.runsPerDay * Double(Self.days * Self.devices))
        #expect(tally[.requested] == tally[.runs] + tally[.denied] + tally[.replaced] + tally[.pending])

        // Waking every hour keeps content fresher than never waking, for the same users.
        let fresh = try Self.number(mine, "fresh_open_rate"), baseline = try Self.number(none, "fresh_open_rate")
        #expect(fresh > baseline, "fresh \(fresh) vs none \(baseline)")
        #expect(FileManager.default.fileExists(atPath: out + "/daily.csv"))
        #expect(FileManager.default.fileExists(atPath: out + "/run.json"))
    }
}
