/// `schedule`: follows a wake plan computed elsewhere (docs/policies.md, "schedule"): a CSV
/// file that says, per hour of the week of the device's local time, how often to ask for a
/// wake (or not at all), for one device, for a cohort (platform, band of the app's own
/// mean opens a day so far) or for all. Within an hour it asks every `interval` of that
/// hour from the last point, as `fixed` does; where the plan changes from one hour to the
/// next it starts the new hour's grid at the hour plus the device's phase (a uniform
/// fraction of the interval, drawn once). A plan of one interval everywhere is `fixed`'s
/// grid, point for point.
public struct SchedulePolicy: WakePolicy {
    public static let name = "schedule"
    public static let summary =
        "plan from a CSV file: per hour of the week, per device or cohort, how often to ask (policies.schedule.plan)"
    public static var needsInput: Bool { true }
    public static let callbacks: PolicyCallbacks = [.opened, .denied, .runStarted, .midnight]

    /// Reads the scenario's plan once per run, with its intervals scaled.
    public static func prepare(_ scenario: Scenario) throws -> (any Sendable)? {
        let p = scenario.policies[SchedulePolicy.self]
        guard !p.plan.isEmpty else {
            throw TraceError(problems: [
                .init(
                    location: .none, path: "policies.schedule.plan",
                    message:
                        "the schedule policy needs a plan: expected the path of a plan CSV file (docs/policies.md, \"schedule\"), e.g. --set policies.schedule.plan=plan.csv"
                )
            ])
        }
        return ScheduleTables(plan: try SchedulePlanLoader.load(file: p.plan), scale: p.scale)
    }

    let plan: ScheduleTables
    let device: Int
    let platform: String
    /// The device's phase: a uniform fraction of an interval, drawn once.
    let phase: Double
    /// Per hour of the week: the interval (0: off), and the hours to the next hour whose
    /// interval differs (0: none does).
    var table: ScheduleTable
    var next: SimTime = Clock.never
    /// The plan's band of the mean opens a day so far (nil: none of its bands).
    var band: Int?
    var opens = 0

    public init(_ context: PolicyContext) {
        guard let plan = context.prepared as? ScheduleTables else {
            preconditionFailure("schedule runs with the plan SchedulePolicy.prepare read")
        }
        self.plan = plan
        device = context.deviceIndex
        platform = context.platform
        var rng = context.random
        phase = rng.uniform()
        band = plan.plan.bands.firstIndex { $0.contains(0) }
        table = plan.table(device: device, platform: platform, band: band)
    }

    @inline(__always) static func hourOfWeek(_ t: SimTime) -> Int { Int((t / Clock.hour) % 168) }

    /// The first point at or after `t`, an hour's start (or 0): the hour's interval × the
    /// phase after it, or after the next hour the plan asks in; never when it never asks.
    func restart(at t: SimTime) -> SimTime {
        var start = t
        var h = Self.hourOfWeek(start)
        if table.interval[h] == 0 {
            guard table.change[h] > 0 else { return Clock.never }
            start += SimTime(table.change[h]) * Clock.hour
            h = Self.hourOfWeek(start)
        }
        return start + SimTime(phase * Double(table.interval[h]))
    }

    /// The point after `t`: `t` + its hour's interval, unless an hour with another plan
    /// begins first (then that hour's first point).
    func step(from t: SimTime) -> SimTime {
        let h = Self.hourOfWeek(t)
        let change = table.change[h]
        if change == 0 { return table.interval[h] == 0 ? Clock.never : t + table.interval[h] }
        let boundary = t - t % Clock.hour + SimTime(change) * Clock.hour
        let candidate = t + table.interval[h]
        return table.interval[h] > 0 && candidate < boundary ? candidate : restart(at: boundary)
    }

    var decision: WakeDecision { next == Clock.never ? .cancel : .request(at: next) }

    public mutating func start(_ view: DeviceView) -> WakeDecision {
        next = restart(at: 0)
        return next == Clock.never ? .keep : .request(at: next)
    }

