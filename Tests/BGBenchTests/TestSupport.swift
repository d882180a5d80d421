import Foundation
import Testing
@testable import BGBench

/// Shared helpers for the simulation tests: clean hand-built scenarios, a policy that asks
/// for wakes at listed times, and a platform wrapper and recorder that let a test see what
/// happened inside one device's simulation.
enum TestSupport {
    /// The package root (Tests/BGBenchTests/TestSupport.swift is three levels down).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Checks that the text of the checkout's `file` between the markers `begin` and `end`
    /// is `generated`; with BGBENCH_WRITE_README=1 (what `script` sets) it rewrites it first.
    static func expectGenerated(
        _ file: String, between begin: String, and end: String, _ generated: String,
        script: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let url = packageRoot.appendingPathComponent(file)
        let text = try String(contentsOf: url, encoding: .utf8)
        let parts = text.components(separatedBy: begin)
        try #require(parts.count == 2, "\(file) has one \(begin) marker", sourceLocation: sourceLocation)
        let rest = parts[1].components(separatedBy: end)
        try #require(
            rest.count == 2, "\(file) has one \(end) marker after the begin marker", sourceLocation: sourceLocation)
        if ProcessInfo.processInfo.environment["BGBENCH_WRITE_README"] == "1" && rest[0] != generated {
            try (parts[0] + begin + generated + end + rest[1]).write(to: url, atomically: true, encoding: .utf8)
            return
        }
        #expect(
            rest[0] == generated, "\(file) between \(begin) and \(end) is stale: run \(script)",
            sourceLocation: sourceLocation)
    }

    /// A scenario file under Datasets/scenarios, loaded with optional `--set` overrides.
    static func loadScenario(_ name: String, overrides: [String] = []) throws -> LoadedScenario {
        try ScenarioLoader.load(
            file: packageRoot.appendingPathComponent("Datasets/scenarios/\(name).json").path,
            overrides: overrides)
    }

    /// A scenario with nothing random in the user's timeline: routine opens at exactly
    /// `opens` (ticks after midnight, every day, probability 1, no jitter), zero-length
    /// sessions, no reopens, force-quits, sleep window, battery, BAR-off users or offline
    /// spells; Wi-Fi at home all day. The app's run is R1's lognormal task with sigma 0,
    /// so every run lasts exactly `runSeconds` and never fails. Platform `unrestricted`
    /// without a cap.
    static func cleanScenario(opens: [SimTime], runSeconds: Double = 0.001) -> Scenario {
        var s = Scenario()
        s.name = "clean"
        s.population.model = .routine
        s.population.routine.opens = opens.map {
            Routine.Entry(at: TimeSpan(ticks: $0), jitterSd: .seconds(0), probability: 1)
        }
        s.population.barOffShare = 0
        s.population.chronotypeSd = .seconds(0)
        s.user.pReopen = 0
        s.user.sessionBodyMean = .seconds(0)
        s.user.sessionTailShare = 0
        s.user.forceQuitProbability = 0
        s.user.sleepEnabled = false
        s.user.nightChecksPerNight = 0
        s.device.batteryEnabled = false
        s.network.offlineSpellsPerDay = 0
        s.network.homeWifiShare = 1
        s.network.homeFrom = .hours(0)
        s.network.homeUntil = .hours(24)
        s.app.task = .lognormal
        s.app.lognormalMedian = .seconds(runSeconds)
        s.app.lognormalSigma = 0
        s.app.lognormalFailureProbability = 0
        s.platform.name = Unrestricted.name
        s.platform[Unrestricted.self].dailyCap = 0
        return s
    }

    /// Simulates device `index` of `scenario` under `Policy` on `Platform` for `days`.
    static func simulate<Policy: WakePolicy, Platform: PlatformRules>(
        _: Policy.Type, _: Platform.Type, scenario: Scenario, feed: NewsFeed, days: Int,
        seed: UInt64 = 1, index: Int = 0, warmupDays: Int = 0, histogram: inout LogHistogram
    ) -> DeviceTally {
        let context = DeviceRunContext(
            scenario: scenario, seed: seed, horizon: SimTime(days) * Clock.day,
            countFrom: SimTime(warmupDays) * Clock.day, feed: feed)
        var simulation = DeviceSimulation<Platform>(
            policy: PolicyCalls(Policy.self), index: index, context: context, queue: EventQueue(),
            storage: RecorderStorage(days: days, firstDay: warmupDays))
        var result = FleetResult(scenario: scenario, days: days, keepDevices: false)
        let record = simulation.run()
        defer { record.storage.release() }
        result.add(record)
        result.finish()
        histogram.merge(result.fleet.staleness)
        return record.tally
    }

    static func simulate<Policy: WakePolicy, Platform: PlatformRules>(
        _ policy: Policy.Type, _ platform: Platform.Type, scenario: Scenario, feed: NewsFeed, days: Int,
        seed: UInt64 = 1, index: Int = 0, warmupDays: Int = 0
    ) -> DeviceTally {
        var histogram = LogHistogram()
        return simulate(
            policy, platform, scenario: scenario, feed: feed, days: days, seed: seed, index: index,
            warmupDays: warmupDays, histogram: &histogram)
    }

    /// `h` hours after midnight of day `day`, plus `seconds`, in ticks.
    static func at(day: Int = 0, _ h: Double, seconds: Double = 0) -> SimTime {
        SimTime(day) * Clock.day + Clock.ticks(seconds: h * 3600 + seconds)
    }
}

