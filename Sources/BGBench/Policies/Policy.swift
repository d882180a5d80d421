import Synchronization

/// What a policy may see of the device when it decides (MODEL.md §7): the clock and the
/// device's state, nothing of the future.
public struct DeviceView: Sendable {
    public var now: SimTime
    public var batteryLevel: Double
    public var charging: Bool
    public var lowPower: Bool
    public var network: NetworkKind
    public var screenOn: Bool
    /// The app is in the foreground.
    public var foreground: Bool
    public init(
        now: SimTime, batteryLevel: Double = 1, charging: Bool = false, lowPower: Bool = false,
        network: NetworkKind = .wifi, screenOn: Bool = false, foreground: Bool = false
    ) {
        self.now = now; self.batteryLevel = batteryLevel; self.charging = charging; self.lowPower = lowPower
        self.network = network; self.screenOn = screenOn; self.foreground = foreground
    }
}

/// A policy's answer at each decision point.
public enum WakeDecision: Equatable, Sendable {
    /// Leave the pending request (if any) as it is.
    case keep
    /// Ask for a wake at this time (a time in the past means now). Replaces a pending
    /// request (counted `replaced`, MODEL.md §6.4 rule 1).
    case request(at: SimTime)
    /// Withdraw the pending request.
    case cancel
}

/// A server-side policy's answer when content is published (MODEL.md §6, silent push).
public enum PushDecision: Equatable, Sendable {
    /// Send nothing.
    case none
    /// Send a silent push at this time (now or later: a server that has used its hourly
    /// budget waits). A send already due no later than it carries the change too, so a
    /// later one is coalesced into it.
    case send(at: SimTime)
}

/// What a policy is given when a device's simulation starts.
public struct PolicyContext {
    public var scenario: Scenario
    public var deviceIndex: Int
    /// The end of the simulated period.
    public var horizon: SimTime
    /// The policy's own random stream (device, purpose `policy`).
    public var random: RandomStream
    /// Knowledge of the future, for the `oracle` bound only (MODEL.md §7).
    public var clairvoyance: Clairvoyance
    /// The user's true open intensity, for policies whose `knowledge` is `.intensity` only
    /// (the `prophet` bound); every other policy receives an empty one.
    public var intensity: OpenIntensity = .none
    /// The device's platform by name (`ios-fetch` for a legacy device of an `ios-bgtask`
    /// fleet): what an app knows of the system it runs on.
    public var platform: String = ""
    /// What the policy's `prepare` read for the run (`schedule`: its plan), nil for others.
    public var prepared: (any Sendable)? = nil
}

/// What a policy is entitled to know (MODEL.md §7). Ordinary policies see only what a
/// real system could see; the bounds are given more, and their results are references,
/// not policies.
public enum PolicyKnowledge: Int, Comparable, Sendable {
    /// The past and the device's state: every policy but the bounds.
    case observed
    /// The user's true open intensity and the feed's (the rates the model draws from,
    /// not the draws): ``OpenIntensity``, the `prophet` bound.
    case intensity
    /// The future itself, every open and item: ``Clairvoyance``, the `oracle` bound.
    case future

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// The device-side callbacks of a ``WakePolicy`` it subscribes to (`start` is always
/// called; `published` is governed by `observesPublications`, `deniedAhead` by its
/// answer).
public struct PolicyCallbacks: OptionSet, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let opened = Self(rawValue: 1 << 0)
    public static let denied = Self(rawValue: 1 << 1)
    public static let runStarted = Self(rawValue: 1 << 2)
    public static let runEnded = Self(rawValue: 1 << 3)
    public static let stateChanged = Self(rawValue: 1 << 4)
    public static let midnight = Self(rawValue: 1 << 5)
    public static let all: Self = [.opened, .denied, .runStarted, .runEnded, .stateChanged, .midnight]
}