    /// Every attempt, run or denied, is followed by the next point of the plan.
    mutating func advance(_ view: DeviceView) -> WakeDecision {
        while next <= view.now { next = step(from: next) }
        return decision
    }

    public mutating func denied(_ reason: DenialReason, retryAt: SimTime?, _ view: DeviceView) -> WakeDecision {
        advance(view)
    }

    /// Its answer to a denial is the next point of its plan, whatever the denial.
    public mutating func deniedAhead(at t: SimTime) -> SimTime? {
        while next <= t { next = step(from: next) }
        return next == Clock.never ? nil : next
    }

    public mutating func runStarted(_ view: DeviceView) -> WakeDecision { advance(view) }

    public mutating func opened(_ view: DeviceView) -> WakeDecision {
        opens += 1
        return .keep
    }

    /// The app's mean opens a day so far (whole days) picks its band; a new band is a new
    /// plan, started at this midnight.
    public mutating func midnight(_ view: DeviceView) -> WakeDecision {
        guard !plan.plan.bands.isEmpty else { return .keep }
        let days = max(1, Clock.dayIndex(view.now))
        let mean = Double(opens) / Double(days)
        let now = plan.plan.bands.firstIndex { $0.contains(mean) }
        guard now != band else { return .keep }
        band = now
        table = plan.table(device: device, platform: platform, band: band)
        next = restart(at: view.now)
        return decision
    }
}

/// A device's plan for the week: per hour, the interval in ticks (0: off) and how many
/// hours ahead the next hour with another interval begins (0: every hour has this one).
struct ScheduleTable: Sendable {
    var interval: [SimTime]
    var change: [Int32]

    init(_ interval: [SimTime]) {
        self.interval = interval
        change = [Int32](repeating: 0, count: 168)
        for h in 0..<168 {
            var k = 1
            while k < 168 && interval[(h + k) % 168] == interval[h] { k += 1 }
            change[h] = k < 168 ? Int32(k) : 0
        }
    }
}

/// A run's plan, read once (`SchedulePolicy.prepare`), with every cohort's table made
/// ahead: a device without rows of its own shares its cohort's table.
final class ScheduleTables: Sendable {
    let plan: SchedulePlan
    let scale: Double
    /// By platform: the table of each band, then of no band.
    let cohorts: [String: [ScheduleTable]]

    init(plan: SchedulePlan, scale: Double) {
        (self.plan, self.scale) = (plan, scale)
        var cohorts: [String: [ScheduleTable]] = [:]
        for platform in PlatformRegistry.all.map({ $0.name }) {
            cohorts[platform] = (plan.bands.indices.map { Optional($0) } + [nil]).map { band in
                ScheduleTable(plan.slots(device: -1, platform: platform, band: band, scale: scale))
            }
        }
        self.cohorts = cohorts
    }

    func table(device: Int, platform: String, band: Int?) -> ScheduleTable {
        if !plan.hasDeviceRows || plan.subjects[.init(device: device)] == nil,
            let tables = cohorts[platform]
        {
            return tables[band ?? plan.bands.count]
        }
        return ScheduleTable(plan.slots(device: device, platform: platform, band: band, scale: scale))
    }
}

// MARK: - Parameters

public struct ScheduleParameters: ParameterSet {
    public init() {}

    public var plan = ""
    public var scale = 1.0
}
extension ScheduleParameters {
    public static var fields: [ParameterField<Self>] {
        [
            .path(
                \.plan, "plan",
                "the plan's CSV file, relative to the working directory as --opens-trace; docs/policies.md, \"schedule\": needed"
            ),
            .number(
                \.scale, "scale", "factor", in: 0.01...100,
                "every interval of the plan × this (rounded to the microsecond): the aggressiveness knob; 1: the plan as written"
            ),
        ]
    }

    public static var knob: AggressivenessKnob? {
        AggressivenessKnob("scale", moreAggressive: .lower, sweep: ["0.33", "1", "2", "4", "8", "16"])
    }
}

extension SchedulePolicy { public typealias Parameters = ScheduleParameters }
