import BGBuildStamp
import BGNumerics

/// The version of bgbench and of what it runs on, for `--version` and run.json.
public enum BuildInfo {
    public static let version = "0.1.0"

    /// The commit the binary was built from, fixed at build time (``BuildStamp``): the hash
    /// of the checkout's HEAD, `-dirty` when a tracked file differed from it, or
    /// `unknown (why)` when built outside a git checkout. An installed or copied binary
    /// names it wherever it runs.
    public static let gitCommit = BuildStamp.commit

    public static var gslVersion: String { GSL.version }
}
