import Foundation
import Testing
@testable import BGBench

/// MODEL.md §10's expectations for the reference scenario R1 (Datasets/scenarios/r1.json,
/// policy `fixed`), on 2,000 devices × 30 days at a fixed seed. Exact counts are checked
/// exactly; statistical ones against the rules' own formulas, within named tolerances.
@Suite struct R1Tests {
    static let devices = 2000, days = 30
    static let seed: UInt64 = 20260101
    static var deviceDays: Double { Double(devices * days) }

    /// Statistical tolerances are this many standard errors: with about ten checks, a
    /// correct simulator fails one by chance with probability below 10 × 6.3e-5.
    static let standardErrors = 4.0

    // R1's rules (MODEL.md §10).
    static let attemptsPerDay = 48.0, cap = 12.0
    static let medianOpens = 8.0, rateSigma = 0.8
    static let runMedian = 0.8, runSigma = 1.0, limit = 30.0, failure = 0.02
    /// Wi-Fi energy of a run of d seconds: launch 0.5 J + d × 0.4 W + 0.24 s tail × 0.4 W.
    static func wifiJoules(_ d: Double) -> Double { 0.5 + 0.4 * d + 0.24 * 0.4 }
    /// LTE energy of a run of d seconds (rule 8), to show the runs are not on LTE.
    static func lteJoules(_ d: Double) -> Double { 0.5 + 0.26 * 1.2 + 1.06 * d + 11.6 * 1.06 }

    /// P(d > 30 s) for d lognormal(median 0.8 s, sigma 1): 1 − Φ(ln(30/0.8)/1).
    static var killProbability: Double { 0.5 * erfc(log(limit / runMedian) / runSigma / 2.0.squareRoot()) }

    /// E[g(min(d, 30))] by the midpoint rule over the standard normal z (d = 0.8·e^z),
    /// z in [−12, 12] in 240,000 steps: the error is far below the tolerances used.
    static func expectation(_ g: (Double) -> Double) -> Double {
        let lo = -12.0, hi = 12.0, n = 240_000
        let dz = (hi - lo) / Double(n)
        var sum = 0.0
        for i in 0..<n {
            let z = lo + (Double(i) + 0.5) * dz
            let d = min(runMedian * exp(runSigma * z), limit)
            sum += g(d) * exp(-z * z / 2)
        }
        return sum * dz / (2 * Double.pi).squareRoot()
    }

    /// The R1 fleet, simulated once for all tests of the suite.
    static let result: (tally: FleetTally, estimates: FleetEstimates) = {
        let scenario = try! TestSupport.loadScenario("r1").scenario
        let options = RunOptions(devices: devices, days: days, seed: seed, threads: 2)
        let feed = NewsFeed(content: scenario.content, days: days, seed: seed)
        let tally = try! Fleet.run(scenario: scenario, policy: FixedPolicy.self, options: options, feed: feed)
        return (tally, FleetEstimates(tally: tally, days: days))
    }()

    static var tally: FleetTally { result.tally }
    static func perDeviceDay(_ q: Quantity) -> Double { tally[q] / deviceDays }

    /// The scenario file is R1: the parameters the expectations below rely on.
    @Test func scenarioFileIsR1() throws {
        let s = try TestSupport.loadScenario("r1").scenario
        #expect(s.platform.name == "unrestricted")
        #expect(s.platform[Unrestricted.self].dailyCap == 12)
        #expect(s.policies[FixedPolicy.self].interval == .minutes(30))
        #expect(s.app.task == .lognormal)
        #expect(s.app.lognormalMedian == .seconds(0.8) && s.app.lognormalSigma == 1)
        #expect(s.app.lognormalFailureProbability == 0.02)
        #expect(!s.app.handlesExpiration)
        #expect(s.population.archetypes.count == 1)
        #expect(s.population.archetypes.values.first?.medianOpensPerDay == 8)
        #expect(s.population.rateSigma == 0.8)
        #expect(!s.device.batteryEnabled && !s.user.sleepEnabled && s.user.pReopen == 0)
        #expect(s.content.itemsPerDay == 48)
    }

