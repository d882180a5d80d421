import BGBench
import Foundation
import Testing

// A policy with parameters from outside (issue 10): the researcher's package declares them
// in the policy's own file and registers the policy; nothing in bgbench is edited. The
// registration alone makes `policies.every-period.*` known to the loader, the validator,
// overrides (`--set`) and the resolved scenario of a run that uses the policy.

/// The policy's parameters: a duration and a probability, each with its range.
struct EveryPeriodParameters: ParameterSet {
    /// Ask this long after the last run (test value; the default is arbitrary).
    var period = TimeSpan.hours(1)
    /// Chance to let a period pass without asking (0: never skip).
    var skipProbability = 0.25

    init() {}

    static var fields: [ParameterField<Self>] {
        [
            .duration(
                \.period, "period", in: .minutes(5)...(.hours(12)), "ask this long after the last run; test policy"),
            .number(
                \.skipProbability, "skip_probability", "probability", in: 0...1,
                "chance to let a period pass without asking; test policy"),
        ]
    }

    static var knob: AggressivenessKnob? {
        AggressivenessKnob("period", moreAggressive: .lower, sweep: ["30m", "1h", "2h"])
    }
}

/// Asks every `period` from midnight (00:00 + k · period), skipping a period with
/// `skip_probability`. On `unrestricted` without a cap nothing is refused: with no skips,
/// 24 h / period runs a day, exactly.
struct EveryPeriodPolicy: WakePolicy {
    typealias Parameters = EveryPeriodParameters
    static let name = "every-period"
    static let summary = "test: ask every `period`, skipping some"

    let period: SimTime
    let skip: Double
    var random: RandomStream

    init(_ context: PolicyContext) {
        let p = context.scenario.policies[EveryPeriodPolicy.self]
        period = p.period.ticks
        skip = p.skipProbability
        random = context.random
    }

    mutating func next(after t: SimTime) -> WakeDecision {
        var at = t - t % period + period
        while skip > 0 && random.uniform() < skip { at += period }
        return .request(at: at)
    }

    mutating func start(_ view: DeviceView) -> WakeDecision { next(after: view.now) }
    mutating func runStarted(_ view: DeviceView) -> WakeDecision { next(after: view.now) }
    mutating func denied(_ reason: DenialReason, retryAt: SimTime?, _ view: DeviceView) -> WakeDecision {
        next(after: retryAt ?? view.now)
    }
}

@Suite struct PolicyParametersTests {
    static let registered: Bool = {
        PolicyRegistry.register(EveryPeriodPolicy.self)
        return true
    }()

