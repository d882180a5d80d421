import BGNumerics
import Foundation

/// `nhpp` (MODEL.md §7): opens as a non-homogeneous Poisson process whose log intensity is
/// linear in `harmonics` Fourier pairs of the time of day and a weekend indicator,
///   log λ(t) = β₀ + Σₖ (aₖ cos 2πk·h/24 + bₖ sin 2πk·h/24) + γ·weekend,
/// fitted by Poisson IRLS (each step one solve of the normal equations, ``IRLS``) from binned
/// sufficient statistics: the decayed opens per hour of the week and the decayed exposure
/// of each weekday, pooled into 48 rows (hour of day × weekday/weekend; rows with the same
/// covariates pool exactly in a Poisson likelihood). Refits come every `refit_days` (and
/// nightly for `refit_days` after a changed routine, ``RoutineChange``) as one
/// warm-started IRLS step; the first fit iterates to convergence.
///
/// It wakes where the expected staleness a wake saves per joule is highest:
/// - F(w): the chance that the next open after a fetch at w finds it still fresh (no item
///   in between), from λ and the item rate μ = 1/`item_interval` (see `freshChances`);
/// - S(a) = a − (1 − e^(−μa))/μ: the expected staleness of an open that meets a cache of
///   age a (the time since the first item it misses);
/// - saving(w) ≈ F(w) · S(w − c), c the last fetch (run or open): the next open's staleness
///   that the wake takes away when it makes that open fresh (the partial gain of a wake
///   that does not keep the open fresh is left out, so the estimate is low);
/// - E(w): a run's energy on Wi-Fi or cellular (`RunEnergyEstimate`) weighted by the share
///   of Wi-Fi the policy has seen at that hour of day.
/// A plan takes the first 15 min slot where saving/E reaches `min_saving_per_joule` and
/// moves on to the peak of F/E that follows (one wake per rising stretch). State: the
/// counts (about 750 bytes), the coefficients, F for 2 × 96 slots, 24 Wi-Fi shares
/// and the routine-change profile (2,168 bytes in all).
public struct NHPPPolicy: GuardedPolicy {
    public static let name = "nhpp"
    public static let summary =
        "statistical: Poisson regression of opens on time-of-day harmonics and weekend (IRLS); wake where staleness saved per joule peaks"

    static let slot = Clock.minute * 15
    static let slotsPerDay = 96
    static let maxHarmonics = 6
    /// IRLS steps of the first fit: from a flat start, 4 to 6 steps come within 1e-4 of the
    /// optimum on the routine user after 1 to 28 days (checked once, by hand).
    static let firstFitSteps = 10

    let p: NHPPParameters
    let lead: SimTime
    let energy: RunEnergyEstimate
    /// μ in 1/s.
    let itemRate: Double
    var wake: WakeGuard
    var histogram: HourOfWeekCounts
    var change: RoutineChange
    /// The day a changed routine was last seen: refits come nightly for `refit_days` after.
    var changedOn = -1_000_000
    /// The coefficients: intercept, harmonic pairs, weekend (2K + 2 used).
    var beta = InlineArray<14, Double>(repeating: 0)
    var fitted = false
    /// F per slot: [0, 96) weekdays, [96, 192) weekends.
    var fresh = InlineArray<192, Float>(repeating: 0)
    /// Share of Wi-Fi seen at each hour of day (exponentially weighted, from 0.5).
    var wifiShare = InlineArray<24, Float>(repeating: 0.5)
    var cellularJ: Double
    var lastFetch: SimTime = 0
    var runStart: SimTime = 0

    public init(_ context: PolicyContext) {
        p = context.scenario.policies[NHPPPolicy.self]
        lead = p.lead.ticks
        energy = RunEnergyEstimate(context.scenario)
        cellularJ = energy.lte
        itemRate = 1 / max(p.itemInterval.seconds, 1)
        wake = WakeGuard(minGap: p.minGap, failureBackoff: p.failureBackoff, killBackoff: p.killBackoff)
        histogram = HourOfWeekCounts(halfLife: p.halfLife)
        change = RoutineChange(halfLife: p.halfLife, p.routineChange)
    }

    // MARK: The model

    /// The covariates at a time of day given in 7.5 min steps (0..<192) and day type: 1,
    /// cos and sin of 2πk·h/24 for k = 1...K, weekend. Written into `x` (2K + 2 values).
    static func covariates(step: Int, weekend: Bool, harmonics K: Int, into x: inout [Double]) {
        x[0] = 1
        writeHarmonics(step: step, harmonics: K, into: &x, at: 1)
        x[1 + 2 * K] = weekend ? 1 : 0
    }

