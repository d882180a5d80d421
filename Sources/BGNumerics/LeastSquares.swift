import CGSL

/// Weighted linear least squares through GSL (`gsl_multifit_wlinear`), the solver the
/// statistical policies' IRLS fits (`nhpp`, `logistic`) call once per step.
public enum WeightedLeastSquares {
    /// The coefficients c minimising Σᵢ wᵢ (yᵢ − xᵢ·c)², with X given row by row
    /// (`rows` × `columns`, row-major). GSL solves it by a singular value decomposition of
    /// the weighted design, so a rank-deficient X still gets the minimum-norm solution.
    /// The steps are those of `gsl_multifit_wlinear` (`gsl_multifit_linear_applyW`,
    /// `gsl_multifit_linear_bsvd`, then the solve with its tolerance, `GSL_DBL_EPSILON`),
    /// without the covariance matrix it would compute after: the coefficients are the
    /// same to the bit.
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
        // sqrt(W)·X and sqrt(W)·y.
        var weightedX = [Double](repeating: 0, count: rows * columns)
        var weightedY = [Double](repeating: 0, count: rows)
        var residualNorm = 0.0, solutionNorm = 0.0
        let status: Int32 = X.withUnsafeBufferPointer { xp in
            y.withUnsafeBufferPointer { yp in
                w.withUnsafeBufferPointer { wp in
                    coefficients.withUnsafeMutableBufferPointer { cp in
                        weightedX.withUnsafeMutableBufferPointer { ap in
                            weightedY.withUnsafeMutableBufferPointer { bp in
                                var xm = gsl_matrix_const_view_array(xp.baseAddress, rows, columns)
                                var yv = gsl_vector_const_view_array(yp.baseAddress, rows)
                                var wv = gsl_vector_const_view_array(wp.baseAddress, rows)
                                var cv = gsl_vector_view_array(cp.baseAddress, columns)
                                var am = gsl_matrix_view_array(ap.baseAddress, rows, columns)
                                var bv = gsl_vector_view_array(bp.baseAddress, rows)
                                var status = gsl_multifit_linear_applyW(&xm.matrix, &wv.vector, &yv.vector, &am.matrix, &bv.vector)
                                if status != Int32(GSL_SUCCESS) { return status }
                                status = gsl_multifit_linear_bsvd(&am.matrix, work)
                                if status != Int32(GSL_SUCCESS) { return status }
                                return gsl_multifit_linear_solve(0, &am.matrix, &bv.vector, &cv.vector,
                                                                 &residualNorm, &solutionNorm, work)
                            }
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
