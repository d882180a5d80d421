import Foundation

/// A shard's state (shard.state): the header line and the base64 of every accumulator of
/// its runs, in order: per run, per seed and policy, the fleet result, busy seconds and
/// paired comparison; a frontier's joint sums per seed after its run (Reports/README.md,
/// "Shards"). Written by a run, sweep or frontier with `--shard`, read by `bgbench merge`.
public struct ShardState {
    public static let fileName = ReportFile.shardState.name

    private var requests: [RunRequest] = []
    /// Each run's external policies' identities by name (nil: none ran).
    private var externalPolicies: [[String: ExternalPolicyIdentity]?] = []
    private var writer = StateWriter()
    private var wallSeconds = 0.0, threads = 0
    var sweep: ShardHeader.Sweep?
    /// A frontier's request (its shard.state is written by the harness, which knows frontiers).
    package var frontier: ShardHeader.Frontier?
    /// A suite shard's suite and its tasks' frontiers (written by the harness too).
    package var suite: ShardHeader.Suite?
    package var frontiers: [ShardHeader.Frontier]?
    let kind: ReportKind
    /// The devices.csv and events.csv the shard streamed (``ShardHeader/rows``).
    public var rows: [RowSpool.Written] = []

    public init(kind: ReportKind) { self.kind = kind }

    /// Adds a run's (or a sweep point's) results.
    public mutating func add(_ report: RunReport) {
        requests.append(report.request)
        externalPolicies.append(ExternalPolicies.identities(report.results))
        wallSeconds += report.wallSeconds
        threads = max(threads, report.threads)
        for result in report.results {
            result.result.encode(&writer)
            writer.double(result.wallSeconds)
            writer.bool(result.paired != nil)
            result.paired?.encode(&writer)
        }
    }

    /// Adds joint sums after the runs: a frontier's of one seed, a sweep group's of one seed.
    package mutating func add(_ sums: JointSums) { sums.encode(&writer) }

    /// The text of shard.state.
    public func text(commandLine: [String]) -> String {
        var header = ShardHeader(
            kind: kind, requests: requests, wallSeconds: wallSeconds, threads: threads, commandLine: commandLine,
            payloadSha256: SHA256.hex(writer.bytes))
        header.sweep = sweep
        header.frontier = frontier
        header.suite = suite
        header.frontiers = frontiers
        header.rows = rows.isEmpty ? nil : rows
        for (k, identity) in externalPolicies.enumerated() where k < header.runs.count {
            header.runs[k].externalPolicies = identity
        }
        return header.json + "\n" + Data(writer.bytes).base64EncodedString() + "\n"
    }

    /// shard.state of a run that streamed `rows`.
    static func text(_ report: RunReport, rows: [RowSpool.Written] = []) -> String {
        var state = ShardState(kind: .run)
        state.add(report)
        state.rows = rows
        return state.text(commandLine: report.request.commandLine)
    }

    /// shard.state of a sweep: its points' runs, in grid order.
    public static func text(sweep axes: [SweepAxis], specs: [String], points: [[String]], reports: ShardState) -> String
    {
        var state = reports
        state.sweep = ShardHeader.Sweep(
            paths: axes.map(\.path), values: axes.map(\.values), specs: specs, points: points)
        return state.text(commandLine: state.requests.first?.commandLine ?? [])
    }

    /// A payload's results, for the runs of `requests`, and the joint sums after them, one
    /// of each layout of `joint` in order (a frontier's per seed; a sweep's per group that
    /// keeps them and seed): what `bgbench merge` adds up.
    package static func decode(
        _ payload: [UInt8], requests: [RunRequest], joint: [(arms: Int, quantities: [Quantity])]
    )
        throws(ShardStateError) -> (runs: [[PolicyResult]], joint: [JointSums])
    {
        var r = StateReader(payload)
        var runs: [[PolicyResult]] = []
        for request in requests {
            let o = request.options
            let empty = FleetResult(
                scenario: request.scenario.scenario, days: o.days, keepDevices: o.keepDevices,
                replay: request.opensTraceIdentity != nil)
            var results: [PolicyResult] = []
            for seed in request.seeds {
                for policy in request.policies {
                    let result = try FleetResult(empty: empty, days: o.days, firstDay: o.warmupDays, &r)
                    let seconds = try r.double()
                    let paired = try r.bool() ? try PairedTally(&r) : nil
                    results.append(
                        PolicyResult(
                            policy: policy, seed: seed, result: result, wallSeconds: seconds, workers: 0,
                            paired: paired))
                }
            }
            runs.append(results)
        }
        var sums: [JointSums] = []
        for layout in joint { sums.append(try JointSums(arms: layout.arms, quantities: layout.quantities, &r)) }
        guard r.atEnd else { throw .malformed("\(payload.count - r.offset) bytes after the last result") }
        return (runs, sums)
    }
}