/// What a recorded simulation did, in order. A reference type shared, through a task-local
/// value, by the test, its policy and its platform; one simulation runs on one thread, so
/// the lock is only there to satisfy `Sendable`.
final class SimulationLog: @unchecked Sendable {
    enum Entry: Equatable {
        case open(SimTime)
        case runStarted(SimTime)
        case runEnded(SimTime, RunStatus)
        case denied(SimTime, DenialReason, retryAt: SimTime?)
        /// The platform's multiplier m and tokens right after a run ended (ios-bgtask only).
        case platformAfterRun(SimTime, multiplier: Double, tokens: Double)
        case midnight(SimTime)
    }

    private let lock = NSLock()
    private var storage: [Entry] = []

    func append(_ e: Entry) { lock.lock(); storage.append(e); lock.unlock() }
    var entries: [Entry] { lock.lock(); defer { lock.unlock() }; return storage }

    var opens: [SimTime] { entries.compactMap { if case .open(let t) = $0 { t } else { nil } } }
    var runStarts: [SimTime] { entries.compactMap { if case .runStarted(let t) = $0 { t } else { nil } } }
    var runEnds: [(SimTime, RunStatus)] {
        entries.compactMap { if case .runEnded(let t, let s) = $0 { (t, s) } else { nil } }
    }
    var denials: [(SimTime, DenialReason, SimTime?)] {
        entries.compactMap { if case .denied(let t, let r, let retry) = $0 { (t, r, retry) } else { nil } }
    }
    var multipliers: [Double] {
        entries.compactMap { if case .platformAfterRun(_, let m, _) = $0 { m } else { nil } }
    }

    /// The log the current simulation writes to (none outside `record`).
    @TaskLocal static var current: SimulationLog?

    /// Runs `body` with a fresh log and returns the log.
    static func record(_ body: () throws -> Void) rethrows -> SimulationLog {
        let log = SimulationLog()
        try $current.withValue(log) { try body() }
        return log
    }
}

/// A test policy: asks for wakes at exactly the listed times (`ScheduledWakes.$times`), one
/// after another, whatever happens; records every callback in the current log.
struct ScheduledWakes: WakePolicy {
    static let name = "test-scheduled"
    static let summary = "test only: wakes at listed times"

