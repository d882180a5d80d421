import Foundation
import Testing
@testable import BGBench

// Each component declares its parameters (ParameterSet, issue 10): the declarations drive
// validation, the generated docs and default.json, and a run's resolved scenario holds
// the parameters of the components it uses only.

private let checkout = TestSupport.packageRoot

@Suite struct ParameterTests {
    /// Every parameter set bgbench registers, by JSON path.
    static var sets: [(path: String, type: any ParameterSet.Type)] {
        var sets: [(path: String, type: any ParameterSet.Type)] = Scenario().coreSections.map {
            ($0.key, type(of: $0.value))
        }
        sets.append(("population.archetypes.<name>", Archetype.self))
        sets.append(("population.routine", Routine.self))
        sets.append(("population.routine.opens[i]", Routine.Entry.self))
        sets.append(("population.utc_offsets[i]", UTCOffsetShare.self))
        sets += PolicyRegistry.builtIn.compactMap { entry in entry.parameters.map { ("policies." + entry.name, $0) } }
        sets += PlatformModel.entries.map { ("platform." + $0.key, $0.type) }
        sets.append(("content.sync", SyncContentParameters.self))
        sets.append(("content.catalog", CatalogParameters.self))
        sets.append(("content.messages", MessagesParameters.self))
        sets.append(("app.processing", ProcessingTaskParameters.self))
        sets.append(("policies.histogram.routine_change", RoutineChangeParameters.self))
        return sets
    }

    /// A field the JSON has but no declaration names (or the reverse) would be neither
    /// range-checked nor documented.
    @Test func everyEncodedParameterIsDeclared() {
        for (path, type) in Self.sets {
            let (undeclared, unknown) = ParameterDocs.undeclaredKeys(type)
            #expect(undeclared.isEmpty, "\(path): undeclared \(undeclared)")
            #expect(unknown.isEmpty, "\(path): declared but not in the JSON \(unknown)")
        }
    }

