import Foundation

/// `ios-fetch`, iOS 7–12 Background Fetch (MODEL.md §6.2). The app only sets an advisory
/// minimum interval (`platform.ios_fetch.minimum_interval`, default `never`: no fetches);
/// the system chooses when to wake it: as soon as the interval has passed since the last
/// fetch and the engagement budget has a token, when the gates allow. There is nothing
/// to resubmit. Gates, token bucket, penalties and the 30 s limit are `ios-bgtask`'s
/// (`EngagementBudget`, parameters under `platform.ios_bgtask`).
///
/// The policy cannot choose times here: the simulation drops its requests (iOS 12 has no
/// API to ask for a wake at a time) and the platform's own wakes go through `admit`.
public struct IOSFetch: PlatformRules {
    public static let name = "ios-fetch"
    public static let summary = "iOS 7-12 Background Fetch: the system wakes the app after its minimum interval (default never) as its budget allows; ios-bgtask's gates, budget, penalties, 30 s limit"
    public static var initiatesWakes: Bool { true }

    var budget: EngagementBudget
    public let runtimeLimit: SimTime
    /// Time between fetches: the larger of the app's minimum interval and the system's
    /// spacing; nil when the interval is `never`.
    let interval: SimTime?
    private var lastRunStart: SimTime?

    public var throttleEvents: Int { budget.throttleEvents }
    public var tokens: Double { budget.tokens }
    public var multiplier: Double { budget.multiplier }

    public init(_ setup: PlatformSetup) {
        let p = setup.scenario.platform.iosBgtask
        budget = EngagementBudget(p, initialUsage: setup.initialUsage)
        runtimeLimit = p.runtimeLimit.ticks
        switch setup.scenario.platform.iosFetch.minimumInterval {
        case .never: interval = nil
        case .every(let span): interval = max(span.ticks, p.minSpacing.ticks)
        }
    }

    /// The system's next wake: the interval after the last fetch, once a token is there.
    public mutating func systemWake(after t: SimTime) -> SimTime? {
        guard let interval else { return nil }
        let due = lastRunStart.map { max(t, $0 + interval) } ?? t
        return budget.tokenTime(at: t, notBefore: due)
    }

    /// The same checks as `ios-bgtask` but `not_submitted` (nothing to resubmit); spacing
    /// is the fetch interval.
    public mutating func admit(at t: SimTime, gates g: GateInputs) -> Admission {
        if let reason = EngagementBudget.stateGate(g, checkSubmitted: false) { return .deny(reason, retryAt: nil) }
        guard let interval else { return .deny(.spacing, retryAt: nil) }
        if let last = lastRunStart, t - last < interval { return .deny(.spacing, retryAt: last + interval) }
        let ready = budget.tokenTime(at: t)
        if ready > t { return .deny(.budget, retryAt: ready) }
        return .run
    }

    public mutating func runStarted(at t: SimTime) {
        budget.take(at: t)
        lastRunStart = t
    }

    public mutating func runEnded(at t: SimTime, status: RunStatus, broughtContent: Bool) {
        budget.runEnded(at: t, status: status, broughtContent: broughtContent)
    }

    public mutating func midnight(at t: SimTime, opens: Int) {
        budget.midnight(at: t, opens: opens)
    }
}
