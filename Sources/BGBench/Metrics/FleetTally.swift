/// Totals over a set of devices: for every ``Quantity`` x, Σx, Σx² and Σx·opens over
/// devices (what a mean, a ratio of totals and their cluster-robust intervals need), and
/// the staleness histogram. Tallies are added device by device in index order within a
/// block and blocks are merged in index order, so every sum is the same whatever the
/// thread count (MODEL.md §2).
public struct FleetTally: Sendable {
    public private(set) var devices = 0
    public private(set) var sum = [Double](repeating: 0, count: Quantity.count)
    public private(set) var sumSquares = [Double](repeating: 0, count: Quantity.count)
    public private(set) var sumTimesOpens = [Double](repeating: 0, count: Quantity.count)
    public var staleness = LogHistogram()

    public init() {}

    public mutating func add(_ device: DeviceTally) { add(device.values()) }

    /// Adds one device's values, in ``Quantity`` order.
    mutating func add(_ v: [Double]) {
        let opens = v[Quantity.opens.rawValue]
        devices += 1
        for i in 0..<Quantity.count {
            sum[i] += v[i]
            sumSquares[i] += v[i] * v[i]
            sumTimesOpens[i] += v[i] * opens
        }
    }

    public mutating func merge(_ other: FleetTally) {
        devices += other.devices
        for i in 0..<Quantity.count {
            sum[i] += other.sum[i]
            sumSquares[i] += other.sumSquares[i]
            sumTimesOpens[i] += other.sumTimesOpens[i]
        }
        staleness.merge(other.staleness)
    }

    public subscript(_ q: Quantity) -> Double { sum[q.rawValue] }
}
