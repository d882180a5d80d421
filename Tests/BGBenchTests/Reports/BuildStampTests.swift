import Foundation
import Testing
@testable import BGBench
import BGBuildStamp

/// run.json's `git_commit` and `--version` name the commit the binary was built from, fixed
/// when it was built (Plugins/BuildStamp runs `build-commit.sh` before BGBuildStamp
/// compiles), so an installed or copied binary names it too. The oracle is git itself:
/// `git describe --always --dirty --abbrev=40 --exclude='*'`, which names HEAD by its full
/// hash and adds `-dirty` when a tracked file differs from it.
@Suite struct BuildStampTests {
    static let script = TestSupport.packageRoot.appendingPathComponent("Plugins/BuildStamp/build-commit.sh").path
    static let outside = "unknown (built outside a git checkout)"

    /// Runs git in `folder`; its standard output, trimmed. Fails the test on a non-zero exit.
    @discardableResult
    static func git(_ arguments: [String], in folder: String) throws -> String {
        let (code, output, errors) = try ResourcesTests.run(
            [
                "git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main",
                "-c", "safe.directory=*",
            ] + arguments, in: folder, path: "/usr/bin")
        try #require(code == 0, "git \(arguments.joined(separator: " ")): \(errors)")
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// What git says a build of `folder` must record.
    static func oracle(_ folder: String) throws -> String {
        try git(["describe", "--always", "--dirty", "--abbrev=40", "--exclude=*"], in: folder)
    }

    /// The name `build-commit.sh` writes for `root` (into `out`), run by /bin/sh with `PATH`.
    static func stamp(_ root: String, out: String, path: String = "/usr/bin:/bin") throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [script, root, out]
        process.environment = ["PATH": path, "HOME": NSTemporaryDirectory()]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "build-commit.sh \(root) exited \(process.terminationStatus)")
        #expect(!FileManager.default.fileExists(atPath: out + ".new"))
        let text = try String(contentsOfFile: out, encoding: .utf8)
        let line = try #require(
            text.split(separator: "\n").first { $0.hasPrefix("let generatedCommit = \"") }, "\(text)")
        return String(line.dropFirst("let generatedCommit = \"".count).dropLast())
    }

    /// The test binary's stamp names the checkout it was built from, as git names it now
    /// (nothing changes the checkout between `swift test`'s build and its tests). That the
    /// executable records it in run.json and `--version` is ResourcesTests'
    /// installedBinaryWorksOutsideTheCheckout (this process records nothing: tests run
    /// side by side and read BuildInfo).
    @Test func theBuildNamesItsCheckout() throws {
        let root = TestSupport.packageRoot.path
        let expected = FileManager.default.fileExists(atPath: root + "/.git") ? try Self.oracle(root) : Self.outside
        #expect(BuildStamp.commit == expected)
    }

    /// Every form a checkout takes: a branch, a detached HEAD (a dependency's tag), edits
    /// staged and not, untracked files (not dirty), a worktree, a shallow clone; and
    /// without a checkout at the root: a copy without `.git`, a folder inside another
    /// repository.
    @Test func agreesWithGitInEveryForm() throws {
        let root = try ResourcesTests.temporaryFolder("stamp")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let repo = root + "/repo", out = root + "/BuildCommit.swift"
        try FileManager.default.createDirectory(atPath: repo + "/sub", withIntermediateDirectories: true)
        try Self.git(["init", "-q"], in: repo)
        try "a\n".write(toFile: repo + "/sub/a.txt", atomically: true, encoding: .utf8)
        try Self.git(["add", "sub/a.txt"], in: repo)
        try Self.git(["commit", "-q", "-m", "one"], in: repo)
        try Self.git(["commit", "-q", "--allow-empty", "-m", "two"], in: repo)
        let two = try Self.git(["rev-parse", "HEAD"], in: repo)

        #expect(try Self.stamp(repo, out: out) == two)
        #expect(try Self.oracle(repo) == two)
        // Untracked files do not make it dirty; an edit does, staged or not.
        try "new\n".write(toFile: repo + "/untracked.txt", atomically: true, encoding: .utf8)
        #expect(try Self.stamp(repo, out: out) == two)
        try "b\n".write(toFile: repo + "/sub/a.txt", atomically: true, encoding: .utf8)
        #expect(try Self.stamp(repo, out: out) == two + "-dirty")
        #expect(try Self.oracle(repo) == two + "-dirty")
        try Self.git(["add", "sub/a.txt"], in: repo)
        #expect(try Self.stamp(repo, out: out) == (try Self.oracle(repo)))
        try Self.git(["commit", "-q", "-m", "three"], in: repo)
        #expect(try Self.stamp(repo, out: out) == (try Self.git(["rev-parse", "HEAD"], in: repo)))

        // Detached at the first commit, as a dependency's checkout sits at its tag.
        let one = try Self.git(["rev-parse", "HEAD~2"], in: repo)
        try Self.git(["tag", "1.0.0", one], in: repo)
        try Self.git(["checkout", "-q", "1.0.0"], in: repo)
        #expect(try Self.stamp(repo, out: out) == one)
        try Self.git(["checkout", "-q", "main"], in: repo)

        // A worktree (`.git` is a file), clean and then edited.
        let tree = root + "/tree"
        try Self.git(["worktree", "add", "-q", "-b", "side", tree, two], in: repo)
        #expect(try Self.stamp(tree, out: out) == two)
        try "c\n".write(toFile: tree + "/sub/a.txt", atomically: true, encoding: .utf8)
        #expect(try Self.stamp(tree, out: out) == (try Self.oracle(tree)))
        #expect(try Self.stamp(tree, out: out) == two + "-dirty")

        // A shallow clone: one commit, no history.
        let shallow = root + "/shallow"
        try Self.git(["clone", "-q", "--depth", "1", "file://" + repo, shallow], in: root)
        #expect(try Self.git(["rev-parse", "--is-shallow-repository"], in: shallow) == "true")
        #expect(try Self.stamp(shallow, out: out) == (try Self.git(["rev-parse", "HEAD"], in: repo)))

        // No checkout at the root: a folder inside the repository, and a copy without `.git`
        // (a tarball): "unknown", never the commit of the repository around it.
        #expect(try Self.stamp(repo + "/sub", out: out) == Self.outside)
        let copy = root + "/copy"
        try FileManager.default.copyItem(atPath: repo + "/sub", toPath: copy)
        #expect(try Self.stamp(copy, out: out) == Self.outside)
    }

    /// No git on the PATH, or a `.git` git cannot read: "unknown", with the reason.
    @Test func unknownSaysWhy() throws {
        let root = try ResourcesTests.temporaryFolder("stamp-unknown")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let repo = root + "/repo", out = root + "/BuildCommit.swift", tools = root + "/tools"
        try FileManager.default.createDirectory(atPath: repo, withIntermediateDirectories: true)
        try Self.git(["init", "-q"], in: repo)
        try Self.git(["commit", "-q", "--allow-empty", "-m", "one"], in: repo)
        // A PATH with what the script needs besides git.
        try FileManager.default.createDirectory(atPath: tools, withIntermediateDirectories: true)
        for tool in ["cmp", "mv", "rm"] {
            let found = try #require(
                ["/usr/bin/" + tool, "/bin/" + tool].first { FileManager.default.isExecutableFile(atPath: $0) })
            try FileManager.default.createSymbolicLink(atPath: tools + "/" + tool, withDestinationPath: found)
        }
        #expect(try Self.stamp(repo, out: out, path: tools) == "unknown (git not found when built)")
        try FileManager.default.createDirectory(atPath: root + "/bad", withIntermediateDirectories: true)
        try "nothing\n".write(toFile: root + "/bad/.git", atomically: true, encoding: .utf8)
        #expect(try Self.stamp(root + "/bad", out: out) == "unknown (git could not read the checkout when built)")
    }

    /// The file is rewritten only when its text changes: a build with nothing new compiles
    /// nothing again.
    @Test func rewritesOnlyWhatChanged() throws {
        let root = try ResourcesTests.temporaryFolder("stamp-same")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let out = root + "/BuildCommit.swift"
        #expect(try Self.stamp(root, out: out) == Self.outside)
        let before = try #require(try FileManager.default.attributesOfItem(atPath: out)[.modificationDate] as? Date)
        usleep(20_000)
        #expect(try Self.stamp(root, out: out) == Self.outside)
        #expect(try FileManager.default.attributesOfItem(atPath: out)[.modificationDate] as? Date == before)
    }
}
