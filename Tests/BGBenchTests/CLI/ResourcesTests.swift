import Foundation
import Testing
@testable import BGBench
@testable import BGBenchCLI
import BGBuildStamp

/// Issue 12 point 6, "found from anywhere": the presets and plot.py are built into the
/// binary (EmbeddedFiles.swift, Scripts/make-embedded.py), and an installed bgbench lists
/// them, runs one by name and plots from a folder outside the checkout.
@Suite struct ResourcesTests {
    static let root = TestSupport.packageRoot

    /// The embedded copy is that of the files: every preset of Datasets/scenarios and
    /// Reports/plot.py, byte for byte. When this fails, run `python3 Scripts/make-embedded.py`.
    @Test func embeddedCopyIsCurrent() throws {
        let folder = Self.root.appendingPathComponent("Datasets/scenarios")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
        let stale = "EmbeddedFiles.swift is stale: run python3 Scripts/make-embedded.py"
        #expect(EmbeddedFiles.presets.map(\.name) == names, "\(stale)")
        for name in names {
            let text = try String(contentsOf: folder.appendingPathComponent(name + ".json"), encoding: .utf8)
            #expect(EmbeddedFiles.preset(named: name) == text, "\(name).json: \(stale)")
        }
        let plot = try String(contentsOf: Self.root.appendingPathComponent("Reports/plot.py"), encoding: .utf8)
        #expect(EmbeddedFiles.plotScript == plot, "Reports/plot.py: \(stale)")
    }

