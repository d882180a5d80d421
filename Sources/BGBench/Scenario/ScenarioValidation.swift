/// A value that decodes but is out of its range, by JSON path (`content.hourly_weights[3]`).
public struct ScenarioProblem: Sendable, Equatable {
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }
}

extension Scenario {
    /// The core sections by JSON key, each a `ParameterSet` (CoreParameters.swift).
    var coreSections: [(key: String, value: any ParameterSet)] {
        [
            ("population", population), ("user", user), ("device", device), ("network", network), ("content", content),
            ("app", app), ("energy", energy), ("push", push), ("report", report),
        ]
    }

    /// Range checks beyond what the types enforce; empty when the scenario is valid.
    /// The loader reports these with the file position of each path. Every section's
    /// fields are checked by their declarations (`ParameterSet.fields`): the core
    /// sections', and those of every registered platform and policy; what remains here
    /// are the rules that tie sections together.
    public func validate() -> [ScenarioProblem] {
        var checker = ParameterChecker()
        for (key, section) in coreSections { section.check(into: &checker, at: key) }
        if PlatformRegistry.named(platform.name) == nil {
            checker.fail(
                "platform.name",
                "unknown platform '\(platform.name)': expected one of \(PlatformRegistry.all.map { $0.name }.joined(separator: ", "))"
            )
        }
        for (key, _) in PlatformModel.entries {
            platform.parameters(key: key)?.check(into: &checker, at: "platform." + key)
        }
        for (name, _) in PolicyParameters.entries {
            policies.parameters(named: name)?.check(into: &checker, at: "policies." + name)
        }
        // The iOS 12 share mixes ios-fetch devices into an ios-bgtask fleet only.
        if population.legacyIosShare > 0 && platform.name != IOSBGTask.name {
            checker.fail(
                "population.legacy_ios_share",
                "\(checker.format(population.legacyIosShare)) needs platform ios-bgtask: the share of iOS 12 devices that use ios-fetch mixes into an ios-bgtask fleet (platform is \(platform.name)); expected 0"
            )
        }
        // Keeping Low Power Mode on needs a battery to be in it.
        if population.lowPowerShare > 0 && !device.batteryEnabled {
            checker.fail(
                "population.low_power_share",
                "\(checker.format(population.lowPowerShare)) needs device.battery_enabled: Low Power Mode is a battery state (battery_enabled is false); expected 0"
            )
        }
        return checker.problems
    }
}
