import Foundation
import Testing
@testable import BGBench
import BGBenchTestSupport

/// A sweep simulates each distinct configuration once (issue 24 item 6): the points that
/// meet the same users run as one fleet pass, a policy a swept parameter does not configure
/// is one arm shared by every point, and every point's report files are byte-identical to
/// a run of that point alone.
@Suite struct SweepPlanTests {
    /// The points of a grid over `axes` (the last varying fastest), each a request.
    static func points(
        _ overrides: [[String]], policies: [String], devices: Int = 70, days: Int = 3, replications: Int = 1
    ) throws -> [RunRequest] {
        try overrides.map { o in
            RunRequest(
                scenario: try ScenarioLoader.load(
                    json: ScenarioLoader.builtInDefault().resolvedJSON, file: "(built-in default)", overrides: o),
                policies: policies, options: RunOptions(devices: devices, days: days, seed: 5, threads: 2),
                replications: replications)
        }
    }

    static let grid = [
        ["policies.fixed.interval=2h", "platform.name=ios-bgtask"],
        ["policies.fixed.interval=2h", "platform.name=android-workmanager"],
        ["policies.fixed.interval=30m", "platform.name=ios-bgtask"],
        ["policies.fixed.interval=30m", "platform.name=android-workmanager"],
    ]

    /// Every point's files equal those of `Runner.run` on that point alone, byte for byte,
    /// with fewer arms than points × policies: `adaptive` and `usage` do not read
    /// `policies.fixed.interval`, so each is one arm per platform (2 × 2), and `fixed` one
    /// per interval and platform (4): 8 arms where a point-by-point sweep runs 12.
    @Test func eachPointIsByteIdenticalToItsOwnRun() throws {
        let points = try Self.points(Self.grid, policies: ["fixed", "adaptive", "usage"], replications: 2)
        let plan = try SweepPlan(points: points)
        #expect(plan.arms == 8)
        #expect(plan.simulatedDeviceDays == 8 * 70 * 3 * 2)
        let run = try plan.run()
        for (k, point) in points.enumerated() {
            let alone = try Runner.run(point)
            let shared = ReportWriter.reportFiles(run.reports[k]), own = ReportWriter.reportFiles(alone)
            #expect(shared.map(\.0) == own.map(\.0), "point \(k + 1)")
            for ((name, a), (_, b)) in zip(shared, own) { #expect(a == b, "point \(k + 1): \(name) differs") }
        }
    }

    /// Points that meet different users (a population parameter) are separate passes; the
    /// policies are still shared within each.
    @Test func pointsWithOtherUsersRunApart() throws {
        let points = try Self.points(
            [["population.bar_off_share=0"], ["population.bar_off_share=0.5"]], policies: ["fixed", "adaptive"])
        let plan = try SweepPlan(points: points)
        #expect(plan.groups.map(\.points) == [[0], [1]])
        #expect(plan.arms == 4)
        #expect(throws: SweepPlanError.referenceMeetsOtherUsers(point: 1, reference: 0)) {
            try SweepPlan(points: points, references: [nil, 0])
        }
        #expect(
            SweepPlanError.referenceMeetsOtherUsers(point: 1, reference: 0).description
                == "point 1 cannot be point 2's reference: their scenarios differ outside `policies` and `platform`, so they meet different users"
        )
    }

    /// The premise of joining platforms in one pass: a device's user, attributes and opens
    /// are the same on every platform (devices.csv's columns before the policy's outcomes).
    @Test func everyPlatformMeetsTheSameUsers() throws {
        let names = PlatformRegistry.all.map { $0.name }
        #expect(names.count == 4)
        var reference: [[String]]?
        for name in names {
            var points = try Self.points([["platform.name=\(name)"]], policies: ["fixed"], devices: 40, days: 4)
            points[0].options.keepDevices = true
            let devices = try CSVTable(parsing: SeriesReports.devicesCSV(try Runner.run(points[0])))
            let columns = [
                "device", "archetype", "bar_off", "home_wifi", "work_wifi", "overnight_charge_share",
                "usage_estimate", "expected_opens_per_day", "keeps_low_power", "opens",
            ].map { devices.index(of: $0)! }
            let users = devices.rows.map { row in columns.map { row[$0] } }
            #expect(users.count == 40)
            if let reference { #expect(users == reference, "platform \(name)") } else { reference = users }
        }
    }
}
