/// What the daily and hourly series count: the quantities of ``MetricTable``'s series
/// metrics, in its order (MetricTableTests checks it), then the denominators that are no
/// column of their own (`processingMissed`), named here because the device records them by
/// hour on its hot path (`DeviceRecorder.record`) with constant indices.
public enum SeriesField: Int, CaseIterable, Sendable {
    case opens, freshOpens, staleness, age, foregroundWait, runs, denied, killed, backgroundEnergy
    /// Silent pushes lost on the way, and the runs delivered pushes launched (messaging's headline).
    case pushLost, pushRuns
    /// `sync`'s daily server jobs: their lag and those on time (fitness-sync's headline).
    case serverLag, serverOnTime
    /// `catalog`'s image bytes on cellular (ecommerce's headline).
    case cellularImageBytes
    /// The processing task: those completed on time, its energy (finance's headline).
    case processingOnTime, processingEnergy
    /// Not a column: processing tasks whose deadline passed, the rest of the denominator of
    /// processing_on_time_rate's share (`MetricKind.share`).
    case processingMissed
    /// 17: the size of `SeriesRow` (MetricTableTests checks it).
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
        case .pushLost: .pushLost
        case .pushRuns: .pushRuns
        case .serverLag: .serverLag
        case .serverOnTime: .serverOnTime
        case .cellularImageBytes: .cellularImageBytes
        case .processingOnTime: .processingOnTime
        case .processingEnergy: .processingEnergy
        case .processingMissed: .processingMissed
        }
    }

    /// The field that follows quantity q (nil: none does).
    static func following(_ q: Quantity) -> SeriesField? { allCases.first { $0.quantity == q } }

    /// Each field's tally slot and storage, looked up once (the recorder reads them daily).
    static let slots: [Int] = allCases.map { $0.quantity.rawValue }
    static let storages: [Quantity.Storage] = allCases.map { $0.quantity.storage }
}

/// A device's series values for one row (a day, or an hour of the day).
typealias SeriesRow = InlineArray<17, Double>

/// Series over rows (days of the run, or hours of the day): for every row and field, the
/// cluster moments over devices (Σy, Σy², Σy·opens), so each row gets the same rates and
/// intervals as the summary. Exact sums (``ExactSum``), like ``FleetTally``: the same in
/// any order of devices.
public struct SeriesTally: Sendable, Equatable {
    public let rows: Int
    public internal(set) var devices = 0
    /// Σy, Σy², Σy·opens of (row, field) at 3i, 3i + 1, 3i + 2 with i = row · fields + field.
    var sums: [ExactSum]

    public init(rows: Int) {
        self.rows = rows
        sums = Array(repeating: ExactSum(), count: 3 * rows * SeriesField.count)
    }

    /// Adds one device's values for `row`.
    mutating func add(row: Int, _ values: SeriesRow) {
        // The row checked once: the indices below then stay inside `sums` (and far from
        // overflow), so they are computed wrapping and read unchecked.
        precondition(row >= 0 && row < rows)
        let base = 3 &* row &* SeriesField.count
        // Through a buffer: subscripting the inline array (17 values) copied all of it, with
        // memcpy, at every read.
        values.span.withUnsafeBufferPointer { values in
            let opens = values[SeriesField.opens.rawValue]
            sums.withUnsafeMutableBufferPointer { s in
                for f in 0..<SeriesField.count {
                    let v = values[f]
                    if v == 0 { continue }
                    let i = base &+ 3 &* f
                    s[i].add(v)
                    s[i &+ 1].add(v * v)
                    s[i &+ 2].add(v * opens)
                }
            }
        }
    }

    /// Counts one more device (each device adds every row, zeros included).
    mutating func countDevice() { devices += 1 }

    mutating func merge(_ other: SeriesTally) {
        devices += other.devices
        for i in sums.indices { sums[i].add(other.sums[i]) }
    }

    public subscript(row: Int, field: SeriesField) -> Double {
        sums[3 * (row * SeriesField.count + field.rawValue)].value
    }

    public func moments(row: Int, _ field: SeriesField) -> Moments {
        let i = 3 * (row * SeriesField.count + field.rawValue), o = 3 * row * SeriesField.count
        return Moments(
            n: Double(devices), sy: sums[i].value, syy: sums[i + 1].value, sxy: sums[i + 2].value,
            sx: sums[o].value, sxx: sums[o + 1].value)
    }
}