/// The binary form of a shard's sufficient statistics (Reports/README.md, "shard.state"):
/// every accumulator behind a report, exactly as held in memory, so that `bgbench merge`
/// adds shards into the totals a single process would have. Integers are LEB128 varints
/// (zigzag for signed values), doubles their 8 bytes, exact sums their five limbs as
/// varints (most are 0 or small) and their non-finite part.
struct StateWriter {
    private(set) var bytes: [UInt8] = []

    mutating func unsigned(_ v: UInt64) {
        var v = v
        while v >= 0x80 { bytes.append(UInt8(v & 0x7F) | 0x80); v >>= 7 }
        bytes.append(UInt8(v))
    }
    mutating func int(_ v: Int) { unsigned(UInt64(bitPattern: Int64(v) << 1 ^ Int64(v) >> 63)) }
    mutating func double(_ v: Double) {
        var bits = v.bitPattern
        for _ in 0..<8 { bytes.append(UInt8(bits & 0xFF)); bits >>= 8 }
    }
    mutating func bool(_ v: Bool) { bytes.append(v ? 1 : 0) }
    mutating func string(_ s: String) {
        let utf8 = Array(s.utf8)
        int(utf8.count)
        bytes.append(contentsOf: utf8)
    }
    mutating func exact(_ s: ExactSum) {
        let s = s.normalized
        for i in 0..<ExactSum.limbCount { unsigned(s.limbs[i]) }
        double(s.special)
    }
    mutating func exacts(_ sums: [ExactSum]) {
        int(sums.count)
        for s in sums { exact(s) }
    }
}

/// Reads what ``StateWriter`` wrote; a truncated or malformed state throws.
struct StateReader {
    let bytes: [UInt8]
    private(set) var offset = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { offset == bytes.count }

    mutating func unsigned() throws(ShardStateError) -> UInt64 {
        var v: UInt64 = 0, shift: UInt64 = 0
        while true {
            guard offset < bytes.count, shift < 64 else { throw .malformed("a number is cut short or too long") }
            let b = bytes[offset]
            offset += 1
            v |= UInt64(b & 0x7F) << shift
            if b < 0x80 { return v }
            shift += 7
        }
    }
    mutating func int() throws(ShardStateError) -> Int {
        let z = try unsigned()
        return Int(Int64(bitPattern: z >> 1) ^ -Int64(bitPattern: z & 1))
    }
    /// A count of items that follow, each at least `size` bytes: refuses one the rest cannot hold.
    mutating func count(atLeast size: Int = 1) throws(ShardStateError) -> Int {
        let n = try int()
        guard n >= 0, n <= (bytes.count - offset) / max(1, size) else {
            throw .malformed("a length of \(n) is out of range")
        }
        return n
    }
    mutating func double() throws(ShardStateError) -> Double {
        guard offset + 8 <= bytes.count else { throw .malformed("a number is cut short") }
        var bits: UInt64 = 0
        for i in 0..<8 { bits |= UInt64(bytes[offset + i]) << (8 * UInt64(i)) }
        offset += 8
        return Double(bitPattern: bits)
    }
    mutating func bool() throws(ShardStateError) -> Bool { try unsigned() != 0 }
    mutating func string() throws(ShardStateError) -> String {
        let n = try count()
        defer { offset += n }
        return String(decoding: bytes[offset..<offset + n], as: UTF8.self)
    }
    mutating func exact() throws(ShardStateError) -> ExactSum {
        var s = ExactSum()
        for i in 0..<ExactSum.limbCount { s.limbs[i] = try unsigned() }
        s.special = try double()
        return s
    }
    mutating func exacts(_ expected: Int) throws(ShardStateError) -> [ExactSum] {
        let n = try count(atLeast: 13)
        guard n == expected else { throw .malformed("\(n) sums where \(expected) were expected") }
        var sums = [ExactSum]()
        sums.reserveCapacity(n)
        for _ in 0..<n { sums.append(try exact()) }
        return sums
    }
}

/// A shard state that cannot be read.
public enum ShardStateError: Error, Equatable, CustomStringConvertible {
    case malformed(String)
    public var description: String {
        switch self {
        case .malformed(let what): "malformed shard state: \(what)"
        }
    }
}

// MARK: The accumulators

extension LogHistogram {
    func encode(_ w: inout StateWriter) {
        w.int(zeros)
        w.int(total)
        // Most bins are empty: (gap, count) pairs for the others.
        var last = -1
        w.int(bins.count { $0 != 0 })
        for (i, c) in bins.enumerated() where c != 0 { w.int(i - last); w.int(c); last = i }
    }
    init(_ r: inout StateReader) throws(ShardStateError) {
        self.init()
        zeros = try r.int()
        total = try r.int()
        var i = -1
        for _ in 0..<(try r.count(atLeast: 2)) {
            i += try r.int()
            guard i >= 0, i < bins.count else { throw .malformed("a histogram bin out of range") }
            bins[i] = try r.int()
        }
    }
}

