import Foundation

/// Compares two report folders of one configuration (Reports/README.md): the statistics of
/// `bgbench check`, and its exact mode.
public enum RunComparison {
    // MARK: Which runs may be compared

    /// Why two folders are not two runs of one configuration, as "field baseline vs
    /// current" phrases; empty when they are. `exact` also needs the same seed.
    public static func mismatches(_ b: ReportFolder, _ c: ReportFolder, exact: Bool) -> [String] {
        var out: [String] = []
        if b.schemaVersion != c.schemaVersion { out.append("schema_version \(b.schemaVersion) vs \(c.schemaVersion)") }
        if b.resolvedScenarioSha256 != c.resolvedScenarioSha256 {
            out.append("resolved_scenario_sha256 \(b.resolvedScenarioSha256.prefix(12)) vs \(c.resolvedScenarioSha256.prefix(12))")
        }
        if b.policies != c.policies {
            out.append("policies \(b.policies.joined(separator: ",")) vs \(c.policies.joined(separator: ","))")
        }
        if b.opensTraceSha256 != c.opensTraceSha256 {
            func shown(_ sha: String?) -> String { sha.map { String($0.prefix(12)) } ?? "(none)" }
            out.append("opens_trace sha256 \(shown(b.opensTraceSha256)) vs \(shown(c.opensTraceSha256))")
        }
        if b.devices != c.devices { out.append("devices \(b.devices) vs \(c.devices)") }
        if b.days != c.days { out.append("days \(b.days) vs \(c.days)") }
        if b.warmupDays != c.warmupDays { out.append("warmup_days \(b.warmupDays) vs \(c.warmupDays)") }
        if exact && b.seed != c.seed { out.append("seed \(b.seed) vs \(c.seed)") }
        return out
    }

    /// The test `compare` applies: paired when both runs have the same seed (then they met
    /// the same users and the same feed, device by device), Welch otherwise.
    public static func pairs(_ b: ReportFolder, _ c: ReportFolder) -> Bool { b.seed == c.seed }
}
