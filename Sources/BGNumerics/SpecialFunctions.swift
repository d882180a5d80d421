import CGSL

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
        guard p >= 0, p < 1, shape > 0, scale > 0 else {
            throw GSLError(function: "gsl_cdf_gamma_Pinv", status: Int32(GSL_EDOM))
        }
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
