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

    public internal(set) var zeros = 0
    public internal(set) var bins: [Int]
    public internal(set) var total = 0

    public init() { bins = Array(repeating: 0, count: Self.binCount) }

    /// The bin of a positive value; values below the minimum go to bin 0, above the
    /// maximum to the last bin. This is the definition; `add` finds the same bin by table
    /// (`BinTable`), without a logarithm.
    static func bin(_ x: Double) -> Int {
        if x <= minimum { return 0 }
        return min(binCount - 1, Int(log(x / minimum) / logRatio))
    }

    /// Finds `bin(x)` by lookup: a double's exponent and top 8 mantissa bits name a slice
    /// of values less than 0.4 % wide, inside which at most one bin edge (bins are 1 %
    /// wide) can fall; the slice's first bin and one comparison with the next edge give the
    /// bin. The edges are those of `bin` itself (found by bisection on the doubles), so
    /// the result is identical, bit for bit (LogHistogramTests checks every edge).
    struct BinTable: Sendable {
        static let mantissaBits = 8
        /// The exponent of the smallest slice (that of `minimum`) and the number of slices.
        let firstExponent: Int
        let sliceCount: Int
        /// `edges[i]`: the smallest double whose bin is i (edges[0] = 0); one more, +inf.
        let edges: [Double]
        /// The bin of each slice's smallest double.
        let sliceBins: [Int32]

        init() {
            firstExponent = Int(minimum.exponent)
            sliceCount = (Int(maximum.exponent) - firstExponent + 1) << Self.mantissaBits
            var edges = [0.0]
            edges.reserveCapacity(binCount + 1)
            for i in 1..<binCount {
                // Bisect on bit patterns (ordered like the positive doubles they encode)
                // around minimum · ratio^i for the first double in bin i.
                let guess = minimum * pow(ratio, Double(i))
                var low = (guess * (1 - 1e-9)).bitPattern, high = (guess * (1 + 1e-9)).bitPattern
                while LogHistogram.bin(Double(bitPattern: low)) >= i { low -= 1 << 20 }
                while LogHistogram.bin(Double(bitPattern: high)) < i { high += 1 << 20 }
                while high - low > 1 {
                    let mid = low + (high - low) / 2
                    if LogHistogram.bin(Double(bitPattern: mid)) >= i { high = mid } else { low = mid }
                }
                edges.append(Double(bitPattern: high))
            }
            edges.append(.infinity)
            self.edges = edges
            var sliceBins: [Int32] = []
            sliceBins.reserveCapacity(sliceCount)
            for k in 0..<sliceCount {
                let exponent = firstExponent + k >> Self.mantissaBits
                let bits =
                    UInt64(exponent + 1023) << 52 | UInt64(k & ((1 << Self.mantissaBits) - 1))
                    << (52 - Self.mantissaBits)
                sliceBins.append(Int32(LogHistogram.bin(Double(bitPattern: bits))))
            }
            self.sliceBins = sliceBins
        }

        @inline(__always)
        func bin(_ x: Double) -> Int {
            if x <= minimum { return 0 }
            let slice =
                Int(truncatingIfNeeded: x.bitPattern >> (52 - Self.mantissaBits))
                - (firstExponent + 1023) << Self.mantissaBits
            if slice >= sliceCount { return binCount - 1 }
            let b = Int(sliceBins[slice])
            return x >= edges[b + 1] ? b + 1 : b
        }
    }

    static let table = BinTable()

    /// The representative value of bin i: its geometric midpoint.
    static func value(ofBin i: Int) -> Double { minimum * pow(ratio, Double(i) + 0.5) }

    /// Adds a value in seconds.
    @inline(__always)
    public mutating func add(_ seconds: Double) {
        total += 1
        if seconds <= 0 { zeros += 1 } else { bins[Self.table.bin(seconds)] += 1 }
    }

    /// Adds `count` values in seconds from `values` (a device's open stalenesses): the
    /// same counts as adding them one by one, with one access to the bins.
    mutating func add(_ values: UnsafePointer<Double>, count: Int) {
        let table = Self.table
        var zeros = 0
        bins.withUnsafeMutableBufferPointer { bins in
            for i in 0..<count {
                let x = values[i]
                if x <= 0 { zeros += 1 } else { bins[table.bin(x)] += 1 }
            }
        }
        self.zeros += zeros
        total += count
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
