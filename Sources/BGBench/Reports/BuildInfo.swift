import BGNumerics
import Synchronization

/// The version of bgbench and of what it runs on, for `--version` and run.json.
public enum BuildInfo {
    public static let version = "0.1.0"

    /// The commit the running program was built from, as its build fixed it: the hash of the
    /// checkout's HEAD, `-dirty` when a tracked file differed from it, or `unknown (why)`
    /// when built outside a git checkout (Plugins/BuildStamp, module BGBuildStamp). The
    /// bgbench executable records it at start-up (Sources/bgbench/main.swift), so an
    /// installed or copied binary names it wherever it runs. The library is compiled
    /// without the stamp, so that a new commit recompiles one file rather than the
    /// simulator; a program that links the library and records nothing says so.
    public static var gitCommit: String { recorded.withLock { $0 } }

    /// Records the commit the program was built from (once, before any run).
    public static func record(commit: String) { recorded.withLock { $0 = commit } }

    private static let recorded = Mutex("unknown (not recorded by this program)")

    public static var gslVersion: String { GSL.version }
}
