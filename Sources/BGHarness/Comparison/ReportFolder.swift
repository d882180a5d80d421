import BGBench
import Foundation

/// A report folder read back (Reports/README.md): run.json's identity fields, summary.csv,
/// and the other CSV files that are present. `bgbench check` compares two of these.
public struct ReportFolder: Sendable {
    /// The report files of a run's or a frontier's folder (``ReportFile/all``), in the order
    /// `check --exact` compares them and `check --update` copies them; run.json last, as it
    /// marks a complete folder. A sweep's own files (long.csv, scenario-K.json) come from its
    /// manifest (``files``).
    public static let reportFiles =
        ReportFile.all.filter {
            $0.readBack == .compared && !$0.folders.isDisjoint(with: [.run, .frontier])
        }.map(\.name) + [ReportFile.run.name]

    public let path: String
    public let schemaVersion: Int
    public let resolvedScenarioSha256: String
    /// The seed as written (it may exceed 2^53, so it is kept as text).
    public let seed: String
    public let devices: Int
    public let days: Int
    public let warmupDays: Int
    public let policies: [String]
    /// SHA-256 of the replayed opens trace (`opens_trace.sha256`), nil without one.
    public let opensTraceSha256: String?
    public let summary: CSVTable
    /// A sweep folder's axes (run.json's `sweep.axes[].path`): the columns that lead each
    /// of its CSV files. Empty for a run's folder.
    public let sweepAxes: [String]
    /// The columns that lead long.csv: a sweep's axes, each duration axis followed by its
    /// seconds; a frontier's arm columns (``LongTable``).
    public let longLeading: [String]
    /// The files run.json's manifest lists, in its order.
    public let manifestFiles: [String]
    /// run.json as parsed.
    let runJSON: JSONValue

    /// The path of one of the folder's files.
    public func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    public func has(_ name: String) -> Bool { FileManager.default.fileExists(atPath: file(name)) }

    /// Reads a report folder. `role` ("baseline", "current") names it in messages.
    public init(path: String, role: String) throws(ReportFolderError) {
        self.path = path
        let runPath = (path as NSString).appendingPathComponent("run.json")
        guard FileManager.default.fileExists(atPath: runPath) else {
            throw .missing("no run.json in \(role) '\(path)': not a complete report folder")
        }
        let text = try Self.read(runPath)
        let document: JSONDocument
        do {
            document = try JSONParser.parse(text)
        } catch {
            throw .invalid(
                "'\(runPath)' line \(error.position.line), column \(error.position.column): \(error.message)")
        }
        runJSON = document.root
        guard let object = document.root.object else { throw .invalid("'\(runPath)': expected a JSON object") }
        func number(_ key: String) throws(ReportFolderError) -> String {
            guard case .number(_, let text)? = object[key] else { throw .invalid("'\(runPath)' lacks \(key)") }
            return text
        }
        func integer(_ key: String) throws(ReportFolderError) -> Int {
            guard let value = Int(try number(key)) else { throw .invalid("'\(runPath)': \(key) is not an integer") }
            return value
        }
        schemaVersion = try integer("schema_version")
        guard case .string(let sha)? = object["resolved_scenario_sha256"] else {
            throw .invalid("'\(runPath)' lacks resolved_scenario_sha256")
        }
        resolvedScenarioSha256 = sha
        seed = try number("seed")
        devices = try integer("devices")
        days = try integer("days")
        warmupDays = try integer("warmup_days")
        guard let list = object["policies"]?.array else { throw .invalid("'\(runPath)' lacks policies") }
        policies = list.map { if case .string(let s) = $0 { s } else { $0.text } }
        if case .string(let sha)? = object["opens_trace"]?.object?["sha256"] {
            opensTraceSha256 = sha
        } else {
            opensTraceSha256 = nil
        }
        let manifest = try ReportManifest(runJSON: object, runPath: runPath)
        try Self.verify(manifest, folder: path)
        manifestFiles = manifest.entries.map(\.name)
        let axes = (object["sweep"]?.object?["axes"]?.array ?? []).compactMap { axis -> SweepAxis? in
            guard case .string(let p)? = axis.object?["path"] else { return nil }
            let values = (axis.object?["values"]?.array ?? []).map {
                if case .string(let s) = $0 { s } else { $0.text }
            }
            return SweepAxis(path: p, values: values)
        }
        sweepAxes = axes.map(\.path)
        longLeading = object["frontier"] != nil ? LongTable.frontierColumns : LongTable.sweepColumns(axes)

        let summaryPath = (path as NSString).appendingPathComponent("summary.csv")
        guard FileManager.default.fileExists(atPath: summaryPath) else {
            throw .missing("no summary.csv in \(role) '\(path)'")
        }
        summary = try Self.table(at: summaryPath, axes: sweepAxes)
    }

    /// A sweep folder (`bgbench sweep`): its CSV files lead with a column per axis.
    public var isSweep: Bool { !sweepAxes.isEmpty }

