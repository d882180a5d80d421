import BGNumerics
import Foundation

/// The version of bgbench and of what it runs on, for `--version` and run.json.
public enum BuildInfo {
    public static let version = "0.1.0"

    /// The git commit of the checkout the executable was built in ("unknown" outside one),
    /// found from the executable's own folder (builds live in <checkout>/.build/...).
    public static let gitCommit: String = {
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? ".").resolvingSymlinksInPath()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "-C", executable.deletingLastPathComponent().path, "rev-parse", "HEAD"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return "unknown" }
        process.waitUntilExit()
        let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return process.terminationStatus == 0 && !out.isEmpty ? out : "unknown"
    }()

    public static var gslVersion: String { GSL.version }
}
