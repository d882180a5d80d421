import BGNumerics
import Foundation

/// `logistic` (MODEL.md §7): logistic regression of "an open within the next window" on
///   1, `harmonics` Fourier pairs of the window's time of day, weekend,
///   s = log(1 + hours since the last open) / log(49) (at most 1), charging, Wi-Fi,
/// fitted by IRLS (each step one solve of the normal equations, ``IRLS``). The day is tiled by
/// windows of `window`; each window that ends becomes one observation: its label (an open
/// in it or not) and the features at its start (charging and Wi-Fi as last seen: the
/// policy sees the device only at its callbacks, and every change of charging is one).
///
/// State is bounded by a reservoir of `reservoir` rows: half for windows with an open, half
/// for windows without, those in 16 strata by the time of day of the window (1.5 h each),
/// so that every part of the day keeps some (a stratified case-control sample: without it
/// a routine user's 3 opens a day would be 3 rows in 48, and hours with no rows let the
/// harmonics bulge). A new observation enters its stratum with probability R_s / N_s, N_s
/// the stratum's decayed total (half-life `half_life`), replacing a random row, so the rows
/// are a sample of about the last N_s observations; in the fit each row weighs N_s / (rows
/// of its stratum), which undoes the sampling. Refits come every `refit_days` (and nightly
/// for `refit_days` after a changed routine, ``RoutineChange``) as one warm-started IRLS
/// step (the first fit iterates to convergence).
///
/// The policy wakes `lead` before the first window, starting on a quarter-hour, where P(an
/// open in it) reaches `threshold` (with charging and Wi-Fi as now, and the hours since the
/// last open as they will be then), moved on while the time of day's part of the logit
/// rises. State: the reservoir (4 bytes a row, at most 128 rows), 17 stratum counts and
/// totals, the coefficients, the time part of the logit per quarter-hour (2 × 96 floats),
/// the routine-change profile, a few scalars: 2,132 bytes.
public struct LogisticPolicy: GuardedPolicy {
    public static let name = "logistic"
    public static let summary =
        "statistical: logistic regression of an open in the next window on time, weekday, time since last open, charging, network (IRLS)"

    static let maxHarmonics = 6
    /// IRLS steps of the first fit: from a flat start, 4 to 6 steps come within 1e-4 of the
    /// optimum on the routine user after 1 to 28 days (checked once, by hand).
    static let firstFitSteps = 10
    static let maxRows = 128
    static let quarter = Clock.minute * 15
    /// Window lengths in half-hours that tile a day: 30 min, 1 h, 1.5 h, 2 h, 3 h, 4 h, 6 h.
    static let halfHourCounts = [1, 2, 3, 4, 6, 8, 12]
    /// s at quarter-hour steps of the time since the last open, 0...48 h.
    static let sinceTable: [Float] = (0...192).map { Float(log1p(Double($0) / 4) / log1p(48)) }

    let p: LogisticParameters
    let lead: SimTime
    let windowLength: SimTime
    /// Half a window in quarter-hours: a window starting at quarter q is centred on q + this.
    let halfWindowQuarters: Int
    let harmonics: Int
    let minLogit: Float
    let decay: Float
    /// Rows with an open; each of the 16 strata of rows without one holds half / 16.
    let half: Int
    var wake: WakeGuard
    var random: RandomStream

    // Observation of the windows.
    var window = 0  // global index of the window under way
    var windowHasOpen = false
    var windowRow: UInt32 = 0  // its features, packed, as at its start
    var lastOpen: SimTime?
    var charging = false
    var wifi = false

    // The reservoir in 17 strata: 0 the windows with an open, in rows [0, half); 1...16 those
    // without, by the time of day of their centre (1.5 h each), half / 16 rows each after.
    static let strata = 17
    var rows = InlineArray<128, UInt32>(repeating: 0)
    var filled = InlineArray<17, Int>(repeating: 0)
    /// Decayed observations offered to each stratum.
    var totals = InlineArray<17, Float>(repeating: 0)

