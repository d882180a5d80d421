import Foundation
import Testing
@testable import BGBench

/// Denials the platform decides ahead (`PlatformRules.deniesUntil`) of a policy that
/// answers them by time alone (`WakePolicy.deniedAhead`) are handled at once, without the
/// platform, the view or the policy's `denied`. A traced device takes the path of every
/// other denial (it logs each step), so tracing every device is the oracle: every total,
/// daily and hourly figure must be the same either way.
@Suite struct DecidedDenialsTests {
    static let options = RunOptions(devices: 64, days: 12, seed: 5, threads: 1, warmupDays: 2, keepDevices: true)

    static func simulate(_ scenario: Scenario, _ policy: PolicyEntry, tracing: Bool) throws -> FleetResult {
        var options = options
        options.traceDevices = tracing ? options.devices : 0
        let feed = NewsFeed(content: scenario.content, days: options.days, seed: options.seed)
        return try Fleet.simulate(scenario: scenario, policy: policy, options: options, feed: feed)
    }

    /// R1 (a cap of 12 runs a day against 48 attempts) and a tighter cap on the default
    /// scenario (battery, charging and screen events interleave with the denials).
    @Test(arguments: ["r1", "capped-default"])
    func fixedGivesTheSameResultsEitherWay(_ name: String) throws {
        let scenario =
            name == "r1"
            ? try TestSupport.loadScenario("r1").scenario
            : try ScenarioLoader.load(
                json: "{}",
                overrides: [
                    "platform.name=unrestricted",
                    "platform.unrestricted.daily_cap=3",
                ]
            ).scenario
        let fixed = PolicyRegistry.named("fixed")!
        let fast = try Self.simulate(scenario, fixed, tracing: false)
        let oracle = try Self.simulate(scenario, fixed, tracing: true)
        #expect(fast.fleet == oracle.fleet)
        #expect(fast.daily == oracle.daily)
        #expect(fast.hourly == oracle.hourly)
        #expect(fast.devices.map(\.values) == oracle.devices.map(\.values))
        // Most attempts are denied by the cap, so the fast path carried most of them.
        #expect(fast.fleet[.denied(.budget)] > 0.5 * fast.fleet[.requested])
    }

    /// The fast path is taken: a policy whose `deniedAhead` answers otherwise than its
    /// `denied` gives other results untraced than traced.
    @Test func theFastPathIsTaken() throws {
        let scenario = try TestSupport.loadScenario("r1").scenario
        let entry = PolicyEntry(SkewedFixed.self)
        let fast = try Self.simulate(scenario, entry, tracing: false)
        let oracle = try Self.simulate(scenario, entry, tracing: true)
        #expect(fast.fleet[.requested] != oracle.fleet[.requested])
    }

    /// `fixed` whose answer to a decided denial skips a grid point (so the two paths differ).
    struct SkewedFixed: WakePolicy {
        static let name = "skewed-fixed"
        static let summary = "test: fixed, but a decided denial skips a grid point"
        var fixed: FixedPolicy
        init(_ context: PolicyContext) { fixed = FixedPolicy(context) }
        mutating func start(_ view: DeviceView) -> WakeDecision { fixed.start(view) }
        mutating func denied(_ reason: DenialReason, retryAt: SimTime?, _ view: DeviceView) -> WakeDecision {
            fixed.denied(reason, retryAt: retryAt, view)
        }
        mutating func deniedAhead(at t: SimTime) -> SimTime? {
            _ = fixed.deniedAhead(at: t)
            return fixed.deniedAhead(at: fixed.next)
        }
        mutating func runStarted(_ view: DeviceView) -> WakeDecision { fixed.runStarted(view) }
    }
}
