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
    public static func fit(X: [Double], rows: Int, columns: Int, y: [Double], w: [Double]) throws(GSLError) -> [Double]
    {
        GSL.start()
        let function = "gsl_multifit_wlinear"
        guard rows >= columns, columns > 0, X.count == rows * columns, y.count == rows, w.count == rows else {
            throw GSLError(function: function, status: Int32(GSL_EBADLEN))
        }
        guard let work = gsl_multifit_linear_alloc(rows, columns) else {
            throw GSLError(function: function, status: Int32(GSL_ENOMEM))
        }
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
                                var status = gsl_multifit_linear_applyW(
                                    &xm.matrix, &wv.vector, &yv.vector, &am.matrix, &bv.vector)
                                if status != Int32(GSL_SUCCESS) { return status }
                                status = gsl_multifit_linear_bsvd(&am.matrix, work)
                                if status != Int32(GSL_SUCCESS) { return status }
                                return gsl_multifit_linear_solve(
                                    0, &am.matrix, &bv.vector, &cv.vector,
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

    /// The same coefficients as ``fit(X:rows:columns:y:w:)``, from the normal equations
    /// (XᵀWX) c = XᵀWy solved by a Cholesky factorisation, in Swift: for the policies' 12 to
    /// 17 columns a few microseconds against the SVD's 40 to 70. The normal equations lose
    /// digits as cond(XᵀWX) grows (the SVD as cond(√W·X)), so a pivot below 1e-10 of its
    /// diagonal entry (XᵀWX singular or nearly so: no weight on a column) hands the system
    /// to ``fit(X:rows:columns:y:w:)``, whose SVD gives the minimum-norm solution. The
    /// IRLS fits carry a ridge on every coefficient but the intercept, which keeps their
    /// pivots far above that.
    ///
    /// Throws as ``fit(X:rows:columns:y:w:)``.
    public static func fitNormalEquations(
        X: [Double], rows: Int, columns p: Int, y: [Double],
        w: [Double]
    ) throws(GSLError) -> [Double] {
        guard rows >= p, p > 0, X.count == rows * p, y.count == rows, w.count == rows else {
            throw GSLError(function: "gsl_multifit_wlinear", status: Int32(GSL_EBADLEN))
        }
        // XᵀWX in the upper triangle of m (row-major p × p), XᵀWy in c; then L (LLᵀ = XᵀWX)
        // below the diagonal of m with its diagonal in d, and c solved in place.
        var m = [Double](repeating: 0, count: p * p)
        var c = [Double](repeating: 0, count: p)
        var d = [Double](repeating: 0, count: p)
        let positive: Bool = X.withUnsafeBufferPointer { x in
            m.withUnsafeMutableBufferPointer { m in
                c.withUnsafeMutableBufferPointer { c in
                    d.withUnsafeMutableBufferPointer { d in
                        // A zero term adds nothing (m never holds −0), so it is skipped:
                        // the ridge's pseudo-rows and 0/1 covariates are mostly zeros.
                        for i in 0..<rows where w[i] != 0 {
                            let row = i * p, wi = w[i], yi = y[i]
                            for a in 0..<p {
                                let wa = wi * x[row + a]
                                if wa == 0 { continue }
                                c[a] += wa * yi
                                for b in a..<p { m[a * p + b] += wa * x[row + b] }
                            }
                        }
                        for j in 0..<p {
                            var djj = m[j * p + j]
                            for k in 0..<j { djj -= m[j * p + k] * m[j * p + k] }
                            guard djj > 1e-10 * m[j * p + j], djj.isFinite else { return false }
                            let ljj = djj.squareRoot()
                            d[j] = ljj
                            for i in (j + 1)..<p {
                                var s = m[j * p + i]
                                for k in 0..<j { s -= m[i * p + k] * m[j * p + k] }
                                m[i * p + j] = s / ljj
                            }
                        }
                        // L u = XᵀWy, then Lᵀ c = u.
                        for i in 0..<p {
                            var s = c[i]
                            for k in 0..<i { s -= m[i * p + k] * c[k] }
                            c[i] = s / d[i]
                        }
                        for i in stride(from: p - 1, through: 0, by: -1) {
                            var s = c[i]
                            for k in (i + 1)..<p { s -= m[k * p + i] * c[k] }
                            c[i] = s / d[i]
                        }
                        return true
                    }
                }
            }
        }
        if positive && c.allSatisfy({ $0.isFinite }) { return c }
        return try fit(X: X, rows: rows, columns: p, y: y, w: w)
    }
}
