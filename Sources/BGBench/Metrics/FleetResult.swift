/// One device's totals, kept when per-device rows are asked for (devices.csv, paired
/// differences, `bgbench check`).
public struct DeviceRow: Sendable {
    public var device: Int
    /// Index into ``FleetResult/archetypeNames``.
    public var archetype: Int
    /// The device's value of each ``Quantity``, in `Quantity` order.
    public var values: [Double]
    /// What the device is (devices.csv's attribute columns).
    public var attributes = DeviceAttributes()
    public subscript(_ q: Quantity) -> Double { values[q.rawValue] }
}

/// What a set of devices adds up to: the fleet tally, one per archetype, the daily and
/// hour-of-day series, and optionally every device's row. Exact sums: sets of devices
/// (workers, shards) merge in any order to the same result (MODEL.md §2).
public struct FleetResult: Sendable {
    public var fleet = FleetTally()
    /// An external policy's declared identity (its handshake); nil for every other policy.
    public var externalPolicy: ExternalPolicyIdentity? = nil
    /// What its processes did in this fleet run (messages, round trips, how they ended); nil
    /// for every other policy, and in a merge of shards.
    package var externalTraffic: ExternalTraffic? = nil
    /// Archetype names (sorted), or ["routine"] for routine users, or ["trace"] when a
    /// trace replaces the user model.
    public let archetypeNames: [String]
    public var archetypes: [FleetTally]
    /// One row per day of the run (warm-up days stay zero).
    public var daily: SeriesTally
    /// One row per hour of the day (0–23), over the counted days.
    public var hourly: SeriesTally
    /// Per-device rows in device order, when kept.
    public var devices: [DeviceRow] = []
    /// The event log of the traced devices, in device order.
    public var trace: [TraceRow] = []
    /// Network requests per minute of the UTC day (filled at the end of a fleet run).
    public var serverLoad: ServerLoad
    let keepsDevices: Bool
    /// Whether traced devices' events are kept (not when a spool writes them).
    let keepsTrace: Bool

    init(scenario: Scenario, days: Int, keepDevices: Bool, replay: Bool = false, keepTrace: Bool = true) {
        serverLoad = ServerLoad(days: 0, firstDay: 0)
        archetypeNames =
            replay
            ? ["trace"]
            : scenario.population.model == .routine ? ["routine"] : scenario.population.sortedArchetypeNames
        archetypes = Array(repeating: FleetTally(), count: archetypeNames.count)
        daily = SeriesTally(rows: days)
        hourly = SeriesTally(rows: 24)
        keepsDevices = keepDevices
        keepsTrace = keepTrace
    }

    /// Adds one device's record: its open stalenesses (into its archetype's histogram only:
    /// the fleet's is their sum, `finish`), its daily and hourly rows, its totals and its
    /// event log. Devices are added in device order.
    mutating func add(_ r: DeviceRecord) {
        let s = r.storage
        archetypes[r.archetype].staleness.add(s.staleness.base, count: s.staleness.count)
        for i in 0..<s.daily.count / SeriesField.count { daily.add(row: s.firstDay + i, s.day(i)) }
        for h in 0..<24 { hourly.add(row: h, r.hour(h)) }
        add(device: r.device, archetype: r.archetype, r.tally, attributes: r.attributes)
        if keepsTrace { trace.append(contentsOf: r.trace) }
    }

    /// Adds one device's totals.
    mutating func add(
        device: Int, archetype: Int, _ tally: DeviceTally, attributes: DeviceAttributes = DeviceAttributes()
    ) {
        let values = tally.values()
        fleet.add(values)
        archetypes[max(0, archetype)].add(values)
        daily.countDevice()
        hourly.countDevice()
        if keepsDevices {
            devices.append(
                DeviceRow(device: device, archetype: max(0, archetype), values: values, attributes: attributes))
        }
    }

    /// Sets the fleet's staleness histogram to the sum of the archetypes' (devices add
    /// their opens to their archetype's only), and puts per-device rows and event logs in
    /// device order (workers add blocks in the order they claim them). Call once all
    /// devices are in.
    package mutating func finish() {
        var all = LogHistogram()
        for a in archetypes { all.merge(a.staleness) }
        fleet.staleness = all
        devices.sort { $0.device < $1.device }
        // Stable: a device's events stay in time order.
        trace = trace.enumerated().sorted { ($0.element.device, $0.offset) < ($1.element.device, $1.offset) }.map(
            \.element)
    }

    package mutating func merge(_ other: FleetResult) {
        fleet.merge(other.fleet)
        for i in archetypes.indices { archetypes[i].merge(other.archetypes[i]) }
        daily.merge(other.daily)
        hourly.merge(other.hourly)
        devices.append(contentsOf: other.devices)
        trace.append(contentsOf: other.trace)
    }
}
