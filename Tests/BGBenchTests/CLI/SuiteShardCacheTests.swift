import Foundation
import Testing
import BGBenchTestSupport
@testable import BGBench
@testable import BGBenchCLI
@testable import BGHarness

/// `bgbench suite` beyond one process and one call (docs/suite.md, "Shards" and "The task
/// cache"): a suite split into shards and merged gives the scorecard of one process (its
/// execution block aside); a task cache read back gives the same scorecard, is keyed by
/// what the numbers depend on, survives a damaged entry, and lets a suite whose external
/// policy died at its second task rerun from there.
@Suite struct SuiteShardCacheTests {
    /// Two tasks of other fleets' shapes: 130 devices (three blocks of 64, the last of 2,
    /// so three shards are uneven), the first on Android over 5 days. On the second,
    /// `usage` is compared at matched energy (the joint sums of its arms with `fixed`), on
    /// the first at the points.
    static let twoTasks = """
        {
          "suite": "bgbench-suite", "version": "test", "description": "two tasks",
          "defaults": {"devices": 130, "days": 6, "warmup_days": 1, "seed": 1, "replications": 2},
          "quick": {"tasks": ["news"], "devices": 64, "days": 4, "warmup_days": 1, "seed": 1, "replications": 2},
          "constraints": [{"metric": "killed_per_day", "max": 0.05}],
          "bootstrap": {"resamples": 200, "seed": 1},
          "tasks": [
            {"id": "android", "scenario": "news", "days": 5, "set": ["platform.name=android-workmanager"], "why": "Android"},
            {"id": "news", "scenario": "news", "why": "the reference"}
          ]
        }
        """

