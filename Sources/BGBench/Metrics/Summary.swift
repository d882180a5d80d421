import BGNumerics

/// An estimate with its 95 % confidence interval (nil where none is defined).
public struct Estimate: Sendable, Equatable {
    public var value: Double
    public var low: Double?
    public var high: Double?
    public init(_ value: Double, low: Double? = nil, high: Double? = nil) {
        self.value = value; self.low = low; self.high = high
    }

    /// The interval cut to a metric's support (Reports/README.md, "Confidence intervals"):
    /// every metric of summary.csv is ≥ 0 and a ratio ≤ 1, so a Student-t bound outside
    /// them is moved to the edge. The true value lies in the support, so the cut interval
    /// covers it whenever the uncut one does (its coverage is never lower).
    public func within(_ support: ClosedRange<Double>) -> Estimate {
        Estimate(
            value, low: low.map { min(max($0, support.lowerBound), support.upperBound) },
            high: high.map { min(max($0, support.lowerBound), support.upperBound) })
    }
}

/// When a staleness quantile cannot be trusted (issue 12 point 5; Reports/README.md,
/// "Quantiles"). Two named rules:
/// - **in one run** (summary.csv's `<quantile>_unstable`): the quantile's rank falls at a
///   jump of the distribution, where a group of opens (devices that never refresh, the
///   fresh opens' zeros) begins: the quantile at q + `rankMargin` is more than
///   `jumpFactor` times the one at q − `rankMargin` (or that one is 0 and this one is
///   not). A change of 1 % of the opens then moves the estimate by that factor, and
///   another seed may put the rank on the other side.
/// - **across replications** (replications.csv's `unstable`): a seed's row is unstable
///   by the rule above, or the seeds' standard deviation exceeds `maxSpread` × their mean.
public enum QuantileStability {
    /// The ranks read either side of q's: q − 0.01 and q + 0.01 (1 % of the opens).
    public static let rankMargin = 0.01
    /// A smooth staleness tail moves far less over 2 % of the ranks (exponential: ×1.14
    /// from p94 to p96; lognormal with σ = 2: ×1.5); a group that never refreshes, ×10 and more.
    public static let jumpFactor = 4.0
    /// Largest coefficient of variation across seeds of a stable quantile.
    public static let maxSpread = 0.5

    /// Whether the q-quantile of the histogram sits at a jump; nil without opens.
    public static func unstable(_ histogram: LogHistogram, _ q: Double) -> Bool? {
        guard let low = histogram.quantile(max(0, q - rankMargin)),
            let high = histogram.quantile(min(1, q + rankMargin))
        else { return nil }
        return high > jumpFactor * low
    }

    /// Whether quantiles of R seeds (with their own flags) are unstable; nil without values.
    public static func unstable(values: [Double], flags: [Bool]) -> Bool? {
        guard !values.isEmpty else { return nil }
        if flags.contains(true) { return true }
        guard values.count > 1 else { return false }
        let n = Double(values.count), mean = values.reduce(0, +) / n
        let sd = (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / (n - 1)).squareRoot()
        return sd > maxSpread * mean
    }
}

/// Per-cluster moments of one quantity y over n devices (clusters), with x = opens:
/// Σy, Σy², Σx·y, and the opens' Σx, Σx². Everything the two estimators below need.
public struct Moments: Sendable {
    public var n: Double
    public var sy: Double, syy: Double, sxy: Double
    public var sx: Double, sxx: Double
    package init(n: Double, sy: Double, syy: Double, sxy: Double, sx: Double, sxx: Double) {
        self.n = n; self.sy = sy; self.syy = syy; self.sxy = sxy; self.sx = sx; self.sxx = sxx
    }
}

/// The estimators of MODEL.md §9, on cluster moments: a rate is a ratio of totals over
/// the fleet (never a mean of per-device rates) with a delta-method interval that treats
/// devices as clusters; a per-device-day figure is a mean over devices with a Student-t
/// interval. Both use GSL's t quantile with n − 1 degrees of freedom.
public enum Estimators {
    /// The 97.5 % quantile of t with n − 1 degrees of freedom (nil below two devices).
    static func tQuantile(_ n: Double) -> Double? {
        n >= 2 ? Distribution.studentTQuantile(0.975, degreesOfFreedom: n - 1) : nil
    }

    /// Σy / Σx with Var(R) ≈ n/(n−1) · Σ(yᵢ − R·xᵢ)² / (Σx)².
    public static func ratio(_ m: Moments, scale: Double = 1) -> Estimate {
        guard m.sx > 0 else { return Estimate(.nan) }
        let r = m.sy / m.sx
        guard let t = tQuantile(m.n) else { return Estimate(r * scale) }
        let residual = m.syy - 2 * r * m.sxy + r * r * m.sxx
        let se = (max(0, residual) * m.n / (m.n - 1)).squareRoot() / m.sx
        return Estimate(r * scale, low: (r - t * se) * scale, high: (r + t * se) * scale)
    }

    /// The mean of y over devices, times `scale`, with a Student-t interval.
    public static func mean(_ m: Moments, scale: Double = 1) -> Estimate {
        guard m.n > 0 else { return Estimate(.nan) }
        let mean = m.sy / m.n
        guard let t = tQuantile(m.n) else { return Estimate(mean * scale) }
        let variance = max(0, (m.syy - m.n * mean * mean) / (m.n - 1))
        let half = t * (variance / m.n).squareRoot()
        return Estimate(mean * scale, low: (mean - half) * scale, high: (mean + half) * scale)
    }
}

/// The estimators over a fleet tally: per open and per device-day.
public struct FleetEstimates: Sendable {
    public let tally: FleetTally
    public let days: Int

    public init(tally: FleetTally, days: Int) { self.tally = tally; self.days = days }

    func moments(_ q: Quantity) -> Moments {
        Moments(
            n: Double(tally.devices), sy: tally.sum(q), syy: tally.sumOfSquares(q), sxy: tally.sumTimesOpens(q),
            sx: tally.sum(.opens), sxx: tally.sumOfSquares(.opens))
    }

    /// Σ q / Σ opens with its cluster-robust interval.
    public func perOpen(_ q: Quantity, scale: Double = 1) -> Estimate { Estimators.ratio(moments(q), scale: scale) }

    /// Mean over devices of q per day, with a Student-t interval.
    public func perDeviceDay(_ q: Quantity, scale: Double = 1) -> Estimate {
        guard days > 0 else { return Estimate(.nan) }
        return Estimators.mean(moments(q), scale: scale / Double(days))
    }
}
