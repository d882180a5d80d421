import Foundation

/// Writes a run's reports into a folder (Reports/README.md describes every file). Each
/// file is written whole to a temporary name and renamed into place, so a reader never
/// sees half a file; run.json, written last, marks a complete folder.
public enum ReportWriter {
    /// The version of the report formats (columns and run.json fields).
    public static let schemaVersion = 5

    public static func write(_ report: RunReport, to directory: String) throws {
        try writeFolder(directory, files: files(report))
    }

    /// Every file of the run's report folder as (name, text), in writing order: run.json
    /// last, with the manifest of the others (name, size, SHA-256).
    public static func files(_ report: RunReport) -> [(String, String)] { folder(report).files }

    /// The run's report folder when some of its files are `written` already (a
    /// ``RowSpool``'s devices.csv and events.csv, in the staging folder): `files`, the
    /// others to write as (name, text), run.json last, whose manifest lists every file;
    /// `names`, every file's name in writing order (the manifest's, then run.json).
    public static func folder(_ report: RunReport, written: [RowSpool.Written] = [])
        -> (files: [(String, String)], names: [String])
    {
        var files = reportFiles(report, streamed: Set(written.map(\.name)))
        files.append((ReportFile.long.name, LongTable.runCSV(files)))
        if report.request.options.shard != nil {
            files.append((ShardState.fileName, ShardState.text(report, rows: written)))
        }
        // Where reportFiles puts devices.csv and events.csv: right after scenario.json.
        let manifest = manifest(files, written: written, after: ReportFile.scenario.name)
        // scenario.json is the run's resolved scenario: its hash is in the manifest already.
        let resolved = manifest.first { $0.name == ReportFile.scenario.name }?.sha256
        files.append((ReportFile.run.name, runJSON(report, manifest: manifest, resolvedSha256: resolved)))
        return (files, manifest.map(\.name) + [ReportFile.run.name])
    }

    /// The files of ``files(_:)`` but run.json: what a sweep writes for each point;
    /// `streamed` files are left out (written elsewhere).
    public static func reportFiles(_ report: RunReport, streamed: Set<String> = []) -> [(String, String)] {
        var files: [(String, String)] = [
            (ReportFile.summary.name, summaryCSV(report)),
            (ReportFile.daily.name, SeriesReports.dailyCSV(report)),
            (ReportFile.hourly.name, SeriesReports.hourlyCSV(report)),
            (ReportFile.server.name, SeriesReports.serverCSV(report)),
            (ReportFile.scenario.name, report.request.scenario.resolvedJSON(policies: report.request.policies)),
        ]
        if report.request.options.keepDevices && !streamed.contains(ReportFile.devices.name) {
            files.append((ReportFile.devices.name, SeriesReports.devicesCSV(report)))
        }
        if report.request.options.traceDevices > 0 && !streamed.contains(ReportFile.events.name) {
            files.append((ReportFile.events.name, SeriesReports.eventsCSV(report)))
        }
        if let baseline = report.baselinePolicy {
            files.append((ReportFile.paired.name, SeriesReports.pairedCSV(report, baseline: baseline)))
            files.append(
                (ReportFile.pairedArchetypes.name, SeriesReports.pairedArchetypesCSV(report, baseline: baseline)))
        }
        if report.request.replications > 1 {
            files.append((ReportFile.replications.name, SeriesReports.replicationsCSV(report)))
        }
        return files
    }

    /// run.json's manifest of files: name, size, SHA-256 each, in writing order.
    package static func manifest(_ files: [(String, String)]) -> [RunManifest.File] {
        files.map { name, text in
            RunManifest.File(name: name, bytes: text.utf8.count, sha256: SHA256.hex(Array(text.utf8)))
        }
    }

