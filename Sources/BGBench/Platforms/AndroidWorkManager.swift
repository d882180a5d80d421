import Foundation

/// The Android release whose JobScheduler quotas `android-workmanager` applies.
public enum AndroidVersion: String, Codable, Sendable, CaseIterable {
    /// Android 12–15's QuotaController defaults (the parameters as given).
    case android12to15 = "12-15"
    /// Android 16's: active 20 min of job time per 60 min, working set 4 h, frequent 12 h.
    case android16 = "16"
}

/// An App Standby Bucket (AppStandbyController; UsageStatsManager.STANDBY_BUCKET_*).
public enum StandbyBucket: Int, Sendable, CaseIterable {
    case active, workingSet, frequent, rare, restricted
}

/// `android-workmanager` (MODEL.md §6.2): WorkManager periodic work run by JobScheduler.
/// The policy's request at t stands for the app's work falling due at t; the platform
/// runs it then unless, in this order:
/// `bar_off` (the user restricted the app's background activity: no jobs at all, charging
/// or not), `low_power` (Battery Saver), `low_battery` (the work's battery-not-low constraint),
/// `spacing` (the work is not due yet: its first run `min_interval − min_flex` after it
/// was enqueued at t = 0, every later one `min_interval` after the previous run ended),
/// and, only while unplugged, `doze` and `light_doze` (deep or light Doze, outside a
/// maintenance window) and `quota`
/// (the App Standby Bucket's QuotaController quota: job time or sessions per window);
/// the restricted bucket's quota applies while charging too, unless the device is also
/// idle and its battery not low (JobStatus: within quota or every dynamic constraint).
/// A `spacing`, `doze`, `light_doze` or `quota` denial stays pending (`keepsPending`): the work runs
/// when it is due or the gate lifts, without the app asking again. Runs are capped at 10 min, and at the quota left. The
/// iOS-only gates (foreground, force-quit, resubmission) do not apply.
public struct AndroidWorkManager: PlatformRules {
    public static let name = "android-workmanager"
    public static let summary =
        "Android WorkManager: 15 min period (5 min flex), 10 min cap, App Standby Bucket quotas, Doze maintenance windows, no quota while charging (but the restricted bucket), none for a user-restricted app"

    /// Past job sessions kept (a ring): more than any bucket's session limit that can
    /// bind (10 at most, but active's 75, which a 10 min window cannot reach at 15 min
    /// spacing). Sessions while charging are not kept (QuotaController does not count them).
    static let ring = 16

    let p: AndroidWorkManagerParameters
    public let runtimeLimit: SimTime
    /// When the first run is due: the work is enqueued at t = 0 and the flex applies to
    /// its first run only (WorkSpec.calculateNextRunTime, periodCount 0).
    let firstDue: SimTime
    /// Each bucket's quota window and job time in it (`quota_windows`, `allowed_time`, or
    /// Android 16's with `version` 16).
    let quotaWindow: InlineArray<5, SimTime>
    let allowedTime: InlineArray<5, SimTime>
    /// The user restricted the app and `user_restricted_no_jobs` is false: the app is in
    /// the restricted bucket for good (bgbench's reading before issue 28).
    let restrictedForGood: Bool
    /// The run admitted last may use the whole execution cap whatever the quota (charging
    /// outside the restricted bucket, or the restricted bucket's dynamic constraints met).
    private var admittedFree = false
    /// When the last run the platform started ended: the next is due `min_interval`
    /// later (WorkerWrapper.resetPeriodic sets the period's origin at the run's end).
    private var lastRunEnd: SimTime?
    /// A run the platform started is in flight (a push's run is not a job: it neither
    /// resets the period nor counts toward the quota).
    private var jobRunning = false
    private var sessionStart = InlineArray<16, SimTime>(repeating: 0)
    private var sessionEnd = InlineArray<16, SimTime>(repeating: 0)
    private var sessions = 0
    private var runStart: SimTime = 0
    private var runCounts = false

