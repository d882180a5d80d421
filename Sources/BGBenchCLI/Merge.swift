import BGBench
import BGHarness
import Foundation

/// `bgbench merge --out DIR SHARD_DIR... | PARENT`: the shard folders of one run
/// (`run --shard K/N`) added into the whole run's report folder, byte for byte the one a
/// single process writes but for run.json's `execution`, which lists the shards
/// (ShardMerge; README.md, "Beyond one machine").
struct MergeCommand: CommandDefinition {
    struct Values {
        var out: String?
        var force = false, quiet = false
        var inputs: [String] = []
    }

    static let name = "merge"
    static let synopsis = """
        bgbench merge --out DIR SHARD_DIR... | PARENT
                                     add the shard folders of a run, sweep,
                                     frontier or suite made with --shard K/N into
                                     the whole one's report, byte for byte what a
                                     single process writes (a suite's scorecard:
                                     all but its execution block)
        """
    static let reference: String? = "README.md, \"Beyond one machine\""
    static let discussion: String? = """
        merge takes the shard folders SHARD_DIR..., every shard 0...N-1 once, or one PARENT
        folder whose sub-folders are the shards. A shard of another run (scenario, seed,
        policies, fleet, days, version...), a missing, repeated or incomplete shard is
        refused (exit 65) with the folder named, and so are sums that are not the ones the
        shard wrote (shard.state records their SHA-256) or cannot be (a device count other
        than the shard's blocks hold, a broken identity, impossible energy).
        """
    static let defaults = Values()
    static var options: [Option<Values>] {
        [
            .text(
                "out", "DIR", \.out, expected: "a folder", help: "report folder (required), replaced whole when done"),
            .flag("force", \.force, help: "replace --out whole, whatever it holds (never an input)"),
            .flag("quiet", \.quiet, help: "accepted, as by run (merge draws no progress line)"),
        ]
    }
    static let endsCleanlyOnSignals = true

    static func positional(_ word: String, _ values: inout Values) throws { values.inputs.append(word) }

    static func run<Out: TextOutputStream>(_ values: Values, _ invocation: Invocation, output: inout Out) throws {
        let start = DispatchTime.now()
        let inputs = values.inputs, force = values.force
        guard let out = values.out else {
            throw CLIError.usage("'merge' needs '--out DIR': the folder of the merged report")
        }
        guard !inputs.isEmpty else {
            throw CLIError.usage("'merge' needs the shard folders (or one folder holding them)")
        }
        let folders = try Command.shardFolders(inputs)
        // The merged report is of the shards' kind; an unreadable shard is refused by the merge.
        let kind = (try? ReportManifest.read(folder: folders[0]))??.kind ?? .run
        let pipeline = ReportPipeline(
            out: out, force: force, kind: kind,
            inputs: (inputs + folders).map { .init(path: $0, role: "shard folder") })
        try pipeline.run(output: &output) { _, staging in
            let (report, shards, written): (MergedReport, [ShardHeader], [RowSpool.Written])
            do {
                // The shards' streamed devices.csv and events.csv go into the staging folder.
                (report, shards, written) = try RunCommand.streamed(staging) {
                    try ShardMerge.merge(folders, started: start, rowsInto: staging.path, critical: staging.critical)
                }
            } catch let error as MergeError {
                switch error {
                case .usage(let message): throw CLIError.usage(message)
                case .refused(let message): throw CLIError(message: message, code: 65, hint: false)
                }
            }
            let files: [(String, String)], table: String
            var names: [String]?
            switch report {
            case .run(var run):
                run.request.commandLine = ["bgbench"] + invocation.arguments
                (files, names) = ReportWriter.folder(run, written: written)
                table = SummaryTable.render(run)
            case .sweep(let sweep, let points, let policies, let seeds):
                (files, names) = sweep.folder()
                table =
                    "\(points) points × \(policies) policies, "
                    + (seeds.count > 1 ? "seeds \(seeds.first!)–\(seeds.last!)" : "seed \(seeds.first ?? 0)") + "\n"
            case .frontier(let frontier):
                files = FrontierFiles.files(frontier)
                table = Command.frontierTable(frontier)
            case .suite(let suite, let tasks):
                (files, table) = try SuiteCommand.merged(
                    suite, tasks: tasks, shards: shards, commandLine: ["bgbench"] + invocation.arguments,
                    seconds: Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9)
            }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
            return .init(
                files: files, text: table + "merged \(shards.count) shards in \(SummaryTable.fixed(seconds, 2)) s\n",
                names: names)
        }
    }
}

extension Command {
    /// The shard folders named: each a folder with shard.state, or one parent whose
    /// sub-folders are (hidden ones and others skipped), in name order.
    static func shardFolders(_ inputs: [String]) throws -> [String] {
        let fm = FileManager.default
        func isShard(_ path: String) -> Bool {
            fm.fileExists(atPath: (path as NSString).appendingPathComponent(ShardState.fileName))
        }
        // A report folder named alone is taken as a (would-be) shard, so the merge says what it lacks.
        func isReport(_ path: String) -> Bool {
            isShard(path) || fm.fileExists(atPath: (path as NSString).appendingPathComponent("run.json"))
        }
        var isDirectory: ObjCBool = false
        if inputs.count == 1, !isReport(inputs[0]), fm.fileExists(atPath: inputs[0], isDirectory: &isDirectory),
            isDirectory.boolValue
        {
            let children = ((try? fm.contentsOfDirectory(atPath: inputs[0])) ?? []).filter { !$0.hasPrefix(".") }
                .sorted()
                .map { (inputs[0] as NSString).appendingPathComponent($0) }.filter(isShard)
            guard !children.isEmpty else {
                throw CLIError(
                    message:
                        "'\(inputs[0])' holds no shard folder (a folder with \(ShardState.fileName), made by 'run --shard K/N')",
                    code: 66, hint: false)
            }
            return children
        }
        for input in inputs where !fm.fileExists(atPath: input, isDirectory: &isDirectory) || !isDirectory.boolValue {
            throw CLIError(message: "cannot read shard folder '\(input)': no such folder", code: 66, hint: false)
        }
        return inputs
    }
}
