/// What the daily and hourly series count: the quantities of ``MetricTable``'s series
/// metrics, in its order (MetricTableTests checks it), named here because the device
/// records them by hour on its hot path (`DeviceRecorder.record`) with constant indices.
public enum SeriesField: Int, CaseIterable, Sendable {
    case opens, freshOpens, staleness, age, foregroundWait, runs, denied, killed, backgroundEnergy
    /// 9: the size of `SeriesRow` (MetricTableTests checks it).
    public static let count = allCases.count

    /// The device quantity the field follows.
    public var quantity: Quantity {
        switch self {
        case .opens: .opens
        case .freshOpens: .freshOpens
        case .staleness: .staleness
        case .age: .age
        case .foregroundWait: .foregroundWait
        case .runs: .runs
        case .denied: .denied
        case .killed: .killed
        case .backgroundEnergy: .backgroundEnergy
        }
    }

    /// Each field's tally slot and storage, looked up once (the recorder reads them daily).
    static let slots: [Int] = allCases.map { $0.quantity.rawValue }
    static let storages: [Quantity.Storage] = allCases.map { $0.quantity.storage }
}

/// A device's series values for one row (a day, or an hour of the day).
typealias SeriesRow = InlineArray<9, Double>

/// Series over rows (days of the run, or hours of the day): for every row and field, the
/// cluster moments over devices (Σy, Σy², Σy·opens), so each row gets the same rates and
/// intervals as the summary. Merged in block order like ``FleetTally``.
public struct SeriesTally: Sendable {
    public let rows: Int
    public private(set) var devices = 0
    var sum: [Double], sumSquares: [Double], sumTimesOpens: [Double]

    public init(rows: Int) {
        self.rows = rows
        sum = Array(repeating: 0, count: rows * SeriesField.count)
        sumSquares = sum
        sumTimesOpens = sum
    }

    /// Adds one device's values for `row`.
    mutating func add(row: Int, _ values: SeriesRow) {
        let base = row * SeriesField.count
        let opens = values[SeriesField.opens.rawValue]
        for f in 0..<SeriesField.count {
            let v = values[f]
            sum[base + f] += v
            sumSquares[base + f] += v * v
            sumTimesOpens[base + f] += v * opens
        }
    }

    /// Counts one more device (each device adds every row, zeros included).
    mutating func countDevice() { devices += 1 }

    mutating func merge(_ other: SeriesTally) {
        devices += other.devices
        for i in 0..<sum.count {
            sum[i] += other.sum[i]
            sumSquares[i] += other.sumSquares[i]
            sumTimesOpens[i] += other.sumTimesOpens[i]
        }
    }

    public subscript(row: Int, field: SeriesField) -> Double { sum[row * SeriesField.count + field.rawValue] }

    public func moments(row: Int, _ field: SeriesField) -> Moments {
        let i = row * SeriesField.count + field.rawValue, o = row * SeriesField.count
        return Moments(n: Double(devices), sy: sum[i], syy: sumSquares[i], sxy: sumTimesOpens[i],
                       sx: sum[o], sxx: sumSquares[o])
    }
}