    /// Usage: the last open and the screen-on time then. Before the first open the app's
    /// last use is taken as 1/u days before t = 0 (u the starting usage, at most 30 days
    /// back), with the screen-time thresholds met.
    private var lastUse: SimTime
    private var screenAtLastUse: SimTime = Clock.never
    private var screenOnTotal: SimTime = 0
    private var screenOnSince: SimTime?
    /// Since when the screen has been off (nil while on): JobScheduler's idle constraint.
    private var screenOffSince: SimTime? = 0
    private var charging = false
    /// When the charger was last plugged in.
    private var pluggedAt: SimTime = -1
    /// Since when the device has been screen-off and unplugged (the proxy for idle and
    /// stationary), nil while not.
    private var stillSince: SimTime? = 0

    public var throttleEvents: Int { 0 }

    public init(_ setup: PlatformSetup) {
        p = setup.scenario.platform[AndroidWorkManager.self]
        runtimeLimit = p.runtimeLimit.ticks
        firstDue = max(0, p.minInterval.ticks - p.minFlex.ticks)
        var windows = InlineArray<5, SimTime>(repeating: 0), allowed = InlineArray<5, SimTime>(repeating: 0)
        for i in 0..<5 {
            windows[i] = p.quotaWindows[i].ticks
            allowed[i] = p.allowedTime.ticks
        }
        if p.version == .android16 {
            windows[0] = Clock.hour
            allowed[0] = 20 * Clock.minute
            windows[1] = 4 * Clock.hour
            windows[2] = 12 * Clock.hour
        }
        quotaWindow = windows
        allowedTime = allowed
        restrictedForGood = setup.barOff && !p.userRestrictedNoJobs
        let gapDays = min(30, 1 / max(setup.initialUsage, 1.0 / 30))
        lastUse = -SimTime(gapDays * Double(Clock.day))
    }

    // MARK: Device state

    public mutating func opened(at t: SimTime) {
        lastUse = t
        screenAtLastUse = screenOn(at: t)
    }

    public mutating func deviceChanged(screenOn on: Bool, charging plugged: Bool, at t: SimTime) {
        if on, screenOnSince == nil { screenOnSince = t }
        if !on, let since = screenOnSince { screenOnTotal += t - since; screenOnSince = nil }
        if on { screenOffSince = nil } else if screenOffSince == nil { screenOffSince = t }
        if plugged && !charging { pluggedAt = t }
        charging = plugged
        if on || plugged { stillSince = nil } else if stillSince == nil { stillSince = t }
    }

    /// Screen-on time since t = 0.
    func screenOn(at t: SimTime) -> SimTime { screenOnTotal + (screenOnSince.map { t - $0 } ?? 0) }

    /// The App Standby Bucket at t: the last i whose screen-time and elapsed-time
    /// thresholds are both reached since the last use (AppStandbyController).
    public func bucket(at t: SimTime) -> StandbyBucket {
        if restrictedForGood { return .restricted }
        let elapsed = t - lastUse
        let screen = screenAtLastUse == Clock.never ? Clock.never : screenOn(at: t) - screenAtLastUse
        for i in stride(from: 4, through: 1, by: -1)
        where screen >= p.screenTimeThresholds[i].ticks && elapsed >= p.elapsedTimeThresholds[i].ticks {
            return StandbyBucket(rawValue: i)!
        }
        return .active
    }

    /// Doze at t: nil when not dozing (awake, or in a maintenance window), else the start
    /// of the next maintenance window and whether the device is in light idle. Light Doze
    /// from `light_after` after the screen went off unplugged until deep Doze takes over at
    /// `doze_after` (DeviceIdleController: deep idle overrides light idle); a light idle
    /// period that reaches it runs into deep idle.
    public func doze(at t: SimTime) -> (windowAt: SimTime, light: Bool)? {
        guard let still = stillSince else { return nil }
        let deep = still + p.dozeAfter.ticks
        if t >= deep { return deepDozeEnds(from: deep, at: t).map { ($0, false) } }
        guard p.lightDoze else { return nil }
        var start = still + p.lightAfter.ticks
        guard t >= start else { return nil }
        var idle = Double(p.lightIdleFirst.ticks)
        while true {
            let end = start + SimTime(idle)
            if t < end { return (end < deep ? end : deep + p.idleFirst.ticks, true) }
            start = end + p.lightMaintenance.ticks
            if t < start { return nil }
            idle = min(idle * p.lightIdleFactor, Double(p.lightIdleMax.ticks))
        }
    }

