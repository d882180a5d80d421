import Foundation

extension RandomStream {
    /// A gamma draw with this shape and scale 1, by Marsaglia and Tsang's squeeze method
    /// (ACM TOMS 26(3), 2000): for shape a ≥ 1, d = a − 1/3, c = 1/√(9d); draw x normal and
    /// v = (1 + c·x)³ until v > 0 and u < 1 − 0.0331·x⁴ (the squeeze, taken about 98 % of
    /// the time) or log u < x²/2 + d·(1 − v + log v); return d·v. For shape < 1 it uses
    /// Gamma(a) = Gamma(a + 1) · U^(1/a). About 3 % of draws are rejected at a = 1. The
    /// `bayes` policy's Thompson sampling draws from it on the hot path.
    /// - Precondition: shape > 0.
    @inlinable
    public mutating func gamma(shape a: Double) -> Double {
        if a < 1 {
            let boost = exp(log(uniformPositive()) / a)
            return gamma(shape: a + 1) * boost
        }
        let d = a - 1.0 / 3.0
        let c = 1.0 / (9.0 * d).squareRoot()
        while true {
            let x = standardNormal()
            let t = 1 + c * x
            if t <= 0 { continue }
            let v = t * t * t
            let u = uniformPositive()
            let x2 = x * x
            if u < 1 - 0.0331 * x2 * x2 { return d * v }
            if log(u) < 0.5 * x2 + d * (1 - v + log(v)) { return d * v }
        }
    }
}
