import Foundation
import Synchronization

/// devices.csv and events.csv written into a run's staging folder while the fleet runs, so
/// that memory does not grow with devices or traced devices (docs/limits.md, "Memory").
///
/// The rows come out exactly as `SeriesReports.devicesCSV` and `eventsCSV` print them from
/// memory: per seed and policy (a *result*, in report order), every device in device
/// order; a sweep's (`SweepPlan`) per point, then seed and policy, each row led by the
/// point's values, as `SweepReport` prints a point's rows. Workers claim blocks of devices
/// out of order, so each (block, result) is a *segment* of its result's rows, and each
/// result's rows go to a *part* file that takes segments in block order:
///
/// - a worker renders a segment's rows into its own buffer and hands it over every
///   `flushBytes` bytes and when the segment ends (``RowSink``);
/// - the segment of the part's next block (its *head*) is written to the part at once;
///   another is held in memory while the spool holds less than `pendingBytes` of them, else
///   spilled to a file of its own in the staging folder; when the head ends, the segments
///   after it that have ended follow it into the part, in block order;
/// - at the end, result 0's part is the report file itself (its header first) and the
///   other results' parts are appended to it in order, then removed; the file's SHA-256
///   and size are computed as its bytes are written.
///
/// Memory is then at most `pendingBytes` plus each worker's buffer (`flushBytes`, one
/// device's devices.csv row and at most `traceChunkRows` of its events, which a traced
/// device hands over as it goes: ``TraceSpill``), whatever the devices, traced devices
/// and days. Every write
/// happens under the spool's lock, in order; creating a file goes through `critical`
/// (the command's interruption lock), so a signal never races a new file in a staging
/// folder it removes. A write that fails (a full disk) is kept, stops the run at its next
/// block, and is thrown by ``check()`` and ``finish()``; the command then drops its staging
/// folder, so no half-written report is left.
public final class RowSpool: @unchecked Sendable {
    /// The two files a run can stream.
    public enum Stream: Int, CaseIterable, Sendable {
        case devices, events
        public var file: ReportFile { self == .devices ? .devices : .events }
    }

    /// A file written by the spool: what run.json's manifest records, and where each
    /// result's rows are in it (what a shard's shard.state records, so that `bgbench merge`
    /// puts the shards' rows together result by result).
    public struct Written: Sendable, Equatable, Codable {
        public var name: String
        public var bytes: Int
        public var sha256: String
        /// The header line's bytes, then each result's rows' bytes, in report order.
        public var header = 0
        public var results: [Int] = []

        package init(name: String, bytes: Int, sha256: String, header: Int = 0, results: [Int] = []) {
            self.name = name; self.bytes = bytes; self.sha256 = sha256; self.header = header
            self.results = results
        }

        /// The same file: name, size and SHA-256 (what a manifest compares), whatever the
        /// layout recorded.
        public static func == (a: Self, b: Self) -> Bool {
            a.name == b.name && a.bytes == b.bytes && a.sha256 == b.sha256
        }
    }

    let folder: String
    /// The streams written, in report order (devices.csv before events.csv).
    public let streams: [Stream]
    /// Each result's leading fields, in report order: what its rows begin with.
    let results: [[String]]
    /// A worker hands its rows over when it holds this many bytes of one file.
    let flushBytes: Int
    /// The most bytes of ended segments held in memory waiting for their turn.
    let pendingBytes: Int
    /// A traced device hands its events to its worker's buffer every this many rows, so a
    /// device of many days never holds its whole log.
    let traceChunkRows: Int
    let critical: @Sendable (() throws -> Void) throws -> Void

    /// One result's part of one stream. The report file itself (result 0) stays open; a
    /// further result's part is created by its first write and opened for each write after
    /// (`fd` -1), so the files open at once do not grow with the results (a sweep's points
    /// × seeds × policies).
    struct Part {
        /// The report file it is part of (what an error names).
        var name: String
        var fd: Int32 = -1
        var created = false
        var path: String
        /// The block whose segment is written next.
        var next: Int
        var hasher = SHA256.Hasher()
        var bytes = 0
    }

    /// A segment that is not its part's head: held in memory, or spilled to a file.
    struct Waiting {
        var buffer: [UInt8] = []
        var spill: (fd: Int32, path: String)?
        var ended = false
    }

    struct Key: Hashable {
        var stream: Int
        var result: Int
        var block: Int
    }

