import Synchronization
/// What one device's simulation records (MODEL.md §9): its tally, its daily and
/// hour-of-day series, the staleness of its counted opens, its server requests and, for a
/// traced device, its event log. The device calls the recorder and returns its output
/// (``DeviceRecord``); it never writes into a fleet's result. The fleet merges the records
/// in device order within a block and the blocks in block order (`FleetResult.add`).
///
/// Nothing allocates per event: the variable-length parts (daily rows, staleness values,
/// server requests) go into a worker's ``RecorderStorage``, reused from device to device.
struct DeviceRecorder {
    /// The device's totals: the simulation adds to them directly (`recorder.tally.increment(.opens)`).
    var tally = DeviceTally()
    /// The series totals at the start of the day (the whole run's by hour of day are in
    /// `storage.byHour`: 3 kB that an inline array made the recorder copy around).
    private var dayStart = SeriesRow(repeating: 0)
    /// The end of the current hour and its first index in `byHour`.
    private var hourEnd = Clock.hour
    private var hourRow = 0
    private(set) var storage: RecorderStorage
    let device: Int
    /// The device's UTC offset (server requests are counted per UTC minute).
    let utcOffset: SimTime
    /// The event log, for traced devices only (nil otherwise).
    private var trace: [TraceRow]?
    let tracing: Bool

    init(device: Int, utcOffset: SimTime, tracing: Bool, storage: RecorderStorage) {
        self.device = device
        self.utcOffset = utcOffset
        self.tracing = tracing
        self.storage = storage
        trace = tracing ? [] : nil
        self.storage.clear()
    }

    /// Adds `value` to a series field of the hour of day of t (the days come from the
    /// totals, `flushDay`).
    @inline(__always)
    mutating func record(_ field: SeriesField, _ value: Double, at t: SimTime) {
        // Events come in time order: move the hour forward instead of dividing.
        // Wrapping and unchecked: hourEnd stays within an hour after t; hourRow ≤ 23 · 17 and a
        // field's raw value < 17, so the index stays below 408, the buffer's size.
        while t >= hourEnd {
            hourEnd &+= Clock.hour; hourRow = hourRow == 23 * SeriesField.count ? 0 : hourRow &+ SeriesField.count
        }
        storage.byHour[hourRow &+ field.rawValue] += value
    }

    /// A counted open's staleness in seconds (0 when fresh), for the archetype's histogram.
    @inline(__always)
    mutating func staleness(_ seconds: Double) { storage.staleness.append(seconds) }

    /// `requests` network requests to the app's server at device time t.
    @inline(__always)
    mutating func serverRequests(_ requests: Int32, at t: SimTime) { storage.load.add(requests, atUTC: t - utcOffset) }

    /// Bytes received on `net` at t, `images` of them catalog images (MODEL.md §9: bytes by
    /// network; image bytes are counted on cellular only, and by hour).
    @inline(__always)
    mutating func received(_ bytes: Double, images: Double, on net: NetworkKind, at t: SimTime) {
        if net.isCellular {
            tally[amount: .cellularBytes] += bytes
            tally[amount: .cellularImageBytes] += images
            if images > 0 { record(.cellularImageBytes, images, at: t) }
        } else {
            tally[amount: .wifiBytes] += bytes
        }
    }

    /// Logs an event of a traced device (callers check `tracing` first, so untraced
    /// devices build no strings).
    mutating func log(_ event: String, _ detail: String, _ value: Double? = nil, at t: SimTime) {
        trace?.append(TraceRow(device: device, time: t, event: event, detail: detail, value: value))
        // Streamed: the log goes to the worker's events buffer in chunks, not kept whole.
        if let spill = storage.traceSpill, (trace?.count ?? 0) >= spill.chunkRows {
            spill.take(trace!)
            trace!.removeAll(keepingCapacity: true)
        }
    }

