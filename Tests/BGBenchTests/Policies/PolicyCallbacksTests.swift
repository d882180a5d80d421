import Testing

@testable import BGBench

/// A policy's `callbacks` (its subscriptions) may leave out only callbacks whose answer is
/// always `.keep` with nothing changed: the device then skips them. The oracle is the same
/// policy told of every callback (`ToldOfAll`): every built-in policy must give the same
/// per-device totals and the same event log on every platform.
@Suite struct PolicyCallbacksTests {
    /// `P` with every callback subscribed; everything else is `P`'s.
    struct ToldOfAll<P: WakePolicy>: WakePolicy {
        typealias Parameters = P.Parameters
        static var name: String { P.name }
        static var summary: String { P.summary }
        static var isClairvoyant: Bool { P.isClairvoyant }
        static var knowledge: PolicyKnowledge { P.knowledge }
        static var observesPublications: Bool { P.observesPublications }
        static var callbacks: PolicyCallbacks { .all }
        static var needsInput: Bool { P.needsInput }
        static func prepare(_ scenario: Scenario) throws -> (any Sendable)? { try P.prepare(scenario) }
        var base: P
        init(_ context: PolicyContext) { base = P(context) }
        mutating func start(_ view: DeviceView) -> WakeDecision { base.start(view) }
        mutating func opened(_ view: DeviceView) -> WakeDecision { base.opened(view) }
        mutating func denied(_ reason: DenialReason, retryAt: SimTime?, _ view: DeviceView) -> WakeDecision {
            base.denied(reason, retryAt: retryAt, view)
        }
        mutating func deniedAhead(at t: SimTime) -> SimTime? { base.deniedAhead(at: t) }
        mutating func runStarted(_ view: DeviceView) -> WakeDecision { base.runStarted(view) }
        mutating func runEnded(_ status: RunStatus, _ view: DeviceView) -> WakeDecision { base.runEnded(status, view) }
        mutating func stateChanged(_ view: DeviceView) -> WakeDecision { base.stateChanged(view) }
        mutating func midnight(_ view: DeviceView) -> WakeDecision { base.midnight(view) }
        mutating func published(_ view: DeviceView) -> PushDecision { base.published(view) }
    }

    static let platforms = [IOSBGTask.name, IOSFetch.name, AndroidWorkManager.name, Unrestricted.name]

    /// `schedule`'s plan: every 20 min by day, hourly from midnight to 07:00, off on Sunday
    /// mornings, and every 10 min for users who open the app 10 times a day or more.
    static let plan: String = {
        var rows = ["device,platform,opens_per_day,hour_of_week,interval"]
        for day in 0..<6 {
            rows.append("*,*,*,\(day * 24)-\(day * 24 + 6),1h")
            rows.append("*,*,*,\(day * 24 + 7)-\(day * 24 + 23),20m")
        }
        rows += ["*,*,*,144-155,off", "*,*,*,156-167,20m", "*,*,10-,*,10m"]
        return ScheduleTests.planFile(rows.joined(separator: "\n") + "\n")
    }()

    /// The run of `entry` on `platform`: per-device totals of 70 devices (two blocks) and
    /// the event log of the first 3 (a traced device tells `denied` every denial; an
    /// untraced one may handle a run of them through `deniedAhead`).
    static func run(_ entry: PolicyEntry, platform: String) throws -> FleetResult {
        var scenario = try TestSupport.loadScenario("default").scenario
        scenario.platform.name = platform
        scenario.policies[SchedulePolicy.self].plan = Self.plan
        if platform == IOSFetch.name { scenario.platform[IOSFetch.self].minimumInterval = .every(.minutes(30)) }
        let options = RunOptions(devices: 70, days: 7, seed: 7, threads: 2, keepDevices: true, traceDevices: 3)
        let feed = NewsFeed(content: scenario.content, days: options.days, seed: options.seed)
        return try Fleet.simulate(scenario: scenario, policy: entry, options: options, feed: feed)
    }

    /// (The external policies subscribe at their handshake, not in their type:
    /// ExternalPolicyTests compares the Python `fixed` with the built-in one.)
    @Test(arguments: PolicyRegistry.builtIn.map { $0.name }.filter { !ExternalPolicies.names.contains($0) })
    func subscriptionsChangeNothing(policy name: String) throws {
        let entry = try #require(PolicyRegistry.named(name))
        func toldOfAll<P: WakePolicy>(_: P.Type) -> PolicyEntry { PolicyEntry(ToldOfAll<P>.self) }
        let all = toldOfAll(entry.type)
        for platform in Self.platforms {
            let own = try Self.run(entry, platform: platform)
            let reference = try Self.run(all, platform: platform)
            try #require(own.devices.count == 70 && reference.devices.count == 70)
            let device = own.devices.indices.first { own.devices[$0].values != reference.devices[$0].values }
            #expect(device == nil, "\(name) on \(platform): device \(device ?? -1)'s totals differ")
            #expect(!own.trace.isEmpty)
            let row = own.trace.indices.first { $0 >= reference.trace.count || own.trace[$0] != reference.trace[$0] }
            #expect(
                row == nil && own.trace.count == reference.trace.count,
                "\(name) on \(platform): the event logs differ at row \(row ?? min(own.trace.count, reference.trace.count))"
            )
        }
    }

    /// The lists themselves: a policy told of less than it answers would fail above; these
    /// are the savings the lists buy (a view built and a call made per event otherwise).
    @Test func builtInLists() {
        #expect(FixedPolicy.callbacks == [.denied, .runStarted])
        #expect(NoWakePolicy.callbacks == [])
        #expect(AdaptivePolicy.callbacks == .all)
    }
}