    struct State {
        var parts: [[Part]]
        var waiting: [Key: Waiting] = [:]
        /// Bytes held in `waiting`'s buffers, and the most ever held (for tests).
        var held = 0
        var peakHeld = 0
        var spills = 0
        var failure: ReportError?
        /// Each stream's header bytes.
        var headers = [Int](repeating: 0, count: Stream.allCases.count)
    }

    let state: Mutex<State>

    /// Opens the files of `streams` in `folder` (the staging folder): each report file with
    /// its header (led by `columns`: a sweep's axes), and a part for each further result.
    /// `results` are the leading fields of each result's rows, in report order
    /// (``RunRequest/rowLabels(lead:)``); `firstBlock` the first block of the fleet.
    public init(
        folder: String, streams: [Stream], columns: [String] = [], results: [[String]],
        firstBlock: Int = 0, flushBytes: Int = 1 << 20, pendingBytes: Int = 16 << 20, traceChunkRows: Int = 4096,
        critical: @escaping @Sendable (() throws -> Void) throws -> Void = { try $0() }
    ) throws {
        self.folder = folder
        self.streams = streams.sorted { $0.rawValue < $1.rawValue }
        self.results = results
        self.flushBytes = max(1, flushBytes)
        self.pendingBytes = max(0, pendingBytes)
        self.traceChunkRows = max(1, traceChunkRows)
        self.critical = critical
        var parts: [[Part]] = []
        for stream in Stream.allCases {
            let name = stream.file.name
            parts.append(
                results.indices.map { r in
                    Part(name: name, path: Self.path(folder, r == 0 ? name : ".\(name).part-\(r)"), next: firstBlock)
                })
        }
        state = Mutex(State(parts: parts))
        try state.withLock { state in
            for stream in self.streams {
                var part = state.parts[stream.rawValue][0]
                part.fd = try create(part.path, for: part.name)
                part.created = true
                var header = CSVWriter("")
                header.row(columns + stream.file.header!)
                if let failure = write(Array(header.output.utf8), to: &part) { throw failure }
                state.headers[stream.rawValue] = part.bytes
                state.parts[stream.rawValue][0] = part
            }
        }
    }

    deinit {
        state.withLock { state in
            for part in state.parts.joined() where part.fd >= 0 { close(part.fd) }
            for w in state.waiting.values { if let s = w.spill { close(s.fd) } }
        }
    }

    static func path(_ folder: String, _ name: String) -> String { (folder as NSString).appendingPathComponent(name) }

    /// Whether a write has failed: the fleet claims no more blocks.
    public var failed: Bool { state.withLock { $0.failure != nil } }

    /// The most bytes of ended segments the spool held in memory at once.
    public var peakHeldBytes: Int { state.withLock { $0.peakHeld } }

    /// How many segments were spilled to a file of their own.
    public var spilledSegments: Int { state.withLock { $0.spills } }

    /// Throws the first write that failed, if any.
    public func check() throws { if let failure = state.withLock({ $0.failure }) { throw failure } }

