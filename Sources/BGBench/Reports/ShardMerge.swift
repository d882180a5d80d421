import Foundation

/// What a shard folder's shard.state says of the run it is a part of: everything that
/// must be equal across the shards of one run (``identity``), the shard's place, and how
/// it ran. The first line of shard.state, as JSON.
public struct ShardHeader: Codable, Sendable, Equatable {
    /// The run every shard of a merge must share.
    public struct Identity: Codable, Sendable, Equatable {
        public var bgbenchVersion: String
        public var gitCommit: String
        public var formatVersion: Int
        public var scenarioFile: String?
        public var scenarioSha256: String
        public var scenarioOverrides: [String]
        /// The complete resolved scenario (every registered component), from which the
        /// merge rebuilds the run's scenario.
        public var resolvedScenario: String
        public var policies: [String]
        public var baselinePolicy: String?
        public var seed: UInt64
        public var replications: Int
        public var devices: Int
        public var days: Int
        public var warmupDays: Int
        public var perDevice: Bool
        public var traceDevices: Int
        public var opensTrace: OpensTraceIdentity?
    }
    public var identity: Identity
    public var shard: Int
    public var shards: Int
    /// How the shard ran (run.json's `execution` of the merged folder lists them).
    public var host: String
    public var wallSeconds: Double
    public var threads: Int
    public var commandLine: [String]

    public static let formatVersion = 1
}

/// The replayed opens trace, as run.json records it (the merge has no trace to read).
public struct OpensTraceIdentity: Codable, Sendable, Equatable {
    public var file: String
    public var sha256: String
    public var timestamps: String
    public var devices: Int
    public var opens: Int
    public init(_ t: OpensTrace) {
        file = t.file; sha256 = t.sha256; timestamps = t.form.rawValue; devices = t.deviceCount; opens = t.opens.count
    }
}

/// A shard's report state: shard.state's text, a JSON header line and the base64 of the
/// accumulators of every (seed, policy), in the run's order (Reports/README.md).
public enum ShardState {
    public static let fileName = "shard.state"

    /// shard.state for a shard's run report.
    public static func text(_ report: RunReport) -> String {
        let r = report.request
        let header = ShardHeader(identity: identity(r), shard: r.options.part.index, shards: r.options.part.count,
                                 host: ProcessInfo.processInfo.hostName, wallSeconds: report.wallSeconds,
                                 threads: report.threads, commandLine: r.commandLine)
        var w = StateWriter()
        for result in report.results {
            result.result.encode(&w)
            w.double(result.wallSeconds)
            w.bool(result.paired != nil)
            result.paired?.encode(&w)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let json = String(decoding: try! encoder.encode(header), as: UTF8.self)
        return json + "\n" + Data(w.bytes).base64EncodedString() + "\n"
    }

    static func identity(_ r: RunRequest) -> ShardHeader.Identity {
        ShardHeader.Identity(
            bgbenchVersion: BuildInfo.version, gitCommit: BuildInfo.gitCommit, formatVersion: ShardHeader.formatVersion,
            scenarioFile: r.scenario.file, scenarioSha256: r.scenario.sha256, scenarioOverrides: r.scenario.overrides,
            resolvedScenario: r.scenario.resolvedJSON, policies: r.policies, baselinePolicy: r.baselinePolicy,
            seed: r.options.seed, replications: r.replications, devices: r.options.devices, days: r.options.days,
            warmupDays: r.options.warmupDays, perDevice: r.options.keepDevices, traceDevices: r.options.traceDevices,
            opensTrace: r.opensTraceIdentity)
    }

    /// The header line of a shard.state text.
    public static func header(_ text: Substring) throws -> ShardHeader {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(ShardHeader.self, from: Data(text.utf8))
    }

    /// The run a header describes, rebuilt: its scenario from the resolved JSON.
    static func request(_ h: ShardHeader) throws -> RunRequest {
        let i = h.identity
        var loaded = try ScenarioLoader.load(json: i.resolvedScenario, file: i.scenarioFile ?? "(built-in default)", overrides: [])
        loaded.file = i.scenarioFile
        loaded.sha256 = i.scenarioSha256
        loaded.overrides = i.scenarioOverrides
        var options = RunOptions(devices: i.devices, days: i.days, seed: i.seed, threads: h.threads, warmupDays: i.warmupDays,
                                 keepDevices: i.perDevice, traceDevices: i.traceDevices)
        options.shard = Shard(index: h.shard, count: h.shards)
        var request = RunRequest(scenario: loaded, policies: i.policies, options: options, commandLine: h.commandLine,
                                 baselinePolicy: i.baselinePolicy, replications: i.replications)
        request.opensTraceIdentity = i.opensTrace
        return request
    }

    /// The results of a shard.state's payload, for a run of `request`.
    static func results(_ payload: [UInt8], request: RunRequest) throws(ShardStateError) -> [PolicyResult] {
        var r = StateReader(payload)
        let o = request.options
        let empty = FleetResult(scenario: request.scenario.scenario, days: o.days, keepDevices: o.keepDevices,
                                replay: request.opensTraceIdentity != nil)
        var results: [PolicyResult] = []
        for seed in request.seeds {
            for policy in request.policies {
                let result = try FleetResult(empty: empty, days: o.days, firstDay: o.warmupDays, &r)
                let seconds = try r.double()
                let paired = try r.bool() ? try PairedTally(&r) : nil
                results.append(PolicyResult(policy: policy, seed: seed, result: result, wallSeconds: seconds, workers: 0,
                                            paired: paired))
            }
        }
        guard r.atEnd else { throw .malformed("\(payload.count - r.offset) bytes after the last result") }
        return results
    }
}

/// Adds shard folders into the report of the whole run (`bgbench merge`).
public enum ShardMerge {
    /// One shard folder, read.
    public struct Part: Sendable {
        public var folder: String
        public var header: ShardHeader
        var payload: String.SubSequence
    }

