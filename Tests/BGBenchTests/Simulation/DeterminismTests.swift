import Foundation
import Testing
@testable import BGBench

/// MODEL.md §2: the same scenario, policy and seed give byte-identical reports whatever the
/// thread count and however the fleet is split; a different seed gives different numbers.
@Suite struct DeterminismTests {
    static func report(seed: UInt64 = 5, threads: Int, devices: Int = 300, days: Int = 10) throws -> RunReport {
        let request = RunRequest(
            scenario: ScenarioLoader.builtInDefault(),
            policies: PolicyRegistry.builtIn.filter { !$0.needsInput }.map { $0.name },
            options: RunOptions(devices: devices, days: days, seed: seed, threads: threads),
            commandLine: ["bgbench", "--threads", String(threads)])
        return try Runner.run(request)
    }

    /// run.json as an object with its `execution` object (timing, threads, command line)
    /// removed, re-encoded with sorted keys.
    static func runJSONWithoutExecution(_ report: RunReport) throws -> String {
        let text = ReportWriter.runJSON(report)
        var object = try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["execution"] != nil)
        object["execution"] = nil
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    /// Threads 1 and 2: byte-identical summary.csv, identical run.json but for `execution`.
    @Test func threadCountDoesNotChangeReports() throws {
        let one = try Self.report(threads: 1)
        let two = try Self.report(threads: 2)
        #expect(ReportWriter.summaryCSV(one) == ReportWriter.summaryCSV(two))
        #expect(try Self.runJSONWithoutExecution(one) == Self.runJSONWithoutExecution(two))
        // The execution objects do differ (at least in threads), so the comparison above
        // really removed something that varies.
        #expect(ReportWriter.runJSON(one) != ReportWriter.runJSON(two))
        // Every policy row has the fleet size in it and real activity.
        let rows = ReportWriter.summaryCSV(one).split(separator: "\n")
        #expect(rows.filter { $0.contains(",all,") }.count == PolicyRegistry.builtIn.filter { !$0.needsInput }.count)
        #expect(SeriesReports.dailyCSV(one) == SeriesReports.dailyCSV(two))
        #expect(SeriesReports.hourlyCSV(one) == SeriesReports.hourlyCSV(two))
        #expect(one.results.allSatisfy { $0.tally.devices == 300 && $0.tally[.opens] > 0 })
    }

    /// The staleness histograms, not only the printed quantiles, are identical.
    /// `--threads` is resolved once (0: every core) and run.json records the workers the
    /// fleet runs started: one per block of 64 devices at most.
    @Test(arguments: [
        (threads: 8, devices: 100, workers: 2), (threads: 3, devices: 1000, workers: 3),
        (threads: 1, devices: 64, workers: 1), (threads: 0, devices: 65, workers: min(2, System.coreCount)),
    ])
    func runRecordsTheWorkersStarted(_ c: (threads: Int, devices: Int, workers: Int)) throws {
        let request = RunRequest(
            scenario: ScenarioLoader.builtInDefault(), policies: ["none", "fixed"],
            options: RunOptions(devices: c.devices, days: 1, threads: c.threads), replications: 2)
        let report = try Runner.run(request)
        #expect(report.threads == c.workers)
        #expect(report.results.count == 4 && report.results.allSatisfy { $0.workers == c.workers })
        let json = try #require(
            JSONSerialization.jsonObject(with: Data(ReportWriter.runJSON(report).utf8)) as? [String: Any])
        let execution = try #require(json["execution"] as? [String: Any])
        #expect(execution["threads"] as? Int == c.workers)
        #expect(Fleet.workers(threads: 200, blocks: 3) == 3, "no more workers than blocks")
        #expect(Fleet.workers(threads: 2, blocks: 0) == 1, "an empty shard still has a worker (its empty totals)")
    }

    @Test func histogramsMatchAcrossThreads() throws {
        let one = try Self.report(threads: 1, devices: 200)
        let two = try Self.report(threads: 2, devices: 200)
        for (a, b) in zip(one.results, two.results) {
            #expect(a.tally.staleness == b.tally.staleness)
            #expect(a.tally == b.tally)
        }
    }

    /// A different seed gives a different summary (different users and feed).
    @Test func seedChangesSummary() throws {
        let a = try Self.report(seed: 5, threads: 2, devices: 100)
        let b = try Self.report(seed: 6, threads: 2, devices: 100)
        let rowsA = ReportWriter.summaryCSV(a).split(separator: "\n")
        let rowsB = ReportWriter.summaryCSV(b).split(separator: "\n")
        #expect(rowsA[0] == rowsB[0], "same header")
        for (ra, rb) in zip(rowsA.dropFirst(), rowsB.dropFirst()) { #expect(ra != rb) }
        #expect(a.results[0].tally[.opens] != b.results[0].tally[.opens])
    }

    /// A fleet of 130 devices (two full blocks of 64 and a partial one) run as one equals,
    /// in every integer count and in the histogram, the sum of the devices simulated one
    /// by one; sums of doubles agree to rounding.
    @Test(arguments: [FixedPolicy.self as any WakePolicy.Type, AdaptivePolicy.self, OraclePolicy.self])
    func fleetEqualsDevicesOneByOne(policy: any WakePolicy.Type) throws {
        let scenario = ScenarioLoader.builtInDefault().scenario
        let options = RunOptions(devices: 130, days: 7, seed: 9, threads: 2)
        let feed = NewsFeed(content: scenario.content, days: options.days, seed: options.seed)
        let fleet = try Fleet.run(scenario: scenario, policy: policy, options: options, feed: feed)

        func oneByOne<P: WakePolicy>(_: P.Type) -> (FleetTally, [DeviceTally]) {
            var total = FleetTally()
            var devices: [DeviceTally] = []
            // In reverse order, each with a fresh queue: order and queue reuse must not matter.
            for i in (0..<options.devices).reversed() {
                let tally = TestSupport.simulate(
                    P.self, IOSBGTask.self, scenario: scenario, feed: feed,
                    days: options.days, seed: options.seed, index: i,
                    histogram: &total.staleness)
                devices.append(tally)
                total.add(tally)
            }
            return (total, devices)
        }
        let (summed, devices) = oneByOne(policy)
        #expect(summed.devices == fleet.devices)
        #expect(summed.staleness == fleet.staleness)
        let integers: [Quantity] =
            [
                .opens, .freshOpens, .foregroundFetches, .foregroundFailures, .requested, .replaced,
                .pending, .runs, .denied, .throttleEvents, .events,
            ]
            + DenialReason.allCases.map { .denied($0) } + RunStatus.allCases.map { .outcome($0) }
        for q in integers { #expect(summed[q] == fleet[q], "\(q)") }
        // Integer ticks summed over devices, then as seconds: exact.
        let staleness = devices.reduce(Int64(0)) { $0 + $1[ticks: .staleness] }
        #expect(abs(fleet[.staleness] - Clock.seconds(staleness)) <= 1e-9 * Clock.seconds(staleness))
        for q in [Quantity.backgroundEnergy, .foregroundEnergy, .cellularBytes, .wifiBytes, .age] {
            #expect(abs(summed[q] - fleet[q]) <= 1e-9 * max(1, abs(fleet[q])), "\(q)")
        }
        #expect(fleet[.runs] > 0)
    }
}