    /// Hands over `buffer` (emptied): rows of `result`'s segment of `block` in `stream`,
    /// in order; `ended` when they are the segment's last.
    func hand(_ buffer: inout [UInt8], stream: Stream, result: Int, block: Int, ended: Bool) {
        state.withLock { state in
            guard state.failure == nil else { return }
            let s = stream.rawValue
            let key = Key(stream: s, result: result, block: block)
            var part = state.parts[s][result]
            defer { state.parts[s][result] = part }
            if part.next == block {
                // The head: what it handed over before it became the head, then this.
                if let w = state.waiting.removeValue(forKey: key) {
                    state.held -= w.buffer.count
                    state.failure = drain(w, into: &part)
                }
                if state.failure == nil { state.failure = write(buffer, to: &part) }
                guard ended else { return }
                part.next += 1
                // The ended segments after it follow, in block order.
                while state.failure == nil, let w = state.waiting[Key(stream: s, result: result, block: part.next)],
                    w.ended
                {
                    state.waiting[Key(stream: s, result: result, block: part.next)] = nil
                    state.held -= w.buffer.count
                    state.failure = drain(w, into: &part)
                    part.next += 1
                }
                return
            }
            var w = state.waiting[key] ?? Waiting()
            w.ended = ended
            if w.spill == nil && state.held + buffer.count <= pendingBytes {
                w.buffer += buffer
                state.held += buffer.count
                state.peakHeld = max(state.peakHeld, state.held)
                state.waiting[key] = w
                return
            }
            if w.spill == nil {
                let path = Self.path(folder, ".spool-\(s)-\(result)-\(block)")
                do { w.spill = (try create(path, for: part.name), path) } catch {
                    state.failure = error as? ReportError ?? .cannotWrite(part.name, reason: "\(error)")
                    return
                }
                state.spills += 1
                // What it held in memory goes first.
                state.held -= w.buffer.count
                let held = w.buffer
                w.buffer = []
                state.waiting[key] = w
                if let reason = ReportWriter.writeAll(w.spill!.fd, held) {
                    state.failure = .cannotWrite(part.name, reason: reason)
                    return
                }
            }
            state.waiting[key] = w
            if let reason = ReportWriter.writeAll(w.spill!.fd, buffer) {
                state.failure = .cannotWrite(part.name, reason: reason)
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes a waiting segment into its part, and removes its spill file.
    private func drain(_ w: Waiting, into part: inout Part) -> ReportError? {
        var failure: ReportError?
        if let (fd, path) = w.spill {
            if lseek(fd, 0, SEEK_SET) < 0 {
                failure = .cannotWrite(part.name, reason: String(cString: strerror(errno)))
            } else {
                failure = copy(from: fd, to: &part)
            }
            close(fd)
            unlink(path)
        }
        return failure ?? write(w.buffer, to: &part)
    }

    /// Appends what `fd` holds from its offset to `part`.
    private func copy(from fd: Int32, to part: inout Part) -> ReportError? {
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return .cannotWrite(part.name, reason: String(cString: strerror(errno)))
            }
            if n == 0 { return nil }
            if let failure = write(Array(chunk[..<n]), to: &part) { return failure }
        }
    }

    /// Appends `bytes` to `part`, hashing them.
    private func write(_ bytes: [UInt8], to part: inout Part) -> ReportError? {
        guard !bytes.isEmpty else { return nil }
        var fd = part.fd
        if fd < 0 {
            do {
                fd =
                    try part.created
                    ? reopen(part.path, for: part.name, O_WRONLY | O_APPEND) : create(part.path, for: part.name)
            } catch { return error as? ReportError ?? .cannotWrite(part.name, reason: "\(error)") }
            part.created = true
        }
        defer { if fd != part.fd { close(fd) } }
        if let reason = ReportWriter.writeAll(fd, bytes) { return .cannotWrite(part.name, reason: reason) }
        part.hasher.update(bytes)
        part.bytes += bytes.count
        return nil
    }

    /// Opens `path`, a part of the report file `name` created before, with `flags`.
    private func reopen(_ path: String, for name: String, _ flags: Int32) throws(ReportError) -> Int32 {
        let fd = open(path, flags | O_CLOEXEC)
        guard fd >= 0 else { throw .cannotWrite(name, reason: String(cString: strerror(errno))) }
        return fd
    }

    /// Creates `path`, a file of the report file `name`, for reading and writing.
    private func create(_ path: String, for name: String) throws -> Int32 {
        var fd: Int32 = -1
        var reason = ""
        try critical {
            fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd < 0 { reason = String(cString: strerror(errno)) }
        }
        guard fd >= 0 else { throw ReportError.cannotWrite(name, reason: reason) }
        return fd
    }

    /// Appends every further result's part to its report file, in order, removes the
    /// parts and closes the files: the files written, in report order. Call once every
    /// block has ended.
    public func finish() throws -> [Written] {
        try state.withLock { state in
            if let failure = state.failure { throw failure }
            precondition(state.waiting.isEmpty, "a segment never ended")
            var written: [Written] = []
            for stream in streams {
                let s = stream.rawValue
                var file = state.parts[s][0]
                let results = [file.bytes - state.headers[s]] + state.parts[s].dropFirst().map(\.bytes)
                // A part never written (no rows) was never created.
                for r in 1..<state.parts[s].count where state.parts[s][r].created {
                    let part = state.parts[s][r]
                    let fd = try reopen(part.path, for: part.name, O_RDONLY)
                    let failure = copy(from: fd, to: &file)
                    close(fd)
                    if let failure { throw failure }
                    unlink(part.path)
                }
                let closed = close(file.fd)
                file.fd = -1
                state.parts[s][0] = file
                if closed != 0 { throw ReportError.cannotWrite(file.name, reason: String(cString: strerror(errno))) }
                written.append(
                    Written(
                        name: stream.file.name, bytes: file.bytes, sha256: file.hasher.hex(), header: state.headers[s],
                        results: results))
            }
            return written
        }
    }

    /// A worker's buffers for the spool (one per fleet worker).
    func sink() -> RowSink { RowSink(spool: self) }
}

/// A fleet worker's rows on their way to a ``RowSpool``: the segment it is simulating (a
/// block under one arm, whose rows go to one result or, for an arm a sweep's points share,
/// to one result per point) and its rows rendered so far, per result and file.
final class RowSink {
    let spool: RowSpool
    /// Per result of the segment (a slot), per stream.
    private var buffers: [[[UInt8]]] = []
    private var results: [Int] = []
    private var block = 0
    /// A slot's buffer is handed over once it holds this many bytes: `flushBytes` shared by
    /// the slots, so a worker holds about `flushBytes` per stream however many results.
    private var flushBytes = 0

