import Foundation
import Testing
@testable import BGBenchCLI
@testable import BGBench

/// The user model (MODEL.md §3) at fixed seeds: archetype mix, rates, opens per day,
/// session lengths, the sleep window and night checks, reopen bursts, the weekend shift.
/// Each statistical check names its tolerance; most are 4 standard errors of the quantity
/// (a correct model fails one by chance with probability about 6e-5).
@Suite struct UserModelTests {
    static let standardErrors = 4.0
    static let days = 28  // four whole weeks: weekdays and weekend days in their exact 5:2 share
    static let sigma = 0.8
    /// MODEL.md §3: the weekend curve runs at 0.9 of the weekday level, so a week averages
    /// (5 + 2·0.9)/7 of the weekday rate.
    static let weekFactor = (5 + 2 * 0.9) / 7

    static func traits(_ s: Scenario, seed: UInt64, device: Int) -> DeviceTraits {
        var rng = RandomStream(seed: seed, device: UInt64(device), purpose: .population)
        return DeviceTraits(scenario: s, rng: &rng)
    }

    /// The opens of device `index` (the full device simulation, policy `none`).
    static func opens(_ s: Scenario, seed: UInt64, device: Int, days: Int = days) -> [SimTime] {
        SimulationLog.record {
            _ = TestSupport.simulate(
                Recorded<NoWakePolicy>.self, Unrestricted.self, scenario: s,
                feed: NewsFeed(times: []), days: days, seed: seed, index: device)
        }.opens
    }

    /// The default scenario without a battery (faster; the user model does not depend on it).
    static var base: Scenario {
        var s = Scenario()
        s.device.batteryEnabled = false
        return s
    }

    // MARK: Archetypes and rates

    /// The archetype mix: 0.15 heavy / 0.45 daily / 0.25 occasional / 0.15 rare.
    /// Tolerance: 4 binomial standard errors of each share over 20,000 devices.
    @Test func archetypeMix() {
        let s = Self.base
        let names = s.population.sortedArchetypeNames
        #expect(names == ["daily", "heavy", "occasional", "rare"])
        let n = 20_000
        var counts = [Int](repeating: 0, count: names.count)
        for i in 0..<n { counts[Self.traits(s, seed: 1, device: i).archetype] += 1 }
        let weights = ["heavy": 0.15, "daily": 0.45, "occasional": 0.25, "rare": 0.15]
        for (k, name) in names.enumerated() {
            let p = weights[name]!
            let share = Double(counts[k]) / Double(n)
            let mixTolerance = Self.standardErrors * (p * (1 - p) / Double(n)).squareRoot()
            #expect(abs(share - p) < mixTolerance, "\(name): \(share) vs \(p)")
        }
    }

    /// Each user's rate is lognormal around the archetype median (sigma 0.8): the median of
    /// the rates is the archetype's median, the mean is median·e^(σ²/2), the log-rates have
    /// sd 0.8. Tolerances: 4 standard errors (mean: lognormal sd/√n; median of logs:
    /// 1.2533·σ/√n; sd of logs: σ/√(2n)).
    @Test func ratesAreLognormalAroundTheMedian() {
        let s = Self.base
        let names = s.population.sortedArchetypeNames
        var rates = [[Double]](repeating: [], count: names.count)
        for i in 0..<40_000 {
            let t = Self.traits(s, seed: 2, device: i)
            rates[t.archetype].append(t.opensPerDay)
            #expect(t.initialUsage == s.population.archetypes[names[t.archetype]]!.medianOpensPerDay)
        }
        for (k, name) in names.enumerated() {
            let median = s.population.archetypes[name]!.medianOpensPerDay
            let r = rates[k], n = Double(r.count)
            let mean = r.reduce(0, +) / n
            let expectedMean = median * exp(Self.sigma * Self.sigma / 2)
            let sd = median * (exp(2 * Self.sigma * Self.sigma) - exp(Self.sigma * Self.sigma)).squareRoot()
            #expect(abs(mean - expectedMean) < Self.standardErrors * sd / n.squareRoot(), "\(name) mean \(mean)")
            let logs = r.map { log($0 / median) }.sorted()
            let logMedian = logs[logs.count / 2]
            #expect(abs(logMedian) < Self.standardErrors * 1.2533 * Self.sigma / n.squareRoot(), "\(name) log median")
            let logMean = logs.reduce(0, +) / n
            let logSd = (logs.reduce(0) { $0 + ($1 - logMean) * ($1 - logMean) } / (n - 1)).squareRoot()
            #expect(abs(logSd - Self.sigma) < Self.standardErrors * Self.sigma / (2 * n).squareRoot(), "\(name) log sd")
        }
    }