    // The model.
    var beta = InlineArray<17, Double>(repeating: 0)
    var fitted = false
    var change: RoutineChange
    /// The day a changed routine was last seen: refits come nightly for `refit_days` after.
    var changedOn = -1_000_000
    /// β₀ + harmonics + weekend for a window centred on each quarter-hour of the day:
    /// [0, 96) weekdays, [96, 192) weekends.
    var timeLogit = InlineArray<192, Float>(repeating: 0)
    /// The largest entry of `timeLogit`: a plan that cannot reach the threshold stops early.
    var maxTimeLogit: Float = 0

    public init(_ context: PolicyContext) {
        p = context.scenario.policies[LogisticPolicy.self]
        lead = p.lead.ticks
        let halfHours = Double(p.window.ticks) / Double(Clock.minute * 30)
        let n = Self.halfHourCounts.min { abs(Double($0) - halfHours) < abs(Double($1) - halfHours) }!
        halfWindowQuarters = n
        windowLength = SimTime(2 * n) * Self.quarter
        harmonics = min(max(p.harmonics, 1), Self.maxHarmonics)
        let theta = min(max(p.threshold, 1e-6), 1 - 1e-6)
        minLogit = Float(log(theta / (1 - theta)))
        decay = dailyDecay(halfLife: p.halfLife)
        half = max(16, min(Self.maxRows, p.reservoir) / 32 * 16)
        wake = WakeGuard(minGap: p.minGap, failureBackoff: p.failureBackoff, killBackoff: p.killBackoff)
        random = context.random
        change = RoutineChange(halfLife: p.halfLife, p.routineChange)
        windowRow = pack(centre: n, weekend: false, sinceQuarters: 192, charging: false, wifi: false)
    }

    var featureCount: Int { 2 * harmonics + 5 }

    // MARK: Rows

    /// A row: the quarter-hour of day of the window's centre (bits 0–9), weekend (10),
    /// quarter-hours since the last open at its start, at most 192 (11–18), charging (19),
    /// Wi-Fi (20), an open in it (21).
    func pack(centre c: Int, weekend: Bool, sinceQuarters q: Int, charging: Bool, wifi: Bool) -> UInt32 {
        UInt32(c) | (weekend ? 1 << 10 : 0) | UInt32(min(q, 192)) << 11 | (charging ? 1 << 19 : 0)
            | (wifi ? 1 << 20 : 0)
    }

    /// cos and sin of k·2π·c/96, k = 1...K, at each quarter-hour of day c (a window's
    /// centre), as `writeHarmonics` writes them (2K values a centre), for K =
    /// 1...maxHarmonics: built once, read by `features` at every refit.
    static let centreHarmonics: [[Double]] = (1...maxHarmonics).map { K in
        var table = [Double](repeating: 0, count: 96 * 2 * K)
        var x = [Double](repeating: 0, count: 2 * K)
        for c in 0..<96 {
            writeHarmonics(step: 2 * c, harmonics: K, into: &x, at: 0)
            for j in 0..<(2 * K) { table[c * 2 * K + j] = x[j] }
        }
        return table
    }

    /// The features of a packed row, written into x.
    static func features(_ row: UInt32, harmonics K: Int, into x: inout [Double]) {
        x[0] = 1
        let c = Int(row & 1023)
        if c < 96 && (1...maxHarmonics).contains(K) {
            let table = centreHarmonics[K - 1]
            for j in 0..<(2 * K) { x[1 + j] = table[c * 2 * K + j] }
        } else {
            writeHarmonics(step: 2 * c, harmonics: K, into: &x, at: 1)
        }
        x[2 * K + 1] = row & (1 << 10) != 0 ? 1 : 0
        x[2 * K + 2] = Double(sinceTable[Int((row >> 11) & 255)])
        x[2 * K + 3] = row & (1 << 19) != 0 ? 1 : 0
        x[2 * K + 4] = row & (1 << 20) != 0 ? 1 : 0
    }

    /// Quarter-hours since the last open at t (192, i.e. 48 h or more, when none yet).
    func sinceQuarters(at t: SimTime) -> Int {
        guard let lastOpen else { return 192 }
        return Int(min(192, (t - lastOpen) / (Clock.minute * 15)))
    }

