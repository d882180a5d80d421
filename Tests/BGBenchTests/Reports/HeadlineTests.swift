import Foundation
import Testing
@testable import BGBench
@testable import BGBenchCLI

/// Issue 12 point 4: each preset declares its headline metrics (`report.headline`), which
/// land in scenario.json and lead the terminal's paired table. (Bad names: ScenarioLoaderTests.)
@Suite struct HeadlineTests {
    static let checkout = TestSupport.packageRoot

    /// Every preset's headline, as the README's table gives it; each a metric of summary.csv.
    @Test func presetsDeclareTheirHeadline() throws {
        let standard = ["fresh_open_rate", "staleness_mean_s", "background_energy_j_per_day", "runs_per_day"]
        let expected: [String: [String]] = [
            "default": standard, "news": standard, "r1": standard,
            "fitness-sync": [
                "server_on_time_rate", "server_lag_mean_s", "background_energy_j_per_day", "fresh_open_rate",
            ],
            "ecommerce": [
                "fresh_open_rate", "cellular_image_bytes_per_day", "staleness_mean_s", "background_energy_j_per_day",
            ],
            "finance": [
                "processing_on_time_rate", "fresh_open_rate", "background_energy_j_per_day",
                "processing_energy_j_per_day",
            ],
            "messaging": ["fresh_open_rate", "push_runs_per_day", "push_lost_per_day", "background_energy_j_per_day"],
        ]
        let readme = try String(contentsOf: Self.checkout.appendingPathComponent("README.md"), encoding: .utf8)
        for (name, headline) in expected {
            let loaded = try ScenarioLoader.load(
                file: Self.checkout.appendingPathComponent("Datasets/scenarios/\(name).json").path)
            #expect(loaded.scenario.report.headline == headline, "\(name)")
            #expect(headline.allSatisfy { MetricTable.named($0) != nil })
            #expect(
                readme.contains(headline.prefix(2).map { "`\($0)`" }.joined(separator: ", ")),
                "README lacks \(name)'s headline")
        }
    }

    /// scenario.json carries the headline; the terminal's paired table leads with it
    /// (fitness-sync: the server's on-time rate and lag before fresh opens).
    @Test func headlineLeadsTheTerminalTable() throws {
        let loaded = try ScenarioLoader.load(
            file: Self.checkout.appendingPathComponent("Datasets/scenarios/fitness-sync.json").path)
        let report = try Runner.run(
            RunRequest(
                scenario: loaded, policies: ["fixed", "adaptive"],
                options: RunOptions(devices: 10, days: 2, seed: 1, threads: 2)))
        let json = try #require(
            try JSONSerialization.jsonObject(
                with: Data(report.request.scenario.resolvedJSON(policies: report.request.policies).utf8))
                as? [String: Any])
        #expect(
            (json["report"] as? [String: Any])?["headline"] as? [String]
                == ["server_on_time_rate", "server_lag_mean_s", "background_energy_j_per_day", "fresh_open_rate"])
        #expect(
            SummaryTable.pairedColumns(report)
                == [
                    "server_on_time_rate", "server_lag_mean_s", "background_energy_j_per_day", "fresh_open_rate",
                    "staleness_mean_s", "runs_per_day",
                ])
        let lines = SummaryTable.render(report).split(separator: "\n")
        let header = try #require(lines.firstIndex { $0.hasPrefix("paired difference from fixed") })
        let columns = lines[header + 1].split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        #expect(columns == "policy Δ on time pts Δ server lag s Δ J/d Δ fresh pts Δ stale s Δ runs/d")
    }
}