/// A wake-prediction policy (MODEL.md §7): decides when to ask for a background wake; the
/// platform decides whether it runs. One value per device. Each callback may return a
/// decision; the defaults keep the pending request. Adding a policy is one file (the
/// policy, and its `Parameters` if it has any) and one line in `PolicyRegistry`.
public protocol WakePolicy: SendableMetatype {
    /// The policy's parameters, declared in its own file (`ParameterSet`): the scenario's
    /// `policies.<name>` section, read in `init` with `context.scenario.policies[Self.self]`.
    /// Default: none.
    associatedtype Parameters: ParameterSet = NoParameters
    static var name: String { get }
    /// One line for `bgbench list`.
    static var summary: String { get }
    init(_ context: PolicyContext)
    /// Whether the policy is given ``Clairvoyance`` (knowledge of the future): only bounds
    /// such as `oracle` may say yes, and their results are bounds, not policies.
    static var isClairvoyant: Bool { get }
    /// What the policy is given beyond what a real system sees: `.observed` (nothing, the
    /// default), `.intensity` (``OpenIntensity``) or `.future` (``Clairvoyance``; the
    /// default when `isClairvoyant`).
    static var knowledge: PolicyKnowledge { get }
    /// Whether the policy runs only with an input file the scenario names (`schedule`:
    /// `policies.schedule.plan`): `--policy all` leaves it out. Default: false.
    static var needsInput: Bool { get }
    /// Reads, once per run and before any device starts, what the policy needs from
    /// outside the scenario (`schedule`: its plan file); every device's `init` finds it in
    /// `context.prepared`. Throws ``TraceError`` with the input's problems (a missing file:
    /// one problem without a place). Default: nil, nothing read.
    static func prepare(_ scenario: Scenario) throws -> (any Sendable)?
    /// The simulation starts (t = 0).
    mutating func start(_ view: DeviceView) -> WakeDecision
    /// The user opened the app (after the open's freshness was scored).
    mutating func opened(_ view: DeviceView) -> WakeDecision
    /// The platform refused the request; `retryAt` is when the reason can clear, where the
    /// platform knows it.
    mutating func denied(_ reason: DenialReason, retryAt: SimTime?, _ view: DeviceView) -> WakeDecision
    /// The request ran: a run started now.
    mutating func runStarted(_ view: DeviceView) -> WakeDecision
    /// A run ended with `status`.
    mutating func runEnded(_ status: RunStatus, _ view: DeviceView) -> WakeDecision
    /// A denial the platform decided ahead (``PlatformRules/deniesUntil(_:at:)``), told by
    /// its time alone: the policy's next attempt, which must be what `denied` would answer
    /// at t, or nil (the default) when its answer needs the reason, the retry time or the
    /// view: then `denied` is told, as for any denial. A policy that answers lets the
    /// device handle a run of such denials at once, without building a view for each
    /// (`fixed`: the next point of its grid).
    mutating func deniedAhead(at t: SimTime) -> SimTime?
    /// Charging, Low Power Mode or the low-battery state changed.
    mutating func stateChanged(_ view: DeviceView) -> WakeDecision
    /// Midnight.
    mutating func midnight(_ view: DeviceView) -> WakeDecision
    /// Whether the policy has a server side that hears of each content change as it is
    /// published (what the app's own server knows) and may send silent pushes. Only such
    /// policies are called at publications (others pay nothing for them).
    static var observesPublications: Bool { get }
    /// The callbacks the policy is told of (its subscriptions): the device calls, and
    /// builds a view for, only these. A callback left out must be one whose answer is
    /// always `.keep` with nothing changed (the default implementation). Default: all;
    /// the built-in policies name theirs, and a test checks each gives the same results
    /// as with all.
    static var callbacks: PolicyCallbacks { get }
    /// The server published content now (server-side policies only).
    mutating func published(_ view: DeviceView) -> PushDecision
}

