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
        let p = setup.scenario.platform[IOSBGTask.self]
        budget = EngagementBudget(p, initialUsage: setup.initialUsage)
        runtimeLimit = p.runtimeLimit.ticks
        switch setup.scenario.platform[IOSFetch.self].minimumInterval {
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

// MARK: - Parameters

/// `ios-fetch` (iOS 7–12 Background Fetch, MODEL.md §6.2). The token bucket, penalties,
/// gates and runtime limit are `ios_bgtask`'s (the same system budget).
public struct IOSFetchParameters: ParameterSet {
    public init() {}

    /// The app's `setMinimumBackgroundFetchInterval` (advisory): `"never"` (UIKit's default,
    /// UIApplicationBackgroundFetchIntervalNever: no fetches at all) or a duration. An app
    /// that wants background fetch sets it; the system then wakes it no sooner than this
    /// after the last fetch, and no sooner than `ios_bgtask.min_spacing`.
    public var minimumInterval = FetchInterval.never
}

/// A minimum background fetch interval: never, or a duration.
public enum FetchInterval: Codable, Sendable, Equatable, CustomStringConvertible {
    case never
    case every(TimeSpan)

    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let text = try? c.decode(String.self), text == "never" { self = .never; return }
        guard let span = try? TimeSpan(from: decoder) else {
            throw DecodingError.dataCorruptedError(
                in: c, debugDescription: "expected \"never\" or a duration such as \"15m\", \"1h\" or 900")
        }
        self = .every(span)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }

    public var description: String {
        switch self {
        case .never: "never"
        case .every(let span): span.description
        }
    }
}

extension IOSFetchParameters {
    public static var fields: [ParameterField<Self>] {[
        ParameterField(name: "minimum_interval", unit: "`\"never\"` or duration", range: "0s to 7d",
                       doc: "the app's `setMinimumBackgroundFetchInterval`: `never` (UIKit's default) means no fetches at all; users of `ios-fetch` set it (the system also keeps `ios_bgtask.min_spacing`)") { p, c, path in
            if case .every(let interval) = p.minimumInterval, !(TimeSpan.seconds(0)...TimeSpan.days(7)).contains(interval) {
                c.fail(path, "\(interval) is out of range: expected \"never\" or a duration from 0s to 7d")
            }
        },
    ]}
}

extension IOSFetch {
    public typealias Parameters = IOSFetchParameters
    /// The budget, penalties, spacing and limit are `ios_bgtask`'s.
    public static var sharedParameterKeys: [String] { [IOSBGTask.parametersKey] }
}