    /// The device's totals so far of the series fields (a day's row is what they gained
    /// that day): each field's tally slot, converted as its quantity is stored.
    ///
    /// The slots are read through a span: subscripting the inline array here copied all
    /// of it (408 bytes) for every field read, nine times a day. Mutating, though it
    /// changes nothing: a span needs its storage in memory, and a non-mutating method
    /// copied the whole recorder (2,224 bytes) to the stack to have it there, twice a day.
    @inline(__always)
    private mutating func seriesTotals() -> SeriesRow {
        var row = SeriesRow(repeating: 0)
        let slots = tally.slots.span
        for f in 0..<SeriesField.count {
            let v = slots[SeriesField.slots[f]]
            row[f] =
                switch SeriesField.storages[f] {
                case .count: Double(v)
                case .ticks: Clock.seconds(v)
                case .amount: Double(bitPattern: UInt64(bitPattern: v))
                }
        }
        return row
    }

    /// Ends day `day`: what the totals gained since the last call is the day's row (kept
    /// when `counted`). Called once per day, in order.
    @inline(__always)
    mutating func flushDay(_ day: Int, counted: Bool) {
        let now = seriesTotals()
        if counted {
            // Through spans of local copies: subscripting the rows (17 values) copied them
            // whole, with memcpy, at every read.
            let start = dayStart
            let n = now.span, s = start.span
            for f in 0..<SeriesField.count { storage.daily.append(n[f] - s[f]) }
            if storage.firstDay < 0 { storage.firstDay = day }
        }
        dayStart = now
    }

    /// The device's output, once its last day is flushed.
    consuming func finish(archetype: Int, attributes: DeviceAttributes = DeviceAttributes()) -> DeviceRecord {
        DeviceRecord(
            device: device, archetype: max(0, archetype), tally: tally, trace: trace ?? [],
            storage: storage, attributes: attributes)
    }
}

/// One device's output: its tally and (in its worker's storage, valid until the worker's
/// next device) its hour-of-day series, daily rows, open stalenesses and server requests.
struct DeviceRecord {
    let device: Int
    let archetype: Int
    let tally: DeviceTally
    let trace: [TraceRow]
    let storage: RecorderStorage
    var attributes = DeviceAttributes()

    /// The series row of hour h.
    func hour(_ h: Int) -> SeriesRow {
        var row = SeriesRow(repeating: 0)
        for f in 0..<SeriesField.count { row[f] = storage.byHour[h * SeriesField.count + f] }
        return row
    }
}

/// A worker's reusable buffers for the variable-length parts of a device's record, moved
/// into each device's recorder and back out with its record (a plain struct, so the
/// simulation writes to them without reference counting or exclusivity checks). A buffer
/// may move when it grows, so the storage to keep is the one that comes back in the
/// record (`DeviceRecord.storage`), and the last one back is released once (`release()`).
struct RecorderStorage {
    /// The device's series by hour of day: 24 rows of `SeriesField.count` values.
    let byHour: UnsafeMutablePointer<Double>
    static let hourValues = 24 * SeriesField.count
    /// The daily rows of the counted days, from `firstDay` on, `SeriesField.count` values each.
    var daily = ReusableLog<Double>()
    var firstDay = -1
    var staleness = ReusableLog<Double>()
    var load: ServerRequestLog
    /// Where a traced device's events go as it runs when a spool writes them (nil: kept
    /// in the record to the device's end).
    var traceSpill: TraceSpill?

    init(days: Int, firstDay: Int) {
        load = ServerRequestLog(days: days, firstDay: firstDay)
        byHour = .allocate(capacity: Self.hourValues)
        byHour.initialize(repeating: 0, count: Self.hourValues)
    }

    mutating func clear() {
        byHour.update(repeating: 0, count: Self.hourValues)
        daily.removeAll()
        firstDay = -1
        staleness.removeAll()
        load.removeAll()
    }

    func release() {
        byHour.deallocate()
        daily.deallocate()
        staleness.deallocate()
        load.entries.deallocate()
    }

    /// The series row of the i-th counted day.
    func day(_ i: Int) -> SeriesRow {
        var row = SeriesRow(repeating: 0)
        for f in 0..<SeriesField.count { row[f] = daily[i * SeriesField.count + f] }
        return row
    }
}

