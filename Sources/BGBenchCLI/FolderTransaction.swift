import BGBench
import CSyscalls
import Foundation

/// One report folder written as a unit (Reports/README.md, "How a folder is written"):
/// `run`, `sweep` and `check --update` open one before any simulation, write every file
/// into a staging folder beside the target, and `commit()` swaps it into place.
///
/// - Beside `DIR` (same parent, so renames are atomic) live `.DIR.bgbench-lock` (the
///   `flock` of the writer; the file stays), `.DIR.bgbench-staging-PID` (the folder being
///   written) and, only after a crash mid-swap on a file system without
///   `RENAME_EXCHANGE`, `.DIR.bgbench-old-PID`. Readers skip names starting with a dot.
/// - Opening takes the lock without waiting (another writer: exit 75), then repairs what a
///   killed writer left: an `old` folder where `DIR` is missing is renamed back, every
///   other leftover is removed (no live writer holds the lock, so none is in use).
/// - `DIR` may be missing, empty, or what ``OutputGuard`` shows bgbench wrote itself (the
///   previous report of the same kind, nothing else in it); anything else is refused
///   (exit 73) unless `force`, and an output that is or holds one of the command's inputs
///   is refused even with `force`.
/// - `commit()` exchanges the staging folder and `DIR` with renameat2(RENAME_EXCHANGE) and
///   removes the old folder, now at the staging name; where the file system cannot
///   exchange, `DIR` is renamed to the `old` name and the staging folder to `DIR`.
final class FolderTransaction {
    let target: String
    let parent: String
    let name: String
    let staging: String
    private var lock: Int32 = -1
    private var done = false

    /// Whether `name` is a writer's lock file, `.DIR.bgbench-lock` (left beside `DIR`).
    static func isLockFile(_ name: String) -> Bool { name.hasPrefix(".") && name.hasSuffix(".bgbench-lock") }

    /// Resolves `out`, checks that it may be replaced (`scope`; not one of `inputs`),
    /// locks it, repairs leftovers and creates the staging folder: the checks that must
    /// pass before anything runs.
    init(
        out: String, force: Bool, scope: OutputGuard.Scope, inputs: [OutputGuard.Input] = [],
        option: String = "--out"
    ) throws {
        guard !out.isEmpty else { throw CLIError.usage("invalid value '' for '\(option)': expected a folder") }
        let fm = FileManager.default
        var url = URL(fileURLWithPath: out).standardizedFileURL
        if let resolved = try? fm.destinationOfSymbolicLink(atPath: url.path) {
            url = URL(fileURLWithPath: resolved, relativeTo: url.deletingLastPathComponent()).standardizedFileURL
        }
        target = url.path
        name = url.lastPathComponent
        parent = url.deletingLastPathComponent().path
        guard !name.isEmpty, name != "/", target != "/" else {
            throw CLIError.cannotCreate("cannot write '\(out)': the root folder cannot be a report folder")
        }
        staging = (parent as NSString).appendingPathComponent(".\(name).bgbench-staging-\(getpid())")
        do {
            try fm.createDirectory(atPath: parent, withIntermediateDirectories: true)
        } catch {
            throw CLIError.cannotCreate("cannot write '\(out)': cannot create the folder")
        }
        let lockPath = (parent as NSString).appendingPathComponent(".\(name).bgbench-lock")
        lock = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard lock >= 0 else {
            throw CLIError.cannotCreate(
                "cannot write '\(out)': cannot create its lock file '\(lockPath)': \(String(cString: strerror(errno)))")
        }
        if flock(lock, LOCK_EX | LOCK_NB) != 0 {
            let busy = errno == EWOULDBLOCK
            let reason = String(cString: strerror(errno))
            close(lock)
            lock = -1
            if busy {
                throw CLIError(
                    message:
                        "'\(out)' is being written by another bgbench (lock '\(lockPath)'): try again when it has finished",
                    code: 75, hint: false)
            }
            throw CLIError.cannotCreate("cannot write '\(out)': cannot lock '\(lockPath)': \(reason)")
        }
        do {
            try repairLeftovers()
            try OutputGuard.checkFolder(target, shown: out, scope: scope, inputs: inputs, force: force)
            Interruption.track(staging)
            guard mkdir(staging, 0o755) == 0 else {
                throw CLIError.cannotCreate(
                    "cannot write '\(out)': cannot create '\(staging)': \(String(cString: strerror(errno)))")
            }
        } catch {
            abandon()
            throw error
        }
    }