    /// Ends every window that ended by `now`, each an observation, and starts the next
    /// with the features as they are now (they held since the last callback).
    mutating func advance(to now: SimTime) {
        let current = Int(now / windowLength)
        while window < current {
            observe(windowRow | (windowHasOpen ? 1 << 21 : 0))
            window += 1
            windowHasOpen = false
            let start = SimTime(window) * windowLength
            let centre = Int(start / Self.quarter) + halfWindowQuarters
            windowRow = pack(
                centre: centre % 96, weekend: Clock.isWeekend(day: Clock.dayIndex(start)),
                sinceQuarters: sinceQuarters(at: start), charging: charging, wifi: wifi)
        }
    }

    /// The stratum of a row, its first row and its capacity.
    @inline(__always) func stratum(of row: UInt32) -> Int { row & (1 << 21) != 0 ? 0 : 1 + Int(row & 1023) / 6 }
    @inline(__always) func base(_ s: Int) -> Int { s == 0 ? 0 : half + (s - 1) * (half / 16) }
    @inline(__always) func capacity(_ s: Int) -> Int { s == 0 ? half : half / 16 }

    /// Offers one observation to its stratum of the reservoir.
    mutating func observe(_ row: UInt32) {
        let s = stratum(of: row), capacity = capacity(s), count = filled[s]
        totals[s] += 1
        if count < capacity {
            rows[base(s) + count] = row
            filled[s] = count + 1
        } else if random.uniform() * Double(totals[s]) < Double(capacity) {
            rows[base(s) + random.index(below: capacity)] = row
        }
    }

    // MARK: The fit

    /// Weighted logistic IRLS (``IRLS`` with a ``LogisticLink``): rows of `X` (n × p,
    /// row-major) with labels y ∈ {0, 1} and prior weights a; starts from `start` (or zero)
    /// and takes at most `steps` steps, stopping when no coefficient moves by more than
    /// `tolerance`, with a ridge pseudo-observation per coefficient but the intercept.
    /// Returns nil if no step succeeded: the caller keeps its previous coefficients.
    static func fit(
        X: [Double], columns p: Int, y: [Double], weights a: [Double], ridge: Double,
        start: [Double]?, steps: Int, tolerance: Double = 1e-4
    ) -> [Double]? {
        let n = y.count
        guard n > 0, X.count == n * p else { return nil }
        let beta = start.flatMap { $0.count == p ? $0 : nil } ?? [Double](repeating: 0, count: p)
        return IRLS.fit(
            design: X, rows: n, columns: p, link: LogisticLink(labels: y, weights: a), ridge: ridge,
            start: beta, steps: steps, tolerance: tolerance)
    }

    /// Refits from the reservoir: the first time to convergence (at most `firstFitSteps`
    /// steps), then one warm-started step. A failed fit keeps the previous coefficients
    /// and table.
    mutating func refit() {
        let pCount = featureCount
        var n = 0
        for s in 0..<Self.strata { n += filled[s] }
        var X = [Double](repeating: 0, count: n * pCount), y = [Double](repeating: 0, count: n)
        var a = [Double](repeating: 0, count: n)
        var x = [Double](repeating: 0, count: pCount)
        var i = 0
        for s in 0..<Self.strata {
            for r in 0..<filled[s] {
                Self.features(rows[base(s) + r], harmonics: harmonics, into: &x)
                for j in 0..<pCount { X[i * pCount + j] = x[j] }
                y[i] = s == 0 ? 1 : 0
                a[i] = Double(totals[s]) / Double(filled[s])
                i += 1
            }
        }
        // Scaled to sum to the number of rows: the sampling's correction is in the ratios,
        // and the ridge then weighs like `ridge` rows of evidence per coefficient. (With
        // the unscaled weights, thousands of windows' worth, the ridge vanished and 64
        // rows in 15 dimensions, nearly separable, drove coefficients past 100.)
        let scale = Double(n) / max(a.reduce(0, +), 1e-12)
        for r in 0..<n { a[r] *= scale }
        let start: [Double]? = fitted ? (0..<pCount).map { beta[$0] } : nil
        guard
            let next = Self.fit(
                X: X, columns: pCount, y: y, weights: a, ridge: p.ridge,
                start: start, steps: fitted ? 1 : Self.firstFitSteps)
        else { return }
        for j in 0..<pCount { beta[j] = next[j] }
        fitted = true
        for pass in 0..<2 {
            for c in 0..<96 {
                Self.features(
                    pack(centre: c, weekend: pass == 1, sinceQuarters: 0, charging: false, wifi: false),
                    harmonics: harmonics, into: &x)
                var eta = 0.0
                for c in 0...(2 * harmonics + 1) { eta += next[c] * x[c] }
                timeLogit[pass * 96 + c] = Float(eta)
            }
        }
        maxTimeLogit = -.infinity
        for j in 0..<192 { maxTimeLogit = max(maxTimeLogit, timeLogit[j]) }
    }