    init(spool: RowSpool) { self.spool = spool }

    /// Starts the segment of `block` whose rows go to `results`.
    func begin(block: Int, results: [Int]) {
        self.block = block
        self.results = results
        flushBytes = max(1, spool.flushBytes / max(1, results.count))
        while buffers.count < results.count {
            var slot = [[UInt8]](repeating: [], count: RowSpool.Stream.allCases.count)
            // The first slot's buffers are kept between segments; the others, used only by
            // shared arms, are let go once handed over.
            if buffers.isEmpty { for s in spool.streams { slot[s.rawValue].reserveCapacity(spool.flushBytes + 4096) } }
            buffers.append(slot)
        }
    }

    /// Adds a device's rows: its totals (devices.csv) and its events (events.csv).
    func add(_ record: DeviceRecord, archetypeNames: [String]) {
        let row =
            spool.streams.contains(.devices)
            ? DeviceRow(
                device: record.device, archetype: max(0, record.archetype), values: record.tally.values(),
                attributes: record.attributes) : nil
        for (slot, result) in results.enumerated() {
            let labels = spool.results[result]
            for stream in spool.streams {
                switch stream {
                case .devices:
                    var csv = CSVWriter("")
                    csv.row(SeriesReports.deviceFields(row!, labels, archetypeNames: archetypeNames))
                    buffers[slot][stream.rawValue] += csv.output.utf8
                case .events:
                    SeriesReports.appendEvents(record.trace, labels: labels, to: &buffers[slot][stream.rawValue])
                }
                handIfFull(stream, slot: slot)
            }
        }
    }

    /// Adds events of the device being simulated, before its end (``TraceSpill``); the
    /// rest come with its record (``add(_:archetypeNames:)``).
    func addEvents(_ rows: [TraceRow]) {
        guard spool.streams.contains(.events) else { return }
        for (slot, result) in results.enumerated() {
            SeriesReports.appendEvents(
                rows, labels: spool.results[result], to: &buffers[slot][RowSpool.Stream.events.rawValue])
            handIfFull(.events, slot: slot)
        }
    }

    /// The spill a worker's recorder storage carries while this sink takes its events.
    func traceSpill() -> TraceSpill? {
        spool.streams.contains(.events) ? TraceSpill(chunkRows: spool.traceChunkRows) { self.addEvents($0) } : nil
    }

    /// Hands a slot's buffer of `stream` to the spool once it holds `flushBytes`.
    private func handIfFull(_ stream: RowSpool.Stream, slot: Int) {
        if buffers[slot][stream.rawValue].count >= flushBytes { hand(stream, slot: slot, ended: false) }
    }

    private func hand(_ stream: RowSpool.Stream, slot: Int, ended: Bool) {
        spool.hand(
            &buffers[slot][stream.rawValue], stream: stream, result: results[slot], block: block, ended: ended)
        if slot > 0 { buffers[slot][stream.rawValue] = [] }
    }

    /// Ends the segment: hands over what is left.
    func end() {
        for slot in results.indices { for stream in spool.streams { hand(stream, slot: slot, ended: true) } }
    }
}

/// Where a traced device's recorder hands its events every `chunkRows` rows while it runs
/// (a whole run's, streamed: ``RowSink/traceSpill()``), so its log is bounded in days.
final class TraceSpill {
    let chunkRows: Int
    let take: ([TraceRow]) -> Void
    init(chunkRows: Int, take: @escaping ([TraceRow]) -> Void) {
        self.chunkRows = chunkRows
        self.take = take
    }
}
