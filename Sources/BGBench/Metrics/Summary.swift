import BGNumerics

/// An estimate with its 95 % confidence interval (nil where none is defined).
public struct Estimate: Sendable, Equatable {
    public var value: Double
    public var low: Double?
    public var high: Double?
    public init(_ value: Double, low: Double? = nil, high: Double? = nil) {
        self.value = value; self.low = low; self.high = high
    }
}

/// Per-cluster moments of one quantity y over n devices (clusters), with x = opens:
/// Σy, Σy², Σx·y, and the opens' Σx, Σx². Everything the two estimators below need.
public struct Moments: Sendable {
    public var n: Double
    public var sy: Double, syy: Double, sxy: Double
    public var sx: Double, sxx: Double
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
        let i = q.rawValue, o = Quantity.opens.rawValue
        return Moments(n: Double(tally.devices), sy: tally.sum[i], syy: tally.sumSquares[i], sxy: tally.sumTimesOpens[i],
                       sx: tally.sum[o], sxx: tally.sumSquares[o])
    }

    /// Σ q / Σ opens with its cluster-robust interval.
    public func perOpen(_ q: Quantity, scale: Double = 1) -> Estimate { Estimators.ratio(moments(q), scale: scale) }

    /// Mean over devices of q per day, with a Student-t interval.
    public func perDeviceDay(_ q: Quantity, scale: Double = 1) -> Estimate {
        guard days > 0 else { return Estimate(.nan) }
        return Estimators.mean(moments(q), scale: scale / Double(days))
    }
}
