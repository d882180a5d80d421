import BGBench
import Foundation

/// Compares two report folders of one configuration (Reports/README.md): the statistics of
/// `bgbench check`, and its exact mode.
public enum RunComparison {
    // MARK: Which runs may be compared

    /// Why two folders are not two runs of one configuration, as "field baseline vs
    /// current" phrases; empty when they are. `exact` also needs the same seed.
    public static func mismatches(_ b: ReportFolder, _ c: ReportFolder, exact: Bool) -> [String] {
        mismatches(
            b, c, [.schema, .scenario, .policies, .opensTrace, .devices, .days, .warmupDays] + (exact ? [.seed] : []))
    }

    /// The resolved scenarios' difference: the parameters that differ, by JSON path with
    /// both values (issue 12 point 7); the hashes only when the parameters cannot be read
    /// or are the same; nil for the same scenario.
    static func scenarioMismatch(_ b: ReportFolder, _ c: ReportFolder) -> String? {
        guard b.resolvedScenarioSha256 != c.resolvedScenarioSha256 else { return nil }
        let parameters = configurationDifferences(b, c)
        return parameters.isEmpty
            ? "resolved_scenario_sha256 \(b.resolvedScenarioSha256.prefix(12)) vs \(c.resolvedScenarioSha256.prefix(12))"
            : "configurations differ: " + describe(parameters)
    }

    /// What a comparison needs two folders to share (run.json's fields).
    enum MatchedField {
        case schema, scenario, seed, policies, opensTrace, devices, days, warmupDays
    }

    /// The fields, in the order given, in which the folders differ, each as "field baseline
    /// vs current" (``mismatches(_:_:exact:)`` and `--ab`'s ``abMismatches(_:_:)``).
    static func mismatches(_ b: ReportFolder, _ c: ReportFolder, _ fields: [MatchedField]) -> [String] {
        func shown(_ sha: String?) -> String { sha.map { String($0.prefix(12)) } ?? "(none)" }
        return fields.compactMap { field in
            switch field {
            case .schema:
                b.schemaVersion == c.schemaVersion ? nil : "schema_version \(b.schemaVersion) vs \(c.schemaVersion)"
            case .scenario: scenarioMismatch(b, c)
            case .seed: b.seed == c.seed ? nil : "seed \(b.seed) vs \(c.seed)"
            case .policies:
                b.policies == c.policies
                    ? nil
                    : "policies \(b.policies.joined(separator: ",")) vs \(c.policies.joined(separator: ","))"
            case .opensTrace:
                b.opensTraceSha256 == c.opensTraceSha256
                    ? nil
                    : "opens_trace sha256 \(shown(b.opensTraceSha256)) vs \(shown(c.opensTraceSha256))"
            case .devices: b.devices == c.devices ? nil : "devices \(b.devices) vs \(c.devices)"
            case .days: b.days == c.days ? nil : "days \(b.days) vs \(c.days)"
            case .warmupDays: b.warmupDays == c.warmupDays ? nil : "warmup_days \(b.warmupDays) vs \(c.warmupDays)"
            }
        }
    }

    /// At most this many differing parameters are named in a message; the rest are counted.
    public static let shownDifferences = 20

    /// "policies.adaptive.habit_lift 2 vs 4, population.bar_off_share 0.15 vs 0.3" (and
    /// "and N more" past ``shownDifferences``).
    public static func describe(_ differences: [(path: String, baseline: String, current: String)]) -> String {
        var text = differences.prefix(shownDifferences).map { "\($0.path) \($0.baseline) vs \($0.current)" }.joined(
            separator: ", ")
        if differences.count > shownDifferences { text += " and \(differences.count - shownDifferences) more" }
        return text
    }

    /// Every parameter in which the two runs' resolved scenarios differ: a JSON path (as
    /// `--set` takes it) and both values as JSON text, "(none)" where one scenario lacks
    /// the parameter, in path order. The resolved scenario is the folder's scenario.json
    /// (what `resolved_scenario_sha256` hashes); a folder without one, or one that does
    /// not parse, is compared by run.json's `scenario` object. Empty when neither can be read.
    /// Sweep folders: their axes (`sweep.axes...`) when those differ, else every point's
    /// scenario-K.json compared in turn (paths prefixed by the file's name).
    public static func configurationDifferences(_ b: ReportFolder, _ c: ReportFolder) -> [(
        path: String, baseline: String, current: String
    )] {
        if b.isSweep || c.isSweep {
            var out: [(path: String, baseline: String, current: String)] = []
            let axes = { (f: ReportFolder) in f.runJSON.object?["sweep"]?.object?["axes"] }
            leafDifferences(axes(b), axes(c), path: "sweep.axes", into: &out)
            guard out.isEmpty else { return out }
            for name in b.manifestFiles where name.hasPrefix("scenario-") && name.hasSuffix(".json") {
                guard let x = try? JSONParser.parse(ReportFolder.read(b.file(name))).root,
                    let y = try? JSONParser.parse(ReportFolder.read(c.file(name))).root
                else { continue }
                var found: [(path: String, baseline: String, current: String)] = []
                leafDifferences(x, y, path: "", into: &found)
                out += found.map { (name + ": " + $0.path, $0.baseline, $0.current) }
            }
            return out
        }
        func resolved(_ folder: ReportFolder) -> JSONValue? {
            if folder.has("scenario.json"), let text = try? ReportFolder.read(folder.file("scenario.json")),
                let document = try? JSONParser.parse(text)
            {
                return document.root
            }
            return folder.runJSON.object?["scenario"]
        }
        let bothHaveFiles = b.has("scenario.json") && c.has("scenario.json")
        guard let x = bothHaveFiles ? resolved(b) : b.runJSON.object?["scenario"],
            let y = bothHaveFiles ? resolved(c) : c.runJSON.object?["scenario"]
        else { return [] }
        var out: [(path: String, baseline: String, current: String)] = []
        leafDifferences(x, y, path: "", into: &out)
        return out
    }

    /// Depth first, object keys sorted; a subtree only one side has is listed leaf by leaf
    /// with "(none)" on the other side; arrays of different lengths compare as whole values.
    static func leafDifferences(
        _ a: JSONValue?, _ b: JSONValue?, path: String,
        into out: inout [(path: String, baseline: String, current: String)]
    ) {
        switch (a, b) {
        case (.object(let x)?, .object(let y)?):
            for key in Set(x.keys).union(y.keys).sorted() {
                leafDifferences(x[key], y[key], path: JSONPathText.key(path, key), into: &out)
            }
        case (.object(let x)?, nil):
            for key in x.keys.sorted() { leafDifferences(x[key], nil, path: JSONPathText.key(path, key), into: &out) }
        case (nil, .object(let y)?):
            for key in y.keys.sorted() { leafDifferences(nil, y[key], path: JSONPathText.key(path, key), into: &out) }
        case (.array(let x)?, .array(let y)?) where x.count == y.count:
            for i in x.indices { leafDifferences(x[i], y[i], path: JSONPathText.index(path, i), into: &out) }
        default:
            if a != b { out.append((path.isEmpty ? "(root)" : path, a?.text ?? "(none)", b?.text ?? "(none)")) }
        }
    }

    /// The test `compare` applies: paired when both runs have the same seed (then they met
    /// the same users and the same feed, device by device), Welch otherwise.
    public static func pairs(_ b: ReportFolder, _ c: ReportFolder) -> Bool { b.seed == c.seed }
}
