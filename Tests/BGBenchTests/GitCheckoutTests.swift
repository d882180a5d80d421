import Foundation
import Testing
@testable import BGBench

/// run.json's `git_commit` is read from the checkout's files (GitCheckout), not by starting
/// git. The oracle is git itself: `git rev-parse HEAD` in real repositories in every form
/// the reader must follow (a branch in its own file, packed, a detached HEAD, a worktree).
@Suite struct GitCheckoutTests {
    /// Runs git in `folder`; its standard output, trimmed. Fails the test on a non-zero exit.
    @discardableResult
    static func git(_ arguments: [String], in folder: String) throws -> String {
        let (code, output, errors) = try ResourcesTests.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main",
             "-c", "safe.directory=*"] + arguments, in: folder, path: "/usr/bin")
        try #require(code == 0, "git \(arguments.joined(separator: " ")): \(errors)")
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func head(_ folder: String) -> String? { GitCheckout.head(above: URL(fileURLWithPath: folder)) }

    @Test func agreesWithGitInEveryForm() throws {
        let root = try ResourcesTests.temporaryFolder("git")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let repo = root + "/repo", deep = repo + "/.build/x86_64/release"
        try FileManager.default.createDirectory(atPath: deep, withIntermediateDirectories: true)
        try Self.git(["init", "-q"], in: repo)
        try "a\n".write(toFile: repo + "/a.txt", atomically: true, encoding: .utf8)
        try Self.git(["add", "a.txt"], in: repo)
        try Self.git(["commit", "-q", "-m", "one"], in: repo)
        try Self.git(["commit", "-q", "--allow-empty", "-m", "two"], in: repo)

        // A branch in its own file, read from a folder deep inside the checkout.
        let two = try Self.git(["rev-parse", "HEAD"], in: repo)
        #expect(Self.head(deep) == two)
        #expect(FileManager.default.fileExists(atPath: repo + "/.git/refs/heads/main"))

        // Packed: the branch's own file is gone, its line is in packed-refs.
        try Self.git(["pack-refs", "--all", "--prune"], in: repo)
        #expect(!FileManager.default.fileExists(atPath: repo + "/.git/refs/heads/main"))
        #expect(Self.head(deep) == two)

        // Detached at the first commit.
        let one = try Self.git(["rev-parse", "HEAD~1"], in: repo)
        try Self.git(["checkout", "-q", "--detach", one], in: repo)
        #expect(Self.head(deep) == one)
        try Self.git(["checkout", "-q", "main"], in: repo)

        // A worktree: `.git` is a file naming the worktree's git folder, whose HEAD names a
        // branch kept in the common folder.
        let tree = root + "/tree"
        try Self.git(["worktree", "add", "-q", "-b", "side", tree, one], in: repo)
        #expect(Self.head(tree) == (try Self.git(["rev-parse", "HEAD"], in: tree)))
        #expect(Self.head(tree) == one)
        try Self.git(["commit", "-q", "--allow-empty", "-m", "three"], in: tree)
        #expect(Self.head(tree) == (try Self.git(["rev-parse", "HEAD"], in: tree)))
        #expect(Self.head(deep) == two)
    }

    @Test func noCheckoutOrAnUnreadableOneIsNil() throws {
        let root = try ResourcesTests.temporaryFolder("nogit")
        defer { try? FileManager.default.removeItem(atPath: root) }
        // /proc has no .git above it (nor has / on a test machine).
        #expect(Self.head("/proc/self") == nil)
        // A HEAD that names neither a ref nor a commit, and a ref that exists nowhere.
        try FileManager.default.createDirectory(atPath: root + "/a/.git", withIntermediateDirectories: true)
        try "garbage\n".write(toFile: root + "/a/.git/HEAD", atomically: true, encoding: .utf8)
        #expect(Self.head(root + "/a") == nil)
        try "ref: refs/heads/gone\n".write(toFile: root + "/a/.git/HEAD", atomically: true, encoding: .utf8)
        #expect(Self.head(root + "/a") == nil)
        // A `.git` file that does not say where the git folder is.
        try FileManager.default.createDirectory(atPath: root + "/b", withIntermediateDirectories: true)
        try "nothing\n".write(toFile: root + "/b/.git", atomically: true, encoding: .utf8)
        #expect(Self.head(root + "/b") == nil)
        #expect(GitCheckout.isObjectName(String(repeating: "ab", count: 20)))
        #expect(!GitCheckout.isObjectName(String(repeating: "AB", count: 20)))
        #expect(!GitCheckout.isObjectName("abc"))
    }

    /// The executable under test was built in this checkout: `--version` names its HEAD.
    @Test func theBuildNamesItsCheckout() throws {
        let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let expected = try Self.git(["rev-parse", "HEAD"], in: checkout)
        #expect(BuildInfo.gitCommit == expected)
    }
}
