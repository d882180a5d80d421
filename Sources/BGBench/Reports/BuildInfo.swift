import BGNumerics
import Foundation

/// The version of bgbench and of what it runs on, for `--version` and run.json.
public enum BuildInfo {
    public static let version = "0.1.0"

    /// The git commit of the checkout the executable was built in ("unknown" outside one),
    /// found from the executable's own folder (builds live in <checkout>/.build/...): the
    /// checkout's HEAD when the run starts, read from its files (``GitCheckout``).
    public static let gitCommit: String = {
        // The executable itself, not argv[0], which names it relative to the caller's
        // folder or not at all when it was found on PATH.
        let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments.first ?? "."
        let executable = URL(fileURLWithPath: path).resolvingSymlinksInPath()
        return GitCheckout.head(above: executable.deletingLastPathComponent()) ?? "unknown"
    }()

    public static var gslVersion: String { GSL.version }
}
