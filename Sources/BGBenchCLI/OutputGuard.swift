import BGBench
import BGHarness
import Foundation

/// What a writing command may replace (Reports/README.md, "What may be replaced"), checked
/// before anything runs. bgbench replaces only what it can show it wrote itself:
///
/// - a report folder, when every entry in it is a file its run.json's manifest lists, byte
///   for byte (or run.json itself, or a PNG that `bgbench plot` drew), and it is the report
///   of the same kind (run, sweep, frontier); for `check --update` (``Scope/baselines``),
///   also a folder of such folders;
/// - a single file (`--junit`, `--csv`, `convert-lsapp --out`), when it is a file of the
///   command's own kind;
///
/// and never one of the command's inputs (the output itself, a folder holding an input, a
/// file inside an input folder, or a symbolic or hard link to either; compared by device
/// and inode), not even with `--force`. Anything else is refused with exit 73 and one line
/// naming what is there, unless `--force`.
enum OutputGuard {
    /// A path the command reads, with the option or argument that named it (for messages).
    struct Input {
        var path: String
        /// How the user named it: `--scenario`, `--current`, "shard folder".
        var role: String
    }

    /// Which folders a command may replace.
    enum Scope {
        /// A report folder of this kind (the previous output of the same command).
        case report(ReportKind)
        /// `check --update`'s baseline: a report folder of any kind, or a folder of them.
        case baselines
    }

    static let forceHint = "not replaced (use --force to replace the folder whole)"

    /// The end of the line that refuses an output that is, holds or lies in an input.
    static func inputHint(_ done: String) -> String { "an input is never \(done), not even with --force" }

