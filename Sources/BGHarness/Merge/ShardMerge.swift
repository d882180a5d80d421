import BGBench
import Dispatch
import Foundation

/// What a merge makes: the report of the whole run, sweep or frontier.
public enum MergedReport {
    case run(RunReport)
    case sweep(SweepReport, points: Int, policies: Int, seeds: [UInt64])
    case frontier(FrontierReport)
    /// A suite's shards: the suite they ran and each task's frontier, in task order.
    case suite(ShardHeader.Suite, [FrontierReport])
}

/// Adds shard folders into the report of the whole run, sweep or frontier (`bgbench
/// merge`): checks that they are the shards 0…N−1 of one, then adds them one at a time
/// (memory holds the totals and one shard, whatever the number of shards).
public enum ShardMerge {
    /// One shard folder: its header, and where its state is.
    public struct Part: Sendable {
        public var folder: String
        public var header: ShardHeader
    }

    /// Reads a shard folder's header; checks the folder is complete: run.json there, every
    /// file its manifest lists present with its size, and shard.state (the one file the
    /// merge reads) with its SHA-256.
    public static func part(_ folder: String) throws -> Part {
        do { try ReportFolder.verifyComplete(folder, hashing: { $0 == ShardState.fileName }) } catch {
            throw MergeError.refused("shard folder '\(folder)': \(error)")
        }
        let (header, _) = try state(folder, payload: false)
        guard header.formatVersion == ShardHeader.formatVersion else {
            throw MergeError.refused(
                "shard folder '\(folder)': its \(ShardState.fileName) is format \(header.formatVersion), this bgbench merges format \(ShardHeader.formatVersion) only: rerun the shard with this bgbench"
            )
        }
        guard Shard(index: header.shard, count: header.shards) != nil else {
            throw MergeError.refused(
                "shard folder '\(folder)': its \(ShardState.fileName) calls it shard \(header.shard)/\(header.shards): expected K/N with 0 ≤ K < N"
            )
        }
        return Part(folder: folder, header: header)
    }

    /// A folder's shard.state: the header and, when asked, the payload's bytes.
    static func state(_ folder: String, payload: Bool) throws -> (ShardHeader, [UInt8]) {
        let path = (folder as NSString).appendingPathComponent(ShardState.fileName)
        let data: [UInt8]
        do { data = try InputFile.read(path, limit: InputFile.Limit.report) } catch {
            if error.tooLarge { throw MergeError.refused("'\(path)' is \(error.reason)") }
            throw MergeError.refused(
                "'\(folder)' has no \(ShardState.fileName): not a shard folder (made with '--shard K/N')")
        }
        let newline = data.firstIndex(of: 0x0A) ?? data.endIndex
        guard let header = try? ShardHeader.parse(Substring(decoding: data[..<newline], as: UTF8.self)) else {
            throw MergeError.refused("'\(path)': malformed shard state header: expected the JSON line bgbench writes")
        }
        guard payload else { return (header, []) }
        guard newline < data.endIndex,
            let bytes = Data(
                base64Encoded: Data(data[data.index(after: newline)...]), options: .ignoreUnknownCharacters)
        else {
            throw MergeError.refused("'\(path)': malformed shard state: its second line is not base64")
        }
        let payload = [UInt8](bytes)
        guard SHA256.hex(payload) == header.payloadSha256 else {
            throw MergeError.refused(
                "'\(path)': its sums' SHA-256 is not the one its header records: damaged or changed after the shard wrote it (rerun shard \(header.shard)/\(header.shards))"
            )
        }
        return (header, payload)
    }

    /// Checks that the parts are the shards 0…N−1 of one run, sweep or frontier, each once.
    public static func check(_ parts: [Part]) throws {
        guard let first = parts.first else { throw MergeError.usage("'merge' needs at least one shard folder") }
        for p in parts.dropFirst() {
            if p.header.shards != first.header.shards {
                throw MergeError.refused(
                    "shard folder '\(p.folder)' is shard \(p.header.shard)/\(p.header.shards) but '\(first.folder)' is \(first.header.shard)/\(first.header.shards): expected shards of one split"
                )
            }
            if let difference = p.header.difference(from: first.header) {
                throw MergeError.refused(
                    "shard folder '\(p.folder)' is of another run than '\(first.folder)': \(difference)")
            }
        }
        var seen: [Int: String] = [:]
        for p in parts {
            if let other = seen[p.header.shard] {
                throw MergeError.refused(
                    "shard \(p.header.shard)/\(p.header.shards) given twice: '\(other)' and '\(p.folder)'")
            }
            seen[p.header.shard] = p.folder
        }
        let n = first.header.shards
        let missing = (0..<n).filter { seen[$0] == nil }
        if !missing.isEmpty {
            let list =
                missing.prefix(10).map { "\($0)/\(n)" }.joined(separator: ", ") + (missing.count > 10 ? ", …" : "")
            throw MergeError.refused(
                "\(missing.count) of \(n) shards missing: \(list) (rerun them with '--shard K/\(n)', then merge again)")
        }
    }

