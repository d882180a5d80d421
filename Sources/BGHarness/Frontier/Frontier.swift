import BGBench
import Foundation

/// One arm of a frontier: a policy at one value of its aggressiveness knob (or at the
/// scenario's own parameters: the baseline's point, a policy without a knob).
public struct FrontierArm: Sendable {
    /// The name in the frontier's files: `fixed[interval=30m]`, or the policy's name for a
    /// point at the scenario's own parameters.
    public var label: String
    public var policy: String
    /// The knob's field and value, nil for a point at the scenario's own parameters.
    public var knob: String?
    public var value: String?
    public var scenario: Scenario
}

/// What `bgbench frontier` runs: every policy at every value of its knob, and the
/// baseline at its own point, side by side on the same users and feed.
public struct FrontierRequest: Sendable {
    public var scenario: LoadedScenario
    public var policies: [String]
    /// What every arm is compared with: a policy's point at the scenario's own
    /// parameters (its name), or one arm of its knob by the arm's label
    /// (`fixed[interval=30m]`, ``Frontier/label(policy:knob:value:)``); nil: `fixed`'s
    /// point when it is among `policies`, else the first policy's.
    public var baselinePolicy: String?
    /// Knob values by policy, replacing the declared sweep (`--knob fixed=15m,30m`).
    public var knobValues: [String: [String]]
    /// Fixed energies (J/day) at which each curve is read, beside the baseline's own.
    public var energyLevels: [Double]
    /// The energy range of the areas under the curves (J/day); nil: the baseline policy's
    /// own curve range, else the range every curve spans (``FrontierReport/areaRange``).
    public var energyRange: ClosedRange<Double>?
    /// The curves' vertical axis; nil: the scenario's (``FrontierAxis/quality(for:)``).
    public var quality: FrontierAxis?
    /// Pairs of policies whose curves are compared with each other at matched energy
    /// (`--compare A,B`: A's curve minus B's), beside each policy against the baseline.
    public var comparisons: [Comparison]
    /// Policies also run at their own point (the scenario's parameters, labelled by the
    /// policy's name) after their knob's arms: what `bgbench suite` scores, beside the
    /// curve it reads at matched energy. A policy with no knob values here
    /// (`knobValues[name] == []`) is run at its point alone.
    public var points: [String] = []
    public var options: RunOptions
    public var replications: Int
    public var commandLine: [String]

    /// 10, 20 and 40 J/day: about ⅓, ¾ and 1½ times `fixed`'s 27 J/day on the default
    /// scenario (README's policy table), where most knobs' ranges overlap.
    public static let defaultEnergyLevels: [Double] = [10, 20, 40]

    public init(
        scenario: LoadedScenario, policies: [String], baselinePolicy: String? = nil,
        knobValues: [String: [String]] = [:], energyLevels: [Double] = FrontierRequest.defaultEnergyLevels,
        energyRange: ClosedRange<Double>? = nil, quality: FrontierAxis? = nil, comparisons: [Comparison] = [],
        options: RunOptions, replications: Int = 1, commandLine: [String] = []
    ) {
        self.scenario = scenario; self.policies = policies; self.baselinePolicy = baselinePolicy
        self.knobValues = knobValues; self.energyLevels = energyLevels; self.energyRange = energyRange
        self.quality = quality; self.comparisons = comparisons
        self.options = options; self.replications = replications; self.commandLine = commandLine
    }

    /// The baseline's policy (its curve is the one every policy is read against).
    public var resolvedBaseline: String {
        if let arm = baselineArm { return arm.policy }
        return baselinePolicy ?? (policies.contains(FixedPolicy.name) ? FixedPolicy.name : policies[0])
    }

    /// The baseline as one arm of its policy's knob: `baselinePolicy` read as
    /// `POLICY[KNOB=VALUE]`; nil for a policy's point.
    public var baselineArm: (policy: String, knob: String, value: String)? {
        guard let text = baselinePolicy, let open = text.firstIndex(of: "["), text.last == "]",
            let eq = text[open...].firstIndex(of: "=")
        else { return nil }
        return (
            String(text[..<open]), String(text[text.index(after: open)..<eq]),
            String(text[text.index(after: eq)..<text.index(before: text.endIndex)])
        )
    }