    /// λ in opens per hour at hour of day h (any real h) for coefficients β.
    static func intensity(_ beta: [Double], hour h: Double, weekend: Bool, harmonics K: Int) -> Double {
        var eta = beta[0] + (weekend ? beta[1 + 2 * K] : 0)
        for k in 1...K {
            let a = 2 * Double.pi * Double(k) * h / 24
            eta += beta[2 * k - 1] * cos(a) + beta[2 * k] * sin(a)
        }
        return exp(min(eta, 30))
    }

    /// λ at a time of day in 7.5 min steps, with `scratch` (2K + 2 values) for the covariates.
    static func intensity(
        _ beta: [Double], step: Int, weekend: Bool, harmonics K: Int,
        scratch x: inout [Double]
    ) -> Double {
        covariates(step: step, weekend: weekend, harmonics: K, into: &x)
        return intensity(beta, covariates: x, at: 0)
    }

    /// λ for the covariates `x[offset..<offset + β.count]` (a row of a table of them).
    static func intensity(_ beta: [Double], covariates x: [Double], at offset: Int) -> Double {
        // The row's bounds checked once; the loop then reads unchecked.
        precondition(offset >= 0 && offset <= x.count - beta.count)
        let eta = beta.withUnsafeBufferPointer { b in
            x.withUnsafeBufferPointer { x in
                var eta = 0.0
                for j in 0..<b.count { eta += b[j] * x[offset &+ j] }
                return eta
            }
        }
        return exp(min(eta, 30))
    }

    /// `count` rows of covariates (row-major, 2K + 2 columns), row r at `at(r)`.
    static func covariateRows(_ count: Int, harmonics K: Int, _ at: (Int) -> (step: Int, weekend: Bool)) -> [Double] {
        let p = 2 * K + 2
        var table = [Double](repeating: 0, count: count * p)
        var x = [Double](repeating: 0, count: p)
        for r in 0..<count {
            let (step, weekend) = at(r)
            covariates(step: step, weekend: weekend, harmonics: K, into: &x)
            for j in 0..<p { table[r * p + j] = x[j] }
        }
        return table
    }

    /// The fit's 48 rows of covariates: the centres of the hours of weekdays, then of
    /// weekends. They never change, so `fit` reads them from `designs`.
    static func design(harmonics K: Int) -> [Double] {
        covariateRows(48, harmonics: K) { r in (8 * (r % 24) + 4, r >= 24) }
    }

    /// `design(harmonics:)` for K = 1...maxHarmonics, built once.
    static let designs: [[Double]] = (1...maxHarmonics).map { design(harmonics: $0) }

    /// The covariates at the centre of each quarter-hour (step 2j + 1), 96 weekday rows then
    /// 96 weekend rows (row-major, 2K + 2 columns), for K = 1...maxHarmonics, built once:
    /// F's λ per slot is the dot product of a row with β, summed in the order `intensity`
    /// sums it.
    static let slotCovariates: [[Double]] = (1...maxHarmonics).map { K in
        covariateRows(2 * slotsPerDay, harmonics: K) { r in (2 * (r % slotsPerDay) + 1, r >= slotsPerDay) }
    }

    /// Poisson IRLS on binned data (``IRLS`` with a ``PoissonLogLink``): `counts[r]` opens
    /// over `exposure[r]` hours in row r, rows 0..<24 the hours of weekdays and 24..<48
    /// those of weekends (the hour's centre is its covariate). Starts from `start` (or a
    /// flat rate) and takes at most `steps` steps, stopping when no coefficient moves by
    /// more than `tolerance`, with a ridge pseudo-observation per coefficient but the
    /// intercept. Returns nil if no step succeeded: the caller keeps its previous
    /// coefficients.
    static func fit(
        counts: [Double], exposure: [Double], harmonics K: Int, ridge: Double,
        start: [Double]?, steps: Int, tolerance: Double = 1e-4
    ) -> [Double]? {
        let p = 2 * K + 2, rows = 48
        let design = (1...maxHarmonics).contains(K) ? designs[K - 1] : Self.design(harmonics: K)
        var beta: [Double]
        if let start, start.count == p {
            beta = start
        } else {
            let total = counts.reduce(0, +), hours = exposure.reduce(0, +)
            guard hours > 0 else { return nil }
            beta = [Double](repeating: 0, count: p)
            beta[0] = log(max(total, 0.5) / hours)
        }
        return IRLS.fit(
            design: design, rows: rows, columns: p, link: PoissonLogLink(counts: counts, exposure: exposure),
            ridge: ridge, start: beta, steps: steps, tolerance: tolerance)
    }

