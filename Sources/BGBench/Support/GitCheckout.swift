import Foundation

/// The commit a git checkout has checked out, read from its files as `git rev-parse HEAD`
/// would answer it: `.git` (a folder, or a file `gitdir: PATH` in a worktree or submodule),
/// its `HEAD` (a ref, or a detached commit), the ref's own file, else `packed-refs` in the
/// common folder. No process is started: asking git cost every run about 50 ms.
enum GitCheckout {
    /// The commit of the checkout that holds `folder` (the nearest `.git` above it), or nil
    /// when there is none or it cannot be read.
    static func head(above folder: URL) -> String? {
        var dir = folder.standardizedFileURL
        while true {
            let dotGit = dir.appendingPathComponent(".git")
            if let gitDir = gitDirectory(dotGit) { return commit(in: gitDir) }
            let parent = dir.deletingLastPathComponent()
            if parent.path == dir.path { return nil }
            dir = parent
        }
    }

    /// The git folder `.git` names: itself, or the one its `gitdir:` line points to.
    static func gitDirectory(_ dotGit: URL) -> URL? {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dotGit.path, isDirectory: &isFolder) else { return nil }
        if isFolder.boolValue { return dotGit }
        guard let line = firstLine(dotGit), line.hasPrefix("gitdir:") else { return nil }
        let path = line.dropFirst("gitdir:".count).trimmingCharacters(in: .whitespaces)
        return path.hasPrefix("/") ? URL(fileURLWithPath: path)
            : dotGit.deletingLastPathComponent().appendingPathComponent(path).standardizedFileURL
    }

    /// HEAD's commit in git folder `gitDir`.
    static func commit(in gitDir: URL) -> String? {
        guard let head = firstLine(gitDir.appendingPathComponent("HEAD")) else { return nil }
        guard head.hasPrefix("ref:") else { return isObjectName(head) ? head : nil }
        let ref = head.dropFirst("ref:".count).trimmingCharacters(in: .whitespaces)
        // A worktree keeps its HEAD; the branches live in the common folder.
        let common = firstLine(gitDir.appendingPathComponent("commondir")).map {
            $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : gitDir.appendingPathComponent($0).standardizedFileURL
        } ?? gitDir
        for folder in [gitDir, common] {
            if let loose = firstLine(folder.appendingPathComponent(ref)), isObjectName(loose) { return loose }
        }
        guard let packed = try? String(contentsOf: common.appendingPathComponent("packed-refs"), encoding: .utf8) else { return nil }
        for line in packed.split(separator: "\n") where !line.hasPrefix("#") && !line.hasPrefix("^") {
            let fields = line.split(separator: " ", maxSplits: 1)
            if fields.count == 2 && fields[1] == ref && isObjectName(String(fields[0])) { return String(fields[0]) }
        }
        return nil
    }

    /// A commit's name: 40 hex digits (SHA-1), or 64 (SHA-256 repositories).
    static func isObjectName(_ s: String) -> Bool {
        (s.utf8.count == 40 || s.utf8.count == 64) && s.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }

    private static func firstLine(_ file: URL) -> String? {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return nil }
        return text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first
            .map { $0.trimmingCharacters(in: .whitespaces) }
    }
}
