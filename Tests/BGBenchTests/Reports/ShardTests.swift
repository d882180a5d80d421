import Foundation
import Testing
@testable import BGBench
@testable import BGBenchCLI
import BGBenchTestSupport

/// Issue 14: a run split with `--shard K/N` and put back with `bgbench merge` is the run a
/// single process makes, byte for byte, for any split; what cannot be merged is refused
/// with the folder named.
@Suite struct ShardTests {

    static func temporary() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bgbench-shards-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Runs `arguments` whole and as `shards` shards, merges them, and expects every file
    /// of the single run in the merge, byte for byte (run.json without `execution`).
    static func expectMergeEqualsSingle(_ arguments: [String], shards: Int, command: String = "run") throws {
        let dir = try temporary()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // The runs are made in this process, where a test of another suite may register a
        // policy at any moment (PublicAPITests): its parameters join every later run's
        // resolved scenario, so runs on either side of it differ in run.json and are not
        // shards of one run. Such a registration happens once per policy: made again then.
        var single: CommandResult, parts: [CommandResult], merged: CommandResult
        var attempts = 0
        repeat {
            attempts += 1
            let generation = RegistryGeneration.current
            try? FileManager.default.removeItem(atPath: dir + "/single")
            try? FileManager.default.removeItem(atPath: dir + "/shards")
            try? FileManager.default.removeItem(atPath: dir + "/merged")
            single = bgbench([command] + arguments + ["--quiet", "--out", dir + "/single"])
            parts = (0..<shards).map { k in
                bgbench(
                    [command] + arguments + ["--quiet", "--shard", "\(k)/\(shards)", "--out", dir + "/shards/\(k)"])
            }
            merged = bgbench(["merge", "--out", dir + "/merged", dir + "/shards"])
            if RegistryGeneration.current == generation { break }
        } while attempts < 5
        try #require(single.code == 0, "\(single.errors)")
        for (k, r) in parts.enumerated() {
            try #require(r.code == 0, "\(r.errors)")
            #expect(r.output.hasPrefix("shard \(k)/\(shards) ("))
        }
        try #require(merged.code == 0, "\(merged.errors)")
        #expect(merged.output.contains("merged \(shards) shards"))
        let fm = FileManager.default
        let names = try fm.contentsOfDirectory(atPath: dir + "/single").sorted()
        #expect(try fm.contentsOfDirectory(atPath: dir + "/merged").sorted() == names)
        for name in names where name != "run.json" {
            #expect(
                fm.contents(atPath: dir + "/single/" + name) == fm.contents(atPath: dir + "/merged/" + name),
                "\(name), \(shards) shards")
        }
        func withoutExecution(_ path: String) throws -> NSDictionary {
            let object =
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
            return object.filter { $0.key != "execution" && $0.key != "manifest" } as NSDictionary
        }
        #expect(try withoutExecution(dir + "/single/run.json") == withoutExecution(dir + "/merged/run.json"))
        // The merged run.json lists the shards, in order.
        let run =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/merged/run.json")))
            as! [String: Any]
        let listed = ((run["execution"] as! [String: Any])["shards"] as! [[String: Any]]).map { $0["shard"] as! String }
        #expect(listed == (0..<shards).map { "\($0)/\(shards)" })
        // `check --exact` agrees.
        #expect(bgbench(["check", "--exact", "--baseline", dir + "/single", "--current", dir + "/merged"]).code == 0)
    }

    /// 300 devices are 5 blocks: 1, 2, 3 and 7 shards (two of them empty).
    @Test(arguments: [1, 2, 3, 7])
    func mergeEqualsTheSingleRun(shards: Int) throws {
        try Self.expectMergeEqualsSingle(
            ["--policy", "fixed,adaptive", "--days", "4", "--devices", "300"], shards: shards)
    }

    @Test func everyFileOfARichRunMerges() throws {
        try Self.expectMergeEqualsSingle(
            [
                "--policy", "fixed,usage,none", "--days", "4", "--devices", "200", "--per-device",
                "--trace-devices", "3", "--replications", "2", "--warmup-days", "1",
                "--baseline-policy", "usage",
            ], shards: 3)
    }

    /// Issue 25: a shard streams devices.csv and events.csv into its folder as a whole run
    /// does (RowSpool), and shard.state records where each result's rows are; the merge
    /// puts them together result by result in shard order. A traced, per-device pair of
    /// shards of two policies × two seeds merges byte for byte into the whole run, and
    /// neither shard's state carries a row.
    @Test func aTracedPerDeviceShardPairStreamsItsRows() throws {
        let arguments = [
            "--policy", "fixed,adaptive", "--days", "3", "--devices", "150", "--per-device", "--trace-devices", "100",
            "--replications", "2",
        ]
        try Self.expectMergeEqualsSingle(arguments, shards: 2)
        let dir = try Self.temporary()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = bgbench(["run"] + arguments + ["--quiet", "--shard", "1/2", "--out", dir])
        try #require(r.code == 0, "\(r.errors)")
        let state = try String(contentsOfFile: dir + "/shard.state", encoding: .utf8)
        let header = try ShardHeader.parse(state.split(separator: "\n")[0])
        let rows = try #require(header.rows)
        #expect(rows.map(\.name) == ["devices.csv", "events.csv"])
        for file in rows {
            let bytes = try #require(FileManager.default.contents(atPath: dir + "/" + file.name))
            #expect(file.bytes == bytes.count && file.sha256 == SHA256.hex([UInt8](bytes)))
            #expect(file.results.count == 4 && file.header + file.results.reduce(0, +) == file.bytes)
            #expect(file.results.allSatisfy { $0 > 0 })
        }
        // Devices 64–149 (blocks 1 and 2 of 3) in each of the 4 results: 86 lines each.
        let devices = try #require(FileManager.default.contents(atPath: dir + "/devices.csv"))
        #expect(devices.count { $0 == 0x0A } == 1 + 4 * 86)
        // The payload holds the sums (and each counted day's server counts), not the rows.
        let payload = try #require(Data(base64Encoded: String(state.split(separator: "\n")[1])))
        let decoded = try ShardState.decode(
            [UInt8](payload), requests: [try header.request(0)], joint: []
        ).runs[0]
        #expect(decoded.count == 4 && decoded.allSatisfy { $0.result.devices.isEmpty && $0.result.trace.isEmpty })
        #expect(state.utf8.count < rows[1].bytes / 4, "\(state.utf8.count) bytes of shard.state")
    }

    /// The same for a sweep's shards, each row led by its point's values.
    @Test func aTracedSweepShardPairStreamsItsRows() throws {
        try Self.expectMergeEqualsSingle(
            [
                "--policy", "fixed,adaptive", "--days", "2", "--devices", "150", "--per-device", "--trace-devices",
                "70",
                "--set", "policies.fixed.interval=1h,30m",
            ],
            shards: 2, command: "sweep")
    }

    @Test func moreShardsThanDevices() throws {
        try Self.expectMergeEqualsSingle(
            ["--policy", "fixed", "--days", "3", "--devices", "20", "--per-device"], shards: 25)
    }

    @Test func anOpensTraceMerges() throws {
        let trace = TestSupport.packageRoot.appendingPathComponent("Datasets/traces/sample.csv").path
        try Self.expectMergeEqualsSingle(
            ["--policy", "fixed,adaptive", "--opens-trace", trace, "--days", "20", "--per-device"], shards: 2)
    }

    /// A sweep's shards each run their share of every point's fleet.
    @Test func aSweepMerges() throws {
        try Self.expectMergeEqualsSingle(
            [
                "--policy", "fixed,adaptive", "--days", "3", "--devices", "150", "--per-device",
                "--set", "population.bar_off_share=0,0.5", "--replications", "2",
            ],
            shards: 3, command: "sweep")
    }

    /// A frontier's shards: every arm, the paired sums and the joint sums of the intervals.
    @Test func aFrontierMerges() throws {
        try Self.expectMergeEqualsSingle(
            ["--policy", "fixed,usage", "--days", "3", "--devices", "150"], shards: 2,
            command: "frontier")
    }

    /// Shards of another run, a missing, repeated or incomplete shard: exit 65, the folder named.
    @Test func refusesWhatIsNotOneRun() throws {
        let dir = try Self.temporary()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = ["run", "--days", "2", "--devices", "130", "--quiet"], base = run + ["--policy", "fixed"]
        for k in 0..<3 { #expect(bgbench(base + ["--shard", "\(k)/3", "--out", "\(dir)/a/\(k)"]).code == 0) }
        #expect(bgbench(base + ["--seed", "2", "--shard", "1/3", "--out", "\(dir)/seed2"]).code == 0)
        #expect(bgbench(base + ["--shard", "1/2", "--out", "\(dir)/half"]).code == 0)
        #expect(bgbench(run + ["--policy", "adaptive", "--shard", "2/3", "--out", "\(dir)/adaptive"]).code == 0)
        func merge(_ folders: [String]) -> (Int32, String) {
            let r = bgbench(["merge", "--out", "\(dir)/out"] + folders.map { "\(dir)/\($0)" })
            return (r.code, r.errors)
        }
        #expect(
            merge(["a/0", "seed2", "a/2"]) == (
                65,
                "error: shard folder '\(dir)/seed2' is of another run than '\(dir)/a/0': its seed is 2, expected 1\n"
            ))
        #expect(
            merge(["a/0", "a/1", "adaptive"]) == (
                65,
                "error: shard folder '\(dir)/adaptive' is of another run than '\(dir)/a/0': its policies is adaptive, expected fixed\n"
            ))
        #expect(
            merge(["a/0", "half"]) == (
                65,
                "error: shard folder '\(dir)/half' is shard 1/2 but '\(dir)/a/0' is 0/3: expected shards of one split\n"
            ))
        #expect(
            merge(["a/0", "a/2"]) == (
                65, "error: 1 of 3 shards missing: 1/3 (rerun them with '--shard K/3', then merge again)\n"
            ))
        // The first and the last missing are named too (issue 29: a range that stopped one
        // short let a missing last shard through).
        #expect(
            merge(["a/0", "a/1"]) == (
                65, "error: 1 of 3 shards missing: 2/3 (rerun them with '--shard K/3', then merge again)\n"
            ))
        #expect(
            merge(["a/1", "a/2"]) == (
                65, "error: 1 of 3 shards missing: 0/3 (rerun them with '--shard K/3', then merge again)\n"
            ))
        // A file merge checks by size only (not shard.state): one byte appended, the manifest
        // not resealed, is refused with both sizes (issue 29: the size check was untested).
        let hourly = "\(dir)/a/0/hourly.csv"
        let original = try Data(contentsOf: URL(fileURLWithPath: hourly))
        try (original + Data("x".utf8)).write(to: URL(fileURLWithPath: hourly))
        #expect(
            merge(["a/0", "a/1", "a/2"]) == (
                65,
                "error: shard folder '\(dir)/a/0': '\(hourly)' has \(original.count + 1) bytes where run.json's manifest says \(original.count): not the file the run wrote\n"
            ))
        try original.write(to: URL(fileURLWithPath: hourly))
        #expect(
            merge(["a/0", "a/1", "a/1", "a/2"]) == (65, "error: shard 1/3 given twice: '\(dir)/a/1' and '\(dir)/a/1'\n")
        )
        try FileManager.default.removeItem(atPath: "\(dir)/a/1/daily.csv")
        #expect(
            merge(["a/0", "a/1", "a/2"]) == (
                65,
                "error: shard folder '\(dir)/a/1': '\(dir)/a/1/daily.csv' is missing, but run.json's manifest lists it: not a complete report folder\n"
            ))
        // A shard.state changed in place (same size): its SHA-256 no longer matches.
        var state = try Data(contentsOf: URL(fileURLWithPath: "\(dir)/a/2/shard.state"))
        state[state.count - 2] = state[state.count - 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        try state.write(to: URL(fileURLWithPath: "\(dir)/a/2/shard.state"))
        #expect(
            merge(["a/0", "a/2"]) == (
                65,
                "error: shard folder '\(dir)/a/2': '\(dir)/a/2/shard.state': its SHA-256 is not the one in run.json's manifest: not the file the run wrote\n"
            ))
        let whole = bgbench(base + ["--out", "\(dir)/whole"])
        #expect(whole.code == 0)
        #expect(
            merge(["whole"]) == (
                65, "error: '\(dir)/whole' has no shard.state: not a shard folder (made with '--shard K/N')\n"
            ))
        #expect(FileManager.default.fileExists(atPath: "\(dir)/out") == false, "nothing written")
    }

    @Test func shardOptionErrors() {
        #expect(
            bgbench(["run", "--shard", "4/4"]).errors.hasPrefix(
                "error: invalid value '4/4' for '--shard': expected K/N with 0 <= K < N (e.g. 0/4), auto or auto/N\n"))
        #expect(bgbench(["run", "--shard", "auto/0"]).code == 64)
        #expect(
            bgbench(["merge", "--out", "/tmp/x"]).errors.hasPrefix(
                "error: 'merge' needs the shard folders (or one folder holding them)\n"))
    }

    /// `--shard auto`: a Slurm array task's position among the array's tasks, whatever the
    /// range; a Kubernetes Indexed Job's index; disagreements and absences refused.
    @Test func shardFromTheJobEngine() throws {
        func slurm(_ id: Int, _ min: Int, _ max: Int, _ step: Int?, _ count: Int) -> [String: String] {
            var env = [
                "SLURM_ARRAY_TASK_ID": "\(id)", "SLURM_ARRAY_TASK_MIN": "\(min)", "SLURM_ARRAY_TASK_MAX": "\(max)",
                "SLURM_ARRAY_TASK_COUNT": "\(count)",
            ]
            if let step { env["SLURM_ARRAY_TASK_STEP"] = "\(step)" }
            return env
        }
        #expect(try Shard.fromEnvironment(slurm(3, 1, 4, nil, 4), count: nil) == Shard(index: 2, count: 4))
        #expect(try Shard.fromEnvironment(slurm(8, 0, 15, 4, 4), count: nil) == Shard(index: 2, count: 4))
        #expect(try Shard.fromEnvironment(slurm(0, 0, 0, 1, 1), count: 1) == Shard(index: 0, count: 1))
        #expect(throws: ShardError.disagree("--shard auto/5 but the Slurm array has 4 tasks")) {
            try Shard.fromEnvironment(slurm(3, 1, 4, nil, 4), count: 5)
        }
        #expect(
            throws: ShardError.disagree(
                "SLURM_ARRAY_TASK_COUNT=3 but the array 1-8:1 has 8 tasks: expected an evenly stepped range (a list of task ids cannot be numbered)"
            )
        ) {
            try Shard.fromEnvironment(slurm(3, 1, 8, 1, 3), count: nil)
        }
        #expect(try Shard.fromEnvironment(["JOB_COMPLETION_INDEX": "2"], count: 3) == Shard(index: 2, count: 3))
        #expect(
            try Shard.fromEnvironment(["JOB_COMPLETION_INDEX": "2", "BGBENCH_SHARD_COUNT": "3"], count: nil)
                == Shard(index: 2, count: 3))
        #expect(throws: ShardError.disagree("--shard auto/4 but BGBENCH_SHARD_COUNT=3")) {
            try Shard.fromEnvironment(["JOB_COMPLETION_INDEX": "2", "BGBENCH_SHARD_COUNT": "3"], count: 4)
        }
        #expect(throws: ShardError.disagree("JOB_COMPLETION_INDEX=3 is not below the shard count 3")) {
            try Shard.fromEnvironment(["JOB_COMPLETION_INDEX": "3"], count: 3)
        }
        #expect(throws: ShardError.self) { try Shard.fromEnvironment(["JOB_COMPLETION_INDEX": "1"], count: nil) }
        #expect(throws: ShardError.badVariable("SLURM_ARRAY_TASK_ID", "x")) {
            try Shard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "x"], count: nil)
        }
        let none = bgbench(["run", "--shard", "auto", "--days", "1", "--devices", "1"])
        #expect(none.code == 64)
        #expect(
            none.errors.hasPrefix(
                "error: '--shard auto': no job engine found: expected SLURM_ARRAY_TASK_ID (a Slurm array job) or JOB_COMPLETION_INDEX (a Kubernetes Indexed Job)\n"
            )
                || ProcessInfo.processInfo.environment["SLURM_ARRAY_TASK_ID"] != nil)
    }

    /// Both job engines' variables set (issue 25 item 8): `--shard auto` refuses in one
    /// line naming both, exit 64, whether they agree or not, rather than pick Slurm's.
    @Test func bothJobEnginesAreRefused() {
        let slurm = [
            "SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "3",
            "SLURM_ARRAY_TASK_COUNT": "4",
        ]
        for index in ["1", "2"] {
            let env = slurm.merging(["JOB_COMPLETION_INDEX": index, "BGBENCH_SHARD_COUNT": "4"]) { $1 }
            var output = "", errors = ""
            let code = CommandLineTool.run(
                arguments: ["run", "--shard", "auto", "--days", "1", "--devices", "1", "--out", freshPath("both")],
                output: &output, errors: &errors, environment: env)
            #expect(code == 64)
            #expect(
                errors
                    == "error: '--shard auto': both SLURM_ARRAY_TASK_ID=1 and JOB_COMPLETION_INDEX=\(index) are set: expected the variables of one job engine; unset the other's, or give '--shard K/N'\nsee 'bgbench --help'\n"
            )
            #expect(output == "")
        }
    }

    /// Every block lands in exactly one shard, for any split.
    @Test func shardsPartitionTheBlocks() {
        for devices in [1, 64, 65, 300, 1000] {
            for n in [1, 2, 3, 7, 40] {
                let ranges = (0..<n).map { Shard(index: $0, count: n)!.devices(of: devices) }
                #expect(ranges.first!.lowerBound == 0 && ranges.last!.upperBound == devices)
                for (a, b) in zip(ranges, ranges.dropFirst()) { #expect(a.upperBound == b.lowerBound) }
            }
        }
    }
}