    deinit { abandon() }

    /// Leftovers of a writer that was killed (it held the lock we now hold).
    private func repairLeftovers() throws {
        let fm = FileManager.default
        let entries = (try? fm.contentsOfDirectory(atPath: parent)) ?? []
        let stagingPrefix = ".\(name).bgbench-staging-", oldPrefix = ".\(name).bgbench-old-"
        let olds = entries.filter { $0.hasPrefix(oldPrefix) }.sorted()
        var restored: String?
        if !fm.fileExists(atPath: target), let old = olds.last {
            let path = (parent as NSString).appendingPathComponent(old)
            if rename(path, target) == 0 { restored = old }
        }
        for entry in entries where (entry.hasPrefix(stagingPrefix) || entry.hasPrefix(oldPrefix)) && entry != restored {
            try? fm.removeItem(atPath: (parent as NSString).appendingPathComponent(entry))
        }
    }

    /// Writes each (relative path, text) file whole into the staging folder, one file at a
    /// time under the interruption lock.
    func write(_ files: [(String, String)]) throws {
        for (relative, text) in files {
            let path = (staging as NSString).appendingPathComponent(relative)
            try Interruption.critical { _ in
                let folder = (path as NSString).deletingLastPathComponent
                if folder != staging {
                    try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                }
                if let reason = ReportWriter.writeNew(path, Array(text.utf8)) {
                    throw CLIError.cannotCreate(
                        "cannot write '\((target as NSString).appendingPathComponent(relative))': \(reason)")
                }
            }
        }
    }

    /// Copies a folder into the staging folder (under `relative`), as is.
    func copy(folder: String, to relative: String) throws {
        try Interruption.critical { _ in
            do {
                try FileManager.default.copyItem(
                    atPath: folder, toPath: (staging as NSString).appendingPathComponent(relative))
            } catch {
                throw CLIError.cannotCreate(
                    "cannot write '\((target as NSString).appendingPathComponent(relative))': cannot copy '\(folder)'")
            }
        }
    }

    /// Puts the staging folder in place of the target and removes the old one.
    func commit() throws {
        try Interruption.critical { state in
            let fm = FileManager.default
            if !fm.fileExists(atPath: target) {
                guard rename(staging, target) == 0 else {
                    throw CLIError.cannotCreate("cannot write '\(target)': \(String(cString: strerror(errno)))")
                }
            } else if bgbench_rename_exchange(staging, target) == 0 {
                try? fm.removeItem(atPath: staging)  // the old folder, now at the staging name
            } else if errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP {
                // No exchange on this file system: two renames; a crash between them leaves
                // `old` for the next writer to rename back.
                let old = (parent as NSString).appendingPathComponent(".\(name).bgbench-old-\(getpid())")
                guard rename(target, old) == 0 else {
                    throw CLIError.cannotCreate("cannot write '\(target)': \(String(cString: strerror(errno)))")
                }
                guard rename(staging, target) == 0 else {
                    let reason = String(cString: strerror(errno))
                    rename(old, target)
                    throw CLIError.cannotCreate("cannot write '\(target)': \(reason)")
                }
                try? fm.removeItem(atPath: old)
            } else {
                throw CLIError.cannotCreate("cannot write '\(target)': \(String(cString: strerror(errno)))")
            }
            state.tracked.removeAll { $0 == staging }
            // In place: from here a signal cannot undo the command (Interruption).
            state.settled = true
            done = true
        }
        abandon()
    }

    /// Removes the staging folder (unless committed) and releases the lock.
    func abandon() {
        if !done {
            try? FileManager.default.removeItem(atPath: staging)
            done = true
        }
        Interruption.untrack(staging)
        if lock >= 0 {
            close(lock)
            lock = -1
        }
    }
}
