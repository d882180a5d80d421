import Foundation
import Testing
@testable import BGBench

/// MODEL.md §6.4 rule 2: a policy is told of every state change (charging, Low Power Mode,
/// the battery falling below the low level), when it happens. Hand-built devices:
/// no screen sessions beyond the app, one zero-length open a day at noon, so the level
/// moves linearly at the idle power (or the charge power) and each crossing time is exact.
@Suite struct StateChangeTests {
    /// The state the policy saw at each `stateChanged`.
    struct Call: Equatable {
        var time: SimTime
        var lowPower: Bool
        var charging: Bool
        var level: Double
    }

    final class Calls: @unchecked Sendable {
        private let lock = NSLock()
        private var storage: [Call] = []
        func append(_ c: Call) { lock.lock(); storage.append(c); lock.unlock() }
        var all: [Call] { lock.lock(); defer { lock.unlock() }; return storage }
        @TaskLocal static var current: Calls?
    }

    /// Asks for nothing; counts every `stateChanged`.
    struct CountingPolicy: WakePolicy {
        static let name = "test-state-counting"
        static let summary = "test only: counts state changes"
        let calls: Calls?
        init(_ context: PolicyContext) { calls = Calls.current }
        mutating func start(_ view: DeviceView) -> WakeDecision { .keep }
        mutating func opened(_ view: DeviceView) -> WakeDecision { .keep }
        mutating func denied(_ reason: DenialReason, retryAt: SimTime?, _ view: DeviceView) -> WakeDecision { .keep }
        mutating func runStarted(_ view: DeviceView) -> WakeDecision { .keep }
        mutating func runEnded(_ status: RunStatus, _ view: DeviceView) -> WakeDecision { .keep }
        mutating func stateChanged(_ view: DeviceView) -> WakeDecision {
            calls?.append(
                Call(time: view.now, lowPower: view.lowPower, charging: view.charging, level: view.batteryLevel))
            return .keep
        }
        mutating func midnight(_ view: DeviceView) -> WakeDecision { .keep }
    }

    /// A clean device with a battery at `level`, draining at the idle power only.
    static func scenario(level: Double, lowPowerProbability: Double, charges: Bool) -> Scenario {
        var s = TestSupport.cleanScenario(opens: [12 * Clock.hour])
        s.device.batteryEnabled = true
        s.device.initialLevel = level
        s.device.screenSessionsPerDay = 0
        s.device.topUpProbability = 0
        s.device.overnightChargeProbability = charges ? 1 : 0
        s.device.plugJitterSd = .seconds(0)
        s.device.lowPowerProbability = lowPowerProbability
        s.user.bedtimeSd = .seconds(0)
        s.user.sleepMin = .hours(8)
        s.user.sleepMax = .hours(8)
        return s
    }

    static func calls(_ s: Scenario, days: Int) -> [Call] {
        let calls = Calls()
        Calls.$current.withValue(calls) {
            _ = TestSupport.simulate(
                CountingPolicy.self, Unrestricted.self, scenario: s,
                feed: NewsFeed(times: []), days: days)
        }
        return calls.all
    }

    /// Seconds for the idle drain to take the battery from `from` to the low level.
    static func drainSeconds(_ s: Scenario, from: Double) -> Double {
        (from - s.device.lowBatteryLevel) * s.device.batteryWh * 3600 / s.device.idleW
    }

    /// Discharging through 20 % with Low Power Mode certain to turn on: one call, at the
    /// crossing (to a millisecond), that sees Low Power Mode on. (Before, none.)
    @Test func lowPowerModeTurningOnIsTold() {
        let s = Self.scenario(level: 0.25, lowPowerProbability: 1, charges: false)
        let calls = Self.calls(s, days: 2)
        let expected = Clock.ticks(seconds: Self.drainSeconds(s, from: 0.25))
        #expect(calls.count == 1, "\(calls)")
        if let call = calls.first {
            #expect(abs(call.time - expected) <= Clock.millisecond, "told at \(Clock.seconds(call.time)) s")
            #expect(call.lowPower && !call.charging)
            #expect(call.level < s.device.lowBatteryLevel && call.level > s.device.lowBatteryLevel - 1e-6)
        }
    }

    /// The same crossing with Low Power Mode staying off: the low-battery state alone
    /// changed, and the policy is told, once.
    @Test func fallingBelowTheLowLevelIsTold() {
        let s = Self.scenario(level: 0.25, lowPowerProbability: 0, charges: false)
        let calls = Self.calls(s, days: 2)
        let expected = Clock.ticks(seconds: Self.drainSeconds(s, from: 0.25))
        #expect(calls.count == 1, "\(calls)")
        if let call = calls.first {
            #expect(abs(call.time - expected) <= Clock.millisecond)
            #expect(!call.lowPower && !call.charging)
        }
    }

    /// Charging from 10 % (plugged at bedtime, 23:30, for 8 h): the policy is told at each
    /// plug and unplug and nothing else: climbing through 20 % on the charger changes no
    /// gate (below the low level counts only off the charger), and the idle drain takes
    /// days to bring a full battery back to 20 %.
    @Test func chargingIsToldAndNothingElse() {
        let s = Self.scenario(level: 0.1, lowPowerProbability: 0, charges: true)
        #expect(s.user.bedtimeMean == .hours(23.5))
        let calls = Self.calls(s, days: 2)
        // Plugged from the start (day −1's night), out at 07:30, in at 23:30, out at 07:30
        // of day 1, in at 23:30 of day 1.
        let plugTimes = [0, 7.5, 23.5, 31.5, 47.5].map { Clock.ticks(seconds: $0 * 3600) }
        #expect(calls.map(\.time) == plugTimes, "\(calls)")
    }

    /// The battery's crossing is handled between events, with no event queued for it: a
    /// device told of it pops one event more than the queue held (the crossing itself).
    @Test func theCrossingIsOneEvent() {
        let s = Self.scenario(level: 0.25, lowPowerProbability: 1, charges: false)
        let above = Self.scenario(level: 0.9, lowPowerProbability: 1, charges: false)
        let feed = NewsFeed(times: [])
        let crossing = TestSupport.simulate(CountingPolicy.self, Unrestricted.self, scenario: s, feed: feed, days: 2)
        let none = TestSupport.simulate(CountingPolicy.self, Unrestricted.self, scenario: above, feed: feed, days: 2)
        #expect(crossing[.events] == none[.events] + 1)
    }
}
