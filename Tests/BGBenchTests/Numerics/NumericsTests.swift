import BGNumerics
import Foundation
import Testing
@testable import BGBench

/// The GSL wrappers of BGNumerics against known values (reference values from SciPy 1.17
/// and closed forms), and the Marsaglia–Tsang gamma sampler against GSL's gamma
/// distribution.
@Suite struct NumericsTests {
    /// Agreement with a reference value given to 16 digits: a few ulps of rounding.
    static let closeRelative = 1e-12

    static func close(_ a: Double, _ b: Double, _ tolerance: Double = closeRelative) -> Bool {
        abs(a - b) <= tolerance * max(1, abs(b))
    }

    // MARK: WeightedLeastSquares

    /// Points on y = 2 + 3x are fitted exactly, whatever the weights.
    @Test func leastSquaresFitsALineExactly() throws {
        let xs: [Double] = [0, 1, 2, 3, 4]
        let X: [Double] = xs.flatMap { [1.0, $0] }
        let y = xs.map { 2 + 3 * $0 }
        let c = try WeightedLeastSquares.fit(X: X, rows: 5, columns: 2, y: y, w: [1, 2, 3, 4, 5])
        #expect(Self.close(c[0], 2) && Self.close(c[1], 3), "\(c)")
    }

    /// One constant column: the coefficient is the weighted mean Σwy/Σw; and a zero weight
    /// leaves its row out (weighted least squares, not a mean of all rows).
    @Test func leastSquaresWeighsRows() throws {
        let y: [Double] = [1, 2, 6, 100]
        let w: [Double] = [1, 1, 2, 0]
        let c = try WeightedLeastSquares.fit(X: [1, 1, 1, 1], rows: 4, columns: 1, y: y, w: w)
        #expect(Self.close(c[0], (1 + 2 + 12) / 4.0), "\(c)")
    }

    /// A known two-column weighted fit, solved by hand from the normal equations:
    /// x = (0, 1, 2), y = (1, 2, 4), w = (1, 1, 2): XᵀWX = [[4, 5], [5, 9]], XᵀWy = [11, 18],
    /// so c = (9·11 − 5·18, 4·18 − 5·11) / 11 = (9/11, 17/11).
    @Test func leastSquaresMatchesNormalEquations() throws {
        let c = try WeightedLeastSquares.fit(X: [1, 0, 1, 1, 1, 2], rows: 3, columns: 2, y: [1, 2, 4], w: [1, 1, 2])
        #expect(Self.close(c[0], 9.0 / 11) && Self.close(c[1], 17.0 / 11), "\(c)")
    }