    /// The merged report of the shard folders, and their headers in shard order. Folders
    /// are checked (hashing their files is most of the work) and decoded `threads` at a
    /// time; each decoded shard is added to the totals at once, so memory holds the totals
    /// and `threads` shards whatever their number. The devices.csv and events.csv that the
    /// shards streamed (``ShardHeader/rows``) are put together into `rowsInto` (the merge's
    /// staging folder; `critical` creates a file there) by ``mergeRows(_:into:critical:)``,
    /// and returned as written: the report leaves them out.
    public static func merge(
        _ folders: [String], threads: Int = System.coreCount,
        started: DispatchTime = .now(), rowsInto: String? = nil,
        critical: @Sendable (() throws -> Void) throws -> Void = { try $0() }
    ) throws -> (MergedReport, [ShardHeader], [RowSpool.Written]) {
        let parts = try concurrentMap(folders, threads: threads, part).sorted { $0.header.shard < $1.header.shard }
        try check(parts)
        let header = parts[0].header
        let requests = try header.runs.indices.map(header.request)
        let seeds = requests.first?.seeds.count ?? 0
        // A frontier's (or each suite task's) frontier request, and the quantities its
        // quality axis keeps in the joint sums.
        let frontiers: [ShardHeader.Frontier]
        switch header.kind {
        case .run, .sweep: frontiers = []
        case .frontier:
            guard let f = header.frontier else {
                throw MergeError.refused("'\(parts[0].folder)': a frontier shard without its request")
            }
            frontiers = [f]
        case .suite:
            guard let suite = header.suite, suite.tasks.count == requests.count, let f = header.frontiers,
                f.count == requests.count
            else {
                throw MergeError.refused("'\(parts[0].folder)': a suite shard without its suite and tasks")
            }
            frontiers = f
        }
        let qualities: [FrontierAxis]
        do { qualities = try frontiers.map { try FrontierAxis.quality(named: $0.quality) } } catch {
            throw MergeError.refused("'\(parts[0].folder)/\(ShardState.fileName)': \(error)")
        }
        // The joint sums after the runs: a frontier's per seed (a suite's per task and
        // seed); a sweep's per group that keeps them (SweepPlan.jointGroups) and seed.
        let plan = header.kind == .sweep ? try SweepPlan(points: requests) : nil
        let joint: [JointLayout] =
            switch header.kind {
            case .run: []
            case .frontier, .suite:
                qualities.indices.flatMap { k in
                    requests[k].seeds.indices.map { seed in
                        JointLayout(
                            run: k, seed: seed, arms: requests[k].policies.count,
                            quantities: FrontierAxis.jointQuantities(quality: qualities[k]))
                    }
                }
            case .sweep:
                plan!.jointGroups.flatMap { g in
                    (0..<seeds).map {
                        JointLayout(run: 0, seed: $0, arms: g.arms, quantities: SweepPlan.jointQuantities)
                    }
                }
            }
        var runs: [[PolicyResult]]?, sums: [JointSums] = []
        let batch = max(1, threads)
        for first in stride(from: 0, to: parts.count, by: batch) {
            let some = Array(parts[first..<min(parts.count, first + batch)])
            let decoded = try concurrentMap(some, threads: batch) { part in
                let (_, payload) = try state(part.folder, payload: true)
                let decoded: (runs: [[PolicyResult]], joint: [JointSums])
                do {
                    decoded = try ShardState.decode(
                        payload, requests: requests, joint: joint.map { ($0.arms, $0.quantities) })
                } catch {
                    throw MergeError.refused("'\(part.folder)/\(ShardState.fileName)': \(error)")
                }
                try verify(decoded, of: part, requests: requests, joint: joint)
                return decoded
            }
            for shard in decoded {
                if runs == nil { runs = shard.runs; sums = shard.joint; continue }
                add(shard.runs, to: &runs!)
                for s in sums.indices { sums[s].merge(shard.joint[s]) }
            }
        }
        let headers = parts.map(\.header)
        let written = try rowsInto.map { try mergeRows(parts, into: $0, critical: critical) } ?? []
        let threads = headers.map(\.threads).max() ?? 1
        let seconds = Runner.seconds(since: started)
        var reports = zip(header.runs, zip(requests, runs ?? [])).map { identity, run in
            let (request, results) = run
            var finished = results
            for i in finished.indices {
                finished[i].result.externalPolicy = identity.externalPolicies?[finished[i].policy]
                finished[i].result.finish()
                finished[i].result.serverLoad.fold()
                finished[i].workers = threads
            }
            return RunReport(request: request, results: finished, wallSeconds: seconds, threads: threads)
        }
        reports[0].mergedShards = headers
        // A frontier's report from its run, its request and its joint sums per seed.
        func frontier(_ k: Int, sums: [JointSums]) throws -> FrontierReport {
            let f = frontiers[k]
            var options = requests[k].options
            options.threads = threads
            var request = FrontierRequest(
                scenario: requests[k].scenario, policies: f.policies, baselinePolicy: f.baselinePolicy,
                knobValues: f.knobValues, energyLevels: f.energyLevels,
                energyRange: f.energyRange.map { $0[0]...$0[1] }, quality: qualities[k],
                comparisons: f.comparisons.compactMap { $0.count == 2 ? .init($0[0], minus: $0[1]) : nil },
                options: options,
                replications: requests[k].replications, commandLine: header.commandLine)
            request.points = f.points ?? []
            return FrontierReport(request: request, arms: try Frontier.arms(request), run: reports[k], jointSums: sums)
        }
        switch header.kind {
        case .run:
            return (.run(reports[0]), headers, written)
        case .sweep:
            guard let sweep = header.sweep else {
                throw MergeError.refused("'\(parts[0].folder)': a sweep shard without its grid")
            }
            let axes = zip(sweep.paths, sweep.values).map { SweepAxis(path: $0, values: $1) }
            var report = SweepReport(axes: axes, specs: sweep.specs)
            // Before the points: their runs leave the streamed files out.
            report.streamed = written
            for (values, run) in zip(sweep.points, reports) { report.add(values, report: run) }
            let groups = plan!.jointGroups.enumerated().map { g, group in
                SweepRun.GroupJoint(
                    points: group.points, armOf: group.armOf, sums: Array(sums[(g * seeds)..<((g + 1) * seeds)]))
            }
            report.paretoPairs = report.paretoPairs(reports: reports, joint: groups)?.csv
            return (
                .sweep(report, points: reports.count, policies: requests[0].policies.count, seeds: requests[0].seeds),
                headers, written
            )
        case .frontier:
            return (.frontier(try frontier(0, sums: sums)), headers, written)
        case .suite:
            var first = 0
            var tasks: [FrontierReport] = []
            for k in requests.indices {
                let n = requests[k].seeds.count
                tasks.append(try frontier(k, sums: Array(sums[first..<(first + n)])))
                first += n
            }
            return (.suite(header.suite!, tasks), headers, written)
        }
    }

