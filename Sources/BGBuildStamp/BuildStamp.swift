/// The commit bgbench was built from, fixed when it was built: the full hash of the
/// package folder's HEAD, with `-dirty` when a tracked file differed from it, or
/// `unknown (why)` (Plugins/BuildStamp writes `generatedCommit` before this module
/// compiles). A module of its own, imported only by the executable (which records it in
/// `BuildInfo`) and the tests, so that a new commit recompiles this file and main.swift,
/// not the simulator.
public enum BuildStamp {
    public static let commit: String = generatedCommit
}
