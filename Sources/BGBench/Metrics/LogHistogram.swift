import Foundation

/// A histogram of non-negative values on fixed log-spaced bins of relative width 1 %
/// (MODEL.md §9), from 1 ms to 10⁸ s, with zero counted apart. Fixed bins make quantiles
/// deterministic and let histograms from any thread or shard merge exactly by addition.
public struct LogHistogram: Sendable, Equatable {
    public static let minimum = 1e-3
    public static let maximum = 1e8
    public static let ratio = 1.01
    static let logRatio = log(ratio)
    public static let binCount = Int((log(maximum / minimum) / logRatio).rounded(.up)) + 1

    public private(set) var zeros = 0
    public private(set) var bins: [Int]
    public private(set) var total = 0

    public init() { bins = Array(repeating: 0, count: Self.binCount) }

    /// The bin of a positive value; values below the minimum go to bin 0, above the
    /// maximum to the last bin.
    @inline(__always)
    static func bin(_ x: Double) -> Int {
        if x <= minimum { return 0 }
        return min(binCount - 1, Int(log(x / minimum) / logRatio))
    }

    /// The representative value of bin i: its geometric midpoint.
    static func value(ofBin i: Int) -> Double { minimum * pow(ratio, Double(i) + 0.5) }

    /// Adds a value in seconds.
    @inline(__always)
    public mutating func add(_ seconds: Double) {
        total += 1
        if seconds <= 0 { zeros += 1 } else { bins[Self.bin(seconds)] += 1 }
    }

    public mutating func merge(_ other: LogHistogram) {
        zeros += other.zeros
        total += other.total
        for i in 0..<bins.count { bins[i] += other.bins[i] }
    }

    /// The q-quantile (0 ≤ q ≤ 1) by the nearest-rank rule, to within 1 %; nil if empty.
    public func quantile(_ q: Double) -> Double? {
        guard total > 0 else { return nil }
        let rank = max(1, Int((q * Double(total)).rounded(.up)))
        if rank <= zeros { return 0 }
        var seen = zeros
        for i in 0..<bins.count {
            seen += bins[i]
            if seen >= rank { return Self.value(ofBin: i) }
        }
        return Self.value(ofBin: bins.count - 1)
    }
}
