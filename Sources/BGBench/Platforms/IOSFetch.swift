import Foundation

/// `ios-fetch`, iOS 7–12 Background Fetch (MODEL.md §6.2). The app only sets an advisory
/// minimum interval (`platform.ios_fetch.minimum_interval`, default `never`: no fetches);
/// the system chooses when to wake it: once the interval has passed since the last fetch
/// and the engagement budget has a token, when the gates allow, and inside a fetch window
/// before one of the user's habitual hours (the system's usage predictor, below). There is
/// nothing to resubmit. Gates, token bucket, penalties and the 30 s limit are
/// `ios-bgtask`'s (`EngagementBudget`, parameters under `platform.ios_bgtask`).
///
/// The usage predictor (MODEL.md §6.2: iOS learns when the user usually opens the app and
/// computes fetch windows from that, so wakes concentrate shortly before habitual opens).
/// It learns only from the opens it has seen: each hour of the day's opens per day, an
/// exponentially weighted average updated at midnight (half-life
/// `platform.ios_fetch.habit_half_life`). An hour is habitual when the user opens the app
/// in it at least `habit_threshold` times a day on that average; if none reaches it, the
/// busiest hour seen is. A habitual hour h opens a window from `window_lead` before h to
/// the end of h; the system wakes the app at the first allowed time inside a window.
/// Before the first midnight with opens it knows nothing and wakes as soon as the
/// interval and the budget allow (the behaviour without a predictor,
/// `usage_predictor: false`).
///
/// The policy cannot choose times here: the simulation drops its requests (iOS 12 has no
/// API to ask for a wake at a time) and the platform's own wakes go through `admit`.
public struct IOSFetch: EngagementPlatform {
    public static let name = "ios-fetch"
    public static let summary =
        "iOS 7-12 Background Fetch: the system wakes the app after its minimum interval (default never) as its budget allows; ios-bgtask's gates, budget, penalties, 30 s limit"
    public static var initiatesWakes: Bool { true }

    public static func admitsNoRuns(_ scenario: Scenario) -> String? {
        guard case .never = scenario.platform[Self.self].minimumInterval else { return nil }
        return "platform.ios_fetch.minimum_interval is \"never\" (UIKit's default): the system never wakes the app; "
            + "set it, e.g. --set platform.ios_fetch.minimum_interval=15m (docs/platforms.md)"
    }

    public var budget: EngagementBudget
    public let runtimeLimit: SimTime
    /// Time between fetches: the larger of the app's minimum interval and the system's
    /// spacing; nil when the interval is `never`.
    let interval: SimTime?
    /// The usage predictor: whether it is on, its window lead, its daily decay and its
    /// threshold (opens a day in an hour).
    let predicts: Bool
    let lead: SimTime
    let habitDecay: Double
    let habitThreshold: Double
    /// Opens seen in each hour of the day today, and the weighted average of earlier days
    /// (unnormalised: `habitWeight` is the sum of the weights, so the estimate of hour h is
    /// habits[h] / habitWeight from the first day on).
    var openedToday = InlineArray<24, Int32>(repeating: 0)
    var habits = InlineArray<24, Double>(repeating: 0)
    var habitWeight = 0.0
    /// Bit h set: hour h of the day is habitual (0: nothing learned yet).
    var habitualHours: UInt32 = 0

    public init(_ setup: PlatformSetup) {
        let p = setup.scenario.platform[IOSBGTask.self]
        let f = setup.scenario.platform[IOSFetch.self]
        budget = EngagementBudget(p, initialUsage: setup.initialUsage)
        runtimeLimit = p.runtimeLimit.ticks
        switch f.minimumInterval {
        case .never: interval = nil
        case .every(let span): interval = max(span.ticks, p.minSpacing.ticks)
        }
        predicts = f.usagePredictor
        lead = f.windowLead.ticks
        habitDecay = pow(2, -Double(Clock.day) / Double(max(1, f.habitHalfLife.ticks)))
        habitThreshold = f.habitThreshold
    }