    /// Two policies' curves compared at matched energy: `policy`'s minus `reference`'s.
    public struct Comparison: Sendable, Equatable, Hashable {
        public var policy: String
        public var reference: String
        public init(_ policy: String, minus reference: String) { self.policy = policy; self.reference = reference }
    }

    public var resolvedQuality: FrontierAxis { quality ?? FrontierAxis.quality(for: scenario.scenario) }

    /// The quantities whose cross moments the matched figures need, per arm.
    public var jointQuantities: [Quantity] { FrontierAxis.jointQuantities(quality: resolvedQuality) }
}

/// A frontier that cannot be run.
public enum FrontierError: Error, Equatable, CustomStringConvertible {
    case noPolicies
    case badKnobValue(policy: String, value: String, reason: String)
    case badQuality(String, reason: String)
    /// `--baseline-policy POLICY[KNOB=VALUE]` naming no arm of the frontier.
    case badBaselineArm(String, reason: String)
    public var description: String {
        switch self {
        case .badBaselineArm(let text, let reason): "invalid value '\(text)' for '--baseline-policy': \(reason)"
        case .noPolicies: "a frontier needs at least one policy"
        case .badKnobValue(let policy, let value, let reason):
            "invalid value '\(value)' for '--knob \(policy)': \(reason)"
        case .badQuality(let name, let reason):
            "invalid value '\(name)' for '--quality': \(reason); expected one of "
                + FrontierAxis.qualityNames.joined(separator: ", ")
        }
    }
}

/// `bgbench frontier` (docs/policies.md, "The frontier"): every policy × every value of its
/// knob, and the baseline at its own point, as the arms of ONE fleet pass per seed
/// (`Fleet.simulate(arms:...)`): common random numbers, each arm compared with the
/// baseline device by device (`PairedTally`), and the arms' per-device cross moments
/// (`JointMoments`) kept for the intervals of matched-energy figures. Memory stays flat in
/// the fleet; the cost is the arms' count × a run of one policy.
public enum Frontier {
    /// The label of a policy at one knob value.
    public static func label(policy: String, knob: String, value: String) -> String { "\(policy)[\(knob)=\(value)]" }

    /// The knob values a policy is swept over: the request's, else the declared sweep;
    /// nil for a policy without a knob.
    static func values(_ entry: PolicyEntry, _ request: FrontierRequest) -> (knob: String, values: [String])? {
        guard let knob = entry.parameters?.knob else { return nil }
        return (knob.field, request.knobValues[entry.name] ?? knob.sweep)
    }

    /// The arms, in file order: the baseline first (its policy's point, or the arm of its
    /// knob `--baseline-policy POLICY[KNOB=VALUE]` names), then each policy's knob values
    /// in the given order (a policy without a knob: its point; the baseline's own policy
    /// without a knob, and the baseline's own arm, are not repeated), then its point when
    /// `points` names it.
    public static func arms(_ request: FrontierRequest) throws -> [FrontierArm] {
        guard !request.policies.isEmpty else { throw FrontierError.noPolicies }
        let base = request.scenario
        let baseline = request.resolvedBaseline
        var arms = [FrontierArm(label: baseline, policy: baseline, knob: nil, value: nil, scenario: base.scenario)]
        if let text = request.baselinePolicy, let arm = try baselineArm(request, text) { arms[0] = arm }
        for name in request.policies {
            guard let entry = PolicyRegistry.named(name) else { throw RunError.unknownPolicy(name) }
            guard let (knob, values) = values(entry, request) else {
                if name != baseline {
                    arms.append(FrontierArm(label: name, policy: name, knob: nil, value: nil, scenario: base.scenario))
                }
                continue
            }
            for value in values where !(arms[0].policy == name && arms[0].value == value) {
                let scenario: Scenario
                do {
                    scenario = try ScenarioLoader.load(
                        json: base.resolvedJSON, file: base.file ?? "(built-in default)",
                        overrides: ["policies.\(name).\(knob)=\(value)"]
                    ).scenario
                } catch let error as ScenarioError {
                    let reason = error.problems.first.map { $0.message } ?? "\(error)"
                    throw FrontierError.badKnobValue(policy: name, value: value, reason: reason)
                }
                arms.append(
                    FrontierArm(
                        label: label(policy: name, knob: knob, value: value), policy: name, knob: knob,
                        value: value, scenario: scenario))
            }
            if request.points.contains(name), name != baseline {
                arms.append(FrontierArm(label: name, policy: name, knob: nil, value: nil, scenario: base.scenario))
            }
        }
        return arms
    }

