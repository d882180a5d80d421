import Foundation
import Synchronization
import Testing
@testable import BGBench
import BGBenchTestSupport

/// `prophet`, the learnable bound (issue 11): the intensity it is handed is the model's,
/// its planner puts runs just before the opens, and on the default scenario it is fresher
/// than `fixed` and every learning policy, device by device, and below `oracle`.
@Suite struct ProphetTests {
    /// What the simulation handed the last `IntensityProbe` (one test uses it at a time).
    static let seen = Mutex<OpenIntensity?>(nil)

    /// A policy entitled to the intensity that only keeps it.
    struct IntensityProbe: WakePolicy {
        static let name = "intensity-probe"
        static let summary = "test: keeps the intensity it is given"
        static let knowledge = PolicyKnowledge.intensity
        init(_ context: PolicyContext) { let i = context.intensity; ProphetTests.seen.withLock { $0 = i } }
    }

    /// A hand-built user: one archetype with a peaked curve, a weekend shift and level, a
    /// sleep window, night checks, reopens, no spread of rate.
    static func handBuilt() -> Scenario {
        var s = Scenario()
        var weights = [Double](repeating: 1, count: 24)
        weights[8] = 9; weights[19] = 4; weights[3] = 0
        s.population.archetypes = [
            "x": Archetype(
                weight: 1, medianOpensPerDay: 10, weekdayWeights: weights,
                weekendShift: .hours(2), weekendLevel: 0.5)
        ]
        s.population.rateSigma = 0
        s.user.pReopen = 0.3
        s.user.nightChecksPerNight = 0.1
        return s
    }

    /// The expected primary opens per 5 min slot of a week by MODEL.md §3's rules alone,
    /// integrated second by second from the device's drawn traits: the hourly weights
    /// shifted by the chronotype (and the weekend shift), zero inside the sleep window but
    /// for the night checks spread over it, which come out of the rate (min(n, r/10) a
    /// night), the waking hours carrying the rest: (r − night checks)·(1 − p_reopen).
    static func byTheRules(_ s: Scenario, _ t: DeviceTraits) -> [Double] {
        let a = s.population.archetypes["x"]!, w = a.weekdayWeights
        let nightChecks = min(s.user.nightChecksPerNight, t.opensPerDay / 10)
        let perDay = (t.opensPerDay - nightChecks) * (1 - s.user.pReopen), night = nightChecks * (1 - s.user.pReopen)
        func wrap(_ x: SimTime) -> SimTime { ((x % Clock.day) + Clock.day) % Clock.day }
        var out = [Double](repeating: 0, count: 7 * 288)
        for d in 0..<7 {
            let weekend = d >= 5
            let shift = t.chronotype + (weekend ? a.weekendShift.ticks : 0)
            let bed = t.bedtime + (weekend ? a.weekendShift.ticks : 0)
            let level = weekend ? a.weekendLevel : 1
            func asleep(_ x: SimTime) -> Bool { wrap(x - bed) < t.sleepLength }
            func weight(_ x: SimTime) -> Double { w[Int(wrap(x - shift) / Clock.hour)] }
            var awakeMass = 0.0
            for sec in 0..<86_400 where !asleep(SimTime(sec) * Clock.second + Clock.second / 2) {
                awakeMass += weight(SimTime(sec) * Clock.second + Clock.second / 2)
            }
            for sec in 0..<86_400 {
                let x = SimTime(sec) * Clock.second + Clock.second / 2
                let rate =
                    asleep(x) ? night / Double(t.sleepLength / Clock.second) : perDay * level * weight(x) / awakeMass
                out[d * 288 + sec / 300] += rate
            }
        }
        return out
    }

