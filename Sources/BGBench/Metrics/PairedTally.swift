import BGNumerics

/// The sums over devices that compare one metric of a policy (a) with the baseline's (b)
/// device by device: with yᵢ the metric's quantity and xᵢ its denominator on device i
/// (opens for a per-open rate, 1 for a per-device-day mean, resolved tasks for a share),
/// the first and second moments of (y_a, y_b, x_a, x_b) over the devices, cross moments
/// included. Everything the delta-method interval of R_a − R_b needs (Reports/README.md,
/// "paired.csv"). Exact sums (``ExactSum``): devices add in any order to the same numbers.
public struct PairedMoments: Sendable, Equatable {
    /// The sums, in this order; with dᵢ = y_aᵢ − y_bᵢ: Σd, Σd², Σd·x_a. When no device's
    /// denominators differ (x_aᵢ = x_bᵢ: the same opens, x ≡ 1) the interval is computed
    /// from these, which cancel far less than the general sums (d is small beside y).
    enum Sum: Int, CaseIterable {
        case ya, yb, xa, xb, yaya, ybyb, xaxa, xbxb, xaya, xbyb, yayb, yaxb, xayb, xaxb, d, dd, dxa
    }
    var sums = [ExactSum](repeating: ExactSum(), count: Sum.allCases.count)
    /// Devices, and those whose denominators differ (x_aᵢ ≠ x_bᵢ).
    public internal(set) var n = 0.0, unequal = 0.0

    public init() {}

    func sum(_ s: Sum) -> Double { sums[s.rawValue].value }
    public var ya: Double { sum(.ya) }
    public var yb: Double { sum(.yb) }
    public var xa: Double { sum(.xa) }
    public var xb: Double { sum(.xb) }
    public var yaya: Double { sum(.yaya) }
    public var ybyb: Double { sum(.ybyb) }
    public var xaxa: Double { sum(.xaxa) }
    public var xbxb: Double { sum(.xbxb) }
    public var xaya: Double { sum(.xaya) }
    public var xbyb: Double { sum(.xbyb) }
    public var yayb: Double { sum(.yayb) }
    public var yaxb: Double { sum(.yaxb) }
    public var xayb: Double { sum(.xayb) }
    public var xaxb: Double { sum(.xaxb) }
    public var d: Double { sum(.d) }
    public var dd: Double { sum(.dd) }
    public var dxa: Double { sum(.dxa) }

    @inline(__always)
    mutating func add(ya a: Double, yb b: Double, xa u: Double, xb v: Double) {
        n += 1
        if u != v { unequal += 1 }
        let w = a - b
        sums.withUnsafeMutableBufferPointer { s in
            s[0].add(a); s[1].add(b); s[2].add(u); s[3].add(v)
            s[4].add(a * a); s[5].add(b * b); s[6].add(u * u); s[7].add(v * v); s[8].add(u * a); s[9].add(v * b)
            s[10].add(a * b); s[11].add(a * v); s[12].add(u * b); s[13].add(u * v)
            s[14].add(w); s[15].add(w * w); s[16].add(w * u)
        }
    }

    /// Every sum rounded once: what the estimator reads.
    var rounded: Rounded {
        Rounded(
            n: n, unequal: unequal, ya: ya, yb: yb, xa: xa, xb: xb, yaya: yaya, ybyb: ybyb, xaxa: xaxa, xbxb: xbxb,
            xaya: xaya, xbyb: xbyb, yayb: yayb, yaxb: yaxb, xayb: xayb, xaxb: xaxb, d: d, dd: dd, dxa: dxa)
    }
    struct Rounded {
        var n, unequal, ya, yb, xa, xb, yaya, ybyb, xaxa, xbxb, xaya, xbyb, yayb, yaxb, xayb, xaxb, d, dd, dxa: Double
    }

    mutating func merge(_ o: PairedMoments) {
        n += o.n
        unequal += o.unequal
        for k in sums.indices { sums[k].add(o.sums[k]) }
    }
}

/// One paired comparison: the policy's and the baseline's estimates, and the difference
/// with its 95 % interval (nil below two devices or when undefined).
public struct PairedEstimate: Sendable, Equatable {
    public var policy: Double
    public var baseline: Double
    public var difference: Estimate
    /// Whether the interval lies wholly above or below zero (nil without an interval).
    public var excludesZero: Bool? {
        guard let low = difference.low, let high = difference.high else { return nil }
        return low > 0 || high < 0
    }
}

