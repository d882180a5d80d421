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
public struct IOSFetch: EngagementPlatform {
    public static let name = "ios-fetch"
    public static let summary = "iOS 7-12 Background Fetch: the system wakes the app after its minimum interval (default never) as its budget allows; ios-bgtask's gates, budget, penalties, 30 s limit"
    public static var initiatesWakes: Bool { true }

    public var budget: EngagementBudget
    public let runtimeLimit: SimTime
    /// Time between fetches: the larger of the app's minimum interval and the system's
    /// spacing; nil when the interval is `never`.
    let interval: SimTime?

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
        let due = budget.lastRunStart.map { max(t, $0 + interval) } ?? t
        return budget.tokenTime(at: t, notBefore: due)
    }

    /// The same checks as `ios-bgtask` but `not_submitted` (nothing to resubmit); spacing
    /// is the fetch interval.
    public mutating func admit(at t: SimTime, gates g: GateInputs) -> Admission {
        budget.admit(at: t, gates: g, checkSubmitted: false, spacing: interval)
    }
}
