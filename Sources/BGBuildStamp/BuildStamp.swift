/// The commit bgbench was built from, fixed when it was built: the full hash of the
/// package folder's HEAD, with `-dirty` when a tracked file differed from it, or
/// `unknown (why)` (Plugins/BuildStamp writes `generatedCommit` before this module
/// compiles). A module of its own so that a new commit recompiles this file alone, not
/// the simulator.
public enum BuildStamp {
    public static let commit: String = generatedCommit
}