    /// The manifest of `files` with the `written` ones (streamed into the folder by a
    /// ``RowSpool``) right after the file named `after`.
    package static func manifest(_ files: [(String, String)], written: [RowSpool.Written], after: String)
        -> [RunManifest.File]
    {
        var manifest = manifest(files)
        if !written.isEmpty, let before = manifest.firstIndex(where: { $0.name == after }) {
            manifest.insert(
                contentsOf: written.map { RunManifest.File(name: $0.name, bytes: $0.bytes, sha256: $0.sha256) },
                at: before + 1)
        }
        return manifest
    }

    /// Creates the folder if needed and writes each (name, text) file atomically, in order.
    public static func writeFolder(_ directory: String, files: [(String, String)]) throws {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw ReportError.cannotWrite(directory, reason: "cannot create the folder")
        }
        for (name, text) in files {
            try writeAtomically(text, to: (directory as NSString).appendingPathComponent(name))
        }
    }

    /// summary.csv: a header, then per seed and policy a row for the whole fleet
    /// (archetype `all`) and one per archetype (SummarySchema).
    public static func summaryCSV(_ report: RunReport) -> String {
        var csv = CSVWriter("")
        csv.row(SummarySchema.header)
        for row in summaryRows(report) { csv.row(row) }
        return csv.output
    }

    /// summary.csv's rows as fields, without the header.
    public static func summaryRows(_ report: RunReport) -> [[String]] {
        let request = report.request
        let scenario = request.scenario.scenario
        let context = SummaryContext(batteryJoules: scenario.device.batteryWh * 3600)
        let o = request.options
        var rows: [[String]] = []
        for result in report.results {
            let groups =
                [("all", result.tally)] + zip(result.result.archetypeNames, result.result.archetypes).map { ($0, $1) }
            for (archetype, tally) in groups {
                rows.append(
                    [
                        scenario.name, result.policy, archetype, scenario.platform.name, String(result.seed),
                        String(tally.devices), String(o.days), String(o.warmupDays),
                        String(tally.devices * report.countedDays),
                    ]
                        + SummarySchema.fields(tally, days: report.countedDays, context: context))
            }
        }
        return rows
    }

    /// run.json: what ran and how fast. Everything but the `execution` object is the same
    /// for the same scenario, policies, seed and fleet, whatever the thread count.
    /// With its manifest, so it renders every other file of the folder (see ``files(_:)``).
    public static func runJSON(_ report: RunReport) -> String { files(report).last!.1 }

    package static func runJSON(
        _ report: RunReport, manifest: [RunManifest.File], frontier: RunManifest.Frontier? = nil,
        resolvedSha256: String? = nil
    ) -> String {
        encode(runManifest(report, manifest: manifest, frontier: frontier, resolvedSha256: resolvedSha256))
    }

    static func runManifest(
        _ report: RunReport, manifest: [RunManifest.File], frontier: RunManifest.Frontier? = nil,
        resolvedSha256: String? = nil
    ) -> RunManifest {
        let r = report.request
        return RunManifest(
            schemaVersion: schemaVersion, bgbenchVersion: BuildInfo.version, gitCommit: BuildInfo.gitCommit,
            scenarioFile: r.scenario.file ?? "(built-in default)", scenarioSha256: r.scenario.sha256,
            scenarioOverrides: r.scenario.overrides,
            resolvedScenarioSha256: resolvedSha256 ?? r.scenario.resolvedSha256(policies: r.policies),
            policies: r.policies, seed: r.options.seed, replications: r.replications, devices: r.options.devices,
            days: r.options.days,
            warmupDays: r.options.warmupDays, deviceDays: report.deviceDays,
            events: Int(report.events), gsl: BuildInfo.gslVersion,
            opensTrace: r.opensTraceIdentity,
            externalPolicies: ExternalPolicies.identities(report.results),
            shard: r.options.shard.map { RunManifest.ShardPart($0, devices: r.options.devices) },
            execution: .init(
                commandLine: r.commandLine, threads: report.threads,
                wallSeconds: report.wallSeconds,
                deviceDaysPerSecond: Double(report.simulatedDeviceDays) / max(report.wallSeconds, 1e-9),
                eventsPerSecond: report.events / max(report.wallSeconds, 1e-9),
                host: r.options.shard == nil ? nil : ProcessInfo.processInfo.hostName,
                shards: report.mergedShards.isEmpty ? nil : report.mergedShards.map(RunManifest.ShardRun.init)),
            scenario: r.scenario.scenario, frontier: frontier, manifest: manifest)
    }

    /// run.json's text: pretty-printed, sorted snake_case keys.
    static func encode(_ manifest: RunManifest) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        // The scenario's policies: bgbench's own and those run (a frontier's by its arms').
        encoder.userInfo[PolicyParameters.runPoliciesKey] = Set(
            manifest.policies + (manifest.frontier?.arms.map(\.policy) ?? []))
        // Encoding plain values cannot fail.
        return String(decoding: try! encoder.encode(manifest), as: UTF8.self) + "\n"
    }

    /// Writes to a temporary file beside the target, then renames it into place. A target
    /// that is a stream, not a file (a character device such as `/dev/stdout` or
    /// `/dev/full`, a FIFO, a socket; after links), is written into in place: it cannot be
    /// replaced. A write that fails (a full disk) names the system's reason and leaves the
    /// target as it was.
    public static func writeAtomically(_ text: String, to path: String) throws {
        if isStream(path) {
            let fd = try openStream(path)
            defer { close(fd) }
            if let reason = writeAll(fd, Array(text.utf8)) { throw ReportError.cannotWrite(path, reason: reason) }
            return
        }
        let temporary = path + ".tmp-\(ProcessInfo.processInfo.processIdentifier)"
        if let reason = writeNew(temporary, Array(text.utf8)) { throw ReportError.cannotWrite(path, reason: reason) }
        if rename(temporary, path) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw ReportError.cannotWrite(path, reason: reason)
        }
    }

    /// How long a FIFO may stay without a reader before a write into it fails: a reader
    /// started just after bgbench has time to open it, and one that never comes does not
    /// hold the command forever.
    package static let fifoReaderWait: Duration = .seconds(10)

    /// Opens a device, FIFO or socket for writing. A FIFO is opened without blocking, again
    /// every 50 ms until a process reads it or `fifoReaderWait` has passed (opening it
    /// plainly would wait for a reader forever), then switched back to blocking writes.
    static func openStream(_ path: String, wait: Duration = fifoReaderWait) throws -> Int32 {
        let deadline = ContinuousClock.now + wait
        while true {
            let fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            if fd >= 0 {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
                return fd
            }
            guard errno == ENXIO || errno == EINTR else {
                throw ReportError.cannotWrite(path, reason: String(cString: strerror(errno)))
            }
            if ContinuousClock.now >= deadline {
                throw ReportError.cannotWrite(
                    path, reason: "a FIFO that no process opened for reading within \(wait)")
            }
            usleep(50_000)
        }
    }

    /// Whether `path` exists and is neither a regular file nor a folder (links followed).
    package static func isStream(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        let type = info.st_mode & S_IFMT
        return type != S_IFREG && type != S_IFDIR
    }

    /// Creates the file `path` (which must not exist) with `bytes`; on failure removes it and
    /// returns the system's reason ("No space left on device"), else nil.
    package static func writeNew(_ path: String, _ bytes: [UInt8]) -> String? {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        var reason = writeAll(fd, bytes)
        if close(fd) != 0, reason == nil { reason = String(cString: strerror(errno)) }
        if reason != nil { unlink(path) }
        return reason
    }

    /// Writes every byte to `fd`; the system's reason when it cannot, else nil.
    package static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> String? {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return String(cString: strerror(errno))
            }
            offset += n
        }
        return nil
    }
}