    /// The wake times of the simulations started inside `withValue`.
    @TaskLocal static var times: [SimTime] = []

    let schedule: [SimTime]
    var nextIndex = 0
    let log: SimulationLog?

    init(_ context: PolicyContext) {
        schedule = Self.times.sorted()
        log = SimulationLog.current
    }

    /// The next listed time after the current one, if any.
    mutating func advance() -> WakeDecision {
        guard nextIndex < schedule.count else { return .keep }
        nextIndex += 1
        return .request(at: schedule[nextIndex - 1])
    }

    mutating func start(_ view: DeviceView) -> WakeDecision { advance() }
    mutating func opened(_ view: DeviceView) -> WakeDecision { log?.append(.open(view.now)); return .keep }
    mutating func denied(_ reason: DenialReason, retryAt: SimTime?, _ view: DeviceView) -> WakeDecision {
        log?.append(.denied(view.now, reason, retryAt: retryAt))
        return advance()
    }
    mutating func runStarted(_ view: DeviceView) -> WakeDecision {
        log?.append(.runStarted(view.now))
        return advance()
    }
    mutating func runEnded(_ status: RunStatus, _ view: DeviceView) -> WakeDecision {
        log?.append(.runEnded(view.now, status))
        return .keep
    }
    mutating func midnight(_ view: DeviceView) -> WakeDecision { log?.append(.midnight(view.now)); return .keep }
}

/// A test policy that records opens and otherwise behaves as `Inner`.
struct Recorded<Inner: WakePolicy>: WakePolicy {
    static var name: String { "recorded-" + Inner.name }
    static var summary: String { "test only: records " + Inner.name }
    var inner: Inner
    let log: SimulationLog?
    init(_ context: PolicyContext) { inner = Inner(context); log = SimulationLog.current }
    mutating func start(_ view: DeviceView) -> WakeDecision { inner.start(view) }
    mutating func opened(_ view: DeviceView) -> WakeDecision { log?.append(.open(view.now)); return inner.opened(view) }
    mutating func denied(_ reason: DenialReason, retryAt: SimTime?, _ view: DeviceView) -> WakeDecision {
        log?.append(.denied(view.now, reason, retryAt: retryAt))
        return inner.denied(reason, retryAt: retryAt, view)
    }
    mutating func runStarted(_ view: DeviceView) -> WakeDecision {
        log?.append(.runStarted(view.now))
        return inner.runStarted(view)
    }
    mutating func runEnded(_ status: RunStatus, _ view: DeviceView) -> WakeDecision {
        log?.append(.runEnded(view.now, status))
        return inner.runEnded(status, view)
    }
    mutating func stateChanged(_ view: DeviceView) -> WakeDecision { inner.stateChanged(view) }
    mutating func midnight(_ view: DeviceView) -> WakeDecision { inner.midnight(view) }
}

/// `ios-bgtask` with its multiplier and tokens logged after every run's end.
struct LoggedIOSBGTask: PlatformRules {
    static let name = "test-logged-ios-bgtask"
    static let summary = "test only"
    var inner: IOSBGTask
    let log: SimulationLog?
    init(_ setup: PlatformSetup) { inner = IOSBGTask(setup); log = SimulationLog.current }
    var runtimeLimit: SimTime { inner.runtimeLimit }
    var throttleEvents: Int { inner.throttleEvents }
    mutating func admit(at t: SimTime, gates: GateInputs) -> Admission { inner.admit(at: t, gates: gates) }
    mutating func runStarted(at t: SimTime) { inner.runStarted(at: t) }
    mutating func runEnded(at t: SimTime, status: RunStatus, broughtContent: Bool) {
        inner.runEnded(at: t, status: status, broughtContent: broughtContent)
        log?.append(.platformAfterRun(t, multiplier: inner.multiplier, tokens: inner.tokens))
    }
    mutating func midnight(at t: SimTime, opens: Int) { inner.midnight(at: t, opens: opens) }
}
