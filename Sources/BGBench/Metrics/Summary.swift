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

/// Estimators over a fleet tally (MODEL.md §9): a rate is a ratio of totals over the fleet
/// (never a mean of per-device rates) with a cluster-robust interval that treats devices
/// as clusters (delta method); a per-device-day figure is a mean over devices with a
/// Student-t interval. Both use GSL's t quantile with n − 1 degrees of freedom.
public struct FleetEstimates: Sendable {
    public let tally: FleetTally
    public let days: Int

    public init(tally: FleetTally, days: Int) { self.tally = tally; self.days = days }

    var n: Double { Double(tally.devices) }

    /// The 97.5 % quantile of t with n − 1 degrees of freedom (nil below two devices).
    var tQuantile: Double? {
        tally.devices >= 2 ? Distribution.studentTQuantile(0.975, degreesOfFreedom: n - 1) : nil
    }

    /// Σ q / Σ opens, with the delta-method interval for a ratio of cluster totals:
    /// Var(R) ≈ n/(n−1) · Σ(yᵢ − R·xᵢ)² / (Σx)², x = opens, y = q.
    public func perOpen(_ q: Quantity, scale: Double = 1) -> Estimate {
        let x = tally[.opens], y = tally[q]
        guard x > 0 else { return Estimate(.nan) }
        let r = y / x
        guard let t = tQuantile else { return Estimate(r * scale) }
        let i = q.rawValue, o = Quantity.opens.rawValue
        let residual = tally.sumSquares[i] - 2 * r * tally.sumTimesOpens[i] + r * r * tally.sumSquares[o]
        let se = (max(0, residual) * n / (n - 1)).squareRoot() / x
        return Estimate(r * scale, low: (r - t * se) * scale, high: (r + t * se) * scale)
    }

    /// Mean over devices of q per day, with a Student-t interval.
    public func perDeviceDay(_ q: Quantity, scale: Double = 1) -> Estimate {
        guard tally.devices > 0, days > 0 else { return Estimate(.nan) }
        let i = q.rawValue
        let mean = tally.sum[i] / n
        let perDay = scale / Double(days)
        guard let t = tQuantile else { return Estimate(mean * perDay) }
        let variance = max(0, (tally.sumSquares[i] - n * mean * mean) / (n - 1))
        let half = t * (variance / n).squareRoot()
        return Estimate(mean * perDay, low: (mean - half) * perDay, high: (mean + half) * perDay)
    }
}