    /// Exactly 48 attempts, 12 runs and 36 denials (all `budget`) per device-day; one
    /// request per device is still pending at the horizon (the next grid point), none
    /// replaced.
    @Test func exactCounts() {
        let n = Double(Self.devices)
        #expect(Self.tally.devices == Self.devices)
        #expect(Self.tally[.runs] == Self.cap * Self.deviceDays)
        #expect(Self.tally[.denied] == (Self.attemptsPerDay - Self.cap) * Self.deviceDays)
        #expect(Self.tally[.denied(.budget)] == Self.tally[.denied])
        #expect(Self.tally[.pending] == n)
        #expect(Self.tally[.replaced] == 0)
        #expect(Self.tally[.requested] == Self.attemptsPerDay * Self.deviceDays + n)
        #expect(Self.tally[.outcome(.expired)] == 0, "R1's app does not handle expiration")
        #expect(Self.tally[.throttleEvents] == 0)
        // Every device-day exactly, not only on average: the sum of squares of per-device
        // runs equals devices × (12 · days)².
        #expect(Self.tally.sumOfSquares(.runs) == n * pow(Self.cap * Double(Self.days), 2))
    }

    /// Opens per device-day ≈ E[r_u] = 8·e^(0.8²/2) = 11.017.
    /// Tolerance: 4 standard errors of the fleet mean of per-device opens/day, whose
    /// variance is Var(r_u) (lognormal) + E[r_u]/days (Poisson counts), over 2,000 devices.
    @Test func opensPerDeviceDay() {
        let mean = Self.medianOpens * exp(Self.rateSigma * Self.rateSigma / 2)
        #expect(abs(mean - 11.017) < 0.001)
        let varianceRate =
            Self.medianOpens * Self.medianOpens
            * (exp(2 * Self.rateSigma * Self.rateSigma) - exp(Self.rateSigma * Self.rateSigma))
        let se = ((varianceRate + mean / Double(Self.days)) / Double(Self.devices)).squareRoot()
        let opensTolerance = Self.standardErrors * se
        let observed = Self.perDeviceDay(.opens)
        #expect(
            abs(observed - mean) < opensTolerance, "opens/device-day \(observed), expected \(mean) ± \(opensTolerance)")
        // The summary's estimate is the same mean.
        #expect(abs(Self.result.estimates.perDeviceDay(.opens).value - observed) < 1e-12)
    }

    /// Kills per device-day ≈ 12·P(d > 30 s) = 0.00174.
    /// Tolerance: 4 Poisson standard errors of the kill count (about 104 expected kills).
    @Test func killsPerDeviceDay() {
        let p = Self.killProbability
        #expect(abs(Self.cap * p - 0.00174) < 0.00001)
        let expectedKills = Self.cap * Self.deviceDays * p
        let killTolerance = Self.standardErrors * expectedKills.squareRoot()
        #expect(
            abs(Self.tally[.outcome(.killed)] - expectedKills) < killTolerance,
            "kills \(Self.tally[.outcome(.killed)]), expected \(expectedKills) ± \(killTolerance)")
    }

    /// Failures per device-day ≈ 12·0.02·(1 − P(kill)) = 0.240 (a killed run cannot fail).
    /// Tolerance: 4 binomial standard errors of the failure count over 720,000 runs.
    @Test func failuresPerDeviceDay() {
        let pFail = Self.failure * (1 - Self.killProbability)
        #expect(abs(Self.cap * pFail - 0.240) < 0.001)
        let runs = Self.cap * Self.deviceDays
        let failureTolerance = Self.standardErrors * (runs * pFail * (1 - pFail)).squareRoot()
        #expect(abs(Self.tally[.outcome(.failed)] - runs * pFail) < failureTolerance)
        // Every run is one of newData, noData, failed, killed.
        #expect(
            Self.tally[.outcome(.newData)] + Self.tally[.outcome(.noData)] + Self.tally[.outcome(.failed)]
                + Self.tally[.outcome(.killed)] == runs)
    }

    /// Joules per device-day = 12·(0.596 + 0.4·E[min(d, 30)]) ≈ 13.48, all on Wi-Fi.
    /// Tolerance: 4 standard errors of the mean energy over 720,000 runs (per-run variance
    /// 0.4²·Var(min(d, 30)), computed by the same integration).
    @Test func joulesPerDeviceDay() {
        let meanD = Self.expectation { $0 }
        let meanD2 = Self.expectation { $0 * $0 }
        // Cross-check of the integration against the closed form for a lognormal truncated
        // at c: E[min(d,c)] = m·e^(σ²/2)·Φ(ln(c/m)/σ − σ) + c·(1 − Φ(ln(c/m)/σ)).
        let phi = { (x: Double) in 0.5 * erfc(-x / 2.0.squareRoot()) }
        let k = log(Self.limit / Self.runMedian) / Self.runSigma
        let closed =
            Self.runMedian * exp(Self.runSigma * Self.runSigma / 2) * phi(k - Self.runSigma)
            + Self.limit * (1 - phi(k))
        #expect(abs(meanD - closed) < 1e-9)

        let expected = Self.cap * Self.wifiJoules(meanD)
        #expect(abs(expected - 13.48) < 0.01)
        let runs = Self.cap * Self.deviceDays
        let perRunVariance = 0.16 * (meanD2 - meanD * meanD)
        let energyTolerance = Self.standardErrors * Self.cap * (perRunVariance / runs).squareRoot()
        let observed = Self.perDeviceDay(.backgroundEnergy)
        #expect(
            abs(observed - expected) < energyTolerance,
            "J/device-day \(observed), expected \(expected) ± \(energyTolerance)")
        // Runs on LTE would cost at least 12.8 J each, 154 J/device-day: far from here.
        #expect(observed < Self.cap * Self.lteJoules(0) / 10)
    }

    /// All runs start between 00:00 and 06:00 (the budget binds by the 12th attempt), so on
    /// Wi-Fi: with sigma 0 every run lasts exactly 0.8 s and costs exactly the Wi-Fi
    /// formula's 0.916 J; an LTE run would cost 13.5 J.
    @Test func runsAreAtNightOnWifi() throws {
        var scenario = try TestSupport.loadScenario("r1").scenario
        scenario.app.lognormalSigma = 0
        let days = 14
        let feed = NewsFeed(content: scenario.content, days: days, seed: Self.seed)
        var totalRuns = 0
        for device in 0..<50 {
            var tally = DeviceTally()
            let log = SimulationLog.record {
                tally = TestSupport.simulate(
                    Recorded<FixedPolicy>.self, Unrestricted.self, scenario: scenario, feed: feed,
                    days: days, seed: Self.seed, index: device)
            }
            #expect(log.runStarts.count == 12 * days)
            #expect(log.runStarts.allSatisfy { Clock.hourOfDay($0) < 6 }, "device \(device)")
            #expect(tally[.runs] == 12 * days)
            #expect(abs(tally[amount: .backgroundEnergy] - Double(tally[.runs]) * Self.wifiJoules(0.8)) < 1e-9)
            totalRuns += tally[.runs]
        }
        #expect(totalRuns == 50 * 12 * days)
    }

    /// Staleness quantiles from the fixed log histogram are monotone in q, the median is at
    /// most the p95, and the histogram holds one value per open.
    @Test func stalenessQuantilesAreMonotone() {
        let h = Self.tally.staleness
        #expect(Double(h.total) == Self.tally[.opens])
        // Zeros are the fresh opens, plus any stale open whose item came out at that very tick.
        #expect(Double(h.zeros) >= Self.tally[.freshOpens])
        #expect(Double(h.zeros) <= Self.tally[.freshOpens] + 10)
        let grid = stride(from: 0.0, through: 1.0, by: 0.01).map { h.quantile($0)! }
        #expect(zip(grid, grid.dropFirst()).allSatisfy { $0 <= $1 })
        let median = h.quantile(0.5)!, p95 = h.quantile(0.95)!
        #expect(median <= p95)
        #expect(p95 > 0)
        // The mean staleness lies below the maximum bin and above zero.
        let mean = Self.tally[.staleness] / Self.tally[.opens]
        #expect(mean > 0 && mean < h.quantile(1)! * 1.01)
    }
}
