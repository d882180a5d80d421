import BGBench
import BGNumerics
import Foundation

/// The tests behind `check`'s p-values.
extension RunComparison {
    /// Two-sided p-value of t with `dof` degrees of freedom (GSL's t distribution).
    static func twoSided(_ t: Double, dof: Double) -> Double? {
        guard dof > 0, !t.isNaN else { return nil }
        if t.isInfinite { return 0 }
        return min(1, 2 * Distribution.studentTUpperTail(abs(t), degreesOfFreedom: dof))
    }

    /// A difference over its standard error; 0/0 (no change, no spread) is p = 1 and a
    /// change with no spread at all p = 0.
    static func pValue(_ difference: Double, se: Double, dof: Double) -> Double? {
        if se == 0 { return difference == 0 ? 1 : 0 }
        return twoSided(difference / se, dof: dof)
    }

    /// Welch's t-test from two estimates' standard errors and degrees of freedom, with the
    /// Welch–Satterthwaite degrees of freedom.
    static func welchP(difference: Double, _ b: (se: Double, dof: Double), _ c: (se: Double, dof: Double)) -> Double? {
        let vb = b.se * b.se, vc = c.se * c.se
        let v = vb + vc
        guard v > 0 else { return pValue(difference, se: 0, dof: 1) }
        let dof = v * v / (vb * vb / b.dof + vc * vc / c.dof)
        return pValue(difference, se: v.squareRoot(), dof: dof)
    }

    /// The linearised (influence) values of a row's estimate over the whole fleet: the
    /// estimate θ and uᵢ with Σuᵢ = 0 and Var(θ) ≈ Σuᵢ² / (N(N−1)), N the fleet size.
    /// Devices outside the row's archetype have uᵢ = 0 (domain estimation), so one formula
    /// serves the `all` row and the per-archetype rows.
    /// - Per open, θ = R = Σy/Σx over the domain (x = opens): uᵢ = N(yᵢ − R·xᵢ)/Σx. For the
    ///   `all` row, Σuᵢ²/(N(N−1)) is exactly the square of summary.csv's SE(R).
    /// - Per device, θ = mean of y over the domain's n devices: uᵢ = N(yᵢ − θ)/n; for `all`,
    ///   the sample variance over N.
    static func linearised(
        _ t: DeviceTable, policy: String, archetype: String,
        source: CheckMetric.Source
    ) throws(ReportFolderError) -> (estimate: Double, u: [Double], n: Int)? {
        let rows = t.rows(policy: policy)
        let inDomain = rows.map { archetype == "all" || t.archetype($0) == archetype }
        let n = inDomain.filter { $0 }.count
        let count = Double(rows.count)
        switch source {
        case .quantile:
            return nil
        case .perOpen(let column):
            let y = try t.values(column, policy: policy), x = try t.values("opens", policy: policy)
            var sx = 0.0, sy = 0.0
            for i in rows.indices where inDomain[i] { sx += x[i]; sy += y[i] }
            guard sx > 0 else { return nil }
            let r = sy / sx
            return (r, rows.indices.map { inDomain[$0] ? count * (y[$0] - r * x[$0]) / sx : 0 }, n)
        case .perDevice(let column):
            guard n > 0 else { return nil }
            let y = try t.values(column, policy: policy)
            var sy = 0.0
            for i in rows.indices where inDomain[i] { sy += y[i] }
            let mean = sy / Double(n)
            return (mean, rows.indices.map { inDomain[$0] ? count * (y[$0] - mean) / Double(n) : 0 }, n)
        }
    }

    /// The paired t-test, device by device. Both runs had the same seed, scenario and
    /// fleet, so device i is the same user reading the same feed in both; only what the
    /// code under test did differs. With uᵢ each run's linearised values (``linearised``),
    /// dᵢ = uᵢ(current) − uᵢ(baseline) and t = (θ_current − θ_baseline) / √(Σdᵢ² / (N(N−1))),
    /// N − 1 degrees of freedom (the domain's n − 1 for an archetype). For a per-open ratio
    /// with the same opens xᵢ in both runs, dᵢ ∝ (yᵢᶜ − R_c·xᵢ) − (yᵢᵇ − R_b·xᵢ): the paired
    /// ratio difference of paired.csv (there it is policy against policy within a run).
    /// Per device the linearisation is the plain paired t-test on the per-device values.
    static func pairedP(
        _ b: DeviceTable, _ c: DeviceTable, policy: String, archetype: String,
        source: CheckMetric.Source
    ) throws(ReportFolderError) -> Double? {
        try paired(b, c, policy: policy, archetype: archetype, source: source)
            .flatMap { pValue($0.current - $0.baseline, se: $0.se, dof: $0.dof) }
    }

    /// The paired comparison behind ``pairedP`` (and `check --ab`'s intervals): both runs'
    /// estimates θ on the devices.csv scale, the standard error √(Σdᵢ²/(N(N−1))) of their
    /// difference and its degrees of freedom; nil when either run lacks the metric or has
    /// fewer than two devices in the domain.
    static func paired(
        _ b: DeviceTable, _ c: DeviceTable, policy: String, archetype: String,
        source: CheckMetric.Source
    ) throws(ReportFolderError)
        -> (baseline: Double, current: Double, se: Double, dof: Double)?
    {
        guard let lb = try linearised(b, policy: policy, archetype: archetype, source: source),
            let lc = try linearised(c, policy: policy, archetype: archetype, source: source)
        else { return nil }
        guard lb.u.count == lc.u.count, b.deviceIDs(policy: policy) == c.deviceIDs(policy: policy) else {
            throw .invalid("'\(c.path)' lists other devices than '\(b.path)' for policy \(policy)")
        }
        let n = Double(lb.u.count)
        guard n >= 2, min(lb.n, lc.n) >= 2 else { return nil }
        var ss = 0.0
        for (x, y) in zip(lb.u, lc.u) { ss += (y - x) * (y - x) }
        return (lb.estimate, lc.estimate, (ss / (n * (n - 1))).squareRoot(), Double(min(lb.n, lc.n) - 1))
    }

    /// Welch's t-test with each run's standard error from its own devices.csv.
    static func welchDevicesP(
        _ b: DeviceTable, _ c: DeviceTable, policy: String, archetype: String,
        source: CheckMetric.Source
    ) throws(ReportFolderError) -> Double? {
        guard let lb = try linearised(b, policy: policy, archetype: archetype, source: source),
            let lc = try linearised(c, policy: policy, archetype: archetype, source: source),
            lb.u.count >= 2, lc.u.count >= 2, lb.n >= 2, lc.n >= 2
        else { return nil }
        func se(_ u: [Double]) -> Double {
            let n = Double(u.count)
            return (u.reduce(0) { $0 + $1 * $1 } / (n * (n - 1))).squareRoot()
        }
        return welchP(difference: lc.estimate - lb.estimate, (se(lb.u), Double(lb.n - 1)), (se(lc.u), Double(lc.n - 1)))
    }
}