    /// The system's next wake: the interval after the last fetch, in the next fetch
    /// window, once a token is there.
    public mutating func systemWake(after t: SimTime) -> SimTime? {
        guard let interval else { return nil }
        let due = budget.lastRunStart.map { max(t, $0 + interval) } ?? t
        let ready = budget.tokenTime(at: t, notBefore: due)
        return habitualHours == 0 ? ready : windowTime(from: ready)
    }

    /// The first time at or after `t` inside a fetch window: t itself if it is in one
    /// (from `lead` before a habitual hour to that hour's end).
    func windowTime(from t: SimTime) -> SimTime {
        let hourStart = t - t % Clock.hour
        let first = Int((t % Clock.day) / Clock.hour)
        for k in 0...24 {
            let h = (first + k) % 24
            if habitualHours & (1 << UInt32(h)) != 0 {
                return max(t, hourStart + SimTime(k) * Clock.hour - lead)
            }
        }
        return t
    }

    /// An open the system sees: counted in its hour of the day.
    public mutating func opened(at t: SimTime) {
        guard predicts else { return }
        openedToday[Int((t % Clock.day) / Clock.hour)] += 1
    }

    /// Rule 9's midnight order for the budget, then the predictor learns the day's opens.
    public mutating func midnight(at t: SimTime, opens: Int) {
        budget.midnight(at: t, opens: opens)
        guard predicts else { return }
        habitWeight = habitDecay * habitWeight + (1 - habitDecay)
        var busiest = 0, mask: UInt32 = 0
        for h in 0..<24 {
            habits[h] = habitDecay * habits[h] + (1 - habitDecay) * Double(openedToday[h])
            openedToday[h] = 0
            if habits[h] > habits[busiest] { busiest = h }
            if habits[h] >= habitThreshold * habitWeight { mask |= 1 << UInt32(h) }
        }
        if mask == 0 && habits[busiest] > 0 { mask = 1 << UInt32(busiest) }
        habitualHours = mask
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

    public var minimumInterval = FetchInterval.never
    public var usagePredictor = true
    public var windowLead = TimeSpan.minutes(30)
    public var habitThreshold = 0.25
    public var habitHalfLife = TimeSpan.days(7)
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
    public static var fields: [ParameterField<Self>] {
        [
            ParameterField(
                name: "minimum_interval", unit: "`\"never\"` or duration", range: "0s to 7d",
                doc:
                    "the app's `setMinimumBackgroundFetchInterval` (advisory): `never` (UIKit's default, UIApplicationBackgroundFetchIntervalNever) means no fetches at all; an app that wants background fetch sets it, and the system then wakes it no sooner than this after the last fetch (and no sooner than `ios_bgtask.min_spacing`)"
            ) { p, c, path in
                if case .every(let interval) = p.minimumInterval,
                    !(TimeSpan.seconds(0)...TimeSpan.days(7)).contains(interval)
                {
                    c.fail(path, "\(interval) is out of range: expected \"never\" or a duration from 0s to 7d")
                }
            },
            .flag(
                \.usagePredictor, "usage_predictor",
                "the system's usage predictor (MODEL.md §6.2): wakes only in fetch windows before the hours the user habitually opens the app, learned from the opens seen (false: as soon as the interval and budget allow); WWDC 2013 session 204, \"What's New with Multitasking\": the system learns when the user launches the app and fetches before"
            ),
            .duration(
                \.windowLead, "window_lead", in: .seconds(0)...(.hours(12)),
                "a fetch window opens this long before a habitual hour and lasts to its end; assumption (\"shortly before\", MODEL.md §6.2)"
            ),
            .number(
                \.habitThreshold, "habit_threshold", "opens/day", in: 0.001...100,
                "an hour of the day is habitual when the user opens the app in it this often a day (weighted average; if no hour reaches it, the busiest hour seen is habitual); assumption: one day in four"
            ),
            .duration(
                \.habitHalfLife, "habit_half_life", in: .hours(1)...(.days(365)),
                "half-life of the hourly open averages the predictor learns; assumption: as the engagement budget's usage average (`ios_bgtask.usage_half_life`, 7 d)"
            ),
        ]
    }
}

extension IOSFetch {
    public typealias Parameters = IOSFetchParameters
    /// The budget, penalties, spacing and limit are `ios_bgtask`'s.
    public static var sharedParameterKeys: [String] { [IOSBGTask.parametersKey] }
}
