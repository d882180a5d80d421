/// `oracle` (MODEL.md §7): the clairvoyant bound. It knows every future open and item (not
/// run outcomes) and, under the same platform rules, asks `lead` before the first open that
/// would otherwise be stale: the open at or after the first item its cache misses. A
/// ceiling that no real policy should pass beyond noise.
public struct OraclePolicy: WakePolicy {
    public static let name = "oracle"
    public static let summary = "bound: knows future opens and items; wakes just before each open that would be stale"
    public static let callbacks: PolicyCallbacks = .all.subtracting(.midnight)
    public static let isClairvoyant = true

    var future: Clairvoyance
    let lead: SimTime
    /// The oracle's own account of the app's cache time c.
    var cached: SimTime = 0
    var runStart: SimTime = 0

    public init(_ context: PolicyContext) {
        future = context.clairvoyance
        lead = context.scenario.policies[OraclePolicy.self].lead.ticks
    }

    /// A wake `lead` before the first open from `t` on that would be stale.
    mutating func plan(from t: SimTime) -> WakeDecision {
        let firstMiss = future.firstItem(after: cached)
        if firstMiss == Clock.never { return .cancel }
        let open = future.nextOpen(atOrAfter: max(t, firstMiss))
        if open == Clock.never { return .cancel }
        return .request(at: max(t, open - lead))
    }

    public mutating func start(_ view: DeviceView) -> WakeDecision { plan(from: view.now) }

    public mutating func opened(_ view: DeviceView) -> WakeDecision {
        // A stale open fetched in the foreground: the cache now holds everything to now.
        if future.firstItem(after: cached) <= view.now { cached = view.now }
        return plan(from: view.now + 1)
    }

    public mutating func runStarted(_ view: DeviceView) -> WakeDecision {
        runStart = view.now
        return .keep
    }

    public mutating func runEnded(_ status: RunStatus, _ view: DeviceView) -> WakeDecision {
        if status == .newData || status == .noData { cached = max(cached, runStart) }
        return plan(from: view.now)
    }

    public mutating func denied(_ reason: DenialReason, retryAt: SimTime?, _ view: DeviceView) -> WakeDecision {
        if let retryAt { return plan(from: retryAt) }
        if reason == .foreground { return plan(from: view.now + 30 * Clock.second) }
        return .keep  // a state gate: wait for the state to change
    }

    public mutating func stateChanged(_ view: DeviceView) -> WakeDecision { plan(from: view.now) }
}

// MARK: - Parameters

public struct OracleParameters: ParameterSet {
    public init() {}

    public var lead = TimeSpan.seconds(60)
}
extension OracleParameters {
    public static var fields: [ParameterField<Self>] {
        [
            .duration(
                \.lead, "lead", in: .minutes(0)...(.days(1)), "ask this long before the open; bgbench's bound (1 min)")
        ]
    }
}

extension OraclePolicy { public typealias Parameters = OracleParameters }
