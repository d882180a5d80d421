// swift-tools-version:6.0
import PackageDescription

// bgbench: a discrete-event simulator of background app refresh (see ../shared/MODEL.md
// for the model and README.md for the layout). Dependencies: the toolchain and GSL only
// (git, when present, names the commit built: Plugins/BuildStamp).
let package = Package(
    name: "bgbench",
    products: [
        .executable(name: "bgbench", targets: ["bgbench"]),
        // The simulator as a library, so a researcher's package can add its own policy.
        .library(name: "BGBench", targets: ["BGBench"]),
        // The harness as a library, so that package can compare its policy with others.
        .library(name: "BGHarness", targets: ["BGHarness"]),
    ],
    targets: [
        // The one door to C: GSL through pkg-config, with the link flags in the module map
        // so the link works where pkg-config has no .pc file.
        .systemLibrary(
            name: "CGSL",
            pkgConfig: "gsl",
            providers: [.apt(["libgsl-dev"]), .brew(["gsl"])]
        ),
        // The second door to C: renameat2(RENAME_EXCHANGE), which swaps a finished report
        // folder into place (Glibc does not expose it). A header only, nothing to link.
        .systemLibrary(name: "CSyscalls"),
        // The third door to C: a double truncated to an integer without Swift's range check,
        // for the hot paths' conversions whose range the code has already established. A
        // header only, nothing to link.
        .systemLibrary(name: "CConvert"),
        // The only Swift module that imports CGSL: distributions, quantiles, statistics.
        .target(name: "BGNumerics", dependencies: ["CGSL"]),
        // The commit the binary is built from (run.json's `git_commit`, `--version`), written
        // into the module by the build tool plugin at every build where it can have changed.
        // Only the executable (and the tests) import it, and the executable records it in
        // BuildInfo at start-up: the release build compiles each module whole, so a library
        // that imported it would be recompiled whole at every commit.
        .plugin(name: "BuildStamp", capability: .buildTool()),
        .target(name: "BGBuildStamp", plugins: ["BuildStamp"]),
        // The simulator: engine, model, platforms, policies, metrics, report writers.
        // No unsafe flags in either library, so a package can depend on them by version.
        .target(name: "BGBench", dependencies: ["BGNumerics", "CConvert"]),
        // The harness above the simulator: comparing report folders, the frontier, merging
        // shards, the LSApp converter. The simulator never imports it.
        .target(name: "BGHarness", dependencies: ["BGBench", "BGNumerics"]),
        // The command line: argument parsing, commands, error messages and exit codes.
        .target(name: "BGBenchCLI", dependencies: ["BGBench", "BGHarness", "CSyscalls"]),
        .executableTarget(name: "bgbench", dependencies: ["BGBench", "BGBenchCLI", "BGBuildStamp"]),
        // What the test suites share: the in-process command line (`bgbench(_:)`) and
        // temporary folders.
        .target(name: "BGBenchTestSupport", dependencies: ["BGBench", "BGBenchCLI"], path: "Tests/BGBenchTestSupport"),
        .testTarget(name: "BGBenchTests",
                    dependencies: ["BGBench", "BGHarness", "BGBenchCLI", "BGNumerics", "BGBenchTestSupport", "BGBuildStamp"]),
        // Only the public API (no @testable import): a researcher's own policy, registered
        // and run through the runner and the report writers (docs/policies.md).
        .testTarget(name: "PublicAPITests", dependencies: ["BGBench"]),
    ]
)

// The libFuzzer targets (Fuzz/README.md): built only when BGBENCH_FUZZ is set, with
// `-sanitize=fuzzer,address` (its main.swift starts libFuzzer's driver).
if Context.environment["BGBENCH_FUZZ"] != nil {
    package.targets.append(.executableTarget(
        name: "bgbench-fuzz", dependencies: ["BGBench", "BGHarness", "BGBenchCLI"], path: "Fuzz/Sources/bgbench-fuzz"))
    package.products.append(.executable(name: "bgbench-fuzz", targets: ["bgbench-fuzz"]))
}