    /// The bgbench executable built beside this test binary (`swift test` builds both into
    /// .build/<configuration>/).
    static func builtBinary() throws -> String {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent(),
            Bundle.main.bundleURL.deletingLastPathComponent(), Bundle.main.bundleURL,
        ]
        .map { $0.appendingPathComponent("bgbench").path }
        return try #require(
            candidates.first { FileManager.default.isExecutableFile(atPath: $0) },
            "no bgbench executable beside the test binary: looked at \(candidates)")
    }

    /// Runs a program with `PATH` starting at `path`, in `folder`; its exit code, stdout, stderr.
    static func run(_ arguments: [String], in folder: String, path: String) throws -> (
        code: Int32, output: String, errors: String
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read both pipes while the process runs, so neither fills up.
        nonisolated(unsafe) var errorData = Data()
        let reader = Thread { errorData = err.fileHandleForReading.readDataToEndOfFile() }
        reader.start()
        let outputData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !reader.isFinished { usleep(1000) }
        return (
            process.terminationStatus, String(decoding: outputData, as: UTF8.self),
            String(decoding: errorData, as: UTF8.self)
        )
    }

    static func temporaryFolder(_ stem: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bgbench-\(stem)-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// README's install step into a temporary prefix, then bgbench on the PATH from an
    /// empty folder outside the checkout: `list` shows every preset, `--scenario
    /// fitness-sync` runs the preset by name (the same results as the file, recorded as
    /// `preset:fitness-sync`, with the commit the binary was built from), `plot` draws the
    /// folder, an unknown name lists the presets, and a file at the path given wins over a
    /// preset of that name.
    @Test func installedBinaryWorksOutsideTheCheckout() throws {
        let prefix = try Self.temporaryFolder("prefix"), work = try Self.temporaryFolder("work")
        defer { for f in [prefix, work] { try? FileManager.default.removeItem(atPath: f) } }
        let binary = try Self.builtBinary()
        let install = try Self.run(
            [Self.root.appendingPathComponent("install.sh").path, "--prefix", prefix, "--binary", binary],
            in: work, path: "/nonexistent")
        #expect(install.code == 0, "\(install.errors)")
        #expect(install.output.hasPrefix("installed \(prefix)/bin/bgbench\n"))
        #expect(FileManager.default.isExecutableFile(atPath: prefix + "/bin/bgbench"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: work).isEmpty)
        let bin = prefix + "/bin"

        // list: every preset by name with its description (loaded here from the files).
        let list = try Self.run(["bgbench", "list"], in: work, path: bin)
        #expect(list.code == 0 && list.errors == "")
        let folder = Self.root.appendingPathComponent("Datasets/scenarios")
        let expected = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
            .sorted()
            .map { file -> String in
                let description = try ScenarioLoader.load(file: folder.appendingPathComponent(file).path).scenario
                    .description
                return "  " + String(file.dropLast(5)).padding(toLength: 14, withPad: " ", startingAt: 0) + description
                    + "\n"
            }.joined()
        let scenarios = try #require(list.output.range(of: "scenarios:\n"), "no scenarios section: \(list.output)")
        #expect(String(list.output[scenarios.upperBound...]) == expected)
        #expect(expected.contains("  fitness-sync  "))

        // A preset by name: the same summary.csv as the file of the checkout gives.
        let run = try Self.run(
            ["bgbench", "--scenario", "fitness-sync", "--days", "2", "--devices", "10", "--out", "x", "--quiet"],
            in: work, path: bin)
        #expect(run.code == 0, "\(run.errors)")
        #expect(run.errors == "")
        #expect(
            run.output.hasSuffix(
                "reports: x/ (summary.csv, daily.csv, hourly.csv, server.csv, scenario.json, long.csv, run.json)\n"))
        let manifest = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: work + "/x/run.json")))
                as? [String: Any])
        #expect(manifest["scenario_file"] as? String == "preset:fitness-sync")
        // The commit it was built from is in the binary (BuildStampTests: git's name for it).
        #expect(manifest["git_commit"] as? String == BuildStamp.commit)
        let version = try Self.run(["bgbench", "--version"], in: work, path: bin)
        #expect(
            version.output.hasPrefix("bgbench \(BuildInfo.version) (commit \(BuildStamp.commit), GSL "),
            "\(version.output)")
        let reference = try Self.temporaryFolder("reference")
        defer { try? FileManager.default.removeItem(atPath: reference) }
        var output = "", errors = ""
        #expect(
            CommandLineTool.run(
                arguments: [
                    "--scenario", folder.appendingPathComponent("fitness-sync.json").path, "--days", "2",
                    "--devices", "10", "--out", reference, "--quiet",
                ], output: &output, errors: &errors) == 0)
        let referenceManifest = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reference + "/run.json")))
                as? [String: Any])
        #expect(manifest["scenario_sha256"] as? String == referenceManifest["scenario_sha256"] as? String)
        #expect(
            try String(contentsOfFile: work + "/x/summary.csv", encoding: .utf8)
                == String(contentsOfFile: reference + "/summary.csv", encoding: .utf8))

        // plot: the embedded plot.py, with python3.
        let python = try Self.run(["python3", "-c", "import pandas, matplotlib"], in: work, path: bin)
        if python.code == 0 {
            let plot = try Self.run(["bgbench", "plot", "x"], in: work, path: bin)
            #expect(plot.code == 0, "\(plot.errors)")
            let names = ["headline", "frontier", "daily", "hourly", "staleness", "energy"]
            #expect(plot.output == names.map { "x/\($0).png\n" }.joined())
            for name in names {
                let data = try Data(contentsOf: URL(fileURLWithPath: "\(work)/x/\(name).png"))
                #expect(data.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]), "\(name).png is a PNG")
            }
        } else {
            print(
                "ResourcesTests: SKIPPED the plot part: python3 with pandas and matplotlib is missing (\(python.errors))"
            )
        }

        // An unknown name: exit 66 and the presets listed.
        let unknown = try Self.run(["bgbench", "--scenario", "fitnes-sync", "--out", "y"], in: work, path: bin)
        #expect(unknown.code == 66)
        #expect(
            unknown.errors
                == "error: no scenario file or preset 'fitnes-sync' for '--scenario': expected a scenario JSON file or one of "
                + "the presets default, ecommerce, finance, fitness-sync, messaging, news, r1 (did you mean 'fitness-sync'?)\n"
        )

        // A file at the path given wins over the preset of that name.
        try Data(#"{"name": "mine"}"#.utf8).write(to: URL(fileURLWithPath: work + "/fitness-sync"))
        let file = try Self.run(
            ["bgbench", "--scenario", "fitness-sync", "--days", "1", "--devices", "2", "--out", "z", "--quiet"],
            in: work, path: bin)
        #expect(file.code == 0, "\(file.errors)")
        let fileManifest = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: work + "/z/run.json")))
                as? [String: Any])
        #expect(fileManifest["scenario_file"] as? String == "fitness-sync")
        #expect(try String(contentsOfFile: work + "/z/summary.csv", encoding: .utf8).contains("\nmine,adaptive,all,"))
    }

    /// install.sh's paths are the caller's (issue 25 item 4): run from a folder outside the
    /// checkout with `--binary bgbench --prefix inst/`, both relative to that folder, it
    /// installs into that folder's inst/bin (nothing in the checkout) and the copy runs;
    /// an empty `--prefix` or `--binary` is one line and exit 64 (an empty prefix once
    /// installed into /bin), and a binary that is not there is named by its full path.
    @Test func installResolvesRelativePathsAgainstTheCallersFolder() throws {
        let work = try Self.temporaryFolder("install-relative")
        defer { try? FileManager.default.removeItem(atPath: work) }
        try FileManager.default.createSymbolicLink(atPath: work + "/bgbench", withDestinationPath: Self.builtBinary())
        let script = Self.root.appendingPathComponent("install.sh").path
        let install = try Self.run(
            [script, "--prefix", "inst/", "--binary", "bgbench"], in: work, path: "/nonexistent")
        #expect(install.code == 0, "\(install.errors)")
        #expect(install.errors == "")
        #expect(install.output.hasPrefix("installed \(work)/inst/bin/bgbench\n"), "\(install.output)")
        #expect(!FileManager.default.fileExists(atPath: Self.root.appendingPathComponent("inst").path))
        let version = try Self.run(["inst/bin/bgbench", "--version"], in: work, path: "/nonexistent")
        #expect(version.code == 0 && version.output.hasPrefix("bgbench \(BuildInfo.version) "), "\(version)")

        let empty = try Self.run([script, "--prefix", "", "--binary", "bgbench"], in: work, path: "/nonexistent")
        #expect(empty.code == 64)
        #expect(empty.output == "")
        #expect(
            empty.errors
                == "error: invalid value '' for '--prefix': expected a folder (an empty prefix would install into /bin)\n"
        )
        let noBinary = try Self.run([script, "--prefix", "inst", "--binary", ""], in: work, path: "/nonexistent")
        #expect(noBinary.code == 64)
        #expect(noBinary.errors == "error: invalid value '' for '--binary': expected a built bgbench executable\n")
        let missing = try Self.run([script, "--prefix", "inst", "--binary", "nothere"], in: work, path: "/nonexistent")
        #expect(missing.code == 66)
        #expect(missing.errors == "error: '\(work)/nothere' is not an executable file\n")
    }
}
