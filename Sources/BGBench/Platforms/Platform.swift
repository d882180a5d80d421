/// Why the platform refused a wake request (MODEL.md §6.1, §6.4 rule 2). The order of the
/// cases up to `budget` is the order in which `ios-bgtask` checks its gates; later reasons
/// are appended (their raw values index the tallies and name report columns).
public enum DenialReason: UInt8, Sendable, CaseIterable {
    case foreground, barOff, forceQuit, lowPower, lowBattery, notSubmitted, spacing, budget
    /// A run of the task is still in flight: bgbench launches one run of a task at a time.
    case busy
    /// `android-workmanager`: the device is in deep Doze and outside a maintenance window.
    case doze
    /// `android-workmanager`: the App Standby Bucket's job quota (time or sessions per
    /// window) is used up.
    case quota
    /// `android-workmanager`: the device is in light Doze and outside a maintenance window.
    case lightDoze
    public var label: String {
        switch self {
        case .foreground: "foreground"
        case .barOff: "bar_off"
        case .forceQuit: "force_quit"
        case .lowPower: "low_power"
        case .lowBattery: "low_battery"
        case .notSubmitted: "not_submitted"
        case .spacing: "spacing"
        case .budget: "budget"
        case .busy: "busy"
        case .doze: "doze"
        case .quota: "quota"
        case .lightDoze: "light_doze"
        }
    }
}

/// The device and app state a platform's gates read at a request (MODEL.md §6.1).
public struct GateInputs: Sendable {
    public var foreground: Bool
    public var barOff: Bool
    public var forceQuit: Bool
    public var lowPower: Bool
    /// Below 20 % and not charging.
    public var lowBattery: Bool
    /// Below 20 %, charging or not (`android-workmanager`: JobScheduler's battery-not-low).
    public var belowLowLevel: Bool
    public var charging: Bool
    /// The app has a task submitted (rule 8: an app that forgets to resubmit has none).
    public var submitted: Bool
    public init(
        foreground: Bool = false, barOff: Bool = false, forceQuit: Bool = false, lowPower: Bool = false,
        lowBattery: Bool = false, charging: Bool = false, submitted: Bool = true, belowLowLevel: Bool = false
    ) {
        self.foreground = foreground; self.barOff = barOff; self.forceQuit = forceQuit
        self.lowPower = lowPower; self.lowBattery = lowBattery; self.charging = charging
        self.submitted = submitted; self.belowLowLevel = belowLowLevel || lowBattery
    }
}

/// The platform's answer to a request.
public enum Admission: Equatable, Sendable {
    case run
    /// Refused; `retryAt` is the earliest time the reason can clear where the platform
    /// knows it (next token, end of spacing), else nil (a state gate: the policy hears of
    /// the state change).
    case deny(DenialReason, retryAt: SimTime?)
}

/// What the platform knows of one device at set-up.
public struct PlatformSetup: Sendable {
    public var scenario: Scenario
    /// Starting value of the usage average u, opens per day (MODEL.md §6.4 rule 4).
    public var initialUsage: Double
    /// The user switched Background App Refresh off (the iOS platforms see it as a gate;
    /// `android-workmanager` too, as the user restricting the app's background activity,
    /// or as the restricted bucket for good with `user_restricted_no_jobs` false).
    public var barOff = false
}

/// An operating system's rules for background work (MODEL.md §6.2): which requests run,
/// the runtime limit, budgets and penalties. One value per device, owned by the device's
/// simulation; a new platform is one file and one line in `PlatformRegistry`.
public protocol PlatformRules: SendableMetatype {
    /// The platform's parameters, declared in its own file (`ParameterSet`): the scenario's
    /// `platform.<name with _ for ->` section, read with `setup.scenario.platform[Self.self]`.
    /// Default: none.
    associatedtype Parameters: ParameterSet = NoParameters
    static var name: String { get }
    /// Keys of other platforms' parameters this platform reads too (`ios-fetch` reads
    /// `ios_bgtask`'s): a run's resolved scenario holds them. Default: none.
    static var sharedParameterKeys: [String] { get }
    /// One line for `bgbench list`.
    static var summary: String { get }
    init(_ setup: PlatformSetup)
    /// How long a run may take, from its start, launch included.
    var runtimeLimit: SimTime { get }
    /// Decides a request at t. Called only when no run is in flight.
    mutating func admit(at t: SimTime, gates: GateInputs) -> Admission
    /// A run started at t (it takes its token, its spacing starts).
    mutating func runStarted(at t: SimTime)
    /// A run that started at `start` ended at t with `status`; `broughtContent` says
    /// whether it fetched new items (so newData was honest).
    mutating func runEnded(at t: SimTime, status: RunStatus, broughtContent: Bool)
    /// Midnight at t; `opens` is the number of opens of the day that just ended.
    mutating func midnight(at t: SimTime, opens: Int)
    /// Until when a denial at t for `reason` stands: every request before the returned
    /// time would be denied for the same reason with the same retry time whatever happens
    /// meanwhile (no run can start, so nothing but time can change it), and asking would
    /// change nothing; the simulation then need not ask (`unrestricted`'s daily cap: until
    /// midnight). At most t, the default: not known.
    func deniesUntil(_ reason: DenialReason, at t: SimTime) -> SimTime
    /// Whether a request denied for `reason` with a `retryAt` stays pending: the platform
    /// keeps the work and tries it again at `retryAt` by itself, and the policy is not told
    /// (`android-workmanager`: JobScheduler keeps a deferred job, MODEL.md §6.2). The denial
    /// is counted under its reason and the kept request counts as a new request when it
    /// falls due. Default: never (the denial goes to the policy, §6.4 rule 2).
    static func keepsPending(_ reason: DenialReason) -> Bool
    /// Whether the screen or charging change just told at t (`deviceChanged`) lifted a
    /// kept denial for `reason` before its `retryAt`: the kept request is then tried at t
    /// (`android-workmanager`: the screen on or a charger ends Doze; a charger lifts the
    /// quota). Default: never.
    func deferralLifted(_ reason: DenialReason, at t: SimTime) -> Bool
    /// Times the platform cut the app's budget because of how a run ended.
    var throttleEvents: Int { get }
    /// Why no policy can get a run on this platform in `scenario`, naming the setting that
    /// would admit runs (the terminal prints it under a run's table); nil: runs can happen.
    static func admitsNoRuns(_ scenario: Scenario) -> String?

