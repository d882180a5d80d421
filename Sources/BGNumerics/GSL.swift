import CGSL

/// The one Swift face of GSL in bgbench. Nothing else imports `CGSL`.
///
/// GSL's default error handler aborts the process; bgbench turns it off the first time
/// any function here is used and turns GSL status codes into ``GSLError`` values.
public enum GSL {
    /// Turns off GSL's abort-on-error handler. Idempotent and thread-safe (a Swift global
    /// is initialised once); every public entry point of this module calls it.
    public static func start() { _ = handlerOff }

    private static let handlerOff: Void = bgbench_gsl_disable_abort()

    /// The version of the GSL library linked in, e.g. "2.7.1".
    public static var version: String {
        start()
        return String(cString: bgbench_gsl_version())
    }
}

/// A GSL call that returned a non-zero status.
public struct GSLError: Error, CustomStringConvertible, Equatable {
    public let function: String
    public let status: Int32
    public var description: String {
        "gsl: \(function) failed: \(String(cString: gsl_strerror(status)))"
    }
}

/// Quantiles and tails of the distributions bgbench's statistics use.
public enum Distribution {
    /// The p-quantile of Student's t with `dof` degrees of freedom (`gsl_cdf_tdist_Pinv`).
    /// - Precondition: 0 < p < 1 and dof > 0.
    public static func studentTQuantile(_ p: Double, degreesOfFreedom dof: Double) -> Double {
        GSL.start()
        return gsl_cdf_tdist_Pinv(p, dof)
    }

    /// P(T > t) for Student's t with `dof` degrees of freedom (`gsl_cdf_tdist_Q`).
    public static func studentTUpperTail(_ t: Double, degreesOfFreedom dof: Double) -> Double {
        GSL.start()
        return gsl_cdf_tdist_Q(t, dof)
    }

    /// The p-quantile of the standard normal distribution (`gsl_cdf_ugaussian_Pinv`).
    public static func normalQuantile(_ p: Double) -> Double {
        GSL.start()
        return gsl_cdf_ugaussian_Pinv(p)
    }

    /// P(X ≤ x) for a Poisson variable with mean `mu` (`gsl_cdf_poisson_P`).
    public static func poissonCDF(_ k: UInt32, mean mu: Double) -> Double {
        GSL.start()
        return gsl_cdf_poisson_P(k, mu)
    }
}