    /// The start of the next maintenance window, light or deep, or nil when not dozing.
    public func dozeEnds(at t: SimTime) -> SimTime? { doze(at: t)?.windowAt }

    /// Deep Doze from `start` at t ≥ start: nil in a maintenance window, else the next
    /// window's start.
    func deepDozeEnds(from start: SimTime, at t: SimTime) -> SimTime? {
        var start = start
        var idle = Double(p.idleFirst.ticks), window = Double(p.maintenanceFirst.ticks)
        while true {
            let end = start + SimTime(idle)
            if t < end { return end }
            start = end + SimTime(window)
            if t < start { return nil }
            idle = min(idle * p.idleFactor, Double(p.idleMax.ticks))
            window = min(window * p.maintenanceFactor, Double(p.maintenanceMax.ticks))
        }
    }

    // MARK: Quota

    /// Job time and sessions of the bucket's window ending at t: sessions that ended
    /// inside it, the time of each that falls inside it.
    func quotaUse(at t: SimTime, window: SimTime) -> (time: SimTime, count: Int) {
        var time: SimTime = 0, count = 0
        for k in 0..<min(sessions, Self.ring) {
            let i = (sessions - 1 - k) % Self.ring
            guard sessionEnd[i] > t - window else { break }
            time += sessionEnd[i] - max(sessionStart[i], t - window)
            count += 1
        }
        return (time, count)
    }

    /// nil if a job may start at t under the bucket's quota, else when it may.
    public func quotaClears(at t: SimTime) -> SimTime? {
        let b = bucket(at: t).rawValue
        let window = quotaWindow[b], limit = p.maxSessions[b]
        let use = quotaUse(at: t, window: window)
        let allowed = allowedTime[b] - p.inQuotaBuffer.ticks
        guard use.count >= limit || use.time > allowed else { return nil }
        // Oldest first: the time the window drops sessions until both limits are met.
        var time = use.time, count = use.count
        for k in stride(from: use.count - 1, through: 0, by: -1) {
            let i = (sessions - 1 - k) % Self.ring
            time -= sessionEnd[i] - max(sessionStart[i], t - window)
            count -= 1
            if count < limit && time <= allowed { return sessionEnd[i] + window }
        }
        return t + window
    }

    // MARK: PlatformRules

    /// When the device counts as idle for JobScheduler's idle constraint on stable power
    /// (screen off `idle_after_on_power`), nil while the screen is on.
    func idleAt() -> SimTime? { screenOffSince.map { $0 + p.idleAfterOnPower.ticks } }

    public mutating func admit(at t: SimTime, gates g: GateInputs) -> Admission {
        admittedFree = false
        if g.barOff && p.userRestrictedNoJobs { return .deny(.barOff, retryAt: nil) }
        if g.lowPower { return .deny(.lowPower, retryAt: nil) }
        if g.lowBattery { return .deny(.lowBattery, retryAt: nil) }
        let due = lastRunEnd.map { $0 + p.minInterval.ticks } ?? firstDue
        if t < due { return .deny(.spacing, retryAt: due) }
        let restrictedBucket = bucket(at: t) == .restricted
        if g.charging && !restrictedBucket {
            admittedFree = true
            return .run
        }
        if !g.charging, let d = doze(at: t) { return .deny(d.light ? .lightDoze : .doze, retryAt: d.windowAt) }
        guard let clears = quotaClears(at: t) else { return .run }
        // The restricted bucket out of quota: charging, idle and battery not low together.
        if g.charging && !g.belowLowLevel, let idle = idleAt() {
            if idle <= t {
                admittedFree = true
                return .run
            }
            return .deny(.quota, retryAt: min(clears, idle))
        }
        return .deny(.quota, retryAt: clears)
    }