/// A growable buffer reused without freeing (cleared, not released, between devices):
/// a plain pointer, no reference counting; its owner deallocates it once.
struct ReusableLog<Element: BitwiseCopyable> {
    private(set) var base: UnsafeMutablePointer<Element>
    private(set) var count = 0
    private var capacity = 1024

    init() { base = .allocate(capacity: capacity) }

    @inline(__always)
    mutating func append(_ x: Element) {
        if count == capacity { grow() }
        base[count] = x
        count &+= 1  // below capacity before: cannot overflow
    }

    private mutating func grow() {
        let bigger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
        bigger.moveInitialize(from: base, count: count)
        base.deallocate()
        base = bigger
        capacity *= 2
    }

    mutating func removeAll() { count = 0 }
    func deallocate() { base.deallocate() }
    subscript(i: Int) -> Element { base[i] }
}

/// A device's server requests in time order, as (minute index, count): added to the
/// worker's per-minute counts when the device ends. The counts span every (day, minute)
/// of the run, megabytes, and adding to them one by one between simulation events missed
/// the cache at every request.
struct ServerRequestLog {
    let firstTick: SimTime
    let minutes: Int
    private(set) var entries = ReusableLog<UInt64>()

    init(days: Int, firstDay: Int) {
        firstTick = SimTime(firstDay) * Clock.day
        minutes = max(0, days - firstDay) * ServerLoad.minutesPerDay
    }

    /// Notes `requests` made at UTC time t, if t falls in the counted days.
    @inline(__always)
    mutating func add(_ requests: Int32, atUTC t: SimTime) {
        let i = Int((t - firstTick) / Clock.minute)
        guard t >= firstTick && i < minutes && requests > 0 else { return }
        entries.append(UInt64(i) << 8 | UInt64(requests))
    }

    mutating func removeAll() { entries.removeAll() }
}

/// A fleet run's server-load counts per (counted day, minute of the UTC day) for one arm,
/// shared by the workers: each adds its devices' requests atomically (relaxed: integer
/// additions commute, so the totals are the same in any order and on any thread count).
/// One grid per arm, not one per worker: the largest per-day memory of a long run
/// (docs/limits.md, "Memory").
final class ServerLoadCounts: @unchecked Sendable {
    let minutes: Int
    /// nil once taken (`take`).
    private var counts: UnsafeMutablePointer<Atomic<Int32>>?

    init(days: Int, firstDay: Int) {
        minutes = max(0, days - firstDay) * ServerLoad.minutesPerDay
        let counts = UnsafeMutablePointer<Atomic<Int32>>.allocate(capacity: max(1, minutes))
        for i in 0..<max(1, minutes) { (counts + i).initialize(to: Atomic(0)) }
        self.counts = counts
    }

    deinit { release() }

    private func release() {
        counts?.deinitialize(count: max(1, minutes))
        counts?.deallocate()
        counts = nil
    }

    /// Adds a device's requests.
    func add(_ log: ServerRequestLog) {
        let e = log.entries, counts = counts!
        for k in 0..<e.count { counts[Int(e[k] >> 8)].wrappingAdd(Int32(e[k] & 0xFF), ordering: .relaxed) }
    }

    /// The counts, once every worker has finished: per day for a shard's merge
    /// (`keepingDays`), else folded straight from the grid without a copy of it (a whole
    /// run needs only each minute's total and peak). The grid is freed.
    func take(days: Int, firstDay: Int, keepingDays: Bool) -> ServerLoad {
        let counts = counts!
        defer { release() }
        guard keepingDays else {
            return ServerLoad(days: days, firstDay: firstDay) { counts[$0].load(ordering: .relaxed) }
        }
        var load = ServerLoad(days: days, firstDay: firstDay)
        load.counts.withUnsafeMutableBufferPointer { out in
            for i in 0..<minutes { out[i] = counts[i].load(ordering: .relaxed) }
        }
        return load
    }
}