    /// The time of day's part of the logit of the window that starts at global quarter-hour q.
    @inline(__always) mutating func timePart(start q: Int) -> Float {
        let centre = q + halfWindowQuarters
        return timeLogit[(Clock.isWeekend(day: centre / 96) ? 96 : 0) + centre % 96]
    }

    /// The model's logit of an open in the window that starts at global quarter-hour q,
    /// as predicted now.
    @inline(__always) mutating func logit(start q: Int) -> Float {
        let centre = q + halfWindowQuarters
        let weekend = Clock.isWeekend(day: centre / 96)
        let K = harmonics
        var eta = timeLogit[(weekend ? 96 : 0) + centre % 96]
        eta += Float(beta[2 * K + 2]) * Self.sinceTable[sinceQuarters(at: SimTime(q) * Self.quarter)]
        if charging { eta += Float(beta[2 * K + 3]) }
        if wifi { eta += Float(beta[2 * K + 4]) }
        return eta
    }

    /// P(an open in the window starting at global quarter-hour q), as predicted now.
    mutating func probability(start q: Int) -> Double { 1 / (1 + exp(-Double(logit(start: q)))) }

    mutating func plan(from t: SimTime, now: SimTime) -> WakeDecision {
        guard fitted else { return .cancel }
        // The most any window's logit can be now: none passes, so no wake (midnight plans again).
        let K = harmonics
        let bound =
            maxTimeLogit + max(0, Float(beta[2 * K + 2])) + (charging ? Float(beta[2 * K + 3]) : 0)
            + (wifi ? Float(beta[2 * K + 4]) : 0)
        if bound < minLogit { return .cancel }
        let earliest = wake.earliest(from: t, now: now)
        var q = Int((earliest + lead + Self.quarter - 1) / Self.quarter)
        let end = q + 2 * 96
        while q < end {
            if logit(start: q) >= minLogit {
                // Up to the peak of the time of day's part of the logit, the hours since the
                // last open held at their value here: they grow along any scan (the
                // model's hazard keeps rising while nothing happens) and would push every
                // wake past the peak of the daily pattern.
                var top = timePart(start: q)
                while q + 1 < end {
                    let next = timePart(start: q + 1)
                    if next > top { top = next; q += 1 } else { break }
                }
                return .request(at: SimTime(q) * Self.quarter - lead)
            }
            q += 1
        }
        return .cancel
    }

    /// Brings the observation up to now, then takes in what the device shows.
    mutating func observe(_ view: DeviceView) {
        advance(to: view.now)
        charging = view.charging
        if view.network != .offline { wifi = view.network == .wifi }
    }

    // MARK: Callbacks

    public mutating func opened(_ view: DeviceView) -> WakeDecision {
        observe(view)
        windowHasOpen = true
        change.open(at: view.now)
        lastOpen = view.now
        return resumed(view)
    }

    /// Charging changed: the prediction did too, so a fitted policy plans again.
    public mutating func stateChanged(_ view: DeviceView) -> WakeDecision {
        observe(view)
        return wake.resume() || (fitted && !wake.waiting) ? plan(from: view.now, now: view.now) : .keep
    }

