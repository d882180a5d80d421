import CGSL

/// Weighted linear least squares through GSL (`gsl_multifit_wlinear`), the solver the
/// statistical policies' IRLS fits (`nhpp`, `logistic`) call once per step.
public enum WeightedLeastSquares {
    /// The coefficients c minimising Σᵢ wᵢ (yᵢ − xᵢ·c)², with X given row by row
    /// (`rows` × `columns`, row-major). GSL solves it by a singular value decomposition of
    /// the weighted design, so a rank-deficient X still gets the minimum-norm solution.
    ///
    /// Throws ``GSLError`` when the shapes disagree, when GSL reports a failure, or when a
    /// coefficient comes out infinite or NaN (the status is then `GSL_ERANGE`); callers keep
    /// their previous coefficients. Weights must be finite and non-negative.
    public static func fit(X: [Double], rows: Int, columns: Int, y: [Double], w: [Double]) throws(GSLError) -> [Double] {
        GSL.start()
        let function = "gsl_multifit_wlinear"
        guard rows >= columns, columns > 0, X.count == rows * columns, y.count == rows, w.count == rows else {
            throw GSLError(function: function, status: Int32(GSL_EBADLEN))
        }
        guard let work = gsl_multifit_linear_alloc(rows, columns) else { throw GSLError(function: function, status: Int32(GSL_ENOMEM)) }
        defer { gsl_multifit_linear_free(work) }
        var coefficients = [Double](repeating: 0, count: columns)
        var covariance = [Double](repeating: 0, count: columns * columns)
        var chiSquared = 0.0
        let status: Int32 = X.withUnsafeBufferPointer { xp in
            y.withUnsafeBufferPointer { yp in
                w.withUnsafeBufferPointer { wp in
                    coefficients.withUnsafeMutableBufferPointer { cp in
                        covariance.withUnsafeMutableBufferPointer { vp in
                            var xm = gsl_matrix_const_view_array(xp.baseAddress, rows, columns)
                            var yv = gsl_vector_const_view_array(yp.baseAddress, rows)
                            var wv = gsl_vector_const_view_array(wp.baseAddress, rows)
                            var cv = gsl_vector_view_array(cp.baseAddress, columns)
                            var vm = gsl_matrix_view_array(vp.baseAddress, columns, columns)
                            return gsl_multifit_wlinear(&xm.matrix, &wv.vector, &yv.vector, &cv.vector, &vm.matrix,
                                                        &chiSquared, work)
                        }
                    }
                }
            }
        }
        if status != Int32(GSL_SUCCESS) { throw GSLError(function: function, status: status) }
        if !coefficients.allSatisfy({ $0.isFinite }) { throw GSLError(function: function, status: Int32(GSL_ERANGE)) }
        return coefficients
    }
}

/// Modified Bessel functions of the first kind (GSL's `gsl_sf_bessel_I0_e` family): the
/// normaliser of the von Mises kernel of the `kde` policy.
public enum Bessel {
    /// I₀(x). Overflows (throws, `GSL_EOVRFLW`) past x ≈ 700; use ``i0Scaled(_:)`` there.
    public static func i0(_ x: Double) throws(GSLError) -> Double {
        GSL.start()
        var result = gsl_sf_result(val: 0, err: 0)
        let status = gsl_sf_bessel_I0_e(x, &result)
        if status != Int32(GSL_SUCCESS) { throw GSLError(function: "gsl_sf_bessel_I0_e", status: status) }
        return result.val
    }

    /// e^(−|x|) I₀(x), finite for every x: a von Mises density with concentration κ is
    /// exp(κ (cos θ − 1)) / (2π · i0Scaled(κ)) without overflow.
    public static func i0Scaled(_ x: Double) throws(GSLError) -> Double {
        GSL.start()
        var result = gsl_sf_result(val: 0, err: 0)
        let status = gsl_sf_bessel_I0_scaled_e(x, &result)
        if status != Int32(GSL_SUCCESS) { throw GSLError(function: "gsl_sf_bessel_I0_scaled_e", status: status) }
        return result.val
    }
}

extension Distribution {
    /// The p-quantile of the gamma distribution with this shape and scale
    /// (`gsl_cdf_gamma_Pinv`). Throws (`GSL_EDOM`) outside 0 ≤ p < 1, shape > 0, scale > 0,
    /// or when GSL returns NaN.
    public static func gammaQuantile(_ p: Double, shape: Double, scale: Double = 1) throws(GSLError) -> Double {
        GSL.start()
        guard p >= 0, p < 1, shape > 0, scale > 0 else { throw GSLError(function: "gsl_cdf_gamma_Pinv", status: Int32(GSL_EDOM)) }
        let x = gsl_cdf_gamma_Pinv(p, shape, scale)
        if !x.isFinite { throw GSLError(function: "gsl_cdf_gamma_Pinv", status: Int32(GSL_EDOM)) }
        return x
    }

    /// P(X ≤ x) for a gamma variable with this shape and scale (`gsl_cdf_gamma_P`).
    public static func gammaCDF(_ x: Double, shape: Double, scale: Double = 1) -> Double {
        GSL.start()
        return gsl_cdf_gamma_P(x, shape, scale)
    }
}
