/// Totals over a set of devices: for every ``Quantity`` x, Σx, Σx² and Σx·opens over
/// devices (what a mean, a ratio of totals and their cluster-robust intervals need), and
/// the staleness histogram. Every sum is exact (``ExactSum``), so tallies of any devices
/// add up in any order to the same numbers: the same whatever the thread count or the
/// sharding (MODEL.md §2).
public struct FleetTally: Sendable, Equatable {
    public internal(set) var devices = 0
    /// Σx, Σx², Σx·opens of quantity q at 3q, 3q + 1, 3q + 2.
    var sums = [ExactSum](repeating: ExactSum(), count: 3 * Quantity.count)
    public var staleness = LogHistogram()

    public init() {}

    public mutating func add(_ device: DeviceTally) { add(device.values()) }

    /// Adds one device's values, in ``Quantity`` order.
    package mutating func add(_ v: [Double]) {
        let opens = v[Quantity.opens.rawValue]
        devices += 1
        sums.withUnsafeMutableBufferPointer { s in
            for i in 0..<Quantity.count {
                s[3 * i].add(v[i])
                s[3 * i + 1].add(v[i] * v[i])
                s[3 * i + 2].add(v[i] * opens)
            }
        }
    }

    public mutating func merge(_ other: FleetTally) {
        devices += other.devices
        for i in sums.indices { sums[i].add(other.sums[i]) }
        staleness.merge(other.staleness)
    }

    /// Σx over the devices.
    public subscript(_ q: Quantity) -> Double { sums[3 * q.rawValue].value }
    /// Σx, Σx², Σx·opens of a quantity.
    public func sum(_ q: Quantity) -> Double { sums[3 * q.rawValue].value }
    public func sumOfSquares(_ q: Quantity) -> Double { sums[3 * q.rawValue + 1].value }
    public func sumTimesOpens(_ q: Quantity) -> Double { sums[3 * q.rawValue + 2].value }

    /// Σx of every quantity, in ``Quantity`` order.
    public var sum: [Double] { Quantity.allCases.map(sum) }
}
