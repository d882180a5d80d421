import Foundation
import Testing
@testable import BGBench
@testable import BGBenchCLI

/// The per-device identities of `--check-invariants` (issue 13 point 7): each one can
/// fail (hand-built tallies with known answers), and none fails on any preset under any
/// built-in policy with the checking mode on.
@Suite struct InvariantsTests {
    /// A tally that is whole: 10 requests = 5 runs (one of them a push's) ... .
    static var whole: DeviceTally {
        var t = DeviceTally()
        t[.opens] = 7; t[.freshOpens] = 4; t[.foregroundFetches] = 2; t[.foregroundFailures] = 1
        t[.runs] = 5; t[.pushRuns] = 1; t[.pushSent] = 2
        t.countOutcome(.newData); t.countOutcome(.newData); t.countOutcome(.noData); t.countOutcome(.failed);
        t.countOutcome(.killed)
        t.countDenial(.spacing); t.countDenial(.budget); t.countDenial(.lowPower)
        t[.replaced] = 2; t[.pending] = 1
        t[.requested] = 4 + 3 + 2 + 1
        t[amount: .backgroundEnergy] = 12.5
        return t
    }

    @Test func aWholeTallyBreaksNothing() {
        #expect(DeviceInvariants.violations(Self.whole) == [])
        #expect(DeviceInvariants.violations(DeviceTally()) == [])
    }

    @Test func eachIdentityCanBreak() {
        var t = Self.whole
        t[.requested] += 1
        #expect(
            DeviceInvariants.violations(t) == [
                "requested 11 ≠ runs without a push 4 + denied 3 + replaced 2 + pending 1"
            ])
        t = Self.whole
        t.countOutcome(.expired)
        #expect(DeviceInvariants.violations(t) == ["runs 5 ≠ the sum of their outcomes 6"])
        t = Self.whole
        t.countDenial(.busy); t[.denied] -= 1
        #expect(DeviceInvariants.violations(t) == ["denied 3 ≠ the sum of denials by reason 4"])
        t = Self.whole
        t[.freshOpens] = 8
        #expect(DeviceInvariants.violations(t) == ["fresh opens 8 > opens 7 (stale opens would be negative)"])
        t = Self.whole
        t[.foregroundFailures] += 1
        #expect(DeviceInvariants.violations(t) == ["foreground fetches 2 + failures 2 ≠ stale opens 3"])
        t = Self.whole
        t[amount: .backgroundEnergy] = -0.5
        #expect(
            DeviceInvariants.violations(t) == ["background_energy_j is -0.5: expected a finite non-negative amount"])
        t = Self.whole
        t[amount: .wifiBytes] = .nan
        #expect(DeviceInvariants.violations(t) == ["wifi_bytes is nan: expected a finite non-negative amount"])
        t = Self.whole
        t[ticks: .staleness] = -3
        #expect(DeviceInvariants.violations(t) == ["staleness_s is negative: -3 ticks"])
    }

    /// The full-size soak's finding: device 9688 of the default scenario under `oracle`
    /// (seed 1, 365 days) has more stale opens without a network (3) than foreground
    /// fetches (2), which the first identity (failures ≤ fetches) called broken. The two
    /// are disjoint (an offline stale open fetches nothing); their sum is the stale opens.
    /// Only that device's block is simulated (`--shard 151/152` of 9,689 devices).
    @Test func soakFindingOfflineStaleOpensAreNotFetches() throws {
        var options = RunOptions(devices: 9689, days: 365, seed: 1, threads: 2, keepDevices: true)
        options.shard = Shard(index: 151, count: 152)
        options.checksInvariants = true
        let report = try Runner.run(
            RunRequest(scenario: ScenarioLoader.builtInDefault(), policies: ["oracle"], options: options))
        let rows = report.results[0].result.devices
        #expect(rows.map(\.device) == Array(9664..<9689))
        let device = try #require(rows.last)
        #expect(device[.foregroundFailures] == 3 && device[.foregroundFetches] == 2)
        for row in rows {
            #expect(row[.foregroundFetches] + row[.foregroundFailures] == row[.opens] - row[.freshOpens])
        }
    }

    /// Every preset × every built-in policy, with a warm-up, in checking mode: a broken
    /// identity stops the process, so reaching the end is the assertion.
    @Test(arguments: ["default", "r1", "news", "fitness-sync", "ecommerce", "finance", "messaging"])
    func everyPresetAndPolicyKeepsTheIdentities(_ preset: String) throws {
        let loaded = try EmbeddedFiles.loadScenario(preset, overrides: [])
        var options = RunOptions(devices: 24, days: 10, seed: 3, threads: 2, warmupDays: 2)
        options.checksInvariants = true
        let names = PolicyRegistry.builtIn.filter { !$0.needsInput }.map(\.name)
        let report = try Runner.run(RunRequest(scenario: loaded, policies: names, options: options))
        #expect(report.results.map(\.policy) == names)
        for result in report.results { #expect(result.tally[.opens] > 0, "\(preset) \(result.policy) has opens") }
    }
}
