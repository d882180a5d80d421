import BGBench
import BGHarness
import Foundation

// Registered before anything loads a scenario: registration makes `policies.aligned.*`
// known to the loader.
PolicyRegistry.register(AlignedPolicy.self)

// A frontier (the harness's `bgbench frontier`) of `aligned` against `fixed` on the default
// scenario: each policy at every value of its knob, on the same users and feed, read at
// matched energy. Small, so that a debug build runs it in seconds.
let request = FrontierRequest(
    scenario: ScenarioLoader.builtInDefault(),
    policies: [FixedPolicy.name, AlignedPolicy.name],
    knobValues: [FixedPolicy.name: ["15m", "1h", "4h"]],
    options: RunOptions(devices: 100, days: 14, seed: 1))
let report = try Frontier.run(request)
print("arms: \(report.arms.map(\.label).joined(separator: ", "))")

// The headline figure: aligned's fresh-open rate on its curve at fixed's own J/day, minus
// fixed's, with the paired 95 % interval (a row of frontier-matched.csv).
func points(_ x: Double?) -> String { x.map { String(format: "%+.2f", 100 * $0) } ?? "n/a" }
for m in report.matched(seed: 0) where m.policy == AlignedPolicy.name && m.measure == .atBaselineEnergy {
    let d = m.difference, energy = m.energy.map { String(format: "%.1f", $0) } ?? "n/a"
    print(
        "aligned vs fixed at \(energy) J/day: fresh-open rate \(points(d?.value)) points "
            + "[\(points(d?.low)), \(points(d?.high))] (\(m.status))")
}

// The frontier's report folder, as `bgbench frontier --out` writes it.
if CommandLine.arguments.count > 1 {
    let out = CommandLine.arguments[1]
    try ReportWriter.writeFolder(out, files: FrontierFiles.files(report))
    print("reports: \(out)")
}