    /// Shapes that disagree, or fewer rows than columns, throw a GSLError naming the GSL
    /// function rather than crash.
    @Test func leastSquaresRejectsBadShapes() {
        #expect(throws: GSLError.self) {
            try WeightedLeastSquares.fit(X: [1, 2, 3], rows: 2, columns: 2, y: [1, 2], w: [1, 1])
        }
        #expect(throws: GSLError.self) { try WeightedLeastSquares.fit(X: [1, 2], rows: 1, columns: 2, y: [1], w: [1]) }
        do {
            _ = try WeightedLeastSquares.fit(X: [1], rows: 1, columns: 1, y: [1, 2], w: [1])
            Issue.record("expected a GSLError")
        } catch {
            #expect(error.function == "gsl_multifit_wlinear" && error.status != 0)
            #expect(error.description.hasPrefix("gsl: gsl_multifit_wlinear failed: "))
        }
    }

    /// The normal equations' Cholesky solve agrees with GSL's SVD to rounding on a
    /// well-conditioned weighted fit (6 rows, 3 columns, one row without weight), and gives
    /// the hand-solved answer of `leastSquaresMatchesNormalEquations`.
    @Test func normalEquationsAgreeWithTheSVD() throws {
        let X: [Double] = [1, 0, 0.5, 1, 1, -0.2, 1, 2, 0.9, 1, 3, -1, 1, 4, 0.3, 1, 5, 2]
        let y: [Double] = [0.7, 2.1, 3.3, 3.9, 6.2, 8]
        let w: [Double] = [1, 0.5, 2, 3, 0, 1.5]
        let svd = try WeightedLeastSquares.fit(X: X, rows: 6, columns: 3, y: y, w: w)
        let cholesky = try WeightedLeastSquares.fitNormalEquations(X: X, rows: 6, columns: 3, y: y, w: w)
        for (a, b) in zip(cholesky, svd) { #expect(Self.close(a, b), "\(cholesky) against \(svd)") }
        let c = try WeightedLeastSquares.fitNormalEquations(
            X: [1, 0, 1, 1, 1, 2], rows: 3, columns: 2, y: [1, 2, 4], w: [1, 1, 2])
        #expect(Self.close(c[0], 9.0 / 11) && Self.close(c[1], 17.0 / 11), "\(c)")
    }

    /// Two equal columns make XᵀWX singular (its second pivot is 0): the solve hands the
    /// system to the SVD, whose minimum-norm answer splits the weighted mean 15/4 between
    /// the two; the same numbers as `fit` to the bit. Bad shapes throw as `fit` does.
    @Test func normalEquationsFallBackToTheSVDWhenSingular() throws {
        let X: [Double] = [1, 1, 1, 1, 1, 1, 1, 1]
        let y: [Double] = [1, 2, 6, 100], w: [Double] = [1, 1, 2, 0]
        let c = try WeightedLeastSquares.fitNormalEquations(X: X, rows: 4, columns: 2, y: y, w: w)
        #expect(c == (try WeightedLeastSquares.fit(X: X, rows: 4, columns: 2, y: y, w: w)))
        #expect(Self.close(c[0], 15.0 / 8) && Self.close(c[1], 15.0 / 8), "\(c)")
        #expect(throws: GSLError.self) {
            try WeightedLeastSquares.fitNormalEquations(X: [1, 2, 3], rows: 2, columns: 2, y: [1, 2], w: [1, 1])
        }
    }

    // MARK: IRLS

    /// Intercept-only models have closed-form optima: Poisson with exposure, log(Σy / Σt);
    /// logistic with prior weights, the logit of the weighted share of ones. From a flat
    /// start the fit converges there; one warm-started step from the optimum stays.
    @Test func irlsReachesClosedFormOptima() throws {
        let poisson = PoissonLogLink(counts: [3, 5, 0], exposure: [1, 3, 0])
        let rate = try #require(
            IRLS.fit(
                design: [1, 1, 1], rows: 3, columns: 1, link: poisson, ridge: 0,
                start: [0], steps: 50, tolerance: 1e-12))
        #expect(Self.close(rate[0], log(8.0 / 4), 1e-9), "\(rate)")
        let logistic = LogisticLink(labels: [1, 0, 0, 1], weights: [1, 1, 1, 3])
        let share = try #require(
            IRLS.fit(
                design: [1, 1, 1, 1], rows: 4, columns: 1, link: logistic, ridge: 0,
                start: [0], steps: 50, tolerance: 1e-12))
        #expect(Self.close(share[0], log(4.0 / 2), 1e-9), "\(share)")
        // One warm-started step from the optimum stays there (or finds nothing better: nil,
        // and the caller keeps its coefficients).
        let again = IRLS.fit(
            design: [1, 1, 1, 1], rows: 4, columns: 1, link: logistic, ridge: 0, start: share, steps: 1)
        #expect(again.map { Self.close($0[0], share[0], 1e-9) } ?? true)
    }

    /// The ridge pulls every coefficient but the intercept towards 0: a huge ridge leaves
    /// the slope at about 0 and the intercept at the intercept-only optimum.
    @Test func irlsRidgeSparesTheIntercept() throws {
        // x = 0 for two rows with 1 event each, x = 1 for two rows with 9 each; exposure 1.
        let link = PoissonLogLink(counts: [1, 1, 9, 9], exposure: [1, 1, 1, 1])
        let design: [Double] = [1, 0, 1, 0, 1, 1, 1, 1]
        let free = try #require(
            IRLS.fit(
                design: design, rows: 4, columns: 2, link: link, ridge: 0, start: [0, 0],
                steps: 50, tolerance: 1e-12))
        #expect(Self.close(free[0], 0, 1e-9) && Self.close(free[1], log(9.0), 1e-9), "\(free)")
        let held = try #require(
            IRLS.fit(
                design: design, rows: 4, columns: 2, link: link, ridge: 1e9, start: [0, 0],
                steps: 50, tolerance: 1e-12))
        #expect(abs(held[1]) < 1e-6 && Self.close(held[0], log(5.0), 1e-5), "\(held)")
        // Shapes that disagree: nil.
        #expect(IRLS.fit(design: design, rows: 3, columns: 2, link: link, ridge: 0, start: [0, 0], steps: 1) == nil)
        #expect(IRLS.fit(design: design, rows: 4, columns: 2, link: link, ridge: 0, start: [0], steps: 1) == nil)
    }

    // MARK: Bessel

    @Test func besselI0KnownValues() throws {
        #expect(try Bessel.i0(0) == 1)
        #expect(Self.close(try Bessel.i0(1), 1.2660658777520082))
        #expect(Self.close(try Bessel.i0(2), 2.279585302336067))
        #expect(Self.close(try Bessel.i0(5), 27.239871823604442))
        #expect(Self.close(try Bessel.i0(-2), 2.279585302336067), "I0 is even")
        // e^(−x) I0(x) stays finite where I0 overflows.
        #expect(Self.close(try Bessel.i0Scaled(0.5), 0.64503527044915))
        #expect(Self.close(try Bessel.i0Scaled(700), 0.015081295651531355))
        #expect(Self.close(try Bessel.i0Scaled(2), 2.279585302336067 * exp(-2)))
    }

    /// Past x ≈ 709, I0 overflows a double: GSL's status comes back as an error.
    @Test func besselI0OverflowThrows() {
        #expect(throws: GSLError.self) { try Bessel.i0(800) }
    }

    // MARK: Gamma distribution

    @Test func gammaQuantileKnownValues() throws {
        // Shape 1 is the exponential: the median is ln 2.
        #expect(Self.close(try Distribution.gammaQuantile(0.5, shape: 1), log(2), 1e-10))
        #expect(Self.close(try Distribution.gammaQuantile(0.5, shape: 2), 1.6783469900166612, 1e-10))
        #expect(Self.close(try Distribution.gammaQuantile(0.9, shape: 0.5, scale: 2), 2.705543454095404, 1e-10))
        #expect(Self.close(Distribution.gammaCDF(3, shape: 2.5), 0.6937810815867212, 1e-10))
        #expect(Self.close(Distribution.gammaCDF(log(2), shape: 1), 0.5, 1e-12))
        #expect(throws: GSLError.self) { try Distribution.gammaQuantile(1.5, shape: 1) }
        #expect(throws: GSLError.self) { try Distribution.gammaQuantile(0.5, shape: 0) }
        // GSL's inversion does not converge this deep in the tail of a small shape (the
        // quantile is about 5e-21): the NaN it returns comes back as an error.
        #expect(throws: GSLError.self) { try Distribution.gammaQuantile(0.1, shape: 0.05) }
    }

    /// Draws of the sampler: their mean and variance are the shape's (a and a), and the
    /// share at or below a/10, a and 3a is GSL's CDF there. With n =
    /// 200,000 draws every tolerance is 5 standard errors: a share's is √(p(1 − p)/n) ≤
    /// 0.0011; the mean's, relative, 1/√(a·n); the variance's, relative, √((2a² + 6a)/n)/a
    /// (the fourth central moment of a gamma is 3a² + 6a).
    @Test(arguments: [0.05, 0.3, 1.0, 2.5, 10.0])
    func gammaDrawsMatchGSL(shape a: Double) throws {
        let n = 200_000
        let standardErrors = 5.0
        let shareTolerance = standardErrors * 0.0011
        let meanTolerance = standardErrors / (a * Double(n)).squareRoot()
        let varianceTolerance = standardErrors * ((2 * a * a + 6 * a) / Double(n)).squareRoot() / a
        var rng = RandomStream(seed: 42, device: UInt64(a * 100), purpose: .policy)
        let points = [0.1 * a, a, 3 * a]
        var below = [0, 0, 0]
        var sum = 0.0, sumSquares = 0.0
        for _ in 0..<n {
            let x = rng.gamma(shape: a)
            #expect(x >= 0 && x.isFinite)
            sum += x
            sumSquares += x * x
            for (i, q) in points.enumerated() where x <= q { below[i] += 1 }
        }
        let mean = sum / Double(n), variance = sumSquares / Double(n) - mean * mean
        #expect(abs(mean / a - 1) < meanTolerance, "mean \(mean) for shape \(a)")
        #expect(abs(variance / a - 1) < varianceTolerance, "variance \(variance) for shape \(a)")
        for (i, x) in points.enumerated() {
            let p = Distribution.gammaCDF(x, shape: a)
            #expect(abs(Double(below[i]) / Double(n) - p) < shareTolerance, "P(X ≤ \(x)) = \(p) for shape \(a)")
        }
    }
}