    // Optional: the defaults below do nothing, so `ios-bgtask` and `unrestricted` ignore them.

    /// Whether the platform itself chooses when to wake the app (`ios-fetch`): then the
    /// simulation asks `systemWake(after:)` for the next wake and drops the policy's
    /// requests (the app has no API to ask for a time).
    static var initiatesWakes: Bool { get }
    /// The next time at or after t at which the platform would launch the app by itself,
    /// or nil for none (until something changes: a run ends, an open, a state change,
    /// midnight). Asked only when no run is in flight.
    mutating func systemWake(after t: SimTime) -> SimTime?
    /// How long a run starting at t may take (default `runtimeLimit`; `android-workmanager`
    /// also stops a job when the bucket's quota runs out).
    mutating func runLimit(at t: SimTime) -> SimTime
    /// The user opened the app at t.
    mutating func opened(at t: SimTime)
    /// The screen or charging state may have changed at t (called at every screen and
    /// charging event, with the state after it).
    mutating func deviceChanged(screenOn: Bool, charging: Bool, at t: SimTime)

    /// An OS-version mix (MODEL.md §4): the platform some devices of a fleet on this one
    /// run as instead (`ios-bgtask`: devices on iOS 12 or lower run `ios-fetch`); `Self`,
    /// the default, for none. Each device is still specialised for its own platform.
    associatedtype LegacyVariant: PlatformRules = Self
    /// Whether device `device` of a run with this scenario and seed runs as
    /// `LegacyVariant` (default: never).
    static func runsAsLegacyVariant(scenario: Scenario, seed: UInt64, device: Int) -> Bool
}

public extension PlatformRules {
    static var sharedParameterKeys: [String] { [] }
    static func runsAsLegacyVariant(scenario: Scenario, seed: UInt64, device: Int) -> Bool { false }
    static var initiatesWakes: Bool { false }
    static func admitsNoRuns(_ scenario: Scenario) -> String? { nil }
    mutating func systemWake(after t: SimTime) -> SimTime? { nil }
    mutating func runLimit(at t: SimTime) -> SimTime { runtimeLimit }
    func deniesUntil(_ reason: DenialReason, at t: SimTime) -> SimTime { t }
    static func keepsPending(_ reason: DenialReason) -> Bool { false }
    func deferralLifted(_ reason: DenialReason, at t: SimTime) -> Bool { false }
    mutating func opened(at t: SimTime) {}
    mutating func deviceChanged(screenOn: Bool, charging: Bool, at t: SimTime) {}
}

/// Something done with one platform type, statically: the simulation of a fleet is
/// generic over its platform, and a visitor lets the registry hand it the concrete type
/// so the device loop is specialised for it.
public protocol PlatformVisitor {
    associatedtype Result
    func visit<F: PlatformRules>(_ platform: F.Type) -> Result
}

/// The platforms bgbench knows, by name. Adding a platform is one line in `each`.
public enum PlatformRegistry {
    static func each<V: PlatformVisitor>(_ v: V) -> [(name: String, visit: () -> V.Result)] {
        func entry<F: PlatformRules>(_: F.Type) -> (name: String, visit: () -> V.Result) {
            (F.name, { v.visit(F.self) })
        }
        return [
            entry(IOSBGTask.self),
            entry(IOSFetch.self),
            entry(AndroidWorkManager.self),
            entry(Unrestricted.self),
        ]
    }

    struct Metatype: PlatformVisitor {
        func visit<F: PlatformRules>(_ platform: F.Type) -> any PlatformRules.Type { platform }
    }

    public static let all: [any PlatformRules.Type] = each(Metatype()).map { $0.visit() }

    public static func named(_ name: String) -> (any PlatformRules.Type)? {
        all.first { $0.name == name }
    }

    /// Calls `visitor` with the platform named `name`; nil if there is none.
    public static func visit<V: PlatformVisitor>(_ name: String, _ visitor: V) -> V.Result? {
        each(visitor).first { $0.name == name }?.visit()
    }
}