    /// Reads a shard folder: complete (its run.json's manifest), with a shard.state.
    public static func read(_ folder: String) throws -> Part {
        do { try ReportFolder.verifyComplete(folder) } catch { throw MergeError.refused("shard folder '\(folder)': \(error)") }
        let path = (folder as NSString).appendingPathComponent(ShardState.fileName)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw MergeError.refused("'\(folder)' has no \(ShardState.fileName): not a shard folder (made by a run with '--shard K/N')")
        }
        let text = String(decoding: data, as: UTF8.self)
        let lines = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        guard lines.count == 2, let header = try? ShardState.header(lines[0]) else {
            throw MergeError.refused("'\(path)': malformed shard state header: expected the JSON line bgbench writes")
        }
        return Part(folder: folder, header: header, payload: lines[1])
    }

    /// Checks that the parts are the shards 0…N−1 of one run, each once.
    public static func check(_ parts: [Part]) throws {
        guard let first = parts.first else { throw MergeError.usage("'merge' needs at least one shard folder") }
        for p in parts.dropFirst() {
            if p.header.shards != first.header.shards {
                throw MergeError.refused("shard folder '\(p.folder)' is shard \(p.header.shard)/\(p.header.shards) but '\(first.folder)' is \(first.header.shard)/\(first.header.shards): expected shards of one split")
            }
            if let field = difference(p.header.identity, first.header.identity) {
                throw MergeError.refused("shard folder '\(p.folder)' is of another run than '\(first.folder)': its \(field)")
            }
        }
        var seen: [Int: String] = [:]
        for p in parts {
            if let other = seen[p.header.shard] {
                throw MergeError.refused("shard \(p.header.shard)/\(p.header.shards) given twice: '\(other)' and '\(p.folder)'")
            }
            seen[p.header.shard] = p.folder
        }
        let missing = (0..<first.header.shards).filter { seen[$0] == nil }
        if !missing.isEmpty {
            let list = missing.prefix(10).map { "\($0)/\(first.header.shards)" }.joined(separator: ", ") + (missing.count > 10 ? ", …" : "")
            throw MergeError.refused("\(missing.count) of \(first.header.shards) shards missing: \(list) (rerun them with '--shard K/\(first.header.shards)', then merge again)")
        }
    }