    /// The execution cap, and the quota left in the bucket's window unless the run was
    /// admitted free of quota.
    public mutating func runLimit(at t: SimTime) -> SimTime {
        guard !admittedFree else { return runtimeLimit }
        let b = bucket(at: t).rawValue
        let left = allowedTime[b] - quotaUse(at: t, window: quotaWindow[b]).time
        return max(1, min(runtimeLimit, left))
    }

    /// JobScheduler keeps work that is not due yet, or that Doze or the quota defers: it
    /// runs when due, in the next maintenance window, or when the quota allows (MODEL.md
    /// §6.2), without the app asking again.
    public static func keepsPending(_ reason: DenialReason) -> Bool {
        reason == .spacing || reason == .doze || reason == .lightDoze || reason == .quota
    }

    /// The screen on or a charger ends Doze; plugging in lifts the quota (the restricted
    /// bucket's too, if the device becomes idle before the quota clears: asked again, it
    /// says when).
    public func deferralLifted(_ reason: DenialReason, at t: SimTime) -> Bool {
        switch reason {
        case .doze, .lightDoze: dozeEnds(at: t) == nil
        case .quota: pluggedAt == t
        default: false
        }
    }

    public mutating func runStarted(at t: SimTime) {
        jobRunning = true
        runStart = t
        // QuotaController counts a restricted app's sessions while plugged in too.
        runCounts = !charging || bucket(at: t) == .restricted
    }

    public mutating func runEnded(at t: SimTime, status: RunStatus, broughtContent: Bool) {
        guard jobRunning else { return }
        jobRunning = false
        lastRunEnd = t
        guard runCounts else { return }
        let i = sessions % Self.ring
        sessionStart[i] = runStart
        sessionEnd[i] = t
        sessions += 1
    }

    public mutating func midnight(at t: SimTime, opens: Int) {}
}

// MARK: - Parameters

/// `android-workmanager` (MODEL.md §6.2): WorkManager periodic work under JobScheduler's
/// App Standby Buckets, QuotaController quotas and Doze. Arrays by bucket are in the order
/// active, working_set, frequent, rare, restricted.
public struct AndroidWorkManagerParameters: ParameterSet {
    public init() {}

    public var minInterval = TimeSpan.minutes(15)
    public var minFlex = TimeSpan.minutes(5)
    public var runtimeLimit = TimeSpan.minutes(10)
    public var screenTimeThresholds: [TimeSpan] = [.hours(0), .hours(0), .hours(1), .hours(2), .hours(6)]
    public var elapsedTimeThresholds: [TimeSpan] = [.hours(0), .hours(12), .hours(24), .hours(48), .days(8)]
    public var allowedTime = TimeSpan.minutes(10)
    public var quotaWindows: [TimeSpan] = [.minutes(10), .hours(2), .hours(8), .hours(24), .hours(24)]
    public var maxSessions: [Int] = [75, 10, 8, 3, 1]
    public var inQuotaBuffer = TimeSpan.seconds(30)
    public var dozeAfter = TimeSpan.hours(1)
    public var idleFirst = TimeSpan.hours(1)
    public var idleFactor = 2.0
    public var idleMax = TimeSpan.hours(6)
    public var maintenanceFirst = TimeSpan.minutes(5)
    public var maintenanceFactor = 2.0
    public var maintenanceMax = TimeSpan.minutes(10)
    public var version = AndroidVersion.android12to15
    public var lightDoze = true
    public var lightAfter = TimeSpan.minutes(4)
    public var lightIdleFirst = TimeSpan.minutes(5)
    public var lightIdleFactor = 2.0
    public var lightIdleMax = TimeSpan.minutes(15)
    public var lightMaintenance = TimeSpan.minutes(1)
    public var userRestrictedNoJobs = true
    public var idleAfterOnPower = TimeSpan.minutes(31)
}
extension AndroidWorkManagerParameters {
    static let buckets = "(active, working_set, frequent, rare, restricted)"