    /// Opens per day by archetype, from the full simulation over four weeks with night
    /// checks and reopens on (the defaults): night checks are part of the rate (MODEL.md
    /// §3), so each user opens (r − m)·(5 + 2·0.9)/7 + m a day on average, m = min(n, r/10)
    /// the night checks (the weekend level scales the waking hours only), and the archetype
    /// opens median·e^(σ²/2) of that. Rare users (median one open a week) stay near
    /// 1/7·e^0.32 ≈ 0.2 a day, not the 0.33 they had when night checks came on top.
    /// Tolerance: 4 standard errors of the mean of per-device opens/day: between users, the
    /// lognormal variance of the rate; within, the clustered count variance r·(1 + p)/(1 − p)
    /// per day (geometric reopen clusters).
    @Test func opensPerDayByArchetype() {
        let s = Self.base
        let names = s.population.sortedArchetypeNames
        let p = s.user.pReopen, n = s.user.nightChecksPerNight
        var perDay = [[Double]](repeating: [], count: names.count)
        var ownRates = [[Double]](repeating: [], count: names.count)
        for i in 0..<3000 {
            let t = Self.traits(s, seed: 3, device: i)
            let count = Self.opens(s, seed: 3, device: i).count
            perDay[t.archetype].append(Double(count) / Double(Self.days))
            ownRates[t.archetype].append(t.opensPerDay)
        }
        func expectedPerDay(_ r: Double) -> Double {
            let m = UserOpens.nightChecks(perNight: n, rate: r)
            return (r - m) * Self.weekFactor + m
        }
        for (k, name) in names.enumerated() {
            let median = s.population.archetypes[name]!.medianOpensPerDay
            let count = Double(perDay[k].count)
            let observed = perDay[k].reduce(0, +) / count
            // Against the archetype: the rate's lognormal spread is part of the error.
            let mean = median * exp(Self.sigma * Self.sigma / 2) * Self.weekFactor
            let rateVariance =
                pow(median * Self.weekFactor, 2)
                * (exp(2 * Self.sigma * Self.sigma) - exp(Self.sigma * Self.sigma))
            let countVariance = mean * (1 + p) / (1 - p) / Double(Self.days)
            let archetypeTolerance = Self.standardErrors * ((rateVariance + countVariance) / count).squareRoot()
            // The night checks move the weekly mean by m·(1 − weekFactor) at most: 0.0029 a day.
            let nightShift = n * (1 - Self.weekFactor)
            #expect(
                abs(observed - mean) < archetypeTolerance + nightShift,
                "\(name): \(observed) vs \(mean) ± \(archetypeTolerance)")
            // Against the users' own rates: only the count noise.
            let own = ownRates[k].map(expectedPerDay).reduce(0, +) / count
            let ownTolerance = Self.standardErrors * (own * (1 + p) / (1 - p) / Double(Self.days) / count).squareRoot()
            #expect(abs(observed - own) < ownTolerance, "\(name): \(observed) vs own rates \(own) ± \(ownTolerance)")
        }
        // Rare users: the median user opens about once a week, night checks included.
        let rare = names.firstIndex(of: "rare")!
        let rareMedian = perDay[rare].sorted()[perDay[rare].count / 2]
        let rareMedianTolerance = 0.05  // opens/day: a median of 28-day counts of ~450 users
        #expect(abs(rareMedian - 1.0 / 7 * Self.weekFactor) < rareMedianTolerance, "rare median \(rareMedian)")
    }

    /// The rate counts every open, reopens included (MODEL.md §3): summed over users, the
    /// realised opens match each user's own rate, whatever p_reopen. Tolerance: 4 standard
    /// errors of the clustered count, Σ r·days·(1 + p)/(1 − p).
    @Test(arguments: [0.0, 0.3, 0.6])
    func reopensKeepTheRate(pReopen: Double) {
        var s = Self.base
        s.user.nightChecksPerNight = 0
        s.user.pReopen = pReopen
        // Heavy users only: the more opens, the more often a new open falls between an
        // open and its reopen.
        s.population.archetypes = ["heavy": Archetype(weight: 1, medianOpensPerDay: 20)]
        var observed = 0.0, expected = 0.0, variance = 0.0
        for i in 0..<400 {
            let r = Self.traits(s, seed: 4, device: i).opensPerDay
            let mean = r * Self.weekFactor * Double(Self.days)
            expected += mean
            variance += mean * (1 + pReopen) / (1 - pReopen)
            observed += Double(Self.opens(s, seed: 4, device: i).count)
        }
        let countTolerance = Self.standardErrors * variance.squareRoot()
        #expect(
            abs(observed - expected) < countTolerance,
            "p_reopen \(pReopen): \(observed) opens, expected \(expected) ± \(countTolerance) (ratio \(observed / expected))"
        )
    }

    // MARK: Sessions

    /// Session lengths (MODEL.md §3: mean about 70 s, half under 30 s, 90 % under 4 min),
    /// measured on 400,000 draws at a fixed seed from the defaults (an exponential body,
    /// mean 37 s, 90.2 %; a Pareto tail from 4 min, α 2.8, 9.8 %; capped at 2 h).
    /// Tolerances, named: the mean within `meanTolerance` of 70 s and within 4 standard
    /// errors of the mixture's exact mean; the median within `quantileTolerance` of 30 s;
    /// the share under 4 min within `shareTolerance` of 90 % (4 binomial standard errors
    /// over 400,000 draws are 0.0019).
    @Test func sessionLengths() {
        let meanTolerance = 2.0  // seconds: "about 70 s"
        let quantileTolerance = 1.0  // seconds: "half under 30 s"
        let shareTolerance = 0.003  // "90 % under 4 min"
        let u = Scenario().user
        let behaviour = SessionParameters(u)
        var rng = RandomStream(seed: 5, device: 0, purpose: .opens)
        let n = 400_000
        var seconds = (0..<n).map { _ in Clock.seconds(behaviour.drawSession(&rng)) }
        seconds.sort()
        let mean = seconds.reduce(0, +) / Double(n)
        let variance = seconds.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(n - 1)

        let q = u.sessionTailShare, body = u.sessionBodyMean.seconds
        let xm = u.sessionTailMin.seconds, alpha = u.sessionTailAlpha, cap = u.sessionMax.seconds
        let tailMean = xm + (xm - pow(xm, alpha) * pow(cap, 1 - alpha)) / (alpha - 1)
        let exact = (1 - q) * body + q * tailMean
        #expect(
            abs(mean - exact) < Self.standardErrors * (variance / Double(n)).squareRoot(), "mean \(mean) vs \(exact)")
        #expect(abs(mean - 70) < meanTolerance, "mean \(mean) s, about 70 s")
        let median = seconds[n / 2]
        #expect(abs(median - 30) < quantileTolerance, "median \(median) s")
        let under4 = Double(seconds.firstIndex { $0 >= 240 } ?? n) / Double(n)
        #expect(abs(under4 - 0.9) < shareTolerance, "\(under4) under 4 min")
        #expect(seconds.last! <= cap)
    }

    // MARK: Sleep window and night checks

    /// Whether t falls in the sleep window of its day (weekend windows start later by the
    /// weekend shift), as MODEL.md §3 defines it for the user's traits.
    static func asleep(_ t: SimTime, traits: DeviceTraits, weekendShift: SimTime) -> Bool {
        let day = Clock.dayIndex(t)
        let start = traits.bedtime + (Clock.isWeekend(day: day) ? weekendShift : 0)
        let sinceBedtime = ((t % Clock.day - start) % Clock.day + Clock.day) % Clock.day
        return sinceBedtime < traits.sleepLength
    }

    /// Opens inside the sleep window, per night, for `devices` users.
    static func nightOpens(_ s: Scenario, devices: Int, seed: UInt64) -> (inside: Int, total: Int) {
        let shift = s.population.archetypes.values.first!.weekendShift.ticks
        var inside = 0, total = 0
        for i in 0..<devices {
            let traits = Self.traits(s, seed: seed, device: i)
            let opens = Self.opens(s, seed: seed, device: i)
            inside += opens.filter { Self.asleep($0, traits: traits, weekendShift: shift) }.count
            total += opens.count
        }
        return (inside, total)
    }

    /// With night checks off, no reopens and zero-length sessions, nothing is opened
    /// inside the sleep window.
    @Test func noOpensWhileAsleep() {
        var s = Self.base
        s.user.nightChecksPerNight = 0
        s.user.pReopen = 0
        s.user.sessionBodyMean = .seconds(0)
        s.user.sessionTailShare = 0
        let (inside, total) = Self.nightOpens(s, devices: 500, seed: 6)
        #expect(total > 50_000)
        #expect(inside == 0)
    }

    /// With real sessions, an open the user would make during a session waits for its end
    /// (UserOpens), so a session that runs past bedtime can push an open into the window.
    /// That stays rare: under `spillPerNight` a night.
    @Test func sessionsPastBedtimeRarelySpill() {
        let spillPerNight = 0.005
        var s = Self.base
        s.user.nightChecksPerNight = 0
        s.user.pReopen = 0
        let devices = 500
        let (inside, _) = Self.nightOpens(s, devices: devices, seed: 6)
        #expect(Double(inside) / Double(devices * Self.days) < spillPerNight)
    }

    /// Night checks are min(n, r/10) opens a night inside the window (MODEL.md §3; no
    /// reopens here): at n = 0.1 the cap r/10 binds for rare and most occasional users, at
    /// n = 1 for every archetype but heavy. Expected: Σ min(n, r_i/10) over users and
    /// nights. Tolerance: 4 Poisson standard errors of the count over 1,000 users × 28
    /// nights, plus `spillPerNight` (sessionsPastBedtimeRarelySpill) for opens pushed into
    /// the window by a session that ran past bedtime.
    @Test(arguments: [0.1, 1.0])
    func nightChecksRate(perNight: Double) {
        let spillPerNight = 0.005
        var s = Self.base
        s.user.pReopen = 0
        s.user.nightChecksPerNight = perNight
        let devices = 1000
        let (inside, _) = Self.nightOpens(s, devices: devices, seed: 7)
        let perUser = (0..<devices).map {
            UserOpens.nightChecks(perNight: perNight, rate: Self.traits(s, seed: 7, device: $0).opensPerDay)
        }
        let expected = perUser.reduce(0, +) * Double(Self.days)
        #expect(expected < perNight * Double(devices * Self.days) * 0.9, "the r/10 cap binds for some users")
        let nightTolerance = Self.standardErrors * expected.squareRoot() + spillPerNight * Double(devices * Self.days)
        #expect(
            abs(Double(inside) - expected) < nightTolerance,
            "\(inside) night opens, expected \(expected) ± \(nightTolerance)")
    }

    // MARK: Reopen bursts

    /// Share of gaps between a user's consecutive opens that are under 10 min.
    static func shortGapShare(pReopen: Double) -> Double {
        var s = Self.base
        s.user.pReopen = pReopen
        var short = 0, gaps = 0
        for i in 0..<300 {
            let opens = Self.opens(s, seed: 8, device: i)
            for (a, b) in zip(opens, opens.dropFirst()) {
                gaps += 1
                if b - a < 10 * Clock.minute { short += 1 }
            }
        }
        return Double(short) / Double(gaps)
    }

    /// Opens cluster: the share of gaps under 10 min grows with p_reopen, by at least
    /// `burstStep` per step of 0.3. (A reopen follows its session's end within 10 min with
    /// probability 1 − e^(−1) ≈ 0.63, and 0.3 more of the opens are reopens at each step;
    /// 0.05 leaves room for the primaries that would have been close anyway.)
    @Test func reopenBurstsGrowWithPReopen() {
        let burstStep = 0.05
        let shares = [0.0, 0.3, 0.6].map { Self.shortGapShare(pReopen: $0) }
        #expect(shares[1] > shares[0] + burstStep, "\(shares)")
        #expect(shares[2] > shares[1] + burstStep, "\(shares)")
    }

    // MARK: Weekend

    /// The piecewise intensity of a day profile at a time of day.
    static func rate(_ profile: DayProfile, at tod: SimTime) -> Double {
        let t = ((tod % Clock.day) + Clock.day) % Clock.day
        for i in 0..<profile.count where t < profile.ends[i] { return profile.rates[i] }
        return profile.rates[profile.count - 1]
    }

    /// The weekend profile is the weekday profile 1.5 h later at 0.9 of its level while
    /// awake (the sleep window moves with it; night checks keep their rate), and each
    /// keeps its expected daily count.
    @Test func weekendProfileIsShiftedWeekday() {
        let weights = newsOpenWeights
        let chronotype = Clock.ticks(seconds: -2400)
        let sleep = (start: 23 * Clock.hour + 10 * Clock.minute, length: Clock.ticks(seconds: 7.4 * 3600))
        let shift = Clock.ticks(seconds: 1.5 * 3600)
        let night = 0.1
        let weekday = DayProfile.build(
            weights: weights, shift: chronotype, expected: 6, sleep: sleep, nightEvents: night)
        let weekend = DayProfile.build(
            weights: weights, shift: chronotype + shift, expected: 6 * 0.9,
            sleep: (sleep.start + shift, sleep.length), nightEvents: night)
        #expect(abs(weekday.dailyTotal - (6 + night)) < 1e-9)
        #expect(abs(weekend.dailyTotal - (6 * 0.9 + night)) < 1e-9)
        let nightRate = night / Double(sleep.length)
        for k in 0..<(24 * 12) {
            let tod = SimTime(k) * 5 * Clock.minute + 7 * Clock.second
            let a = Self.rate(weekday, at: tod), b = Self.rate(weekend, at: tod + shift)
            if abs(a - nightRate) < 1e-30 {
                #expect(b == a, "asleep at \(tod)")
            } else {
                #expect(abs(b - 0.9 * a) <= 1e-12 * a, "awake at \(tod)")
            }
        }
    }

    /// In the simulation, weekend opens come 1.5 h later in the day and 0.9 as many.
    /// Times are measured from 05:00 (inside everyone's sleep window, so no day wraps).
    /// Tolerances: 4 standard errors of the difference of mean times; 4 standard errors of
    /// the ratio of counts (Poisson, both arms).
    @Test func weekendShiftInSimulation() {
        var s = Self.base
        s.user.pReopen = 0
        s.user.nightChecksPerNight = 0
        s.population.chronotypeSd = .seconds(0)
        s.user.bedtimeSd = .minutes(20)
        var weekday: [Double] = [], weekend: [Double] = []
        for i in 0..<1500 {
            for t in Self.opens(s, seed: 9, device: i) {
                let hours = Double(((t % Clock.day) - 5 * Clock.hour + Clock.day) % Clock.day) / Double(Clock.hour)
                if Clock.isWeekend(day: Clock.dayIndex(t)) { weekend.append(hours) } else { weekday.append(hours) }
            }
        }
        func meanVar(_ x: [Double]) -> (Double, Double) {
            let m = x.reduce(0, +) / Double(x.count)
            return (m, x.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(x.count - 1))
        }
        let (mWeekday, vWeekday) = meanVar(weekday), (mWeekend, vWeekend) = meanVar(weekend)
        let shiftTolerance =
            Self.standardErrors * (vWeekday / Double(weekday.count) + vWeekend / Double(weekend.count)).squareRoot()
        #expect(abs((mWeekend - mWeekday) - 1.5) < shiftTolerance, "shift \(mWeekend - mWeekday) h ± \(shiftTolerance)")
        // Per day: 20 weekdays and 8 weekend days in four weeks.
        let ratio = (Double(weekend.count) / 8) / (Double(weekday.count) / 20)
        let ratioTolerance =
            Self.standardErrors * ratio * (1 / Double(weekend.count) + 1 / Double(weekday.count)).squareRoot()
        #expect(abs(ratio - 0.9) < ratioTolerance, "weekend level \(ratio) ± \(ratioTolerance)")
    }

    // MARK: Routine users

    /// Routine opens happen at their times with their jitter and probability.
    @Test func routineOpens() {
        var s = TestSupport.cleanScenario(opens: [])
        s.population.routine.opens = [
            Routine.Entry(at: .hours(7.5), jitterSd: .minutes(10), probability: 1),
            Routine.Entry(at: .hours(21), jitterSd: .seconds(0), probability: 0.5),
        ]
        var morning: [Double] = [], evenings = 0
        let devices = 200
        for i in 0..<devices {
            for t in Self.opens(s, seed: 10, device: i) {
                let tod = t % Clock.day
                if tod < 12 * Clock.hour {
                    morning.append(Double(tod - Clock.ticks(seconds: 7.5 * 3600)) / Double(Clock.minute))
                } else {
                    #expect(tod == 21 * Clock.hour)
                    evenings += 1
                }
            }
        }
        let n = Double(devices * Self.days)
        #expect(morning.count == Int(n))
        let mean = morning.reduce(0, +) / n
        let sd = (morning.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / (n - 1)).squareRoot()
        #expect(abs(mean) < Self.standardErrors * 10 / n.squareRoot())
        #expect(abs(sd - 10) < Self.standardErrors * 10 / (2 * n).squareRoot())
        #expect(abs(Double(evenings) - n / 2) < Self.standardErrors * (n / 4).squareRoot())
        // A routine user's usage starts at the expected opens a day.
        #expect(Self.traits(s, seed: 10, device: 0).initialUsage == 1.5)
    }

    /// MODEL.md §6.4 rule 4: a routine user's usage average starts at their own mean opens
    /// per day over the first week (not the routine's expectation): devices.csv's
    /// usage_estimate equals the opens events.csv shows in days 0–6, divided by 7.
    @Test func routineUsageStartsAtTheFirstWeeksMean() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("bgbench-routine-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: out) }
        var output = "", errors = ""
        #expect(
            CommandLineTool.run(
                arguments: [
                    "--set", "population.model=routine", "--policy", "fixed", "--days", "10",
                    "--devices", "4", "--per-device", "--trace-devices", "4", "--out", out, "--quiet",
                ],
                output: &output, errors: &errors) == 0, "\(errors)")
        func rows(_ name: String) throws -> [[String: String]] {
            let lines = try String(contentsOfFile: out + "/" + name, encoding: .utf8).split(separator: "\n").map {
                $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            }
            return lines.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(lines[0], $0)) }
        }
        let events = try rows("events.csv")
        var estimates: Set<String> = []
        for device in try rows("devices.csv") {
            let firstWeek = events.filter {
                $0["device"] == device["device"] && $0["event"] == "open" && Double($0["time_s"]!)! < 7 * 86_400
            }.count
            #expect(Double(device["usage_estimate"]!)! == Double(firstWeek) / 7, "device \(device["device"]!)")
            estimates.insert(device["usage_estimate"]!)
        }
        #expect(estimates.count > 1, "each user's own week, not one expectation for all")
    }
}
