import BGNumerics

/// The exact sums behind ``JointMoments``: with zᵢ device i's vector of a few quantities
/// under every arm of a fleet run (arm-major: arm 0's quantities, then arm 1's, ...), n,
/// Σzᵢ and Σzᵢzᵢᵀ (upper triangle, packed), each an ``ExactSum``: devices add in any order
/// (threads, shards) to the same sums. Its size is fixed, (arms × quantities)² / 2 sums,
/// whatever the fleet.
public struct JointSums: Sendable, Equatable {
    public let arms: Int
    public let quantities: [Quantity]
    public internal(set) var n = 0
    var sums: [ExactSum]
    /// Σ zᵢ zⱼ, the packed upper triangle, row by row.
    var products: [ExactSum]

    public var dimension: Int { arms * quantities.count }

    public init(arms: Int, quantities: [Quantity]) {
        self.arms = arms
        self.quantities = quantities
        let d = arms * quantities.count
        sums = [ExactSum](repeating: ExactSum(), count: d)
        products = [ExactSum](repeating: ExactSum(), count: d * (d + 1) / 2)
    }

    /// Adds one device's vector (arm-major).
    mutating func add(_ z: [Double]) {
        n += 1
        let d = dimension
        var p = 0
        for i in 0..<d {
            sums[i].add(z[i])
            for j in i..<d { products[p].add(z[i] * z[j]); p += 1 }
        }
    }

    /// Adds device `device` of a block: `tallies[arm][device]`, every arm over the same devices.
    mutating func add(_ tallies: [[DeviceTally]], device: Int) {
        var z = [Double](repeating: 0, count: dimension)
        for (a, armTallies) in tallies.enumerated() {
            let values = armTallies[device].values()
            for (j, q) in quantities.enumerated() { z[a * quantities.count + j] = values[q.rawValue] }
        }
        add(z)
    }

    package mutating func merge(_ o: JointSums) {
        n += o.n
        for k in sums.indices { sums[k].add(o.sums[k]) }
        for k in products.indices { products[k].add(o.products[k]) }
    }
}

/// The per-device mean vector and centred cross moments of a few quantities under every
/// arm of a fleet run (`Fleet.simulate(arms:joint:...)`), from their exact sums: the mean
/// z̄ and M = Σᵢ (zᵢ − z̄)(zᵢ − z̄)ᵀ = Σzzᵀ − (Σz)(Σz)ᵀ / n, computed in double-double
/// arithmetic from the exact sums, so the subtraction does not cancel the digits a
/// two-pass computation keeps. Enough for the delta-method interval of any smooth function
/// of the arms' totals (a fresh-open rate interpolated at matched energy, an area under a
/// curve: `FrontierCurves`).
public struct JointMoments: Sendable, Equatable {
    public let arms: Int
    public let quantities: [Quantity]
    public let n: Double
    public let mean: [Double]
    /// The packed upper triangle of M, row by row.
    let comoments: [Double]

    public var dimension: Int { arms * quantities.count }

    public init(arms: Int, quantities: [Quantity]) { self.init(JointSums(arms: arms, quantities: quantities)) }

    public init(_ s: JointSums) {
        arms = s.arms
        quantities = s.quantities
        n = Double(s.n)
        let d = s.arms * s.quantities.count
        let sums = s.sums.map(\.doubleDouble)
        let count = Double(s.n)
        mean = sums.map { count > 0 ? $0.hi / count : 0 }
        var m = [Double](repeating: 0, count: d * (d + 1) / 2)
        if s.n > 0 {
            var p = 0
            for i in 0..<d {
                for j in i..<d {
                    m[p] = Self.centred(s.products[p].doubleDouble, sums[i], sums[j], n: Double(s.n))
                    p += 1
                }
            }
        }
        comoments = m
    }

    /// The moments of devices' vectors (`rows[device]`, arm-major).
    init(arms: Int, quantities: [Quantity], rows: [[Double]]) {
        var s = JointSums(arms: arms, quantities: quantities)
        for row in rows { s.add(row) }
        self.init(s)
    }

    /// Σzᵢzⱼ − Σzᵢ·Σzⱼ / n in double-double arithmetic (Dekker's product with a fused
    /// multiply-add; the quotient corrected by its residual).
    static func centred(
        _ p: (hi: Double, lo: Double), _ a: (hi: Double, lo: Double), _ b: (hi: Double, lo: Double),
        n: Double
    ) -> Double {
        let t = a.hi * b.hi
        let e = (-t).addingProduct(a.hi, b.hi) + a.hi * b.lo + a.lo * b.hi  // a·b ≈ t + e
        let q = t / n
        let qLow = (t.addingProduct(-q, n) + e) / n  // a·b / n ≈ q + qLow
        return (p.hi - q) + (p.lo - qLow)
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
