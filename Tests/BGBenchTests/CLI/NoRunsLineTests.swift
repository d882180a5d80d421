import Foundation
import Testing
@testable import BGBench
@testable import BGBenchCLI
import BGBenchTestSupport

/// Under a run's table, a line when the policies that wake made no run and the scenario
/// says why, naming the setting that would admit runs (issue 24 item 4).
@Suite struct NoRunsLineTests {
    func output(_ arguments: [String]) -> String {
        let out = freshPath("no-runs")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = bgbench(
            ["--policy", "fixed,adaptive,none", "--devices", "20", "--days", "2", "--out", out] + arguments)
        #expect(result.code == 0, "\(result.errors)")
        return result.output
    }

    @Test func iosFetchWithoutAnIntervalSaysWhichSetting() {
        let lines = output(["--set", "platform.name=ios-fetch"]).split(separator: "\n")
        #expect(
            lines.contains(
                "no runs for fixed, adaptive: platform.ios_fetch.minimum_interval is \"never\" (UIKit's default): the system never wakes the app; set it, e.g. --set platform.ios_fetch.minimum_interval=15m (docs/platforms.md)"
            ))
        #expect(
            !output(["--set", "platform.name=ios-fetch", "--set", "platform.ios_fetch.minimum_interval=15m"])
                .contains("no runs for"))
    }

    @Test func everyUserWithRefreshOffSaysSo() {
        #expect(
            output(["--set", "population.bar_off_share=1"]).split(separator: "\n").contains(
                "no runs for fixed, adaptive: population.bar_off_share is 1: every user turned Background App Refresh off; lower it"
            ))
        #expect(!output([]).contains("no runs for"))
    }
}
