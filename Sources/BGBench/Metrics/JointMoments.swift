import BGNumerics

/// The per-device mean vector and centred cross moments of a few quantities under every
/// arm of a fleet run (`Fleet.simulate(arms:joint:...)`): with zᵢ device i's vector
/// (arm-major: arm 0's quantities, then arm 1's, ...), the mean z̄ and M = Σᵢ (zᵢ − z̄)(zᵢ − z̄)ᵀ
/// (upper triangle, packed). Enough for the delta-method interval of any smooth function
/// of the arms' totals (a fresh-open rate interpolated at matched energy, an area under a
/// curve: `FrontierCurves`). Each block's moments are computed in two passes over its
/// devices and blocks are merged in block order (Chan et al.'s pairwise update), so the
/// result does not depend on the thread count and does not cancel the way raw Σzzᵀ would.
/// Its size is fixed, (arms × quantities)² / 2 doubles, whatever the fleet.
public struct JointMoments: Sendable, Equatable {
    public let arms: Int
    public let quantities: [Quantity]
    public private(set) var n = 0.0
    public private(set) var mean: [Double]
    /// The packed upper triangle of M, row by row.
    var comoments: [Double]

    public var dimension: Int { arms * quantities.count }

    public init(arms: Int, quantities: [Quantity]) {
        self.arms = arms
        self.quantities = quantities
        let d = arms * quantities.count
        mean = [Double](repeating: 0, count: d)
        comoments = [Double](repeating: 0, count: d * (d + 1) / 2)
    }

    /// The index of (arm, quantity) in the vector.
    public func index(arm: Int, _ q: Quantity) -> Int { arm * quantities.count + quantities.firstIndex(of: q)! }

    @inline(__always)
    func packed(_ i: Int, _ j: Int) -> Int {
        let (a, b) = i <= j ? (i, j) : (j, i)
        return a * dimension - a * (a - 1) / 2 + (b - a)
    }

    /// M[i, j].
    public func comoment(_ i: Int, _ j: Int) -> Double { comoments[packed(i, j)] }

    /// The moments of one block's devices: `tallies[arm][device]`, every arm over the same devices.
    static func block(_ tallies: [[DeviceTally]], quantities: [Quantity]) -> JointMoments {
        let devices = tallies.first?.count ?? 0
        let k = quantities.count
        var rows = [[Double]](repeating: [Double](repeating: 0, count: tallies.count * k), count: devices)
        for (a, armTallies) in tallies.enumerated() {
            for (i, tally) in armTallies.enumerated() {
                let values = tally.values()
                for (j, q) in quantities.enumerated() { rows[i][a * k + j] = values[q.rawValue] }
            }
        }
        return JointMoments(arms: tallies.count, quantities: quantities, rows: rows)
    }

    /// The moments of devices' vectors (`rows[device]`, arm-major), in two passes.
    init(arms: Int, quantities: [Quantity], rows: [[Double]]) {
        self.init(arms: arms, quantities: quantities)
        guard !rows.isEmpty else { return }
        let d = dimension
        n = Double(rows.count)
        for row in rows { for k in 0..<d { mean[k] += row[k] } }
        for k in 0..<d { mean[k] /= n }
        var centred = [Double](repeating: 0, count: d)
        for row in rows {
            for k in 0..<d { centred[k] = row[k] - mean[k] }
            var p = 0
            for i in 0..<d {
                let ci = centred[i]
                for j in i..<d { comoments[p] += ci * centred[j]; p += 1 }
            }
        }
    }

    /// Adds another set of devices' moments (Chan, Golub & LeVeque's pairwise update).
    mutating func merge(_ o: JointMoments) {
        guard o.n > 0 else { return }
        guard n > 0 else { self = o; return }
        let total = n + o.n
        let d = dimension
        let delta = (0..<d).map { o.mean[$0] - mean[$0] }
        let w = n * o.n / total
        var p = 0
        for i in 0..<d {
            for j in i..<d { comoments[p] += o.comoments[p] + delta[i] * delta[j] * w; p += 1 }
        }
        for k in 0..<d { mean[k] += delta[k] * o.n / total }
        n = total
    }

    /// g at the means, with the delta-method 95 % interval: Var ≈ ∇gᵀ M ∇g / (n(n − 1)), the
    /// device-clustered variance (the same as `Estimators.pairedRatio`'s for a difference of
    /// two ratios), ∇g by central differences; a Student-t quantile with n − 1 degrees of
    /// freedom. nil when g is undefined at the means (NaN).
    public func estimate(_ g: ([Double]) -> Double) -> Estimate? {
        let value = g(mean)
        guard value.isFinite else { return nil }
        guard let t = Estimators.tQuantile(n) else { return Estimate(value) }
        let d = dimension
        var gradient = [Double](repeating: 0, count: d)
        var x = mean
        for k in 0..<d {
            // A step small beside the mean, but above its rounding.
            let h = max(abs(mean[k]), 1e-3) * 1e-6
            x[k] = mean[k] + h
            let up = g(x)
            x[k] = mean[k] - h
            let down = g(x)
            x[k] = mean[k]
            gradient[k] = up.isFinite && down.isFinite ? (up - down) / (2 * h) : 0
        }
        var q = 0.0
        var p = 0
        for i in 0..<d {
            let gi = gradient[i]
            for j in i..<d {
                if gi != 0 && gradient[j] != 0 { q += (i == j ? 1 : 2) * gi * gradient[j] * comoments[p] }
                p += 1
            }
        }
        let half = t * (max(0, q) / (n * (n - 1))).squareRoot()
        return Estimate(value, low: value - half, high: value + half)
    }
}