    /// Refits from the counts: the first time (and the first after a changed routine) to
    /// convergence (at most `firstFitSteps` steps), later one warm-started step. A failed
    /// fit keeps the previous coefficients (and F).
    mutating func refit() {
        let K = min(max(p.harmonics, 1), Self.maxHarmonics), pCount = 2 * K + 2
        var counts = [Double](repeating: 0, count: 48), exposure = [Double](repeating: 0, count: 48)
        for d in 0..<7 {
            let offset = Clock.isWeekend(day: d) ? 24 : 0
            for h in 0..<24 {
                counts[offset + h] += Double(histogram.counts[d * 24 + h])
                exposure[offset + h] += Double(histogram.exposure[d])
            }
        }
        let start: [Double]? = fitted ? (0..<pCount).map { beta[$0] } : nil
        guard
            let next = Self.fit(
                counts: counts, exposure: exposure, harmonics: K, ridge: p.ridge,
                start: start, steps: fitted ? 1 : Self.firstFitSteps)
        else { return }
        for j in 0..<pCount { beta[j] = next[j] }
        fitted = true
        // F per slot from λ at each slot's centre (step 2j + 1 of quarter-hour j): the
        // covariates come from `slotCovariates`, λ from `intensity(_:covariates:at:)`.
        let table = Self.slotCovariates[K - 1]
        let muPerSlot = itemRate * Clock.seconds(Self.slot)
        for pass in 0..<2 {
            var values = InlineArray<96, Float>(repeating: 0)
            for j in 0..<Self.slotsPerDay {
                let row = (pass * Self.slotsPerDay + j) * pCount
                values[j] = Float(Self.intensity(next, covariates: table, at: row) * 24 / Double(Self.slotsPerDay))
            }
            freshChances(&values, itemsPerSlot: muPerSlot)
            for j in 0..<Self.slotsPerDay { fresh[pass * Self.slotsPerDay + j] = values[j] }
        }
    }

    /// Expected energy of a run at hour of day h.
    @inline(__always) mutating func joules(hour h: Int) -> Double {
        let s = Double(wifiShare[h])
        return s * energy.wifi + (1 - s) * cellularJ
    }

    /// S(a): expected staleness (s) of an open that meets a cache of age a (s).
    @inline(__always) func staleness(age a: Double) -> Double {
        a <= 0 ? 0 : a + expm1(-itemRate * a) / itemRate
    }

    @inline(__always) mutating func freshChance(slot k: Int) -> Float {
        let day = k / Self.slotsPerDay
        return fresh[(Clock.isWeekend(day: day) ? Self.slotsPerDay : 0) + k % Self.slotsPerDay]
    }

    mutating func plan(from t: SimTime, now: SimTime) -> WakeDecision {
        guard fitted else { return .cancel }
        let earliest = wake.earliest(from: t, now: now)
        var k = Int((earliest + lead + Self.slot - 1) / Self.slot)
        let end = k + 2 * Self.slotsPerDay
        while k < end {
            let joules = joules(hour: (k % Self.slotsPerDay) / 4)
            let chance = freshChance(slot: k)
            let age = Clock.seconds(SimTime(k) * Self.slot - lead - lastFetch), needed = p.minSavingPerJoule * joules
            // S(a) ≤ max(a, 0) (also as rounded), so where F·max(a, 0) falls short, F·S(a)
            // does too: the expm1 of S is computed only where it can decide.
            if Double(chance) * max(age, 0) >= needed, Double(chance) * staleness(age: age) >= needed {
                // Then, among the slots up to the open this one aims at (while F rises),
                // the one with the most F per joule. Stopping at the first dip of F per
                // joule woke hours early wherever E steps up (an hour the policy has not
                // yet seen on Wi-Fi after one it has), and spent the budget the wake just
                // before the open needed.
                var best = k, top = chance / Float(joules), f = chance
                var j = k
                while j + 1 < end {
                    let next = freshChance(slot: j + 1)
                    if next <= f { break }
                    j += 1
                    f = next
                    let perJoule = next / Float(self.joules(hour: (j % Self.slotsPerDay) / 4))
                    if perJoule > top { top = perJoule; best = j }
                }
                return .request(at: SimTime(best) * Self.slot - lead)
            }
            k += 1
        }
        return .cancel
    }

    /// What the device shows of its network: the Wi-Fi share of this hour, and which
    /// cellular network it uses.
    mutating func observe(_ view: DeviceView) {
        let h = Clock.hourOfDay(view.now)
        switch view.network {
        case .offline: return
        case .wifi: wifiShare[h] += 0.1 * (1 - wifiShare[h])
        case .lte: wifiShare[h] -= 0.1 * wifiShare[h]; cellularJ = energy.lte
        case .nr5g: wifiShare[h] -= 0.1 * wifiShare[h]; cellularJ = energy.nr5g
        }
    }

    // MARK: Callbacks

    public mutating func opened(_ view: DeviceView) -> WakeDecision {
        observe(view)
        histogram.open(at: view.now)
        change.open(at: view.now)
        lastFetch = view.now  // fresh, or fetched in the foreground: no item missed as of now
        return resumed(view)
    }