    /// Every report file of the folder in the order `check --exact` compares them: the
    /// report files, then the other files its manifest lists (a sweep's long.csv and
    /// scenario-K.json), then run.json.
    public var files: [String] {
        let known = Self.reportFiles.dropLast()
        return known.filter(has) + manifestFiles.filter { !known.contains($0) } + ["run.json"]
    }

    /// Checks that `path` is a whole report folder as its run wrote it: run.json parses and
    /// its manifest lists every report file present with its size and SHA-256 (so each is
    /// byte for byte what the run wrote). What `plot` asks of a run or sweep folder.
    public static func verifyComplete(_ path: String, hashing: (String) -> Bool = { _ in true })
        throws(ReportFolderError)
    {
        guard let manifest = try ReportManifest.read(folder: path) else {
            throw .missing("no run.json in '\(path)': not a complete report folder (bgbench writes it last)")
        }
        try verify(manifest, folder: path, hashing: hashing)
    }

    /// One of the folder's CSV files, parsed; nil when the folder has none.
    public func table(_ name: String) throws(ReportFolderError) -> CSVTable? {
        guard has(name) else { return nil }
        return try Self.table(at: file(name), axes: name == ReportFile.long.name ? longLeading : sweepAxes)
    }

    /// `axes`: a sweep's axis columns, which lead every CSV file of its folder.
    static func table(at path: String, axes: [String] = []) throws(ReportFolderError) -> CSVTable {
        let table: CSVTable
        do {
            table = try CSVTable(parsing: read(path))
        } catch let error as CSVParseError {
            throw .invalid("'\(path)' line \(error.line): \(error.message)")
        } catch let error as ReportFolderError {
            throw error
        } catch {
            throw .invalid("'\(path)': \(error)")
        }
        try validate(table, path: path, axes: axes)
        return table
    }

    /// Columns that hold text, where `nan` or `inf` would be a name, not a number.
    static let textColumns: Set<String> = [
        "scenario", "policy", "archetype", "platform", "baseline", "metric", "event",
        "detail", "utc_time", "arm", "knob", "knob_value", "interval", "measure",
        "reference", "status", "arm_policy", "unit", "interval_kind",
    ]

    /// A report CSV `check` can trust: its file's header exactly (a missing or an
    /// unexpected column is named with its line and column), and no NaN or infinity in a
    /// number column (bgbench writes a missing value as an empty field). Short or long
    /// rows are refused by the parser.
    /// A sweep's files (`axes` not empty) have the axes first, and its summary.csv a
    /// `pareto` column last.
    static func validate(_ table: CSVTable, path: String, axes: [String] = []) throws(ReportFolderError) {
        let name = (path as NSString).lastPathComponent
        var expected = ReportFile.named(name)?.header
        if expected != nil, !axes.isEmpty {
            expected = axes + expected! + (name == "summary.csv" ? SweepReport.paretoColumns : [])
        }
        if let expected, table.header != expected {
            let i =
                expected.indices.first { $0 >= table.header.count || table.header[$0] != expected[$0] }
                ?? expected.count
            if i < expected.count, !table.header.contains(expected[i]) {
                throw .invalid(
                    "'\(path)' line 1, column \(i + 1): no column \(expected[i]), which a bgbench report's \((path as NSString).lastPathComponent) has"
                )
            }
            let found = i < table.header.count ? table.header[i] : "(none)"
            throw .invalid(
                "'\(path)' line 1, column \(i + 1): unexpected column \(found) (expected \(i < expected.count ? expected[i] : "no more columns"))"
            )
        }
        let numeric = table.header.indices.filter { $0 >= axes.count && !textColumns.contains(table.header[$0]) }
        for (row, line) in zip(table.rows, table.lines) {
            for j in numeric {
                let text = row[j]
                guard !text.isEmpty else { continue }
                if let value = Double(text), !value.isFinite {
                    throw .invalid(
                        "'\(path)' line \(line), column \(j + 1) (\(table.header[j])): '\(text)' is not a finite number"
                    )
                }
            }
        }
    }

    /// run.json's `manifest`: every file it lists is there with its size and SHA-256, and
    /// every report file the folder holds is listed (a file of another run, or one added
    /// or changed by hand, is not). Files that are not report files (plot's PNG files, a
    /// JUnit file) may be there too. `hashing` says which files to hash; the others are
    /// checked for presence and size only.
    static func verify(
        _ manifest: ReportManifest, folder: String,
        hashing: (String) -> Bool = { _ in true }
    ) throws(ReportFolderError) {
        for entry in manifest.entries {
            let file = (folder as NSString).appendingPathComponent(entry.name)
            switch ReportManifest.difference(file, from: entry, hashing: hashing(entry.name)) {
            case nil: continue
            case .missing:
                // A file that is not there is no input (exit 66, as README's "In CI" says).
                throw .missing("'\(file)' is missing, but run.json's manifest lists it: not a complete report folder")
            case .size(let size):
                throw .invalid(
                    "'\(file)' has \(size) bytes where run.json's manifest says \(entry.bytes): not the file the run wrote"
                )
            case .content:
                throw .invalid(
                    "'\(file)': its SHA-256 is not the one in run.json's manifest: not the file the run wrote")
            }
        }
        let listed = Set(manifest.entries.map(\.name) + ["run.json"])
        let present = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
        for name in present
        where !listed.contains(name)
            && (reportFiles.contains(name) || name.hasSuffix(".csv") || name.hasSuffix(".json"))
        {
            throw .invalid(
                "'\((folder as NSString).appendingPathComponent(name))' is not in run.json's manifest: a file of another run, or added by hand"
            )
        }
    }

