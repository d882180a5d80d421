import BGBench
import Foundation

/// What a report folder's run.json says bgbench wrote there: the folder's kind and every
/// file of its manifest (name, size, SHA-256). `check` and `plot` trust a folder only when
/// its files are these (``ReportFolder/verifyComplete(_:hashing:)``); a writing command
/// replaces a folder only when every entry in it is one of these, byte for byte
/// (Reports/README.md, "What may be replaced").
public struct ReportManifest: Sendable {
    /// One file the manifest lists.
    public struct Entry: Sendable, Equatable {
        public let name: String
        public let bytes: Int
        public let sha256: String
    }

    /// Which command's report the folder is: a sweep's run.json has `sweep`, a frontier's
    /// has `frontier`, a suite's scorecard `suite`, every other (a run, a shard, a merged
    /// run) is a run's.
    public let kind: ReportKind
    /// In the manifest's order (run.json itself is not listed: it holds the manifest).
    public let entries: [Entry]

    /// The manifest of `runJSON` (`runPath` names it in messages).
    init(runJSON object: JSONObject, runPath: String) throws(ReportFolderError) {
        guard let list = object["manifest"]?.array else {
            throw .invalid(
                "'\(runPath)' has no manifest of the folder's files: not a complete report folder of this bgbench (schema_version \(ReportWriter.schemaVersion)); make it again"
            )
        }
        var entries: [Entry] = []
        for (i, item) in list.enumerated() {
            guard let o = item.object, case .string(let name)? = o["name"],
                case .number(_, let bytesText)? = o["bytes"],
                let bytes = Int(bytesText), case .string(let sha)? = o["sha256"],
                !name.contains("/"), name != "run.json"
            else {
                throw .invalid("'\(runPath)': manifest[\(i)] is not a {name, bytes, sha256} entry of a report file")
            }
            entries.append(Entry(name: name, bytes: bytes, sha256: sha))
        }
        self.entries = entries
        kind =
            object["sweep"] != nil
            ? .sweep : object["frontier"] != nil ? .frontier : object["suite"] != nil ? .suite : .run
    }

    /// The manifest of the report folder `folder`: nil when it has no run.json; an error
    /// when run.json cannot be read or holds no manifest.
    public static func read(folder: String) throws(ReportFolderError) -> ReportManifest? {
        let runPath = (folder as NSString).appendingPathComponent("run.json")
        guard FileManager.default.fileExists(atPath: runPath) else { return nil }
        let document: JSONDocument
        do {
            document = try JSONParser.parse(try ReportFolder.read(runPath))
        } catch let error as JSONSyntaxError {
            throw .invalid(
                "'\(runPath)' line \(error.position.line), column \(error.position.column): \(error.message)")
        } catch let error as ReportFolderError {
            throw error
        } catch {
            throw .invalid("'\(runPath)': \(error)")
        }
        guard let object = document.root.object else { throw .invalid("'\(runPath)': expected a JSON object") }
        return try ReportManifest(runJSON: object, runPath: runPath)
    }

    /// The entry for `name`, if the manifest lists it.
    public func entry(_ name: String) -> Entry? { entries.first { $0.name == name } }

    /// How the file at `path` differs from `entry`: nil when it is byte for byte the file
    /// listed; with `hashing` false only its presence and size are checked.
    public static func difference(_ path: String, from entry: Entry, hashing: Bool = true) -> FileDifference? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let size = attributes[.size] as? Int
        else { return .missing }
        guard size == entry.bytes else { return .size(size) }
        guard hashing else { return nil }
        // Read no more than the manifest's size: a FIFO or a device in its place is cut there.
        let data: [UInt8]
        do { data = try InputFile.read(path, limit: min(entry.bytes, InputFile.Limit.report)) } catch {
            return error.tooLarge ? .content : .missing
        }
        return data.count == entry.bytes && SHA256.hex(data) == entry.sha256 ? nil : .content
    }

    /// How a file differs from its manifest entry.
    public enum FileDifference: Equatable, Sendable {
        case missing
        case size(Int)
        case content
    }
}