    static func definition(_ text: String = twoTasks) throws -> String {
        let path = freshPath("suite-definition") + ".json"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// scorecard.json without its execution block (the only part that may differ).
    static func withoutExecution(_ folder: String) throws -> NSDictionary {
        let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/scorecard.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return object.filter { $0.key != "execution" } as NSDictionary
    }

    static func execution(_ folder: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/scorecard.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(object["execution"] as? [String: Any])
    }

    static func read(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    /// Three shards merged: scorecard.csv and scorecard.md byte for byte one process's,
    /// scorecard.json equal but for `execution`, which lists the shards.
    @Test func shardsMergeIntoOneProcessScorecard() throws {
        let suite = try Self.definition()
        let whole = freshPath("suite-whole"), parent = freshFolder("suite-shards"), merged = freshPath("suite-merged")
        let one = bgbench([
            "suite", "--suite", suite, "--policy", "usage,adaptive", "--no-cache", "--out", whole, "--quiet",
        ])
        try #require(one.code == 0, "\(one.errors)")
        for k in 0..<3 {
            let shard = bgbench([
                "suite", "--suite", suite, "--policy", "usage,adaptive", "--shard", "\(k)/3", "--out", "\(parent)/\(k)",
                "--quiet",
            ])
            try #require(shard.code == 0, "\(shard.errors)")
            #expect(
                shard.output.hasPrefix("suite test shard \(k)/3 (its blocks of each task's 130 devices): 2 tasks, "))
            // A shard's folder holds its sums, not a scorecard of part of each fleet.
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: "\(parent)/\(k)").sorted() == [
                    "run.json", "shard.state",
                ])
        }
        let m = bgbench(["merge", "--out", merged, parent, "--quiet"])
        try #require(m.code == 0, "\(m.errors)")
        #expect(m.output.contains("merged 3 shards in "))
        for file in ["scorecard.csv", "scorecard.md"] {
            #expect(try Self.read("\(whole)/\(file)") == Self.read("\(merged)/\(file)"), "\(file)")
        }
        #expect(try Self.withoutExecution(whole) == Self.withoutExecution(merged))
        // Each merged task is the frontier it ran: its arms are its runs' (the scored
        // policies' own points among them), and the test reaches a matched-energy reading.
        let folders = (0..<3).map { "\(parent)/\($0)" }
        guard case .suite(_, let tasks) = try ShardMerge.merge(folders, threads: 1).0 else {
            Issue.record("suite shards merged into another kind of report")
            return
        }
        #expect(tasks.map { $0.arms.map(\.label) } == tasks.map(\.run.request.policies))
        #expect(tasks.allSatisfy { $0.arms.contains { $0.label == "usage" } })
        let card = try csvRecords(whole + "/scorecard.csv")
        #expect(
            card.contains {
                $0["task"] == "news" && $0["policy"] == "usage" && $0["quantity"] == "headline_difference"
                    && $0["seed"] == "" && $0["status"] == "matched_energy"
            }, "no matched-energy reading: the joint sums would go unchecked")
        let shards = try #require(try Self.execution(merged)["shards"] as? [[String: Any]])
        #expect(shards.map { $0["shard"] as? String } == ["0/3", "1/3", "2/3"])
        #expect(try Self.execution(whole)["shards"] == nil)
    }

    /// Shards of calls that scored other policies, or of another suite, do not merge: one
    /// line naming both folders and the difference.
    @Test func mergeRefusesShardsOfAnotherCall() throws {
        let suite = try Self.definition(), parent = freshFolder("suite-mixed")
        let a = bgbench([
            "suite", "--suite", suite, "--policy", "kde", "--task", "android", "--shard", "0/2",
            "--out", "\(parent)/0", "--quiet",
        ])
        let b = bgbench([
            "suite", "--suite", suite, "--policy", "usage", "--task", "android", "--shard", "1/2",
            "--out", "\(parent)/1", "--quiet",
        ])
        try #require(a.code == 0 && b.code == 0, "\(a.errors)\(b.errors)")
        let out = freshPath("suite-mixed-merged")
        let m = bgbench(["merge", "--out", out, parent, "--quiet"])
        #expect(m.code == 65)
        #expect(
            m.errors
                == "error: shard folder '\(parent)/1' is of another run than '\(parent)/0': its suite's policies is usage, expected kde\n"
        )
        #expect(!FileManager.default.fileExists(atPath: out))

        // Another definition (one byte more) is another suite.
        let other = try Self.definition(Self.twoTasks + "\n")
        let c = bgbench([
            "suite", "--suite", other, "--policy", "kde", "--task", "android", "--shard", "1/2",
            "--out", "\(parent)/1", "--force", "--quiet",
        ])
        try #require(c.code == 0, "\(c.errors)")
        let n = bgbench(["merge", "--out", out, parent, "--quiet"])
        #expect(n.code == 65)
        #expect(
            n.errors.hasPrefix(
                "error: shard folder '\(parent)/1' is of another run than '\(parent)/0': its suite's SHA-256 is "))
    }

    /// A second call reads every task from the cache, says so, and writes the same
    /// scorecard; the cache is keyed by the policies' parameters; --no-cache writes nothing.
    @Test func theTaskCacheIsReadBackAndKeyed() throws {
        let suite = try Self.definition(), cache = freshPath("suite-cache")
        let first = freshPath("suite-first"), second = freshPath("suite-second")
        let args = ["suite", "--suite", suite, "--policy", "kde", "--cache", cache, "--quiet"]
        let a = bgbench(args + ["--out", first])
        try #require(a.code == 0, "\(a.errors)")
        #expect(!a.output.contains("task cache"))
        let entries = try FileManager.default.contentsOfDirectory(atPath: cache + "/suite-tasks")
        #expect(entries.count == 2 && entries.allSatisfy { $0.count == 64 })
        let b = bgbench(args + ["--out", second])
        try #require(b.code == 0, "\(b.errors)")
        #expect(b.output.contains("2 of 2 tasks read from the task cache (\(cache)/suite-tasks)\n"))
        for file in ["scorecard.csv", "scorecard.md"] {
            #expect(try Self.read("\(first)/\(file)") == Self.read("\(second)/\(file)"), "\(file)")
        }
        #expect(try Self.withoutExecution(first) == Self.withoutExecution(second))
        #expect(try Self.execution(second)["cached_tasks"] as? [String] == ["android", "news"])
        #expect(try Self.execution(first)["cached_tasks"] as? [String] == [])

        // Another parameter of the scored policy is another key: both tasks run.
        let tuned = bgbench(args + ["--set", "policies.kde.bandwidth=45m", "--out", freshPath("suite-tuned")])
        try #require(tuned.code == 0, "\(tuned.errors)")
        #expect(!tuned.output.contains("task cache"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache + "/suite-tasks").count == 4)

        let none = freshPath("suite-no-cache")
        let c = bgbench([
            "suite", "--suite", suite, "--policy", "kde", "--task", "android", "--no-cache", "--cache", none,
            "--out", freshPath("suite-uncached"), "--quiet",
        ])
        try #require(c.code == 0, "\(c.errors)")
        #expect(!FileManager.default.fileExists(atPath: none))
    }

    /// The key hashes the bytes of every file a policy's parameters name: an external
    /// policy's script and a schedule's plan, edited in place, are other policies.
    @Test func theKeyReadsTheFilesPoliciesName() throws {
        let plan = freshPath("plan") + ".csv", script = freshPath("script") + ".py"
        for path in [plan, script] { FileManager.default.createFile(atPath: path, contents: Data("1".utf8)) }
        let json = """
            {"policies": {"schedule": {"plan": "\(plan)", "scale": 1}, "fixed": {"interval": "15m"},
             "external": {"command": ["python3", "\(script)", "--interval", "900"]}}}
            """
        // Keys in name order: external, fixed, schedule; "python3" is no file here.
        #expect(SuiteCache.policyFiles(json) == [script, plan])
    }

    /// A damaged entry is named in a warning and the task runs again: the scorecard is
    /// the one of a fresh run, and the entry is left as it was.
    @Test func aDamagedEntryIsRunAgain() throws {
        let suite = try Self.definition(), cache = freshPath("suite-cache-damaged")
        let args = ["suite", "--suite", suite, "--policy", "kde", "--task", "android", "--cache", cache, "--quiet"]
        let first = freshPath("suite-damaged-first"), second = freshPath("suite-damaged-second")
        try #require(bgbench(args + ["--out", first]).code == 0)
        let key = try #require(try FileManager.default.contentsOfDirectory(atPath: cache + "/suite-tasks").first)
        let state = "\(cache)/suite-tasks/\(key)/shard.state"
        var bytes = try Self.read(state)
        bytes[bytes.count - 10] ^= 1
        try bytes.write(to: URL(fileURLWithPath: state))
        // The warning, as the command writes it on stderr (which runs in-process do not
        // capture): the entry and what is wrong with it.
        var warnings: [String] = []
        #expect(SuiteCache(root: cache).load(key, task: "android") { warnings.append($0) } == nil)
        #expect(
            warnings == [
                "task android: the cache entry '\(cache)/suite-tasks/\(key)' does not read back (shard folder '\(cache)/suite-tasks/\(key)': '\(cache)/suite-tasks/\(key)/shard.state': its SHA-256 is not the one in run.json's manifest: not the file the run wrote); the task runs"
            ])
        let b = bgbench(args + ["--out", second])
        try #require(b.code == 0, "\(b.errors)")
        #expect(!b.output.contains("task cache"))
        #expect(try Self.read("\(first)/scorecard.csv") == Self.read("\(second)/scorecard.csv"))
        #expect(try Self.read(state) == bytes)
    }

    /// `fixed` in Python, which dies at a device's start on iOS while `marker` exists.
    static func partner(marker: String) throws -> String {
        let path = freshPath("dying-partner") + ".py"
        let examples = TestSupport.packageRoot.appendingPathComponent("python/examples").path
        let text = """
            import os, sys
            sys.path.insert(0, \(String(reflecting: examples)))
            import fixed_policy

            class Dying(fixed_policy.Fixed):
                def start(self, view):
                    if "android" not in str(view.platform) and os.path.exists(\(String(reflecting: marker))):
                        os._exit(3)
                    return super().start(view)

            Dying(900_000_000).serve()
            """
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// An external policy that dies in the second task fails the suite naming the task,
    /// writes nothing, and keeps the first task; the rerun reads it back and runs only
    /// the second, and its scorecard is that of a call without the cache.
    @Test func aSuiteThatFailedRerunsFromItsFailedTask() throws {
        let suite = try Self.definition(), cache = freshPath("suite-cache-rerun"), marker = freshPath("die-on-ios")
        FileManager.default.createFile(atPath: marker, contents: Data())
        let partner = try Self.partner(marker: marker)
        let command = "policies.external.command=[\"python3\",\"\(partner)\"]"
        let args = [
            "suite", "--suite", suite, "--policy", "external", "--allow-external", "--set", command, "--threads", "1",
            "--quiet",
        ]
        let out = freshPath("suite-rerun")
        let failed = bgbench(args + ["--cache", cache, "--out", out])
        #expect(failed.code == 76)
        let line = try #require(failed.errors.split(separator: "\n").last { $0.hasPrefix("error: ") })
        #expect(line.hasPrefix("error: suite test, task news: external policy: "), "\(line)")
        #expect(line.hasSuffix(" (the task before it is kept in the task cache: a rerun reuses them)"), "\(line)")
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache + "/suite-tasks").count == 1)

        try FileManager.default.removeItem(atPath: marker)
        let rerun = bgbench(args + ["--cache", cache, "--out", out])
        try #require(rerun.code == 0, "\(rerun.errors)")
        #expect(rerun.output.contains("1 of 2 tasks read from the task cache"))
        #expect(try Self.execution(out)["cached_tasks"] as? [String] == ["android"])
        let fresh = freshPath("suite-rerun-fresh")
        let uncached = bgbench(args + ["--no-cache", "--out", fresh])
        try #require(uncached.code == 0, "\(uncached.errors)")
        #expect(try Self.read("\(out)/scorecard.csv") == Self.read("\(fresh)/scorecard.csv"))
        #expect(try Self.withoutExecution(out) == Self.withoutExecution(fresh))
    }
}
