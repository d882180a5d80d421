import Foundation
import Testing
@testable import BGBench

/// MODEL.md §6.4 rule 3's identities on fleet totals, for every built-in policy on several
/// scenarios (small fleets: 64 devices × 20 days):
///   requested = runs − push runs + denied + replaced + pending at the horizon,
///   runs = newData + noData + failed + expired + killed,
///   push sent = push runs + lost + gated + throttled (zero but for server-side policies),
/// and the per-reason denials add up to the denied total. Each scenario also has a check
/// that it does what its change says, so the identities are not met by doing nothing.
@Suite struct IdentityTests {
    enum Case: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case defaults, r1, barOff, forgetful, alwaysNewData, hangs, unrestrictedCapped, warmup

        var testDescription: String { rawValue }

        /// The scenario, as `bgbench --scenario ... --set ...` would load it.
        func load() throws -> LoadedScenario {
            switch self {
            case .defaults, .warmup: ScenarioLoader.builtInDefault()
            case .r1: try TestSupport.loadScenario("r1")
            case .barOff: try ScenarioLoader.load(json: "{}", overrides: ["population.bar_off_share=1"])
            case .forgetful: try ScenarioLoader.load(json: "{}", overrides: ["app.resubmits=false"])
            case .alwaysNewData: try ScenarioLoader.load(json: "{}", overrides: ["app.status=always_new_data"])
            case .hangs: try ScenarioLoader.load(json: "{}", overrides: ["app.hang_probability=0.3"])
            case .unrestrictedCapped:
                try ScenarioLoader.load(
                    json: "{}",
                    overrides: [
                        "platform.name=unrestricted",
                        "platform.unrestricted.daily_cap=5",
                    ])
            }
        }

        var options: RunOptions {
            RunOptions(devices: 64, days: 20, seed: 11, threads: 2, warmupDays: self == .warmup ? 3 : 0)
        }
    }

    static let policies = PolicyRegistry.builtIn.filter { !$0.needsInput }.map { $0.name }

    @Test(arguments: Case.allCases, policies)
    func identitiesHold(_ c: Case, policy: String) throws {
        let scenario = try c.load().scenario
        let options = c.options
        let feed = NewsFeed(content: scenario.content, days: options.days, seed: options.seed)
        let tally = try Fleet.run(
            scenario: scenario, policy: PolicyRegistry.named(policy)!, options: options, feed: feed)
        let q = { (x: Quantity) in tally[x] }

        #expect(tally.devices == 64)
        #expect(
            q(.requested) == q(.runs) - q(.pushRuns) + q(.denied) + q(.replaced) + q(.pending),
            "requested \(q(.requested)), runs \(q(.runs)), push runs \(q(.pushRuns)), denied \(q(.denied)), replaced \(q(.replaced)), pending \(q(.pending))"
        )
        #expect(q(.pushSent) == q(.pushRuns) + q(.pushLost) + q(.pushGated) + q(.pushThrottled))
        if !PolicyRegistry.named(policy)!.type.observesPublications { #expect(q(.pushSent) == 0) }
        let outcomes = RunStatus.allCases.reduce(0.0) { $0 + q(.outcome($1)) }
        #expect(q(.runs) == outcomes)
        let reasons = DenialReason.allCases.reduce(0.0) { $0 + q(.denied($1)) }
        #expect(q(.denied) == reasons)
        #expect(q(.pending) <= 64, "at most one request pending per device")
        #expect(q(.opens) > 0)

        // The scenario does what it says.
        let requests = policy != NoWakePolicy.name
        if !requests {
            #expect(q(.requested) == 0 && q(.runs) == 0 && q(.backgroundEnergy) == 0)
            return
        }
        #expect(q(.requested) > 0)
        switch c {
        case .r1:
            if policy == FixedPolicy.name {
                #expect(q(.runs) == 64 * 20 * 12)
                #expect(q(.denied) == q(.denied(.budget)))
            }
        case .barOff:
            #expect(q(.runs) == 0)
            #expect(q(.denied) == q(.denied(.barOff)) + q(.denied(.foreground)))
            #expect(q(.denied(.barOff)) > 0)
        case .forgetful:
            #expect(q(.denied(.notSubmitted)) > 0)
            #expect(q(.runs) > 0)
        case .alwaysNewData:
            #expect(q(.outcome(.noData)) == 0)
            #expect(q(.outcome(.newData)) > 0)
        case .hangs:
            #expect(q(.outcome(.expired)) > 0)
            #expect(q(.throttleEvents) > 0)
        case .unrestrictedCapped:
            #expect(q(.runs) - q(.pushRuns) <= 64 * 20 * 5, "pushes do not count against the cap")
            #expect(q(.denied) == q(.denied(.budget)) + q(.denied(.busy)))
        case .defaults, .warmup:
            #expect(q(.runs) > 0)
        }
    }

    /// Warm-up leaves whole days out: the counted opens of a 20-day run with 3 warm-up days
    /// are the opens of days 3...19, fewer than without the warm-up.
    @Test func warmupCountsFewer() throws {
        let scenario = ScenarioLoader.builtInDefault().scenario
        var options = Case.defaults.options
        let feed = NewsFeed(content: scenario.content, days: options.days, seed: options.seed)
        let all = try Fleet.run(scenario: scenario, policy: FixedPolicy.self, options: options, feed: feed)
        options.warmupDays = 3
        let counted = try Fleet.run(scenario: scenario, policy: FixedPolicy.self, options: options, feed: feed)
        #expect(counted[.opens] < all[.opens])
        #expect(counted[.runs] < all[.runs])
        #expect(counted[.events] == all[.events], "events count the whole simulation")
    }
}