    /// Where one block of joint sums sits in a payload: after the runs, the run (frontier
    /// or suite task) it belongs to, its arms and quantities.
    struct JointLayout {
        var run: Int
        var seed: Int
        var arms: Int
        var quantities: [Quantity]
    }
}

extension ShardMerge {
    /// Checks what a shard's sums can be checked against before they are added (README.md,
    /// "Beyond one machine"): each result counts the devices of the shard's blocks (fleet,
    /// archetypes, series, per-device rows, a frontier's joint sums); the totals of the fleet,
    /// of each archetype and of each device row keep the soak's identities
    /// (``DeviceInvariants/violations(totals:)``); and the fleet's background energy is within
    /// the bound its scenario implies (``DeviceInvariants/backgroundEnergyBound``). The first
    /// broken one is refused, as one line naming the folder, the run and the quantity.
    static func verify(
        _ shard: (runs: [[PolicyResult]], joint: [JointSums]), of part: Part, requests: [RunRequest],
        joint: [JointLayout]
    ) throws {
        let h = part.header
        let slice = Shard(index: h.shard, count: h.shards) ?? .whole
        func refuse(_ k: Int, _ result: PolicyResult?, _ what: String) -> MergeError {
            var run = ""
            if let points = h.sweep?.points, k < points.count, let paths = h.sweep?.paths {
                run = "point " + zip(paths, points[k]).map { "\($0)=\($1)" }.joined(separator: " ") + ", "
            }
            if let result { run += "policy \(result.policy), seed \(result.seed)" }
            return .refused("shard folder '\(part.folder)': \(run)\(run.isEmpty ? "" : ": ")\(what)")
        }
        for (k, results) in shard.runs.enumerated() {
            let request = requests[k], o = request.options
            let range = slice.devices(of: o.devices)
            let expected = range.count
            let days = o.days - o.warmupDays
            for r in results {
                let f = r.result
                let counts: [(String, Int)] =
                    [
                        ("the fleet", f.fleet.devices), ("the archetypes", f.archetypes.reduce(0) { $0 + $1.devices }),
                        ("daily.csv's series", f.daily.devices), ("hourly.csv's series", f.hourly.devices),
                    ]
                    // Streamed rows are counted as they are merged (mergeRows).
                    + (o.keepDevices && h.rows == nil ? [("devices.csv's rows", f.devices.count)] : [])
                for (what, n) in counts where n != expected {
                    throw refuse(
                        k, r,
                        "\(what) counts \(n) devices, but shard \(slice) of a fleet of \(o.devices) holds \(expected) (devices \(range.lowerBound)..<\(range.upperBound))"
                    )
                }
                let groups = [("all", f.fleet)] + zip(f.archetypeNames, f.archetypes).map { ($0, $1) }
                for (archetype, tally) in groups {
                    if let broken = DeviceInvariants.violations(totals: tally.sum).first {
                        throw refuse(k, r, "archetype \(archetype): \(broken)")
                    }
                }
                for row in f.devices {
                    guard range.contains(row.device) else {
                        throw refuse(k, r, "a row for device \(row.device), outside the shard's devices \(range)")
                    }
                    if let broken = DeviceInvariants.violations(totals: row.values).first {
                        throw refuse(k, r, "device \(row.device): \(broken)")
                    }
                }
                let energy = f.fleet[.backgroundEnergy]
                let deviceSeconds = Double(expected) * Double(days + 1) * 86_400
                let bound = DeviceInvariants.backgroundEnergyBound(
                    request.scenario.scenario, runs: f.fleet[.runs], transfers: f.fleet[.transfers],
                    deviceSeconds: deviceSeconds)
                if energy > bound {
                    throw refuse(
                        k, r,
                        "background_energy_j \(CSVNumber.format(energy)) J over \(expected) devices × \(days) days is above the \(CSVNumber.format(bound)) J its scenario allows (\(CSVNumber.format(f.fleet[.runs])) runs and \(CSVNumber.format(f.fleet[.transfers])) transfers at most at launch and radio set-up energy, and at most twice the highest active radio power all the time)"
                    )
                }
            }
        }
        for (s, sums) in shard.joint.enumerated() {
            let k = joint[s].run, request = requests[k]
            let held = slice.devices(of: request.options.devices).count
            guard sums.n != held else { continue }
            let what: String =
                switch h.kind {
                case .sweep: "the sweep's joint sums"
                case .suite: "task \(h.suite.map { $0.tasks[k] } ?? "\(k)")'s joint sums"
                default: "the frontier's joint sums"
                }
            throw refuse(
                0, nil,
                "\(what) of seed \(request.seeds[joint[s].seed]) count \(sums.n) devices, but shard \(slice) holds \(held)"
            )
        }
    }