    /// The intensity the simulation hands a policy entitled to it is the model's own, to
    /// within a second's discretisation, for several drawn users; after the drift it is
    /// the same curve moved by the drift's shift.
    @Test func intensityIsTheModels() throws {
        var s = Self.handBuilt()
        s.population.driftDay = 3
        s.population.driftShift = .hours(2)
        for index in 0..<3 {
            _ = TestSupport.simulate(
                IntensityProbe.self, Unrestricted.self, scenario: s,
                feed: NewsFeed(times: []), days: 1, index: index)
            let intensity = try #require(Self.seen.withLock { $0 })
            var rng = RandomStream(seed: 1, device: UInt64(index), purpose: .population)
            let traits = DeviceTraits(scenario: s, rng: &rng)
            let expected = Self.byTheRules(s, traits)
            let got = intensity.weeklyOpens(slotsPerDay: 288)
            #expect(got.count == expected.count)
            var worst = 0.0
            for k in got.indices { worst = max(worst, abs(got[k] - expected[k])) }
            #expect(worst < 1e-3, "device \(index): largest slot difference \(worst) opens")
            // A week of primary opens: night checks min(n, r/10) out of the rate, the waking
            // hours of 5 weekdays the rest, of 2 weekend days half that; all × (1 − p).
            let n = min(0.1, traits.opensPerDay / 10), awake = (traits.opensPerDay - n) * 0.7
            let week = got.reduce(0, +)
            #expect(abs(week - (5 * awake + 2 * 0.5 * awake + 7 * n * 0.7)) < 1e-6)
            let drifted = intensity.weeklyOpens(slotsPerDay: 288, drifted: true)
            for k in got.indices { #expect(abs(drifted[(k + 24) % got.count] - got[k]) < 1e-12) }
        }
        // A routine user: each entry's probability in the slot of its time (no jitter).
        var r = Scenario()
        r.population.model = .routine
        r.population.routine.opens = [
            Routine.Entry(at: .hours(8), jitterSd: .seconds(0), probability: 0.5),
            Routine.Entry(at: .hours(20), jitterSd: .minutes(10), probability: 1),
        ]
        _ = TestSupport.simulate(
            IntensityProbe.self, Unrestricted.self, scenario: r, feed: NewsFeed(times: []), days: 1)
        let routine = try #require(Self.seen.withLock { $0 }).weeklyOpens(slotsPerDay: 288)
        #expect(routine[2 * 288 + 96] == 0.5)
        #expect(abs(routine[(2 * 288 + 236)..<(2 * 288 + 244)].reduce(0, +) - 0.9545) < 1e-3)  // ±2 sd of 20:00
        #expect(abs(routine.reduce(0, +) - 7 * 1.5) < 1e-9)
    }

    /// An ordinary policy is handed no intensity.
    @Test func ordinaryPoliciesKnowNothing() throws {
        #expect(
            FixedPolicy.knowledge == .observed && OraclePolicy.knowledge == .future
                && ProphetPolicy.knowledge == .intensity)
        #expect(PolicyRegistry.builtIn.filter { $0.knowledge == .intensity }.map(\.name) == ["prophet"])
        #expect(!OpenIntensity.none.isKnown)
    }

    /// A hand-built week: the user opens only between 08:00 and 09:00 (one open a day on
    /// average), the feed publishes 48 items a day evenly. One run a day goes just before
    /// the opens, at 07:45–08:05 every day; with two a day, both fall in 07:45–09:00.
    @Test func plannerPutsRunsJustBeforeTheOpens() {
        var opens = [Double](repeating: 0, count: 7 * 288)
        for d in 0..<7 { for k in 96..<108 { opens[d * 288 + k] = 1.0 / 12 } }
        let items = [Double](repeating: 48.0 / 288, count: 7 * 288)
        for perDay in [1, 2] {
            let plan = ProphetPlanner.plan(
                opens: opens, items: items, slotsPerDay: 288, runsPerDay: Double(perDay),
                burst: Double(perDay), minGap: 3, minGain: 0.01)
            #expect(plan.count == 7 * perDay)
            for c in plan {
                let minute = (c.slot % 288) * 5
                #expect(
                    minute >= 7 * 60 + 45 && minute <= (perDay == 1 ? 8 * 60 + 5 : 9 * 60),
                    "\(perDay) a day: a run at \(minute / 60):\(minute % 60)")
            }
            // Greedy: each run adds less than the one before, never below min_gain.
            for (x, y) in zip(plan, plan.dropFirst()) { #expect(y.gain <= x.gain + 1e-12 && y.gain >= 0.01) }
        }
        // No opens at all: no run is worth planning.
        #expect(
            ProphetPlanner.plan(
                opens: [Double](repeating: 0, count: 7 * 288), items: items, slotsPerDay: 288,
                runsPerDay: 12, burst: 6, minGap: 3, minGain: 0.01
            ).isEmpty)
        // A bucket of one run a day holding one: never two runs within a day of each other.
        let sparse = ProphetPlanner.plan(
            opens: opens, items: items, slotsPerDay: 288, runsPerDay: 1, burst: 1,
            minGap: 3, minGain: 0
        ).map(\.slot).sorted()
        for (x, y) in zip(sparse, sparse.dropFirst()) { #expect(y - x >= 288) }
    }

