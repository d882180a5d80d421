import BGBench
import BGHarness
import Foundation

/// The task cache of `bgbench suite` (docs/suite.md, "The task cache"): each task's
/// frontier, once run, is kept as a one-shard shard folder (shard.state and run.json) in
/// `ROOT/suite-tasks/KEY`, and a later call whose task has the same key reads it back
/// through `bgbench merge`'s checks instead of running it. So a suite that failed at its
/// fifth task reruns from the fifth, and a second call with the same policies is read
/// back in seconds. The key is the SHA-256 of everything the frontier's numbers depend
/// on; an entry is written once, atomically, and never replaced or deleted.
struct SuiteCache {
    /// The folder holding the entries.
    let folder: String

    static let subfolder = "suite-tasks"

    /// `--cache DIR`, else `$BGBENCH_CACHE`, else `$XDG_CACHE_HOME/bgbench`, else
    /// `$HOME/.cache/bgbench`; nil when none is set (no cache).
    static func root(option: String?, environment: [String: String]) -> String? {
        if let option { return option }
        if let dir = environment["BGBENCH_CACHE"], !dir.isEmpty { return dir }
        if let xdg = environment["XDG_CACHE_HOME"], !xdg.isEmpty { return xdg + "/bgbench" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.cache/bgbench" }
        return nil
    }

    init(root: String) { folder = (root as NSString).appendingPathComponent(Self.subfolder) }

    /// The key of a task's frontier: bgbench's build and shard format, the suite's hash,
    /// the task, the complete resolved scenario (every policy's parameters, an external
    /// policy's command), the frontier's arms, fleet, days, seeds and shard, the opens
    /// trace, and the bytes of every file a policy's parameters name (an external
    /// policy's script, a schedule's plan: one edited in place is another policy).
    static func key(_ request: FrontierRequest, task: SuiteTask, suite: SuiteDefinition) -> String {
        let o = request.options
        var parts = [
            "bgbench suite task cache 1", BuildInfo.version, BuildInfo.gitCommit, "\(ShardHeader.formatVersion)",
            suite.sha256, task.id, request.scenario.resolvedJSON, request.policies.joined(separator: ","),
            request.points.joined(separator: ","), request.baselinePolicy ?? "",
            "\(request.knobValues.sorted { $0.key < $1.key })",
            "devices \(o.devices) days \(o.days) warmup \(o.warmupDays) seed \(o.seed) replications \(request.replications)",
            "shard \(o.part)", o.opensTrace.map { OpensTraceIdentity($0).sha256 } ?? "no trace",
        ]
        for path in policyFiles(request.scenario.resolvedJSON) {
            let bytes = (try? InputFile.read(path, limit: InputFile.Limit.scenario)) ?? []
            parts.append("\(path) \(SHA256.hex(bytes))")
        }
        return SHA256.hex(Array(parts.joined(separator: "\n").utf8))
    }

    /// The regular files the policies' parameters name: an external policy's program (a
    /// word of its `command`), `schedule`'s plan; any string, or string in a list, of the
    /// `policies` section that is the path of a regular file.
    static func policyFiles(_ resolvedJSON: String) -> [String] {
        guard let root = try? JSONParser.parse(resolvedJSON).root.object,
            let policies = root["policies"]?.object
        else { return [] }
        var files: [String] = []
        func visit(_ value: JSONValue) {
            switch value {
            case .string(let word):
                var isFolder: ObjCBool = false
                if FileManager.default.fileExists(atPath: word, isDirectory: &isFolder), !isFolder.boolValue {
                    files.append(word)
                }
            case .array(let items): items.forEach(visit)
            case .object(let members): for key in members.keys.sorted() { visit(members[key]!) }
            default: break
            }
        }
        for name in policies.keys.sorted() { visit(policies[name]!) }
        return files
    }

    /// The entry's folder.
    func path(_ key: String) -> String { (folder as NSString).appendingPathComponent(key) }

    /// The task's frontier as `key`'s entry holds it, read back and checked as `bgbench
    /// merge` checks a shard; nil when there is none. An entry that does not read back
    /// is reported in `warning` and ignored (the task runs, and the entry stays as it was).
    func load(_ key: String, task: String, warning: (String) -> Void) -> FrontierReport? {
        let entry = path(key)
        guard FileManager.default.fileExists(atPath: entry) else { return nil }
        do {
            guard case .frontier(let report) = try ShardMerge.merge([entry], threads: 1).0 else {
                warning("task \(task): the cache entry '\(entry)' is not a frontier's; the task runs")
                return nil
            }
            return report
        } catch {
            warning("task \(task): the cache entry '\(entry)' does not read back (\(error)); the task runs")
            return nil
        }
    }

    /// Keeps a task's frontier under `key`: written into a folder of its own beside the
    /// entries, then renamed into place, so an entry is whole or absent. A failure to
    /// write is reported in `warning`, never an error: the cache only saves time.
    func store(_ report: FrontierReport, key: String, task: String, warning: (String) -> Void) {
        let entry = path(key)
        let fm = FileManager.default
        guard !fm.fileExists(atPath: entry) else { return }
        let staging = (folder as NSString).appendingPathComponent(
            ".\(key).\(ProcessInfo.processInfo.processIdentifier)")
        do {
            try fm.createDirectory(atPath: staging, withIntermediateDirectories: true)
            let files = [(ReportFile.shardState.name, FrontierFiles.shardState(report))]
            for (name, text) in files + [(ReportFile.run.name, Self.runJSON(files, key: key, task: task))] {
                try Data(text.utf8).write(
                    to: URL(fileURLWithPath: (staging as NSString).appendingPathComponent(name)), options: .atomic)
            }
            try fm.moveItem(atPath: staging, toPath: entry)
        } catch {
            try? fm.removeItem(atPath: staging)
            // Another call may have kept the same entry meanwhile: then all is well.
            if !fm.fileExists(atPath: entry) {
                warning("task \(task): cannot keep it in the cache '\(folder)' (\(error.localizedDescription))")
            }
        }
    }

    /// The entry's run.json: its manifest (what `bgbench merge` checks) and what it is.
    static func runJSON(_ files: [(String, String)], key: String, task: String) -> String {
        let manifest = files.map { name, text in
            let bytes = Array(text.utf8)
            return "{\"bytes\":\(bytes.count),\"name\":\"\(name)\",\"sha256\":\"\(SHA256.hex(bytes))\"}"
        }
        return """
            {"bgbench_version":"\(BuildInfo.version)","cache_key":"\(key)","frontier":{"suite_task":"\(task)"},\
            "git_commit":"\(BuildInfo.gitCommit)","manifest":[\(manifest.joined(separator: ","))]}

            """
    }
}