extension Estimators {
    /// R_a − R_b = Σy_a/Σx_a − Σy_b/Σx_b over the same devices, with the cluster-robust
    /// (delta-method) variance n/(n−1) · Σᵢ eᵢ², where eᵢ = (y_aᵢ − R_a·x_aᵢ)/X_a −
    /// (y_bᵢ − R_b·x_bᵢ)/X_b is device i's linearised contribution, expanded in the sums:
    /// Σe² = S_a/X_a² + S_b/X_b² − 2·C/(X_a·X_b), S_a = Σy_a² − 2R_a·Σx_a·y_a + R_a²·Σx_a²,
    /// S_b likewise, C = Σy_a·y_b − R_b·Σy_a·x_b − R_a·Σx_a·y_b + R_a·R_b·Σx_a·x_b; a
    /// Student-t quantile with n − 1 degrees of freedom. With x ≡ 1 it is the paired
    /// t-interval of the mean difference; with x_a = x_b on every device (the same opens)
    /// it is `ratio` applied to dᵢ = y_aᵢ − y_bᵢ, and computed so from Σd, Σd², Σd·x.
    public static func pairedRatio(_ moments: PairedMoments, scale: Double = 1) -> PairedEstimate {
        let m = moments.rounded
        guard m.xa > 0, m.xb > 0 else {
            return PairedEstimate(policy: .nan, baseline: .nan, difference: Estimate(.nan))
        }
        let ra = m.ya / m.xa, rb = m.yb / m.xb
        let policy = ra * scale, baseline = rb * scale
        // The same denominators on every device: D = Σd / Σx and Σe² = (Σd² − 2D·Σd·x +
        // D²·Σx²) / (Σx)², the ratio interval of d (no cancellation against y's size).
        let same = m.unequal == 0
        let d = same ? m.d / m.xa : ra - rb
        guard let t = tQuantile(m.n) else {
            return PairedEstimate(policy: policy, baseline: baseline, difference: Estimate(d * scale))
        }
        let sum: Double
        if same {
            sum = (m.dd - 2 * d * m.dxa + d * d * m.xaxa) / (m.xa * m.xa)
        } else {
            let sa = m.yaya - 2 * ra * m.xaya + ra * ra * m.xaxa
            let sb = m.ybyb - 2 * rb * m.xbyb + rb * rb * m.xbxb
            let c = m.yayb - rb * m.yaxb - ra * m.xayb + ra * rb * m.xaxb
            sum = sa / (m.xa * m.xa) + sb / (m.xb * m.xb) - 2 * c / (m.xa * m.xb)
        }
        let se = (max(0, sum) * m.n / (m.n - 1)).squareRoot()
        let half = t * se * abs(scale)
        return PairedEstimate(
            policy: policy, baseline: baseline,
            difference: Estimate(d * scale, low: d * scale - half, high: d * scale + half))
    }
}

/// A metric that splits by device, as paired.csv compares it: its quantity y, its
/// denominator x, and the scale of its estimate.
public struct PairedMetric: Sendable {
    public enum Denominator: Sendable, Equatable {
        /// A mean over devices (x ≡ 1).
        case device
        /// A ratio over opens.
        case opens
        /// A share: y / (y + missed).
        case resolved(missed: Quantity)
    }
    public let metric: Metric
    public let quantity: Quantity
    public let denominator: Denominator

    /// The metric as paired.csv compares it; nil for one that does not split by device (a
    /// quantile of the fleet's staleness histogram).
    public init?(_ metric: Metric) {
        self.metric = metric
        switch metric.kind {
        case .perOpen(let q): quantity = q; denominator = .opens
        case .perDeviceDay(let q), .batteryPercentPerDay(let q), .perServerJob(let q):
            quantity = q; denominator = .device
        case .share(let q, let missed): quantity = q; denominator = .resolved(missed: missed)
        case .stalenessQuantile: return nil
        }
    }