    /// The devices.csv and events.csv of shards that streamed them (format 6): after its
    /// header, each shard's file holds each result's rows for its devices, in report order
    /// (``ShardHeader/rows`` records their bytes). The merged file is the header, then each
    /// result's rows shard by shard in shard order: byte for byte the file a single process
    /// writes, put together in `folder` without holding more than a 1 MB chunk. Each
    /// shard's file is hashed as it is read and checked against the SHA-256 its
    /// shard.state records, its header against the first shard's, and each of its
    /// devices.csv segments counted: one line per device of the shard.
    static func mergeRows(
        _ parts: [Part], into folder: String, critical: @Sendable (() throws -> Void) throws -> Void
    ) throws -> [RowSpool.Written] {
        guard let first = parts.first?.header.rows else { return [] }
        var written: [RowSpool.Written] = []
        for (s, stream) in first.enumerated() {
            let name = stream.name
            func path(_ part: Part) -> String { (part.folder as NSString).appendingPathComponent(name) }
            var streams: [RowSpool.Written] = []
            for part in parts {
                guard let rows = part.header.rows, s < rows.count, rows[s].name == name,
                    rows[s].results.count == stream.results.count,
                    rows[s].header + rows[s].results.reduce(0, +) == rows[s].bytes
                else {
                    throw MergeError.refused(
                        "'\(part.folder)/\(ShardState.fileName)': its streamed files are not those of '\(parts[0].folder)' (\(name), \(stream.results.count) results): expected shards of one run"
                    )
                }
                streams.append(rows[s])
            }
            let target = (folder as NSString).appendingPathComponent(name)
            var fd: Int32 = -1
            var reason = ""
            try critical {
                fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
                if fd < 0 { reason = String(cString: strerror(errno)) }
            }
            guard fd >= 0 else { throw ReportError.cannotWrite(name, reason: reason) }
            defer { close(fd) }
            var out = SHA256.Hasher(), bytes = 0
            var hashers = parts.map { _ in SHA256.Hasher() }
            var offsets = [Int](repeating: 0, count: parts.count)
            var chunk = [UInt8](repeating: 0, count: 1 << 20)
            let counted = name == ReportFile.devices.name
            /// Copies `count` bytes of part k's file at its offset, hashing them; the newlines
            /// copied (devices.csv's).
            func copy(_ k: Int, _ count: Int, write: Bool) throws -> Int {
                let source = path(parts[k])
                let input = open(source, O_RDONLY | O_CLOEXEC)
                guard input >= 0 else {
                    throw MergeError.refused("cannot read '\(source)': \(String(cString: strerror(errno)))")
                }
                defer { close(input) }
                guard lseek(input, off_t(offsets[k]), SEEK_SET) >= 0 else {
                    throw MergeError.refused("cannot read '\(source)': \(String(cString: strerror(errno)))")
                }
                var left = count, lines = 0
                while left > 0 {
                    let n = chunk.withUnsafeMutableBytes { Glibc.read(input, $0.baseAddress, min(left, $0.count)) }
                    if n < 0, errno == EINTR { continue }
                    guard n > 0 else {
                        throw MergeError.refused(
                            "'\(source)' is cut short: \(streams[k].bytes) bytes expected (rerun shard \(parts[k].header.shard)/\(parts[k].header.shards))"
                        )
                    }
                    let piece = Array(chunk[..<n])
                    hashers[k].update(piece)
                    // Only devices.csv's rows are counted (one a device); events.csv's vary.
                    if counted { lines += piece.count { $0 == 0x0A } }
                    if write {
                        if let reason = ReportWriter.writeAll(fd, piece) {
                            throw ReportError.cannotWrite(name, reason: reason)
                        }
                        out.update(piece)
                        bytes += n
                    }
                    left -= n
                }
                offsets[k] += count
                return lines
            }
            // The header once; every shard's read and hashed.
            for k in parts.indices {
                guard streams[k].header == stream.header else {
                    throw MergeError.refused("'\(path(parts[k]))': its header is not that of '\(path(parts[0]))'")
                }
                _ = try copy(k, stream.header, write: k == 0)
            }
            for r in stream.results.indices {
                for k in parts.indices {
                    let lines = try copy(k, streams[k].results[r], write: true)
                    let h = parts[k].header
                    let devices = (Shard(index: h.shard, count: h.shards) ?? .whole).devices(of: h.runs[0].devices)
                    if name == ReportFile.devices.name, lines != devices.count {
                        throw MergeError.refused(
                            "shard folder '\(parts[k].folder)': devices.csv's rows of result \(r + 1) count \(lines) devices, but shard \(h.shard)/\(h.shards) holds \(devices.count)"
                        )
                    }
                }
            }
            for k in parts.indices where hashers[k].hex() != streams[k].sha256 {
                throw MergeError.refused(
                    "'\(path(parts[k]))': its SHA-256 is not the one its \(ShardState.fileName) records: damaged or changed after the shard wrote it (rerun shard \(parts[k].header.shard)/\(parts[k].header.shards))"
                )
            }
            written.append(
                RowSpool.Written(
                    name: name, bytes: bytes, sha256: out.hex(), header: stream.header,
                    results: stream.results.indices.map { r in streams.reduce(0) { $0 + $1.results[r] } }))
        }
        return written
    }

    /// Adds a shard's results into the totals, in place.
    static func add(_ shard: [[PolicyResult]], to totals: inout [[PolicyResult]]) {
        for (k, results) in shard.enumerated() {
            for (i, r) in results.enumerated() {
                totals[k][i].result.merge(r.result)
                totals[k][i].result.serverLoad.add(r.result.serverLoad)
                totals[k][i].wallSeconds += r.wallSeconds
                if let p = r.paired { totals[k][i].paired!.merge(p) }
            }
        }
    }
}

/// A merge that cannot go ahead: `usage` (exit 64) or `refused` (exit 65, bad data).
public enum MergeError: Error, Equatable, CustomStringConvertible {
    case usage(String)
    case refused(String)
    public var description: String {
        switch self {
        case .usage(let m), .refused(let m): m
        }
    }
}
