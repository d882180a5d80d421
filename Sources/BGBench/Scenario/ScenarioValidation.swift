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
    /// Range checks beyond what the types enforce; empty when the scenario is valid.
    /// The loader reports these with the file position of each path.
    public func validate() -> [ScenarioProblem] {
        var v = ScenarioValidator()
        v.check(population.barOffShare, in: 0...1, "population.bar_off_share")
        v.check(population.legacyIosShare, in: 0...1, "population.legacy_ios_share")
        v.check(population.rateSigma, in: 0..., "population.rate_sigma")
        for (name, archetype) in population.archetypes.sorted(by: { $0.key < $1.key }) {
            let path = "population.archetypes.\(name)"
            v.check(archetype.weight, in: 0..., path + ".weight")
            v.checkWeights(archetype.weekdayWeights, count: 24, path + ".weekday_weights")
        }
        v.check(network.homeWifiShare, in: 0...1, "network.home_wifi_share")
        v.check(network.workWifiShare, in: 0...1, "network.work_wifi_share")
        v.check(network.nr5gShare, in: 0...1, "network.nr5g_share")
        v.checkWeights(content.hourlyWeights, count: 24, "content.hourly_weights")
        return v.problems
    }
}

/// Collects problems; one helper per kind of rule.
struct ScenarioValidator {
    var problems: [ScenarioProblem] = []

    mutating func fail(_ path: String, _ message: String) {
        problems.append(ScenarioProblem(path: path, message: message))
    }

    mutating func check(_ value: Double, in range: ClosedRange<Double>, _ path: String) {
        if !range.contains(value) {
            fail(path, "\(format(value)) is out of range: expected a number from \(format(range.lowerBound)) to \(format(range.upperBound))")
        }
    }

    mutating func check(_ value: Double, in range: PartialRangeFrom<Double>, _ path: String) {
        if !range.contains(value) {
            fail(path, "\(format(value)) is out of range: expected a number of at least \(format(range.lowerBound))")
        }
    }

    /// `count` relative weights: none negative, a positive sum.
    mutating func checkWeights(_ weights: [Double], count: Int, _ path: String) {
        guard weights.count == count else { return fail(path, "expected \(count) weights, got \(weights.count)") }
        for (i, w) in weights.enumerated() { check(w, in: 0..., "\(path)[\(i)]") }
        if weights.allSatisfy({ $0 >= 0 }) && !(weights.reduce(0, +) > 0) {
            fail(path, "expected weights with a positive sum")
        }
    }

    /// A number as a user wrote it: `2` rather than `2.0`.
    func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }
}