    /// A file's bytes.
    static func bytes(_ path: String) throws(ReportFolderError) -> [UInt8] {
        do {
            return try InputFile.read(path, limit: InputFile.Limit.report)
        } catch {
            throw error.tooLarge
                ? .invalid("'\(path)' is \(error.reason)") : .missing("cannot read '\(path)': \(error.reason)")
        }
    }

    static func read(_ path: String) throws(ReportFolderError) -> String {
        let data = try bytes(path)
        guard let text = String(validating: data, as: UTF8.self) else {
            let at = InputFile.firstInvalidUTF8(data) ?? SourcePosition(line: 1, column: 1)
            throw .invalid("\(path):\(at.line):\(at.column): not UTF-8 text")
        }
        return text
    }

    /// The first difference between two folders' run.json, leaving out `ignoring` (top-level
    /// keys): the JSON path and both values as JSON text ("(none)" for a missing key).
    public static func firstRunJSONDifference(
        _ a: ReportFolder, _ b: ReportFolder,
        ignoring: Set<String>
    ) -> (path: String, baseline: String, current: String)? {
        func strip(_ v: JSONValue) -> JSONValue {
            guard var o = v.object else { return v }
            for key in ignoring { o[key] = nil }
            return .object(o)
        }
        return firstDifference(strip(a.runJSON), strip(b.runJSON), path: "")
    }

    /// Depth first, object keys in sorted order; numbers compare by their text.
    static func firstDifference(_ a: JSONValue, _ b: JSONValue, path: String) -> (
        path: String, baseline: String, current: String
    )? {
        switch (a, b) {
        case (.object(let x), .object(let y)):
            for key in Set(x.keys).union(y.keys).sorted() {
                let sub = JSONPathText.key(path, key)
                guard let xv = x[key] else { return (sub, "(none)", y[key]!.text) }
                guard let yv = y[key] else { return (sub, xv.text, "(none)") }
                if let d = firstDifference(xv, yv, path: sub) { return d }
            }
            return nil
        case (.array(let x), .array(let y)):
            for (i, (xv, yv)) in zip(x, y).enumerated() {
                if let d = firstDifference(xv, yv, path: JSONPathText.index(path, i)) { return d }
            }
            return x.count == y.count ? nil : (path, a.text, b.text)
        default:
            return a == b ? nil : (path.isEmpty ? "(root)" : path, a.text, b.text)
        }
    }

    /// What a `--baseline` or `--current` argument names: a report folder (a file in one
    /// names its folder), or a folder of report folders (each subfolder with a run.json,
    /// by name). Returns (name, folder) pairs; the name is "" for a single folder.
    public static func locate(_ path: String, role: String) throws(ReportFolderError) -> [(name: String, path: String)]
    {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .missing("cannot read \(role) '\(path)': no such file or folder")
        }
        let folder = isDirectory.boolValue ? path : (path as NSString).deletingLastPathComponent
        let shown = folder.isEmpty ? "." : folder
        if fm.fileExists(atPath: (shown as NSString).appendingPathComponent("run.json")) { return [("", shown)] }
        // Names starting with a dot are skipped: a writer's staging folder
        // (`.NAME.bgbench-staging-PID`) may hold a run.json before it is moved into place.
        let names = ((try? fm.contentsOfDirectory(atPath: shown)) ?? []).sorted().filter { name in
            guard !name.hasPrefix(".") else { return false }
            var dir: ObjCBool = false
            let sub = (shown as NSString).appendingPathComponent(name)
            return fm.fileExists(atPath: sub, isDirectory: &dir) && dir.boolValue
                && fm.fileExists(atPath: (sub as NSString).appendingPathComponent("run.json"))
        }
        guard !names.isEmpty else { throw .missing("no run.json in \(role) '\(shown)': not a complete report folder") }
        return names.map { ($0, (shown as NSString).appendingPathComponent($0)) }
    }
}

/// A report folder that cannot be read (`missing`: sysexits 66) or does not hold what a
/// report folder holds (`invalid`: 65). The message names the file.
public enum ReportFolderError: Error, Equatable, Sendable, CustomStringConvertible {
    case missing(String)
    case invalid(String)
    /// A file or folder that is not there (exit 66), rather than one that cannot be trusted.
    public var isMissing: Bool { if case .missing = self { true } else { false } }
    public var description: String {
        switch self {
        case .missing(let m), .invalid(let m): m
        }
    }
}
