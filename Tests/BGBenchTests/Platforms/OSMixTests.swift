import Foundation
import Testing
@testable import BGBench

/// The OS-version mix: devices on iOS 12 or lower run ios-fetch in an ios-bgtask fleet.
@Suite struct OSMixTests {
    /// The share is drawn per device: within 4 binomial sd of its expectation over 4,000
    /// devices, and it changes no other trait of a device.
    @Test func shareIsDrawnPerDevice() {
        var s = Scenario()
        s.population.legacyIosShare = 0.25
        let n = 4000
        let legacy = (0..<n).filter { DeviceTraits.isLegacyIOS(scenario: s, seed: 7, device: $0) }.count
        let sd = (Double(n) * 0.25 * 0.75).squareRoot()
        #expect(abs(Double(legacy) - 0.25 * Double(n)) < 4 * sd, "legacy devices \(legacy) of \(n)")
        let plain = Scenario()
        for device in 0..<50 {
            var a = RandomStream(seed: 7, device: UInt64(device), purpose: .population)
            var b = a
            let mixed = DeviceTraits(scenario: s, rng: &a), alone = DeviceTraits(scenario: plain, rng: &b)
            #expect(
                mixed.opensPerDay == alone.opensPerDay && mixed.bedtime == alone.bedtime
                    && mixed.barOff == alone.barOff && mixed.cellular5G == alone.cellular5G)
            #expect(!alone.legacyIOS)
        }
    }

    /// A mixed fleet gives each device exactly what it gives alone on its own platform.
    @Test func mixedFleetRunsEachDeviceOnItsPlatform() throws {
        var s = Scenario()
        s.population.legacyIosShare = 0.5
        s.platform[IOSFetch.self].minimumInterval = .every(.minutes(30))
        let options = RunOptions(devices: 12, days: 2, seed: 3, threads: 2, keepDevices: true)
        let feed = NewsFeed(content: s.content, days: options.days, seed: options.seed)
        let result = try Fleet.simulate(
            scenario: s, policy: PolicyEntry(FixedPolicy.self), options: options, feed: feed)
        var legacy = 0
        for row in result.devices {
            let isLegacy = DeviceTraits.isLegacyIOS(scenario: s, seed: options.seed, device: row.device)
            legacy += isLegacy ? 1 : 0
            let alone =
                isLegacy
                ? TestSupport.simulate(
                    FixedPolicy.self, IOSFetch.self, scenario: s, feed: feed, days: options.days, seed: options.seed,
                    index: row.device)
                : TestSupport.simulate(
                    FixedPolicy.self, IOSBGTask.self, scenario: s, feed: feed, days: options.days, seed: options.seed,
                    index: row.device)
            #expect(row.values == alone.values(), "device \(row.device)")
        }
        #expect(legacy > 0 && legacy < options.devices)
    }

    /// Every device legacy with the default interval (never): no run in the whole fleet.
    @Test func allLegacyWithoutIntervalNeverRuns() throws {
        var s = Scenario()
        s.population.legacyIosShare = 1
        let options = RunOptions(devices: 20, days: 2, seed: 1, threads: 2)
        let feed = NewsFeed(content: s.content, days: options.days, seed: options.seed)
        let tally = try Fleet.run(scenario: s, policy: PolicyEntry(FixedPolicy.self), options: options, feed: feed)
        #expect(tally[.runs] == 0 && tally[.requested] == 0)
    }

    @Test func shareNeedsIOSBGTask() {
        var s = Scenario()
        s.population.legacyIosShare = 0.1
        #expect(s.validate().isEmpty)
        s.platform.name = AndroidWorkManager.name
        #expect(
            s.validate() == [
                ScenarioProblem(
                    path: "population.legacy_ios_share",
                    message:
                        "0.1 needs platform ios-bgtask: the share of iOS 12 devices that use ios-fetch mixes into an ios-bgtask fleet (platform is android-workmanager); expected 0"
                )
            ])
        s.population.legacyIosShare = 1.5
        s.platform.name = IOSBGTask.name
        #expect(s.validate().map(\.message) == ["1.5 is out of range: expected a number from 0 to 1"])
    }

    @Test func minimumIntervalParses() throws {
        let loaded = try ScenarioLoader.load(json: "{}", overrides: ["platform.ios_fetch.minimum_interval=15m"])
        #expect(loaded.scenario.platform[IOSFetch.self].minimumInterval == .every(.minutes(15)))
        let never = try ScenarioLoader.load(json: #"{"platform": {"ios_fetch": {"minimum_interval": "never"}}}"#)
        #expect(never.scenario.platform[IOSFetch.self].minimumInterval == .never)
        #expect(throws: ScenarioError.self) {
            try ScenarioLoader.load(json: #"{"platform": {"ios_fetch": {"minimum_interval": "soon"}}}"#, file: "s.json")
        }
        do {
            _ = try ScenarioLoader.load(
                json: #"{"platform": {"ios_fetch": {"minimum_interval": "soon"}}}"#, file: "s.json")
        } catch let error as ScenarioError {
            #expect(
                error.description
                    == #"error: s.json:1:49: platform.ios_fetch.minimum_interval: expected "never" or a duration such as "15m", "1h" or 900"#
            )
        }
    }
}