public extension WakePolicy {
    static var isClairvoyant: Bool { false }
    static var knowledge: PolicyKnowledge { isClairvoyant ? .future : .observed }
    static var needsInput: Bool { false }
    static func prepare(_ scenario: Scenario) throws -> (any Sendable)? { nil }
    mutating func start(_ view: DeviceView) -> WakeDecision { .keep }
    mutating func opened(_ view: DeviceView) -> WakeDecision { .keep }
    mutating func denied(_ reason: DenialReason, retryAt: SimTime?, _ view: DeviceView) -> WakeDecision { .keep }
    mutating func deniedAhead(at t: SimTime) -> SimTime? { nil }
    mutating func runStarted(_ view: DeviceView) -> WakeDecision { .keep }
    mutating func runEnded(_ status: RunStatus, _ view: DeviceView) -> WakeDecision { .keep }
    mutating func stateChanged(_ view: DeviceView) -> WakeDecision { .keep }
    mutating func midnight(_ view: DeviceView) -> WakeDecision { .keep }
    static var observesPublications: Bool { false }
    static var callbacks: PolicyCallbacks { .all }
    mutating func published(_ view: DeviceView) -> PushDecision { .none }
}

/// A policy as the registry holds it: its name, summary and type, and the table the device
/// loop calls it through (`PolicyCalls`, built here where the type is concrete, so each
/// callback is compiled for this policy; a policy from another package gets the same).
public struct PolicyEntry: Sendable {
    public let name: String
    public let summary: String
    public let type: any WakePolicy.Type
    /// What the policy knows beyond a real system (the bounds: `prophet`, `oracle`).
    public let knowledge: PolicyKnowledge
    /// The type of the policy's parameters; nil when it has none.
    public let parameters: (any ParameterSet.Type)?
    /// Whether `--policy all` leaves it out: it needs an input file (`WakePolicy.needsInput`).
    public let needsInput: Bool
    /// `WakePolicy.prepare`: what the policy reads for a run before its devices start.
    let prepare: @Sendable (Scenario) throws -> (any Sendable)?
    /// How the device loop calls it.
    let calls: PolicyCalls

    public init<P: WakePolicy>(_ policy: P.Type) {
        name = P.name
        summary = P.summary
        type = policy
        knowledge = P.knowledge
        parameters = P.Parameters.self == NoParameters.self ? nil : P.Parameters.self
        needsInput = P.needsInput
        prepare = { try P.prepare($0) }
        calls = PolicyCalls(policy)
    }
}

/// The policies bgbench knows, by name. Adding a built-in policy is one line in `builtIn`;
/// a researcher's package adds its own with `PolicyRegistry.register` before a run.
public enum PolicyRegistry {
    public static let builtIn: [PolicyEntry] =
        [
            PolicyEntry(NoWakePolicy.self),
            PolicyEntry(FixedPolicy.self),
            PolicyEntry(AdaptivePolicy.self),
            PolicyEntry(UsagePolicy.self),
            PolicyEntry(HistogramPolicy.self),
            PolicyEntry(NHPPPolicy.self),
            PolicyEntry(BayesPolicy.self),
            PolicyEntry(KDEPolicy.self),
            PolicyEntry(LogisticPolicy.self),
            PolicyEntry(PushPolicy.self),
            PolicyEntry(SchedulePolicy.self),
        ] + ExternalPolicies.entries + [
            PolicyEntry(OraclePolicy.self),
            PolicyEntry(ProphetPolicy.self),
        ]

    /// Registered policies; a lock makes registering safe while other threads read.
    private static let added = Mutex<[PolicyEntry]>([])

    /// All policies, built-in first, then registered ones in registration order.
    public static var all: [PolicyEntry] { builtIn + added.withLock { $0 } }

    /// The policies `--policy all` runs: every one that needs no input file of its own.
    public static var inAll: [PolicyEntry] { all.filter { !$0.needsInput } }

    public static func named(_ name: String) -> PolicyEntry? {
        all.first { $0.name == name }
    }

    /// Adds a policy, and with it its `policies.<name>.*` keys to the scenario loader, the
    /// validator, `--set`, `bgbench scenario` and the docs; registering a name twice is a programming error. A run sees the
    /// policies registered when it starts.
    public static func register<P: WakePolicy>(_ policy: P.Type) {
        added.withLock { added in
            precondition(
                !(builtIn + added).contains { $0.name == P.name }, "a policy named '\(P.name)' is already registered")
            added.append(PolicyEntry(policy))
        }
        RegistryGeneration.value.add(1, ordering: .sequentiallyConsistent)
    }
}