    /// The arm `--baseline-policy POLICY[KNOB=VALUE]` names, with its scenario; nil when
    /// `text` names a policy's point. A label of no arm is an error naming the arms.
    static func baselineArm(_ request: FrontierRequest, _ text: String) throws -> FrontierArm? {
        guard text.contains("[") || text.contains("]") else { return nil }
        guard let (policy, knob, value) = request.baselineArm, !policy.isEmpty, !value.isEmpty else {
            throw FrontierError.badBaselineArm(
                text, reason: "expected a policy run, or one arm of a policy's knob as POLICY[KNOB=VALUE]")
        }
        guard request.policies.contains(policy), let entry = PolicyRegistry.named(policy) else {
            throw FrontierError.badBaselineArm(
                text,
                reason: "policy '\(policy)' is not among the policies run (\(request.policies.joined(separator: ", ")))"
            )
        }
        guard let (field, values) = values(entry, request) else {
            throw FrontierError.badBaselineArm(
                text, reason: "policy '\(policy)' has no aggressiveness knob, so no arms")
        }
        let labels = values.map { label(policy: policy, knob: field, value: $0) }
        guard knob == field, values.contains(value) else {
            throw FrontierError.badBaselineArm(
                text, reason: "no such arm; \(policy)'s arms are \(labels.joined(separator: ", "))")
        }
        let scenario: Scenario
        do {
            scenario = try ScenarioLoader.load(
                json: request.scenario.resolvedJSON, file: request.scenario.file ?? "(built-in default)",
                overrides: ["policies.\(policy).\(knob)=\(value)"]
            ).scenario
        } catch let error as ScenarioError {
            let reason = error.problems.first.map { $0.message } ?? "\(error)"
            throw FrontierError.badKnobValue(policy: policy, value: value, reason: reason)
        }
        return FrontierArm(
            label: label(policy: policy, knob: knob, value: value), policy: policy, knob: knob, value: value,
            scenario: scenario)
    }

    /// Runs every arm side by side, seed by seed.
    public static func run(_ request: FrontierRequest, progress: (@Sendable (Int) -> Void)? = nil) throws
        -> FrontierReport
    {
        let arms = try Self.arms(request)
        let start = DispatchTime.now()
        var options = request.options
        options.threads = request.options.resolvedThreads
        let runRequest = RunRequest(
            scenario: request.scenario, policies: arms.map(\.label), options: options,
            commandLine: request.commandLine, baselinePolicy: arms[0].label,
            replications: request.replications)
        let entries = try arms.map { arm in
            guard let entry = PolicyRegistry.named(arm.policy) else { throw RunError.unknownPolicy(arm.policy) }
            return FleetArm(policy: entry, scenario: arm.scenario)
        }
        var results: [PolicyResult] = []
        var joint: [JointSums] = []
        let scenario = request.scenario.scenario
        for seed in runRequest.seeds {
            options.seed = seed
            let feed =
                scenario.content.kind.sharesFeed
                ? NewsFeed(content: scenario.content, days: options.days, seed: seed)
                : NewsFeed(times: [])
            let run = try Fleet.simulate(
                arms: entries, baseline: 0, joint: request.jointQuantities, options: options, feed: feed,
                progress: progress)
            for (i, arm) in arms.enumerated() {
                results.append(
                    PolicyResult(
                        policy: arm.label, seed: seed, result: run.results[i], wallSeconds: run.busySeconds[i],
                        workers: run.workers, paired: run.paired?[i] ?? nil))
            }
            joint.append(run.joint ?? JointSums(arms: arms.count, quantities: request.jointQuantities))
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        let report = RunReport(
            request: runRequest, results: results, wallSeconds: seconds,
            threads: results.map(\.workers).max() ?? 0)
        return FrontierReport(request: request, arms: arms, run: report, jointSums: joint)
    }
}