    public mutating func runStarted(_ view: DeviceView) -> WakeDecision {
        observe(view)
        wake.runStarted(at: view.now)
        runStart = view.now
        return .keep
    }

    public mutating func runEnded(_ status: RunStatus, _ view: DeviceView) -> WakeDecision {
        wake.runEnded(status, at: view.now)
        if status == .newData || status == .noData { lastFetch = max(lastFetch, runStart) }
        return plan(from: view.now, now: view.now)
    }

    public mutating func midnight(_ view: DeviceView) -> WakeDecision {
        observe(view)
        let day = Clock.dayIndex(view.now)
        if change.midnight() {
            histogram.forget(change.keep)
            changedOn = day
            // Fit the new routine as a first fit, from a flat start to convergence, rather
            // than one step from the old routine's coefficients (which put the new hours at
            // λ ≈ 0, far from the optimum: the usual GLM starting values instead).
            fitted = false
        }
        histogram.midnight(at: view.now)
        let refitDays = max(1, p.refitDays)
        if fitted ? day % refitDays == 0 || day - changedOn < refitDays : histogram.opensPerDay > 0 { refit() }
        return wake.waiting ? .keep : plan(from: view.now, now: view.now)
    }
}

// MARK: - Parameters

public struct NHPPParameters: ParameterSet {
    public init() {}

    public var halfLife = TimeSpan.days(28)
    public var harmonics = 5
    public var ridge = 0.1
    public var refitDays = 7
    public var itemInterval = TimeSpan.minutes(30)
    public var minSavingPerJoule = 60.0
    public var lead = TimeSpan.minutes(1)
    public var minGap = TimeSpan.hours(2)
    public var failureBackoff = TimeSpan.minutes(30)
    public var killBackoff = TimeSpan.hours(2)
    public var routineChange = RoutineChangeParameters(keep: 0)
}
extension NHPPParameters {
    public static var fields: [ParameterField<Self>] {
        LearningRules.fields(
            halfLife: \.halfLife,
            halfLifeDoc:
                "half-life of what `nhpp` learns, the hour-of-week counts and exposures the fit reads (as `histogram`); assumption",
            lead: \.lead, minGap: \.minGap, failureBackoff: \.failureBackoff, killBackoff: \.killBackoff) + [
                LearningRules.routineChange(
                    \.routineChange,
                    "when the policy judges that the user's routine changed; `keep` 0 for `nhpp` (policies.md, \"A changed routine\"), not 0.02: a wake must save staleness per joule, and on Wi-Fi (0.7 J) a wake that saves 42 s passes, so 2 % of the old routine still drew cheap wakes to its hours, which took the budget the new hours needed (issue 3's 4 h shift at `ridge` 0.3: 73 % of the old rate regained with 0.02, 97 % with 0)"
                ),
                .integer(
                    \.harmonics, "harmonics", "integer", in: 1...6,
                    "Fourier pairs of the time of day in log λ; assumption, checked on issue 3's routine user: with 5, 79 % of runs start in the hour before an open; with 4, 60 %; with 3, 52 %"
                ),
                .number(
                    \.ridge, "ridge", "number", in: 0.000_001...1_000_000,
                    "prior precision of every coefficient but the intercept (ridge pseudo-observations: keeps the fit finite when most hours have no opens); assumption, checked on issue 3's 4 h shift: a week after a changed routine the fit has a week of data, and 1 flattened the new routine's peaks (16 devices × 48 seeds, `routine_change.keep` 0: 85 % of the old rate regained with 1, 97 % with 0.3, 105 % with 0.1; the default scenario's fresh-open rate moved by less than 0.1 point)"
                ),
                .integer(
                    \.refitDays, "refit_days", "integer", in: 1...28,
                    "days between refits (one warm-started IRLS step each; the first fit iterates to convergence); weekly keeps the cost within 3× `fixed` (policies.md)"
                ),
                .duration(
                    \.itemInterval, "item_interval", in: .minutes(1)...(.days(7)),
                    "mean time between content items, 1/μ, for the chance that a wake's fetch is still fresh at the next open; MODEL.md §5: 48 a day"
                ),
                .number(
                    \.minSavingPerJoule, "min_saving_per_joule", "s/J", in: 0...1_000_000,
                    "least expected staleness saved per joule for a wake; assumption: one minute per joule (an LTE wake of about 13.6 J must save about 14 min)"
                ),
            ]
    }

    public static var knob: AggressivenessKnob? {
        AggressivenessKnob("min_saving_per_joule", moreAggressive: .lower, sweep: ["15", "30", "60", "120", "240"])
    }
}

extension NHPPPolicy { public typealias Parameters = NHPPParameters }