    public mutating func midnight(_ view: DeviceView) -> WakeDecision {
        observe(view)
        let day = Clock.dayIndex(view.now)
        if change.midnight() {
            // A changed routine: keep a share of each stratum's rows and of its total, so
            // that new windows enter almost surely and soon outnumber the old.
            for s in 0..<Self.strata {
                totals[s] *= change.keep
                filled[s] = Int((Float(filled[s]) * change.keep).rounded(.up))
            }
            changedOn = day
        }
        for s in 0..<Self.strata { totals[s] *= decay }
        var negatives = 0
        for s in 1..<Self.strata { negatives += filled[s] }
        let refitDays = max(1, p.refitDays)
        if fitted ? day % refitDays == 0 || day - changedOn < refitDays : filled[0] >= 2 && negatives >= 2 { refit() }
        return wake.waiting ? .keep : plan(from: view.now, now: view.now)
    }
}

// MARK: - Parameters

public struct LogisticParameters: ParameterSet {
    public init() {}

    public var halfLife = TimeSpan.days(28)
    public var harmonics = 5
    public var window = TimeSpan.minutes(30)
    public var reservoir = 64
    public var ridge = 1.0
    public var refitDays = 7
    public var threshold = 0.1
    public var lead = TimeSpan.minutes(5)
    public var minGap = TimeSpan.hours(2)
    public var failureBackoff = TimeSpan.minutes(30)
    public var killBackoff = TimeSpan.hours(2)
    public var routineChange = RoutineChangeParameters()
}
extension LogisticParameters {
    /// The label windows that tile a day, centred on quarter-hours.
    static let windowHours: [Double] = [0.5, 1, 1.5, 2, 3, 4, 6]

    public static var fields: [ParameterField<Self>] {
        LearningRules.fields(
            halfLife: \.halfLife,
            halfLifeDoc: "half-life of the reservoir's class totals (the weights of its rows); assumption",
            lead: \.lead, minGap: \.minGap, failureBackoff: \.failureBackoff, killBackoff: \.killBackoff) + [
                LearningRules.routineChange(\.routineChange),
                .integer(
                    \.harmonics, "harmonics", "integer", in: 1...6,
                    "Fourier pairs of the time of day (as `nhpp`); assumption, checked on the routine user: 4 put only 58 % of runs in the hour before an open, 5 put 83 %"
                ),
                ParameterField(
                    name: "window", unit: "duration", range: "30m, 1h, 90m, 2h, 3h, 4h or 6h",
                    doc:
                        "the label: an open within this long; the windows tile the day and are centred on quarter-hours"
                ) { p, c, path in
                    if !windowHours.contains(where: { TimeSpan.hours($0) == p.window }) {
                        c.fail(
                            path,
                            "\(p.window) is not a window length that tiles a day: expected one of 30m, 1h, 90m, 2h, 3h, 4h, 6h"
                        )
                    }
                },
                ParameterField(
                    name: "reservoir", unit: "rows", range: "32, 64, 96 or 128",
                    doc:
                        "observations kept (half with an open, half without in 16 strata), each reweighted by its stratum's total; the fit's cost grows with it; assumption: 64 keeps a weekly refit within the cost budget (32 costs about a fifth less and learns the routine a little worse: 81 % of runs before an open against 83 %)"
                ) { p, c, path in
                    if ![32, 64, 96, 128].contains(p.reservoir) {
                        c.fail(
                            path,
                            "\(p.reservoir) is out of range: expected 32, 64, 96 or 128 (half the rows in 16 strata)")
                    }
                },
                .number(
                    \.ridge, "ridge", "number", in: 0.000_001...1_000_000,
                    "prior precision of every coefficient but the intercept (as `nhpp`); assumption"),
                .integer(
                    \.refitDays, "refit_days", "integer", in: 1...28,
                    "days between refits (one warm-started IRLS step each, as `nhpp`)"),
                .number(
                    \.threshold, "threshold", "probability", in: 0.001...0.999,
                    "wake where P(an open within the window) reaches this; assumption (a daily user's busiest half-hour is about 0.2; 0.1 lets such users wake in their busy hours)"
                ),
            ]
    }

    public static var knob: AggressivenessKnob? {
        AggressivenessKnob("threshold", moreAggressive: .lower, sweep: ["0.05", "0.1", "0.2", "0.3"])
    }
}

extension LogisticPolicy { public typealias Parameters = LogisticParameters }
