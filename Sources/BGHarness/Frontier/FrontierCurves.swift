import BGBench

/// A policy's quality–energy curve: its arms' (J/day, quality) points in order of
/// energy, joined by straight lines (docs/policies.md, "The frontier"). Nothing is
/// extrapolated: outside the energies the arms span the curve is undefined.
public struct FrontierCurve: Sendable, Equatable {
    /// (energy, quality), in order of energy (ties in the order given).
    public var points: [(x: Double, y: Double)]

    public init(points: [(x: Double, y: Double)]) { self.points = points }

    public static func == (a: Self, b: Self) -> Bool {
        a.points.count == b.points.count && zip(a.points, b.points).allSatisfy { $0.x == $1.x && $0.y == $1.y }
    }

    /// The energy range the curve spans.
    public var range: ClosedRange<Double>? {
        guard let lo = points.map(\.x).min(), let hi = points.map(\.x).max() else { return nil }
        return lo...hi
    }

    /// Where a matched energy falls.
    public enum Position: String, Sendable { case inside = "ok", below = "below_range", above = "above_range" }

    public func position(of x: Double) -> Position {
        guard let range, points.count >= 2 else { return x < (points.first?.x ?? 0) ? .below : .above }
        return x < range.lowerBound ? .below : x > range.upperBound ? .above : .inside
    }

    /// The rate at energy `x`, on the segment between the first two consecutive points that
    /// bracket it; nil outside the curve (or for a single point).
    public func value(at x: Double) -> Double? {
        guard points.count >= 2 else { return nil }
        for (a, b) in zip(points, points.dropFirst()) where min(a.x, b.x) <= x && x <= max(a.x, b.x) {
            if a.x == b.x { return a.y }
            return a.y + (b.y - a.y) * (x - a.x) / (b.x - a.x)
        }
        return nil
    }

    /// The area under the curve from `low` to `high` (rate × J/day), segment by segment
    /// (the trapezoid rule is exact for straight lines); nil unless low ≤ high and both lie
    /// within the curve's range.
    public func area(from low: Double, to high: Double) -> Double? {
        guard points.count >= 2, let range, low <= high, range.lowerBound <= low, high <= range.upperBound else {
            return nil
        }
        var total = 0.0
        for (a, b) in zip(points, points.dropFirst()) where a.x < b.x {
            let l = max(a.x, low), h = min(b.x, high)
            guard l < h else { continue }
            let yl = a.y + (b.y - a.y) * (l - a.x) / (b.x - a.x)
            let yh = a.y + (b.y - a.y) * (h - a.x) / (b.x - a.x)
            total += (yl + yh) / 2 * (h - l)
        }
        return total
    }

    /// The energy range every curve spans: from the highest of their lowest energies to
    /// the lowest of their highest; nil when it is empty or there is no curve.
    public static func commonRange(_ curves: [FrontierCurve]) -> ClosedRange<Double>? {
        let ranges = curves.filter { $0.points.count >= 2 }.compactMap(\.range)
        guard let lo = ranges.map(\.lowerBound).max(), let hi = ranges.map(\.upperBound).min(), lo < hi else {
            return nil
        }
        return lo...hi
    }
}
