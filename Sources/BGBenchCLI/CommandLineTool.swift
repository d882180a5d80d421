import BGBench
import Foundation

/// The command line front-end: turns arguments into a run and an exit code.
public enum CommandLineTool {
    public static func main(arguments: [String]) -> Int32 {
        var s = Scenario()
        if arguments.first == "r1" {
            s.population.archetypes = ["r1": Archetype(weight: 1, medianOpensPerDay: 8, weekdayWeights: newsOpenWeights, weekendShift: .seconds(0), weekendLevel: 1)]
            s.population.chronotypeSd = .seconds(0)
            s.population.barOffShare = 0
            s.user.sleepEnabled = false; s.user.nightChecksPerNight = 0; s.user.pReopen = 0
            s.user.sessionBodyMean = .seconds(0); s.user.sessionTailShare = 0; s.user.forceQuitProbability = 0
            s.device.batteryEnabled = false
            s.network.homeWifiShare = 1; s.network.workWifiShare = 0; s.network.nr5gShare = 0; s.network.offlineSpellsPerDay = 0
            s.app.task = .lognormal; s.app.handlesExpiration = false
            s.platform.name = "unrestricted"; s.platform.unrestricted.dailyCap = 12
            s.policies.fixed.interval = .minutes(30)
        }
        let policy = PolicyRegistry.named(arguments.count > 1 ? arguments[1] : "fixed")!
        let days = 365, devices = arguments.count > 2 ? Int(arguments[2])! : 2000
        let feed = NewsFeed(content: s.content, days: days, seed: 1)
        let start = Date()
        let t = try! Fleet.run(scenario: s, policy: policy, options: RunOptions(devices: devices, days: days, seed: 1, threads: 2), feed: feed)
        let wall = Date().timeIntervalSince(start)
        let dd = Double(devices * days)
        print("dd/s", Int(dd / wall), "events/s", Int(t[.events] / wall), "events/dd", t[.events] / dd)
        for q in Quantity.allCases { print(q, t[q] / dd) }
        print("fresh", t[.freshOpens] / t[.opens], "median", t.staleness.quantile(0.5) ?? -1, "p95", t.staleness.quantile(0.95) ?? -1)
        return 0
    }
}