    /// Refuses (73) to replace the folder `target` (resolved; `shown` as typed) unless it
    /// is missing or empty, or what ``Scope`` allows, and refuses an output that is or holds
    /// one of `inputs`, even with `force`. Nothing else is checked with `force` but that
    /// `target` is no file.
    static func checkFolder(_ target: String, shown: String, scope: Scope, inputs: [Input], force: Bool) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: target, isDirectory: &isDirectory) else { return }
        guard isDirectory.boolValue else {
            throw CLIError.cannotCreate("cannot write '\(shown)': it is a file, not a folder")
        }
        // An input is never replaced, not even with --force: replacing would delete it.
        if let target = identity(target) {
            for input in inputs {
                let path = canonical(input.path)
                guard let held = ancestors(path).firstIndex(where: { identity($0) == target }) else { continue }
                throw CLIError.cannotCreate(
                    "'\(shown)' \(held == 0 ? "is" : "holds") this command's input (\(input.role) '\(input.path)'): "
                        + inputHint("replaced"))
            }
        }
        if force { return }
        switch scope {
        case .report(let kind): try checkReport(target, shown: shown, kind: kind)
        case .baselines: try checkBaselines(target, shown: shown)
        }
    }

    /// A report folder of `kind` (nil: any kind) that holds nothing bgbench did not write.
    private static func checkReport(_ folder: String, shown: String, kind: ReportKind?) throws {
        let entries = try contents(folder, shown: shown)
        guard !entries.isEmpty else { return }
        let manifest: ReportManifest
        do {
            guard let read = try ReportManifest.read(folder: folder) else {
                throw CLIError.cannotCreate(
                    "'\(shown)' holds '\(entries[0])' and no run.json: not a bgbench report, \(forceHint)")
            }
            manifest = read
        } catch let error as ReportFolderError {
            throw CLIError.cannotCreate(
                "'\(shown)' is not a report bgbench can vouch for (\(error.description)): \(forceHint)")
        }
        if let kind, manifest.kind != kind {
            throw CLIError.cannotCreate(
                "'\(shown)' holds a bgbench \(manifest.kind.rawValue) report, not a \(kind.rawValue) report: \(forceHint)"
            )
        }
        for name in entries where name != "run.json" {
            let path = (folder as NSString).appendingPathComponent(name)
            if isSymbolicLink(path) {
                throw CLIError.cannotCreate("'\(shown)' holds '\(name)', a symbolic link: \(forceHint)")
            }
            if let entry = manifest.entry(name) {
                guard isRegularFile(path), ReportManifest.difference(path, from: entry) == nil else {
                    throw CLIError.cannotCreate(
                        "'\(shown)' holds '\(name)', which is not the file bgbench wrote there "
                            + "(not the size and SHA-256 in its run.json's manifest): \(forceHint)")
                }
                continue
            }
            if PlotFiles.isDrawnByBGBench(path, name: name) { continue }
            let what = isRegularFile(path) ? "'\(name)'" : "the folder '\(name)'"
            throw CLIError.cannotCreate(
                "'\(shown)' holds \(what), which its run.json's manifest does not list: \(forceHint)")
        }
    }

    /// `check --update`'s baseline: a report folder, or a folder whose entries are report
    /// folders and the lock files bgbench leaves beside them (`.NAME.bgbench-lock`).
    private static func checkBaselines(_ folder: String, shown: String) throws {
        let entries = try contents(folder, shown: shown)
        if entries.contains("run.json") { return try checkReport(folder, shown: shown, kind: nil) }
        for name in entries {
            let path = (folder as NSString).appendingPathComponent(name)
            if FolderTransaction.isLockFile(name), isRegularFile(path) { continue }
            guard !isSymbolicLink(path) else {
                throw CLIError.cannotCreate("'\(shown)' holds '\(name)', a symbolic link: \(forceHint)")
            }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue,
                FileManager.default.fileExists(atPath: (path as NSString).appendingPathComponent("run.json"))
            else {
                throw CLIError.cannotCreate(
                    "'\(shown)' holds '\(name)', which is not a bgbench report folder: \(forceHint)")
            }
            try checkReport(path, shown: (shown as NSString).appendingPathComponent(name), kind: nil)
        }
    }

    /// A single file a command writes (`--junit`, `--csv`, `convert-lsapp --out`).
    struct FileKind: Sendable {
        /// What the file is, for messages: "a JUnit report of bgbench check".
        var description: String
        /// Whether a file's first bytes show it is one of these.
        var recognises: @Sendable ([UInt8]) -> Bool

        /// A file whose first line is exactly `header`.
        static func csv(_ description: String, header: String) -> FileKind {
            FileKind(description: description) { bytes in
                let line = bytes.prefix { $0 != UInt8(ascii: "\n") }
                return String(decoding: line, as: UTF8.self).trimmingCharacters(in: ["\r"]) == header
            }
        }
    }

    /// Refuses (73) to write the file `path` where it is one of `inputs` (or a link to
    /// one) or lies inside one, even with `force`; or where a file stands that is not of
    /// `kind`, unless `force`. A folder there
    /// is refused even with `force`; a file that cannot be created is refused at once.
    static func checkFile(_ path: String, option: String, kind: FileKind, inputs: [Input], force: Bool) throws {
        guard !path.isEmpty else { throw CLIError.usage("invalid value '' for '\(option)': expected a file") }
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        if exists, isDirectory.boolValue { throw CLIError.cannotCreate("cannot write '\(path)': it is a folder") }
        // A device, FIFO or socket (`/dev/stdout`) is written into, never replaced: nothing
        // to recognise (reading it could block) and nothing to create beside it.
        let stream = exists && ReportWriter.isStream(path)
        // An input (the same file, or a file inside an input folder) is never overwritten,
        // not even with --force.
        let outer = ancestors(canonical(path))
        for input in inputs {
            guard let id = identity(canonical(input.path)),
                let inside = outer.firstIndex(where: { identity($0) == id })
            else { continue }
            throw CLIError.cannotCreate(
                "'\(path)' \(inside == 0 ? "is" : "is inside") this command's input (\(input.role) '\(input.path)'): "
                    + inputHint("overwritten"))
        }
        if !force {
            if exists, !stream, !kind.recognises(firstBytes(path)) {
                throw CLIError.cannotCreate(
                    "'\(path)' exists and is not \(kind.description): not overwritten (use --force to replace it)")
            }
        }
        if stream { return }
        // A file that cannot be created beside the target fails now, not after the work.
        let probe = path + ".tmp-\(getpid())"
        let fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw CLIError.cannotCreate("cannot write '\(path)': \(String(cString: strerror(errno)))")
        }
        close(fd)
        unlink(probe)
    }

    /// A path with every symbolic link resolved, as far as it exists.
    static func canonical(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// The device and inode of what `path` names (links followed), nil when it is missing.
    private static func identity(_ path: String) -> [UInt64]? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return [UInt64(info.st_dev), UInt64(info.st_ino)]
    }

    /// `path` (absolute) and each folder above it, nearest first, up to the root.
    private static func ancestors(_ path: String) -> [String] {
        var out = [path], current = path
        while current != "/", !current.isEmpty {
            current = (current as NSString).deletingLastPathComponent
            out.append(current)
        }
        return out
    }

    private static func contents(_ folder: String, shown: String) throws -> [String] {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        } catch {
            throw CLIError.cannotCreate("cannot write '\(shown)': cannot read the folder")
        }
    }

    private static func isSymbolicLink(_ path: String) -> Bool {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) != nil
    }

    private static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// The first 512 bytes of a file (none when it cannot be read).
    static func firstBytes(_ path: String) -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else { return [] }
        defer { try? handle.close() }
        return [UInt8]((try? handle.read(upToCount: 512)) ?? Data())
    }
}