    /// The first field in which two runs differ, as "FIELD X, expected Y"; nil when equal.
    static func difference(_ a: ShardHeader.Identity, _ b: ShardHeader.Identity) -> String? {
        func text<T>(_ v: T?) -> String { v.map { "\($0)" } ?? "none" }
        let fields: [(String, String, String)] = [
            ("bgbench version", a.bgbenchVersion, b.bgbenchVersion), ("commit", a.gitCommit, b.gitCommit),
            ("shard format", "\(a.formatVersion)", "\(b.formatVersion)"),
            ("scenario", a.resolvedScenario == b.resolvedScenario ? "" : "resolved scenario (\(text(a.scenarioFile)))",
             a.resolvedScenario == b.resolvedScenario ? "" : "that of \(text(b.scenarioFile))"),
            ("scenario file", text(a.scenarioFile), text(b.scenarioFile)), ("scenario SHA-256", a.scenarioSha256, b.scenarioSha256),
            ("overrides", a.scenarioOverrides.joined(separator: " "), b.scenarioOverrides.joined(separator: " ")),
            ("policies", a.policies.joined(separator: ","), b.policies.joined(separator: ",")),
            ("baseline policy", text(a.baselinePolicy), text(b.baselinePolicy)), ("seed", "\(a.seed)", "\(b.seed)"),
            ("replications", "\(a.replications)", "\(b.replications)"), ("devices", "\(a.devices)", "\(b.devices)"),
            ("days", "\(a.days)", "\(b.days)"), ("warm-up days", "\(a.warmupDays)", "\(b.warmupDays)"),
            ("per-device rows", "\(a.perDevice)", "\(b.perDevice)"), ("traced devices", "\(a.traceDevices)", "\(b.traceDevices)"),
            ("opens trace", text(a.opensTrace?.sha256), text(b.opensTrace?.sha256)),
        ]
        guard let (name, x, y) = fields.first(where: { $0.1 != $0.2 }) else { return nil }
        return "\(name) is \(x.isEmpty ? "''" : x), expected \(y.isEmpty ? "''" : y)"
    }

    /// Adds the parts (already checked) into the whole run's report, one shard at a time:
    /// memory holds one shard's state beside the totals, whatever the number of shards.
    public static func merge(_ folders: [String], started: DispatchTime = .now()) throws -> (RunReport, [ShardHeader]) {
        var headers: [ShardHeader] = []
        var parts: [Part] = []
        for folder in folders {
            var part = try read(folder)
            part.payload = ""  // read again below, one at a time
            parts.append(part)
            headers.append(part.header)
        }
        try check(parts)
        let order = parts.indices.sorted { parts[$0].header.shard < parts[$1].header.shard }
        var whole = try ShardState.request(parts[order[0]].header)
        whole.options.shard = nil
        var totals: [PolicyResult]?
        for i in order {
            let part = try read(parts[i].folder)
            guard let payload = Data(base64Encoded: String(part.payload.trimmingCharacters(in: .whitespacesAndNewlines))) else {
                throw MergeError.refused("'\(part.folder)/\(ShardState.fileName)': malformed shard state: not base64")
            }
            let results: [PolicyResult]
            do { results = try ShardState.results([UInt8](payload), request: whole) } catch {
                throw MergeError.refused("'\(part.folder)/\(ShardState.fileName)': \(error)")
            }
            guard var sum = totals else { totals = results; continue }
            for k in sum.indices {
                sum[k].result.merge(results[k].result)
                sum[k].result.serverLoad.add(results[k].result.serverLoad)
                sum[k].wallSeconds += results[k].wallSeconds
                if let p = results[k].paired { sum[k].paired!.merge(p) }
            }
            totals = sum
        }
        let threads = headers.map(\.threads).max() ?? 1
        var results = totals ?? []
        for k in results.indices {
            results[k].result.finish()
            results[k].workers = threads
        }
        let report = RunReport(request: whole, results: results, wallSeconds: Runner.seconds(since: started), threads: threads)
        return (report, order.map { headers[$0] })
    }
}

/// A merge that cannot go ahead: `usage` (exit 64) or `refused` (exit 65, bad data).
public enum MergeError: Error, Equatable, CustomStringConvertible {
    case usage(String)
    case refused(String)
    public var description: String {
        switch self { case .usage(let m), .refused(let m): m }
    }
}