    // MARK: On the default scenario

    static let devices = 200
    static let days = 60
    static let warmupDays = 7
    static let seed: UInt64 = 11
    /// `prophet`'s runs a day may exceed `fixed`'s by at most this factor ("at about fixed's runs").
    static let maxRunsOverFixed = 1.10
    /// Its paired fresh-open lead over `fixed` and every learning policy: at least this
    /// many points, with the paired interval wholly above zero.
    static let minLeadPoints = 1.0

    /// On the default scenario (200 devices × 60 days, seed 11, a week of warm-up) `prophet`
    /// at about `fixed`'s runs a day is fresher than `fixed` and every learning policy
    /// (paired differences against `prophet`, intervals below zero), and less fresh than
    /// `oracle` (interval above zero).
    @Test func fresherThanEveryLearnerBelowOracle() throws {
        let policies = ["fixed"] + PolicyTests.learning.map { $0.name } + ["prophet", "oracle"]
        let request = RunRequest(
            scenario: LoadedScenario(scenario: Scenario(), file: nil, sha256: "", resolvedJSON: ""),
            policies: policies,
            options: RunOptions(
                devices: Self.devices, days: Self.days, seed: Self.seed, threads: 2,
                warmupDays: Self.warmupDays),
            baselinePolicy: "prophet")
        let report = try Runner.run(request)
        let fresh = try #require(MetricTable.pairedMetrics.firstIndex { $0.metric.name == "fresh_open_rate" })
        let runs = try #require(MetricTable.pairedMetrics.firstIndex { $0.metric.name == "runs_per_day" })
        var lines: [String] = []
        for r in report.results where r.policy != "prophet" {
            let e = try #require(SeriesReports.pairedEstimates(report, r))
            let d = e[fresh].difference
            let high = try #require(d.high), low = try #require(d.low)
            lines.append(
                String(
                    format: "%@ %+.2f [%.2f, %.2f] pts, runs %+.2f/day", r.policy, 100 * d.value, 100 * low,
                    100 * high, e[runs].difference.value))
            if r.policy == "oracle" {
                #expect(low > 0, "oracle minus prophet: \(d)")
            } else {
                #expect(high < 0 && -d.value >= Self.minLeadPoints / 100, "\(r.policy) minus prophet: \(d)")
            }
            if r.policy == "fixed" {
                #expect(
                    e[runs].baseline <= Self.maxRunsOverFixed * e[runs].policy,
                    "prophet \(e[runs].baseline) runs/day against fixed's \(e[runs].policy)")
            }
        }
        print("prophet (paired, policy − prophet):", lines.joined(separator: "; "))
    }

    /// Where the platform never refuses (`unrestricted`), prophet's `runs_per_day` is what
    /// limits it: over three weeks no device starts more than 3 runs on any day (events.csv
    /// of every device), and the cap binds: at seed 1 85 of the 168 device-days have 3
    /// (the planner skips runs worth too little), so at least a quarter must.
    @Test func runsPerDayCapsProphetWhereThePlatformAllowsMore() throws {
        let out = freshPath("prophet-cap")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = bgbench([
            "--policy", "prophet", "--set", "platform.name=unrestricted",
            "--set", "policies.prophet.runs_per_day=3", "--days", "21", "--devices", "8",
            "--trace-devices", "8", "--quiet", "--out", out,
        ])
        #expect(result.code == 0, "\(result.errors)")
        let lines = try String(contentsOfFile: out + "/events.csv", encoding: .utf8).split(separator: "\n")
        let header = lines[0].split(separator: ",").map(String.init)
        let device = try #require(header.firstIndex(of: "device")), day = try #require(header.firstIndex(of: "day"))
        let event = try #require(header.firstIndex(of: "event"))
        var starts: [String: Int] = [:]
        for line in lines.dropFirst() {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            if fields[event] == "started" { starts["\(fields[device])/\(fields[day])", default: 0] += 1 }
        }
        #expect(starts.count == 8 * 21, "device-days with runs")
        #expect(starts.values.max() == 3, "runs a device-day: \(Set(starts.values).sorted())")
        #expect(starts.values.filter { $0 == 3 }.count * 4 >= starts.count, "device-days at the cap")
    }
}
