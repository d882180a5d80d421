#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A generalised linear model's likelihood, row by row, as ``IRLS`` needs it: the data
/// rows' contribution to the deviance and their working response and weight, both at a
/// row's linear predictor η = xᵢ·β. The `nhpp` policy's Poisson log link with an exposure
/// offset and the `logistic` policy's logit link are the two conformances
/// (``PoissonLogLink``, ``LogisticLink``).
public protocol IRLSLink {
    /// Row i's term of the deviance at η (0 for a row that does not count).
    func deviance(row i: Int, eta: Double) -> Double
    /// Row i's working response z and weight w at η: the weighted least squares of z on
    /// the rows with weights w is one Newton step of the likelihood.
    func working(row i: Int, eta: Double) -> (z: Double, w: Double)
}

/// Iteratively reweighted least squares with a ridge on every coefficient but the
/// intercept (column 0): the fit of the `nhpp` and `logistic` policies.
///
/// Each step solves the weighted least squares of the link's working response with its
/// weights, plus one ridge pseudo-observation √ridge·βⱼ = 0 (weight 1) per coefficient
/// j ≥ 1, by its normal equations and a Cholesky factorisation
/// (``WeightedLeastSquares/fitNormalEquations(X:rows:columns:y:w:)``; GSL's SVD,
/// `gsl_multifit_wlinear`, when they are nearly singular). A step that does
/// not lower the penalised deviance D(β) + ridge·Σⱼ≥₁ βⱼ² is halved towards the previous
/// coefficients, at most 8 times (near separation a full Newton step can overshoot).
public enum IRLS {
    /// The coefficients after at most `steps` steps from `start` (warm start: the previous
    /// fit; 1 step for a refit, more to converge), stopping early when no coefficient moves
    /// by more than `tolerance`. `design` holds the data rows (`rows` × `columns`,
    /// row-major, column 0 the intercept). Returns nil if no step succeeded (a GSL failure,
    /// non-finite coefficients, or no improvement): the caller keeps its previous
    /// coefficients.
    @inlinable
    public static func fit<Link: IRLSLink>(
        design data: [Double], rows n: Int, columns p: Int, link: Link,
        ridge: Double, start: [Double], steps: Int,
        tolerance: Double = 1e-4
    ) -> [Double]? {
        guard n > 0, p > 0, data.count == n * p, start.count == p else { return nil }
        // The data rows, then the ridge's pseudo-observations.
        var rows = data
        rows.append(contentsOf: repeatElement(0, count: (p - 1) * p))
        for j in 1..<p { rows[(n + j - 1) * p + j] = ridge.squareRoot() }
        let design = rows
        // Row i of the design times β. Unchecked: callers pass i < n + p − 1 (the design's
        // rows) and a β of (at least) p coefficients, checked once here.
        @inline(__always) func linearPredictor(_ i: Int, _ beta: [Double]) -> Double {
            precondition(i >= 0 && i < n + p - 1 && beta.count >= p)
            return design.withUnsafeBufferPointer { x in
                beta.withUnsafeBufferPointer { b in
                    var eta = 0.0
                    let row = i &* p
                    for j in 0..<p { eta += x[row &+ j] * b[j] }
                    return eta
                }
            }
        }
        func penalisedDeviance(_ beta: [Double]) -> Double {
            var d = 0.0
            for i in 0..<n { d += link.deviance(row: i, eta: linearPredictor(i, beta)) }
            for j in 1..<p { d += ridge * beta[j] * beta[j] }
            return d
        }
        var beta = start
        var deviance = penalisedDeviance(beta)
        var z = [Double](repeating: 0, count: n + p - 1)
        var w = [Double](repeating: 0, count: n + p - 1)
        for j in 1..<p { w[n + j - 1] = 1 }
        var improved = false
        for _ in 0..<max(1, steps) {
            for i in 0..<n {
                (z[i], w[i]) = link.working(row: i, eta: linearPredictor(i, beta))
            }
            // A GSL failure (or non-finite coefficients) ends the fit with what it has.
            guard
                var next = try? WeightedLeastSquares.fitNormalEquations(
                    X: design, rows: n + p - 1, columns: p, y: z, w: w)
            else { break }
            var nextDeviance = penalisedDeviance(next)
            var halvings = 0
            while !(nextDeviance <= deviance) && halvings < 8 {
                for j in 0..<p { next[j] = (next[j] + beta[j]) / 2 }
                nextDeviance = penalisedDeviance(next)
                halvings += 1
            }
            if !(nextDeviance <= deviance) { break }
            let moved = zip(next, beta).reduce(0.0) { max($0, abs($1.0 - $1.1)) }
            beta = next
            deviance = nextDeviance
            improved = true
            if moved < tolerance { break }
        }
        return improved ? beta : nil
    }
}

/// Poisson regression with a log link and an exposure offset, on binned data: row i saw
/// `counts[i]` events over `exposure[i]` (the expected count is m = exposure·e^η, η capped
/// at 30). Rows without exposure do not count. Deviance 2 (y log(y/m) − (y − m)); working
/// response η + (y − m)/m with weight m (η with weight 0 where m ≤ 1e-12).
public struct PoissonLogLink: IRLSLink {
    public let counts: [Double]
    public let exposure: [Double]
    public init(counts: [Double], exposure: [Double]) { self.counts = counts; self.exposure = exposure }

    @inlinable
    public func deviance(row i: Int, eta: Double) -> Double {
        guard exposure[i] > 0 else { return 0 }
        let m = exposure[i] * exp(min(eta, 30)), y = counts[i]
        return 2 * ((y > 0 ? y * log(y / m) : 0) - (y - m))
    }

    @inlinable
    public func working(row i: Int, eta: Double) -> (z: Double, w: Double) {
        let m = exposure[i] > 0 ? exposure[i] * exp(min(eta, 30)) : 0
        return m > 1e-12 ? (eta + (counts[i] - m) / m, m) : (eta, 0)
    }
}

/// Logistic regression with prior weights: row i has label `labels[i]` ∈ {0, 1} and prior
/// weight `weights[i]`. Deviance −2 aᵢ log P(yᵢ | η) (computed without overflow); working
/// response η + (y − π)/(π(1 − π)) with weight a·π(1 − π), π = σ(η) clamped to
/// [1e-6, 1 − 1e-6].
public struct LogisticLink: IRLSLink {
    public let labels: [Double]
    public let weights: [Double]
    public init(labels: [Double], weights: [Double]) { self.labels = labels; self.weights = weights }

    @inlinable
    public func deviance(row i: Int, eta: Double) -> Double {
        // −log σ(η) = log(1 + e^(−η)), −log(1 − σ(η)) = log(1 + e^η), without overflow.
        let e = labels[i] > 0.5 ? -eta : eta
        return 2 * weights[i] * (e > 0 ? e + log1p(exp(-e)) : log1p(exp(e)))
    }

    @inlinable
    public func working(row i: Int, eta: Double) -> (z: Double, w: Double) {
        let pi = min(max(1 / (1 + exp(-eta)), 1e-6), 1 - 1e-6)
        let v = pi * (1 - pi)
        return (eta + (labels[i] - pi) / v, weights[i] * v)
    }
}