    static func temporaryFile(_ name: String, _ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("bgbench-params-\(ProcessInfo.processInfo.processIdentifier)-\(name)").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The problems' lines of a load that must fail.
    static func errors(_ load: () throws -> LoadedScenario) -> [String] {
        do {
            _ = try load()
            return []
        } catch let error as ScenarioError {
            return error.problems.map(\.description)
        } catch {
            return ["\(error)"]
        }
    }

    @Test func parametersLoadFromAFileAndFromOverrides() throws {
        #expect(Self.registered)
        #expect(PolicyRegistry.named(EveryPeriodPolicy.name)?.parameters == EveryPeriodParameters.self)
        let file = try Self.temporaryFile(
            "ok.json",
            """
            {
              "policies": {"every-period": {"period": "2h", "skip_probability": 0}}
            }
            """)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let loaded = try ScenarioLoader.load(file: file)
        #expect(loaded.scenario.policies[EveryPeriodPolicy.self].period == .hours(2))
        #expect(loaded.scenario.policies[EveryPeriodPolicy.self].skipProbability == 0)

        // `--set` overrides over the file, and over the built-in defaults.
        let overridden = try ScenarioLoader.load(file: file, overrides: ["policies.every-period.period=3h"])
        #expect(overridden.scenario.policies[EveryPeriodPolicy.self].period == .hours(3))
        #expect(overridden.scenario.policies[EveryPeriodPolicy.self].skipProbability == 0)
        let fromDefaults = try ScenarioLoader.load(
            json: "{}", overrides: ["policies.every-period.skip_probability=0.5"])
        #expect(fromDefaults.scenario.policies[EveryPeriodPolicy.self].skipProbability == 0.5)
        #expect(fromDefaults.scenario.policies[EveryPeriodPolicy.self].period == EveryPeriodParameters().period)
        // The typed subscript writes them too.
        var scenario = Scenario()
        scenario.policies[EveryPeriodPolicy.self].period = .minutes(30)
        #expect(scenario.policies[EveryPeriodPolicy.self].period == .minutes(30))
        #expect(scenario != Scenario())
    }

    @Test func outOfRangeValuesGetTheLoadersErrors() throws {
        #expect(Self.registered)
        let text = """
            {
              "policies": {
                "every-period": {"period": "1m", "skip_probability": 0}
              }
            }
            """
        let file = try Self.temporaryFile("bad.json", text)
        defer { try? FileManager.default.removeItem(atPath: file) }
        // The value's position: line 3, the column of "1m".
        let line = text.split(separator: "\n", omittingEmptySubsequences: false)[2]
        let column = line.distance(from: line.startIndex, to: try #require(line.range(of: "\"1m\"")).lowerBound) + 1
        #expect(
            Self.errors { try ScenarioLoader.load(file: file) } == [
                "error: \(file):3:\(column): policies.every-period.period: 1m is out of range: expected a duration from 5m to 12h"
            ])
        #expect(
            Self.errors { try ScenarioLoader.load(json: "{}", overrides: ["policies.every-period.skip_probability=2"]) }
                == [
                    "error: --set policies.every-period.skip_probability: 2 is out of range: expected a number from 0 to 1"
                ])
        #expect(
            Self.errors { try ScenarioLoader.load(json: "{}", overrides: ["policies.every-period.perod=2h"]) } == [
                "error: --set policies.every-period.perod: unknown key (did you mean 'period'?)"
            ])
        #expect(
            Self.errors { try ScenarioLoader.load(json: "{}", overrides: ["policies.every-period.period=often"]) } == [
                "error: --set policies.every-period.period: expected a duration such as 90, \"90s\", \"15m\", \"2h\" or \"1d\""
            ])
    }

    @Test func aRunUsesTheParametersAndItsResolvedScenarioHoldsThem() throws {
        #expect(Self.registered)
        let loaded = try ScenarioLoader.load(
            json: "{}",
            overrides: [
                "platform.name=unrestricted", "policies.every-period.period=2h",
                "policies.every-period.skip_probability=0",
            ])
        let days = 7, devices = 32
        let request = RunRequest(
            scenario: loaded, policies: ["none", EveryPeriodPolicy.name],
            options: RunOptions(devices: devices, days: days, seed: 5, threads: 2))
        let report = try Runner.run(request)
        // Every 2 h from midnight, nothing refused: at 2 h, 4 h, ... before the horizon,
        // 12 a day less the one due at the horizon.
        let tally = try #require(report.results.last).tally
        #expect(tally[.runs] == Double((12 * days - 1) * devices))

        let out = FileManager.default.temporaryDirectory
            .appendingPathComponent("bgbench-params-run-\(ProcessInfo.processInfo.processIdentifier)").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        try ReportWriter.write(report, to: out)
        let scenarioJSON = try String(contentsOfFile: out + "/scenario.json", encoding: .utf8)
        #expect(scenarioJSON == loaded.resolvedJSON(policies: ["none", EveryPeriodPolicy.name]))
        let root = try #require(JSONSerialization.jsonObject(with: Data(scenarioJSON.utf8)) as? [String: Any])
        let mine = try #require((root["policies"] as? [String: Any])?[EveryPeriodPolicy.name] as? [String: Any])
        #expect(mine["period"] as? String == "2h")
        #expect((mine["skip_probability"] as? NSNumber)?.doubleValue == 0)
        #expect((root["policies"] as? [String: Any])?.count == 1, "only the run's policies")
        // scenario.json loads back to the scenario that ran.
        #expect(try ScenarioLoader.load(file: out + "/scenario.json").scenario == loaded.scenario)
        let run = try String(contentsOfFile: out + "/run.json", encoding: .utf8)
        #expect(
            run.contains(
                "\"resolved_scenario_sha256\" : \"\(loaded.resolvedSha256(policies: ["none", EveryPeriodPolicy.name]))\""
            ))

        // A run of other policies: none of its parameters, and the same resolved scenario
        // whatever they are set to.
        let other = loaded.resolvedJSON(policies: ["fixed"])
        #expect(!other.contains(EveryPeriodPolicy.name))
        let defaults = try ScenarioLoader.load(json: "{}", overrides: ["platform.name=unrestricted"])
        #expect(defaults.resolvedSha256(policies: ["fixed"]) == loaded.resolvedSha256(policies: ["fixed"]))
        #expect(
            defaults.resolvedSha256(policies: [EveryPeriodPolicy.name])
                != loaded.resolvedSha256(policies: [EveryPeriodPolicy.name]))
        // Every registered policy's parameters are in the complete form (default.json's).
        #expect(loaded.resolvedJSON.contains("\"\(EveryPeriodPolicy.name)\" : {"))
    }
}