    @inline(__always)
    func x(_ v: [Double]) -> Double {
        switch denominator {
        case .device: 1
        case .opens: v[Quantity.opens.rawValue]
        case .resolved(let missed): v[quantity.rawValue] + v[missed.rawValue]
        }
    }

    /// The comparison from its moments: per device-day metrics divided by the counted
    /// days (and in % of the battery for `batteryPercentPerDay`); a per-server-job metric
    /// is empty when neither run had server jobs, as in summary.csv.
    public func estimate(_ m: PairedMoments, days: Int, batteryJoules: Double, serverJobs: Bool) -> PairedEstimate {
        switch metric.kind {
        case .perOpen, .share: return Estimators.pairedRatio(m)
        case .perDeviceDay: return Estimators.pairedRatio(m, scale: 1 / Double(max(1, days)))
        case .batteryPercentPerDay: return Estimators.pairedRatio(m, scale: 100 / batteryJoules / Double(max(1, days)))
        case .perServerJob:
            return serverJobs
                ? Estimators.pairedRatio(m, scale: 1 / Double(max(1, days)))
                : PairedEstimate(policy: .nan, baseline: .nan, difference: Estimate(.nan))
        case .stalenessQuantile: return PairedEstimate(policy: .nan, baseline: .nan, difference: Estimate(.nan))
        }
    }
}

/// A policy's device-by-device comparison with the baseline policy over a set of devices:
/// one ``PairedMoments`` per metric of ``MetricTable/pairedMetrics``. Its size is fixed
/// (17 exact sums and two counts a metric), whatever the fleet: the fleet keeps one per
/// policy and worker.
public struct PairedTally: Sendable, Equatable {
    public internal(set) var moments = Self.empty
    /// The same comparison within each archetype, by index into
    /// ``FleetResult/archetypeNames`` (as far as the highest archetype a device had):
    /// paired-archetypes.csv.
    public internal(set) var archetypes: [[PairedMoments]] = []
    public var devices: Int { Int(moments.first?.n ?? 0) }

    static let empty = [PairedMoments](repeating: PairedMoments(), count: MetricTable.pairedMetrics.count)

    public init() {}

    /// Adds one device's values under the policy (a) and the baseline (b), in ``Quantity``
    /// order, to the fleet's moments and its archetype's.
    mutating func add(policy a: [Double], baseline b: [Double], archetype: Int) {
        if archetypes.count <= archetype {
            archetypes += Array(repeating: Self.empty, count: archetype + 1 - archetypes.count)
        }
        for (k, metric) in MetricTable.pairedMetrics.enumerated() {
            let q = metric.quantity.rawValue
            let xa = metric.x(a), xb = metric.x(b)
            moments[k].add(ya: a[q], yb: b[q], xa: xa, xb: xb)
            archetypes[archetype][k].add(ya: a[q], yb: b[q], xa: xa, xb: xb)
        }
    }

    package mutating func merge(_ other: PairedTally) {
        for k in moments.indices { moments[k].merge(other.moments[k]) }
        if archetypes.count < other.archetypes.count {
            archetypes += Array(repeating: Self.empty, count: other.archetypes.count - archetypes.count)
        }
        for (a, list) in other.archetypes.enumerated() {
            for k in list.indices { archetypes[a][k].merge(list[k]) }
        }
    }

    /// Adds the comparisons of a block's devices (`archetypes`: each device's), device by device: for each pair, its
    /// arm's tallies against its baseline arm's (into the pair's entry of `result`). Each
    /// arm's values are read once per device.
    static func add(
        _ tallies: [[DeviceTally]], archetypes: [Int], pairs: [ArmPair], into result: inout [PairedTally]
    ) {
        var values = [[Double]](repeating: [], count: tallies.count)
        for i in tallies[pairs[0].baseline].indices {
            for pair in pairs {
                if values[pair.arm].isEmpty { values[pair.arm] = tallies[pair.arm][i].values() }
                if values[pair.baseline].isEmpty { values[pair.baseline] = tallies[pair.baseline][i].values() }
            }
            for (k, pair) in pairs.enumerated() {
                result[k].add(policy: values[pair.arm], baseline: values[pair.baseline], archetype: archetypes[i])
            }
            for a in values.indices { values[a].removeAll(keepingCapacity: true) }
        }
    }

}