    /// Five durations by bucket, each in `range`.
    static func byBucket(
        _ key: KeyPath<Self, [TimeSpan]>, _ name: String, each range: ClosedRange<TimeSpan>,
        _ doc: String
    ) -> ParameterField<Self> {
        ParameterField(
            name: name, unit: "5 durations", range: "\(range.lowerBound) to \(range.upperBound) each", doc: doc
        ) { p, c, path in
            let values = p[keyPath: key]
            guard values.count == 5 else { return c.fail(path, "expected 5 durations \(buckets), got \(values.count)") }
            for (i, value) in values.enumerated() { c.check(value, in: range, path + "[\(i)]") }
        }
    }

    public static var fields: [ParameterField<Self>] {
        [
            .duration(
                \.minInterval, "min_interval", in: .minutes(1)...(.days(7)),
                "periodic work's interval: every run after the first is due this long after the previous run *ended* (androidx WorkerWrapper.resetPeriodic, WorkSpec.calculateNextRunTime); PeriodicWorkRequest.MIN_PERIODIC_INTERVAL_MILLIS (15 min)"
            ),
            .duration(
                \.minFlex, "min_flex", in: { .seconds(0)...$0.minInterval }, shown: "0s to `min_interval`",
                "flex of the first run only: the work is enqueued at t = 0 and its first run is due `min_interval − min_flex` (10 min) later (calculateNextRunTime applies the flex when periodCount is 0); PeriodicWorkRequest.MIN_PERIODIC_FLEX_MILLIS (5 min)"
            ),
            .duration(
                \.runtimeLimit, "runtime_limit", in: .seconds(1)...(.hours(24)),
                "JobScheduler's execution cap for a job, which WorkManager's work runs as (10 min)"),
            byBucket(
                \.screenTimeThresholds, "screen_time_thresholds", each: .seconds(0)...(.days(365)),
                "screen-on time since the last use to reach each bucket (active … restricted): the app is in the last bucket i whose screen-on time and elapsed time since its last use both reach entry i; AOSP AppStandbyController DEFAULT_SCREEN_TIME_THRESHOLDS (Android 12–14)"
            ),
            byBucket(
                \.elapsedTimeThresholds, "elapsed_time_thresholds", each: .seconds(0)...(.days(365)),
                "elapsed time since the last use to reach each bucket; AOSP AppStandbyController DEFAULT_ELAPSED_TIME_THRESHOLDS (Android 12–14)"
            ),
            .duration(
                \.allowedTime, "allowed_time", in: .seconds(1)...(.hours(24)),
                "job time per quota window; QuotaController (QcConstants, Android 12–14) DEFAULT_ALLOWED_TIME_PER_PERIOD_MS (10 min)"
            ),
            byBucket(
                \.quotaWindows, "quota_windows", each: .seconds(1)...(.days(365)),
                "quota window by bucket; QuotaController DEFAULT_WINDOW_SIZE_*_MS (Android 12–14)"),
            ParameterField(
                name: "max_sessions", unit: "5 integers", range: "1 to 1000 each",
                doc: "job sessions per window by bucket; QuotaController DEFAULT_MAX_SESSION_COUNT_* (Android 12–14)"
            ) { p, c, path in
                if p.maxSessions.count != 5 {
                    c.fail(path, "expected 5 integers \(buckets), got \(p.maxSessions.count)")
                }
                for (i, n) in p.maxSessions.enumerated() { c.check(n, in: 1...1000, path + "[\(i)]") }
            },
            .duration(
                \.inQuotaBuffer, "in_quota_buffer", in: { .seconds(0)...$0.allowedTime }, shown: "0s to `allowed_time`",
                "quota a job needs left to start; QuotaController DEFAULT_IN_QUOTA_BUFFER_MS (30 s)"),
            .duration(
                \.dozeAfter, "doze_after", in: .minutes(1)...(.days(7)),
                "screen off, unplugged and still this long before Doze's deep idle; DeviceIdleController INACTIVE_TIMEOUT (30 min inactive) + IDLE_AFTER_INACTIVE_TIMEOUT (30 min idle-pending)"
            ),
            .duration(
                \.idleFirst, "idle_first", in: .minutes(1)...(.days(7)),
                "first Doze idle period; DeviceIdleController IDLE_TIMEOUT (1 h)"),
            .number(
                \.idleFactor, "idle_factor", "factor", in: 1...10,
                "each idle period is this times the last; IDLE_FACTOR (2)"),
            .duration(
                \.idleMax, "idle_max", in: .minutes(1)...(.days(7)), "longest idle period; MAX_IDLE_TIMEOUT (6 h)"),
            .duration(
                \.maintenanceFirst, "maintenance_first", in: .minutes(1)...(.days(7)),
                "first maintenance window (one follows each idle period); IDLE_PENDING_TIMEOUT (5 min)"),
            .number(
                \.maintenanceFactor, "maintenance_factor", "factor", in: 1...10,
                "each window is this times the last; IDLE_PENDING_FACTOR (2)"),
            .duration(
                \.maintenanceMax, "maintenance_max", in: .minutes(1)...(.days(7)),
                "longest maintenance window; MAX_IDLE_PENDING_TIMEOUT (10 min)"),
            .choice(
                \.version, "version",
                "the Android release whose job quotas apply: `12-15` (the parameters as given; AOSP QuotaController QcConstants of Android 12–15) or `16` (Android 16's: the active bucket 20 min of job time per 60 min window, working set window 4 h, frequent 12 h; these replace `quota_windows`' first three entries and active's `allowed_time`)"
            ),
            .flag(
                \.lightDoze, "light_doze",
                "light Doze: screen off and unplugged (moving or not), jobs wait outside its maintenance windows as in deep Doze (DeviceIdleJobsController); false: deep Doze only (bgbench before issue 28)"
            ),
            .duration(
                \.lightAfter, "light_after", in: .seconds(0)...(.days(7)),
                "screen off and unplugged this long before light Doze; DeviceIdleController LIGHT_IDLE_AFTER_INACTIVE_TIMEOUT (4 min)"
            ),
            .duration(
                \.lightIdleFirst, "light_idle_first", in: .minutes(1)...(.days(1)),
                "first light idle period; LIGHT_IDLE_TIMEOUT (5 min)"),
            .number(
                \.lightIdleFactor, "light_idle_factor", "factor", in: 1...10,
                "each light idle period is this times the last; LIGHT_IDLE_FACTOR (2)"),
            .duration(
                \.lightIdleMax, "light_idle_max", in: .minutes(1)...(.days(1)),
                "longest light idle period; LIGHT_MAX_IDLE_TIMEOUT (15 min)"),
            .duration(
                \.lightMaintenance, "light_maintenance", in: .seconds(1)...(.hours(1)),
                "light Doze's maintenance window; LIGHT_IDLE_MAINTENANCE_MIN_BUDGET (1 min; AOSP lets a window grow to MAX_BUDGET, 5 min, with time earlier windows left unused, which other apps' jobs, not modelled, take)"
            ),
            .flag(
                \.userRestrictedNoJobs, "user_restricted_no_jobs",
                "a user with background refresh off (`population.bar_off_share`) has restricted the app's background activity: no job runs, charging or not (denied `bar_off`; Android's battery usage details: \"Jobs: Never\"); false: the app is in the restricted bucket for good instead (bgbench before issue 28)"
            ),
            .duration(
                \.idleAfterOnPower, "idle_after_on_power", in: .minutes(1)...(.hours(4)),
                "screen off this long while charging makes the device idle for JobScheduler's idle constraint, which with charging and battery-not-low lets a restricted-bucket job run outside its quota (JobStatus DYNAMIC_RESTRICTED_CONSTRAINTS); DeviceIdlenessTracker config_jobSchedulerInactivityIdleThresholdOnStablePower (31 min)"
            ),
        ]
    }
}

extension AndroidWorkManager { public typealias Parameters = AndroidWorkManagerParameters }