/// run.json's fields (`package`: the harness writes a frontier's, with its arms).
package struct RunManifest: Encodable {
    struct Execution: Encodable {
        var commandLine: [String]
        var threads: Int
        var wallSeconds: Double
        var deviceDaysPerSecond: Double
        var eventsPerSecond: Double
        /// A shard's host (absent for a whole run).
        var host: String?
        /// A merged report's shards, in shard order (absent otherwise).
        var shards: [ShardRun]?
    }
    /// One shard of a merged report, as it ran.
    struct ShardRun: Encodable {
        var shard: String
        var host: String
        var threads: Int
        var wallSeconds: Double
        var commandLine: [String]
        init(_ h: ShardHeader) {
            shard = "\(h.shard)/\(h.shards)"; host = h.host; threads = h.threads; wallSeconds = h.wallSeconds
            commandLine = h.commandLine
        }
    }
    /// A shard folder's part of the run (absent for a whole run or a merge): shard K of N
    /// and its devices [first, end).
    struct ShardPart: Encodable {
        var index: Int
        var count: Int
        var firstDevice: Int
        var endDevice: Int
        init(_ s: Shard, devices: Int) {
            index = s.index; count = s.count
            let range = s.devices(of: devices)
            firstDevice = range.lowerBound; endDevice = range.upperBound
        }
    }
    var schemaVersion: Int
    var bgbenchVersion: String
    var gitCommit: String
    var scenarioFile: String
    var scenarioSha256: String
    var scenarioOverrides: [String]
    var resolvedScenarioSha256: String
    var policies: [String]
    var seed: UInt64
    var replications: Int
    var devices: Int
    var days: Int
    var warmupDays: Int
    var deviceDays: Int
    var events: Int
    var gsl: String
    /// The replayed opens trace, when there is one (absent otherwise).
    var opensTrace: OpensTraceIdentity?
    /// What each external policy's handshake declared, by policy name (`external`,
    /// `external2`, ...; absent when none ran).
    var externalPolicies: [String: ExternalPolicyIdentity]? = nil
    /// The part of the run a shard folder holds (absent otherwise).
    var shard: ShardPart?
    /// The only fields that vary between identical runs (timing, threads, command line).
    var execution: Execution
    /// The resolved scenario; a sweep has one per point (its scenario-K.json files) instead.
    var scenario: Scenario?
    /// A sweep's axes and points (absent in a run's run.json).
    var sweep: SweepManifest? = nil
    /// A frontier's arms (`bgbench frontier`; absent for a run): `policies` are their labels.
    var frontier: Frontier? = nil
    package struct Frontier: Encodable {
        var baseline: String
        var arms: [FrontierArm]
        /// The curves' quality axis, a summary.csv metric.
        var quality: String
        /// `--compare A,B` pairs, each [A, B] (absent without one).
        var comparisons: [[String]]?
        var energyLevels: [Double]
        var energyRange: [Double]?
        package init(
            baseline: String, arms: [FrontierArm], quality: String, comparisons: [[String]]?, energyLevels: [Double],
            energyRange: [Double]?
        ) {
            self.baseline = baseline; self.arms = arms; self.quality = quality; self.comparisons = comparisons
            self.energyLevels = energyLevels; self.energyRange = energyRange
        }
    }
    package struct FrontierArm: Encodable {
        var label: String
        var policy: String
        var knob: String?
        var value: String?
        package init(label: String, policy: String, knob: String?, value: String?) {
            self.label = label; self.policy = policy; self.knob = knob; self.value = value
        }
    }
    /// Every other file of the folder, in writing order: what `check` verifies before it
    /// trusts the folder (Reports/README.md, run.json).
    var manifest: [File]
    package struct File: Encodable {
        var name: String
        var bytes: Int
        var sha256: String
    }
}

/// A report that could not be written.
public enum ReportError: Error, Equatable, CustomStringConvertible {
    case cannotWrite(String, reason: String)
    public var description: String {
        switch self {
        case .cannotWrite(let path, let reason): "cannot write '\(path)': \(reason)"
        }
    }
}