extension FleetTally {
    func encode(_ w: inout StateWriter) {
        w.int(devices)
        w.exacts(sums)
        staleness.encode(&w)
    }
    init(_ r: inout StateReader) throws(ShardStateError) {
        self.init()
        devices = try r.int()
        sums = try r.exacts(3 * Quantity.count)
        staleness = try LogHistogram(&r)
    }
}

extension SeriesTally {
    func encode(_ w: inout StateWriter) {
        w.int(devices)
        w.exacts(sums)
    }
    init(rows: Int, _ r: inout StateReader) throws(ShardStateError) {
        self.init(rows: rows)
        devices = try r.int()
        sums = try r.exacts(3 * rows * SeriesField.count)
    }
}

extension PairedTally {
    func encode(_ w: inout StateWriter) {
        w.int(moments.count)
        w.int(archetypes.count)
        for list in [moments] + archetypes {
            for m in list {
                w.double(m.n)
                w.double(m.unequal)
                w.exacts(m.sums)
            }
        }
    }
    init(_ r: inout StateReader) throws(ShardStateError) {
        self.init()
        guard try r.count() == moments.count else { throw .malformed("paired tallies of another metric list") }
        archetypes = Array(repeating: Self.empty, count: try r.count())
        func read(_ list: inout [PairedMoments]) throws(ShardStateError) {
            for k in list.indices {
                list[k].n = try r.double()
                list[k].unequal = try r.double()
                list[k].sums = try r.exacts(PairedMoments.Sum.allCases.count)
            }
        }
        try read(&moments)
        for a in archetypes.indices { try read(&archetypes[a]) }
    }
}

extension JointSums {
    func encode(_ w: inout StateWriter) {
        w.int(n)
        w.exacts(sums)
        w.exacts(products)
    }
    init(arms: Int, quantities: [Quantity], _ r: inout StateReader) throws(ShardStateError) {
        self.init(arms: arms, quantities: quantities)
        n = try r.int()
        sums = try r.exacts(sums.count)
        products = try r.exacts(products.count)
    }
}

extension FleetResult {
    /// Everything but what the run's options fix (days, archetypes, whether rows are kept).
    func encode(_ w: inout StateWriter) {
        fleet.encode(&w)
        for a in archetypes { a.encode(&w) }
        daily.encode(&w)
        hourly.encode(&w)
        w.int(serverLoad.counts.count)
        for c in serverLoad.counts { w.int(Int(c)) }
        w.int(devices.count)
        for d in devices {
            w.int(d.device)
            w.int(d.archetype)
            for v in d.values { w.double(v) }
            let a = d.attributes
            w.string(a.platform)
            w.bool(a.barOff); w.bool(a.homeWifi); w.bool(a.workWifi); w.bool(a.keepsLowPower)
            w.double(a.overnightChargeShare); w.double(a.usageEstimate); w.double(a.expectedOpensPerDay)
        }
        w.int(trace.count)
        for t in trace {
            w.int(t.device)
            w.int(Int(t.time))
            w.string(t.event)
            w.string(t.detail)
            w.bool(t.value != nil)
            if let v = t.value { w.double(v) }
        }
    }

    /// Reads a result into `empty`, a result of the run's shape.
    init(empty: FleetResult, days: Int, firstDay: Int, _ r: inout StateReader) throws(ShardStateError) {
        self = empty
        fleet = try FleetTally(&r)
        for i in archetypes.indices { archetypes[i] = try FleetTally(&r) }
        daily = try SeriesTally(rows: daily.rows, &r)
        hourly = try SeriesTally(rows: 24, &r)
        serverLoad = ServerLoad(days: days, firstDay: firstDay)
        guard try r.count() == serverLoad.counts.count else { throw .malformed("server counts of another length") }
        for i in serverLoad.counts.indices { serverLoad.counts[i] = Int32(truncatingIfNeeded: try r.int()) }
        let rows = try r.count(atLeast: 8 * Quantity.count)
        devices.reserveCapacity(rows)
        for _ in 0..<rows {
            let device = try r.int(), archetype = try r.int()
            guard archetype >= 0, archetype < archetypeNames.count else {
                throw .malformed("a device row of an unknown archetype")
            }
            var values = [Double](repeating: 0, count: Quantity.count)
            for q in 0..<Quantity.count { values[q] = try r.double() }
            var a = DeviceAttributes(platform: try r.string())
            a.barOff = try r.bool(); a.homeWifi = try r.bool(); a.workWifi = try r.bool();
            a.keepsLowPower = try r.bool()
            a.overnightChargeShare = try r.double(); a.usageEstimate = try r.double();
            a.expectedOpensPerDay = try r.double()
            devices.append(DeviceRow(device: device, archetype: archetype, values: values, attributes: a))
        }
        for _ in 0..<(try r.count(atLeast: 5)) {
            let device = try r.int(), time = SimTime(try r.int())
            let event = try r.string(), detail = try r.string()
            let value: Double? = try r.bool() ? try r.double() : nil
            trace.append(TraceRow(device: device, time: time, event: event, detail: detail, value: value))
        }
    }
}