    @Test func everyBuiltInPolicyWithParametersDeclaresAKnobOnAField() {
        for entry in PolicyRegistry.builtIn {
            // An external policy's knob is its program's, declared in the handshake (docs/protocol.md).
            guard let type = entry.parameters, entry.name != "oracle", !ExternalPolicies.names.contains(entry.name)
            else { continue }
            guard let knob = type.knob else {
                Issue.record("\(entry.name) has no aggressiveness knob")
                continue
            }
            do {
                #expect(ParameterDocs.undeclaredKeys(type).undeclared.isEmpty)
                func fieldNames<T: ParameterSet>(_: T.Type) -> [String] { T.fields.map(\.name) }
                #expect(fieldNames(type).contains(knob.field), "\(entry.name): knob \(knob.field) is not a field")
                #expect(knob.sweep.count >= 2)
                // Each sweep value loads as an override.
                for value in knob.sweep {
                    #expect(throws: Never.self) {
                        try ScenarioLoader.load(
                            json: "{}", overrides: ["policies.\(entry.name).\(knob.field)=\(value)"])
                    }
                }
            }
        }
    }

    /// The generated tables of docs/scenario.md are what the declarations produce now
    /// (regenerate with docs/make-parameter-docs.sh).
    @Test func scenarioDocsParameterTablesAreNotStale() throws {
        let text = try String(contentsOf: checkout.appendingPathComponent("docs/scenario.md"), encoding: .utf8)
        for section in ParameterDocs.sections {
            let begin = try #require(
                text.range(of: ParameterDocs.beginMarker(section) + "\n"), "no block for \(section)")
            let end = try #require(
                text.range(of: ParameterDocs.endMarker(section), range: begin.upperBound..<text.endIndex))
            // The built-in policies' (other tests of this process register their own).
            #expect(
                String(text[begin.upperBound..<end.lowerBound])
                    == ParameterDocs.markdown(section: section, policies: PolicyRegistry.builtIn),
                "docs/scenario.md's \(section) table is stale: run docs/make-parameter-docs.sh")
        }
        // Every declared parameter has its row.
        for (path, type) in Self.sets where !path.hasSuffix("routine_change") && path != "population.routine" {
            func names<T: ParameterSet>(_: T.Type) -> [String] {
                T.fields.filter { $0.nested == nil || !$0.nestedPath.isEmpty }.map(\.name)
            }
            for name in names(type) { #expect(text.contains("| `\(path).\(name)` |"), "no row for \(path).\(name)") }
        }
    }

    /// default.json is what the registry produces now (regenerate with
    /// docs/make-parameter-docs.sh).
    @Test func defaultScenarioFileIsNotStale() throws {
        let text = try String(
            contentsOf: checkout.appendingPathComponent("Datasets/scenarios/default.json"), encoding: .utf8)
        // The built-in policies' (other tests of this process register their own).
        #expect(
            text == ScenarioLoader.completeJSON(Scenario(), policies: PolicyRegistry.builtIn.map(\.name)),
            "default.json is stale: run docs/make-parameter-docs.sh")
    }

    /// Ranges come from the declarations, with the loader's messages.
    @Test func declaredRangesAreChecked() {
        var s = Scenario()
        s.policies[AdaptivePolicy.self].minInterval = .hours(2)
        s.policies[AdaptivePolicy.self].maxInterval = .hours(1)
        s.policies[NHPPPolicy.self].routineChange.minDays = 0
        s.platform[AndroidWorkManager.self].quotaWindows = [.hours(1)]
        s.content.sync.targetAge = .days(400)
        s.app.processing.work = .seconds(0)
        s.user.sleepMax = .hours(6)
        s.population.archetypes["heavy"]?.weekdayWeights = [1]
        let problems = s.validate().map { "\($0.path): \($0.message)" }
        #expect(
            problems.contains("policies.adaptive.max_interval: 1h is out of range: expected a duration from 2h to 7d"))
        #expect(
            problems.contains(
                "policies.nhpp.routine_change.min_days: 0 is out of range: expected an integer from 1 to 30"))
        #expect(
            problems.contains(
                "platform.android_workmanager.quota_windows: expected 5 durations (active, working_set, frequent, rare, restricted), got 1"
            ))
        #expect(problems.contains("content.sync.target_age: 400d is out of range: expected a duration from 0s to 365d"))
        #expect(problems.contains("app.processing.work: 0s is out of range: expected a duration from 1s to 1d"))
        #expect(problems.contains("user.sleep_max: 6h is out of range: expected a duration from 7h to 20h"))
        #expect(problems.contains("population.archetypes.heavy.weekday_weights: expected 24 weights, got 1"))
        #expect(problems.count == 7, "\(problems)")
    }

    @Test func typedSubscriptsReadAndWrite() {
        var s = Scenario()
        #expect(s.policies[AdaptivePolicy.self] == AdaptiveParameters())
        s.policies[AdaptivePolicy.self].habitLift = 4
        #expect(s.policies[AdaptivePolicy.self].habitLift == 4)
        #expect(s != Scenario())
        s.policies[AdaptivePolicy.self].habitLift = AdaptiveParameters().habitLift
        #expect(s == Scenario(), "a set equal to its defaults is the default")
        s.platform[IOSBGTask.self].budgetCap = 4
        let loaded = try? ScenarioLoader.load(json: ScenarioLoader.resolvedJSON(s))
        #expect(loaded?.scenario.platform[IOSBGTask.self].budgetCap == 4)
    }

    /// A run's resolved scenario holds its policies', platform's and content kind's
    /// parameters only, and loads back.
    @Test func aRunsResolvedScenarioHoldsTheComponentsItUses() throws {
        func object(_ json: String) throws -> [String: Any] {
            try #require(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        }
        func keys(_ root: [String: Any], _ section: String) -> Set<String> {
            Set((root[section] as? [String: Any])?.keys.map { $0 } ?? [])
        }
        let defaults = try object(ScenarioLoader.resolvedJSON(Scenario(), policies: ["fixed", "none", "adaptive"]))
        #expect(keys(defaults, "policies") == ["fixed", "adaptive"])
        #expect(keys(defaults, "platform") == ["name", "ios_bgtask"])
        #expect(!keys(defaults, "content").contains("sync") && !keys(defaults, "content").contains("catalog"))
        #expect(keys(defaults, "content").contains("items_per_day"))
        #expect(!keys(defaults, "app").contains("processing"))

        var s = Scenario()
        s.platform.name = IOSFetch.name
        s.content.kind = .catalog
        s.app.processing.enabled = true
        s.policies[NHPPPolicy.self].ridge = 0.5
        let json = ScenarioLoader.resolvedJSON(s, policies: ["nhpp"])
        let root = try object(json)
        #expect(keys(root, "policies") == ["nhpp"])
        #expect(
            keys(root, "platform") == ["name", "ios_fetch", "ios_bgtask"], "ios-fetch reads ios_bgtask's parameters")
        #expect(keys(root, "content").contains("catalog") && !keys(root, "content").contains("messages"))
        #expect(keys(root, "app").contains("processing"))
        #expect(try ScenarioLoader.load(json: json).scenario == s)

        var legacy = Scenario()
        legacy.population.legacyIosShare = 0.1
        #expect(
            keys(try object(ScenarioLoader.resolvedJSON(legacy, policies: [])), "platform") == [
                "name", "ios_bgtask", "ios_fetch",
            ])
        // Every parameter of every component: the complete form.
        let complete = try object(ScenarioLoader.resolvedJSON(Scenario()))
        #expect(
            keys(complete, "policies").isSuperset(
                of: PolicyRegistry.builtIn.filter { $0.parameters != nil }.map(\.name)))
        #expect(keys(complete, "platform") == Set(["name"] + PlatformModel.entries.map(\.key)))
        // Unchanged parameters of policies a run does not use do not reach its hash.
        var other = Scenario()
        other.policies[KDEPolicy.self].minFresh = 0.5
        let a = LoadedScenario(scenario: Scenario(), file: nil, sha256: "", resolvedJSON: "")
        let b = LoadedScenario(scenario: other, file: nil, sha256: "", resolvedJSON: "")
        #expect(a.resolvedSha256(policies: ["fixed"]) == b.resolvedSha256(policies: ["fixed"]))
        #expect(a.resolvedSha256(policies: ["kde"]) != b.resolvedSha256(policies: ["kde"]))
    }
}
