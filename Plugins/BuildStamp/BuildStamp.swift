import Foundation
import PackagePlugin

/// Fixes the commit bgbench is built from into the binary, so an installed or copied
/// executable still names it (run.json's `git_commit`, `--version`): before BGBuildStamp
/// compiles, `build-commit.sh` asks git for the package folder's HEAD and whether a
/// tracked file differs from it, and writes `BuildCommit.swift` (`let generatedCommit =
/// "..."`) into the plugin's work folder, only when its text changes, so a no-op build
/// stays one.
///
/// It is a build command with inputs, not a prebuild command: SwiftPM runs prebuild
/// commands only when it plans the build again (after Package.swift or a folder of sources
/// changes), so a commit alone would leave the old name in the binary. The inputs are what
/// moves when the answer can: git's HEAD, index and HEAD's log (a commit, checkout, reset,
/// `git add`), and every tracked file (an edit makes the tree dirty). They are listed when
/// SwiftPM plans the build; a file added since is in the index, which is an input.
@main struct BuildStamp: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let root = context.package.directoryURL
        let output = context.pluginWorkDirectoryURL.appending(path: "BuildCommit.swift")
        let script = root.appending(path: "Plugins/BuildStamp/build-commit.sh")
        let inputs = ([script] + Self.gitInputs(root)).filter { FileManager.default.fileExists(atPath: $0.path) }
        return [
            .buildCommand(
                displayName: "Stamping the commit into BGBuildStamp",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [script.path, root.path, output.path],
                environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"],
                inputFiles: inputs, outputFiles: [output])
        ]
    }

    /// The files whose change can change the script's answer, when the package's root is a
    /// git checkout (none otherwise: nothing there can change it).
    static func gitInputs(_ root: URL) -> [URL] {
        guard FileManager.default.fileExists(atPath: root.appending(path: ".git").path),
            let gitDir = git(["rev-parse", "--absolute-git-dir"], in: root)?.split(separator: "\n").first,
            let files = git(["ls-files", "-z"], in: root)
        else { return [] }
        let git = URL(fileURLWithPath: String(gitDir))
        return ["HEAD", "index", "logs/HEAD"].map { git.appending(path: $0) }
            + files.split(separator: "\0").map { root.appending(path: String($0)) }
    }

    /// git's standard output in `folder`, or nil when it cannot be run or fails.
    static func git(_ arguments: [String], in folder: URL) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "-C", folder.path] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? String(decoding: data, as: UTF8.self) : nil
    }
}
