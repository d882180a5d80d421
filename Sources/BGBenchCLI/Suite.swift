import BGBench
import BGHarness
import Foundation

/// `bgbench suite`: the benchmark suite (docs/suite.md). Each task is a frontier of the
/// scored policies (their knob's arms and their own point), `fixed`'s point and the
/// references `oracle` and `prophet`, on the task's users and feed; each policy is scored
/// per task against `fixed` at matched energy and on the gaps to the references, and the
/// scorecard folder gets scorecard.csv, scorecard.md and scorecard.json.
struct SuiteCommand: CommandDefinition {
    struct Values {
        var run = RunArguments()
        var quick = false
        var tasks: [String]?
        var suite = "v1"
        var compare = false
        /// `--cache DIR`: the task cache's folder (else the environment's; docs/suite.md).
        var cache: String?
        var noCache = false
        /// The two scorecard folders `--compare` reads.
        var folders: [String] = []
    }

    static let name = "suite"
    static let synopsis = """
        bgbench suite [--policy P[,Q...]] [--quick] [--task ID,...] [--out DIR]
                                     score policies on the versioned benchmark suite
                                     against fixed at matched energy, with oracle and
                                     prophet as references (scorecard.csv, .md, .json)
        bgbench suite ... --shard K/N  one shard of every task's fleet; 'bgbench merge'
                                     adds the shards into the scorecard
        bgbench suite --compare A B  compare two scorecard folders of one suite version
                                     task by task (B − A, paired where seeds match)
        """
    static let reference: String? = "docs/suite.md"
    static let discussion: String? = """
        Run rules (docs/suite.md): only the policies and their parameters may change, so
        --set takes policies.NAME.FIELD=VALUE alone; the fleet, days, seeds and scenario of
        every task are the suite's. fixed is the baseline and oracle and prophet are
        references: none of them can be scored.

        Each task run is kept in the task cache (--cache DIR, else $BGBENCH_CACHE, else
        $XDG_CACHE_HOME/bgbench, else ~/.cache/bgbench), keyed by bgbench's build, the
        suite's hash and everything the task's numbers depend on: a rerun after a failure,
        or another call with the same policies, reads those tasks back instead of running
        them. A shard neither reads nor writes it.
        """
    static let defaults: Values = {
        var values = Values()
        values.run.out = "Reports/suite"
        return values
    }()
    static var options: [Option<Values>] {
        [
            .flag(
                "compare", \.compare,
                help: "compare the scorecard folders A and B (two arguments) task by task; nothing is run or written"),
            .flag(
                "quick", \.quick,
                help: "the suite's quick subset: fewer tasks, devices, days and seeds (wider intervals)"),
            .value(
                "task", "ID[,ID...]", expected: "task ids of the suite, separated by commas",
                help: "score these tasks only (the scorecard says which ran)", defaultText: "every task"
            ) { values, text, _ in
                values.tasks = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            },
            .text(
                "suite", "NAME|FILE", \.suite, expected: "a suite's name (v1) or a suite definition file",
                help: "the suite: a shipped one by name, or a definition file (docs/suite.md, \"The definition\")"),
            RunArguments.options.option("policy").lifted(\Values.run)
                .withHelp("the policies to score (not fixed, oracle or prophet), or 'all'"),
            RunArguments.options.option("set").lifted(\Values.run)
                .withHelp(
                    "a scored policy's parameter, policies.NAME.FIELD=VALUE (the only change the run rules allow)"),
            RunArguments.options.option("threads").lifted(\Values.run),
            RunArguments.options.option("shard").lifted(\Values.run)
                .withHelp(
                    "run shard K (0...N-1) of every task's fleet; --out gets shard.state, which 'bgbench merge' adds into the scorecard"
                ),
            .text(
                "cache", "DIR", \.cache, expected: "a folder",
                help: "the task cache's folder (docs/suite.md, \"The task cache\")",
                defaultText: "$BGBENCH_CACHE, else $XDG_CACHE_HOME/bgbench, else ~/.cache/bgbench"),
            .flag("no-cache", \.noCache, help: "neither read nor write the task cache"),
            RunArguments.options.option("out").lifted(\Values.run),
            RunArguments.options.option("force").lifted(\Values.run),
            RunArguments.options.option("quiet").lifted(\Values.run),
            RunArguments.options.option("allow-external").lifted(\Values.run),
        ]
    }
    static let endsCleanlyOnSignals = true

    /// What `bgbench suite` never scores: the baseline and the references.
    static let references = [FixedPolicy.name] + TaskScore.bounds

    static func positional(_ word: String, _ values: inout Values) throws {
        values.folders.append(word)
    }

    static func run<Out: TextOutputStream>(_ values: Values, _ invocation: Invocation, output: inout Out) throws {
        if values.compare {
            guard values.folders.count == 2 else {
                throw CLIError.usage(
                    "'--compare' needs two scorecard folders, A and B; got \(values.folders.count)")
            }
            return try compare(values.folders[0], values.folders[1], output: &output)
        }
        if let word = values.folders.first {
            throw CLIError.usage("unexpected argument '\(word)': 'suite' takes folders only with '--compare'")
        }
        let commandLine = ["bgbench"] + invocation.arguments
        var common = values.run
        // Read before finish(), which turns 'all' into the registry's names.
        let choice = common.policyChoice
        try common.finish()
        let (suite, source) = try loadSuite(values.suite)
        let policies: [String]
        switch choice {
        case .all: policies = common.policies.filter { !references.contains($0) }
        case .named(let names):
            if let reference = names.first(where: references.contains) {
                throw CLIError.usage(
                    "invalid value '\(reference)' for '--policy': \(reference) is \(reference == FixedPolicy.name ? "the suite's baseline" : "a reference of the suite"), not a policy it scores (docs/suite.md)"
                )
            }
            policies = names
        }
        for o in common.overrides where !o.hasPrefix("policies.") {
            throw CLIError.usage(
                "invalid value '\(o)' for '--set': the suite's run rules let only a policy's parameters change (policies.NAME.FIELD=VALUE; docs/suite.md, \"Run rules\")"
            )
        }
        let tasks = try selectedTasks(suite, quick: values.quick, ids: values.tasks)
        let shard = common.options.shard
        // The task cache: read and written by a whole suite's call, not by a shard's.
        let cache =
            values.noCache || shard != nil
            ? nil
            : SuiteCache.root(option: values.cache, environment: ProcessInfo.processInfo.environment)
                .map(SuiteCache.init)
        var errors = StandardStream.error
        // Every task's frontier is built (each scenario loaded, a bad --set found) and
        // looked up in the cache before the folder is opened.
        var requests: [FrontierRequest] = [], keys: [String?] = [], cached: [Scored?] = []
        var work = 0
        for task in tasks {
            var request = try self.request(
                task, suite: suite, quick: values.quick, policies: policies, common: common, commandLine: commandLine)
            // A cached task runs as shard 0 of 1, which keeps what its cache entry holds
            // (a shard's sums), and is read back from its entry like a cached one.
            request.options.shard = shard ?? (cache != nil ? Shard.whole : nil)
            let arms: [FrontierArm]
            do { arms = try Frontier.arms(request) } catch let error as FrontierError {
                throw CLIError.usage("task \(task.id): \(error.description)")
            }
            let key = cache.map { _ in SuiteCache.key(request, task: task, suite: suite) }
            // A task read back is scored at once: only its scores are kept, not its frontier.
            let hit = key.flatMap { key in
                cache?.load(key, task: task.id) { errors.write("warning: \($0)\n") }
                    .map { Self.scored(task, report: $0, policies: policies) }
            }
            if hit == nil {
                let devices = request.options.part.devices(of: request.options.devices).count
                work += devices * request.options.days * arms.count * request.replications
            }
            requests.append(request); keys.append(key); cached.append(hit)
        }
        let start = DispatchTime.now()
        let pipeline = ReportPipeline(
            out: common.out, force: common.force, kind: .suite, inputs: common.inputs, progressTotal: work,
            quiet: common.quiet)
        try pipeline.run(output: &output) { progress in
            // A shard keeps each task's frontier for its state; a whole suite keeps each
            // task's scores only (a frontier read back holds tens of MB).
            var reports: [FrontierReport] = [], scored: [Scored] = []
            for (k, task) in tasks.enumerated() {
                if let done = cached[k] { scored.append(done); continue }
                let report: FrontierReport
                // A policy that fails mid-suite (an external process that dies) fails the
                // suite, naming the task; nothing is written, and the tasks already run
                // stay in the cache for the rerun.
                do { report = try Frontier.run(requests[k], progress: progress) } catch let error as ExternalPolicyError
                {
                    let before = k == 1 ? "the task before it is" : "the \(k) tasks before it are"
                    let kept = cache != nil && k > 0 ? " (\(before) kept in the task cache: a rerun reuses them)" : ""
                    throw CLIError(
                        message: "suite \(suite.version), task \(task.id): \(error.description)\(kept)",
                        code: error.isUsage ? .usage : .protocolError, hint: false)
                }
                if let cache, let key = keys[k] {
                    let warn = { (line: String) in errors.write("warning: \(line)\n") }
                    cache.store(report, key: key, task: task.id, warning: warn)
                    let read = cache.load(key, task: task.id, warning: warn) ?? report
                    scored.append(Self.scored(task, report: read, policies: policies))
                } else if shard != nil {
                    reports.append(report)
                } else {
                    scored.append(Self.scored(task, report: report, policies: policies))
                }
            }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
            if let shard {
                let header = ShardHeader.Suite(
                    file: source.file, definition: source.text, sha256: suite.sha256, quick: values.quick,
                    tasks: tasks.map(\.id), policies: policies, overrides: common.overrides)
                let state = ShardState.text(suite: header, tasks: reports, commandLine: commandLine)
                let devices = Set(requests.map(\.options.devices)).sorted().map(String.init).joined(separator: ", ")
                return .init(
                    files: ScorecardFiles.shardFiles(
                        suite, quick: values.quick, state: state, shard: shard, commandLine: commandLine),
                    text:
                        "suite \(suite.version) shard \(shard) (its blocks of each task's \(devices) devices): \(tasks.count) task\(tasks.count == 1 ? "" : "s"), \(SummaryTable.fixed(seconds, 1)) s; 'bgbench merge' adds the shards into the scorecard\n",
                    seconds: seconds, deviceDays: work)
            }
            let reused = tasks.indices.filter { cached[$0] != nil }.map { tasks[$0].id }
            let (files, text) = scorecard(
                suite, quick: values.quick, tasks: tasks, policies: policies, scored: scored,
                overrides: common.overrides,
                execution: .init(
                    commandLine: commandLine, threads: scored.map(\.threads).max() ?? 1, wallSeconds: seconds,
                    host: ProcessInfo.processInfo.hostName, cachedTasks: reused))
            let cacheLine =
                reused.isEmpty
                ? "" : "\(reused.count) of \(tasks.count) tasks read from the task cache (\(cache!.folder))\n"
            return .init(files: files, text: text + cacheLine, seconds: seconds, deviceDays: work)
        }
    }

    /// One task's part of the scorecard: each policy's scores, the task's record and the
    /// threads its frontier ran on.
    struct Scored {
        var scores: [TaskScore]
        var record: ScorecardFiles.TaskRecord
        var threads: Int
    }

    static func scored(_ task: SuiteTask, report: FrontierReport, policies: [String]) -> Scored {
        Scored(
            scores: policies.map { TaskScore.score(report, task: task, policy: $0) },
            record: record(task, report: report, policies: policies), threads: report.run.threads)
    }

    /// The scorecard's files and the terminal's summary, from each task's frontier: what a
    /// call writes and what `bgbench merge` writes from a suite's shards.
    static func scorecard(
        _ suite: SuiteDefinition, quick: Bool, tasks: [SuiteTask], policies: [String], scored: [Scored],
        overrides: [String], execution: ScorecardFiles.Execution
    ) -> (files: [(String, String)], text: String) {
        let scores = scored.flatMap(\.scores), records = scored.map(\.record)
        let card = Scorecard(suite: suite, quick: quick, tasks: tasks, policies: policies, scores: scores)
        let files = ScorecardFiles.files(card, records: records, overrides: overrides, execution: execution)
        return (files, summary(card, seconds: execution.wallSeconds))
    }

    /// `bgbench merge` of a suite's shards: the suite rebuilt from the definition they
    /// carry, its tasks scored on the merged frontiers.
    static func merged(
        _ header: ShardHeader.Suite, tasks reports: [FrontierReport], shards: [ShardHeader], commandLine: [String],
        seconds: Double
    ) throws -> (files: [(String, String)], text: String) {
        let suite: SuiteDefinition
        do { suite = try SuiteDefinition.parse(header.definition, file: header.file) } catch {
            throw CLIError(message: "the shards' suite definition: \(error.description)", code: 65, hint: false)
        }
        guard suite.sha256 == header.sha256 else {
            throw CLIError(
                message:
                    "the shards' suite definition has SHA-256 \(suite.sha256), but they record \(header.sha256): damaged",
                code: 65, hint: false)
        }
        let tasks = try selectedTasks(suite, quick: header.quick, ids: header.tasks)
        let execution = ScorecardFiles.Execution(
            commandLine: commandLine, threads: shards.map(\.threads).max() ?? 1, wallSeconds: seconds,
            host: ProcessInfo.processInfo.hostName,
            shards: shards.map {
                .init(
                    shard: "\($0.shard)/\($0.shards)", host: $0.host, wallSeconds: $0.wallSeconds,
                    threads: $0.threads, commandLine: $0.commandLine)
            })
        return scorecard(
            suite, quick: header.quick, tasks: tasks, policies: header.policies,
            scored: zip(tasks, reports).map { scored($0, report: $1, policies: header.policies) },
            overrides: header.overrides, execution: execution)
    }

    /// The suite `value` names: a shipped suite by name, else a definition file.
    static func loadSuite(_ value: String) throws -> (SuiteDefinition, source: (file: String, text: String)) {
        let text: String, file: String
        if let shipped = EmbeddedFiles.embeddedSuites.first(where: { $0.name == value }), !value.contains("/") {
            (text, file) = (shipped.text, "suite:\(shipped.name)")
        } else if FileManager.default.fileExists(atPath: value) {
            let bytes = try readingInput { try InputFile.read(value, limit: InputFile.Limit.scenario) }
            guard let decoded = String(validating: bytes, as: UTF8.self) else {
                throw CLIError(message: "\(value): the suite definition is not UTF-8 text", code: 65, hint: false)
            }
            (text, file) = (decoded, value)
        } else {
            let names = EmbeddedFiles.embeddedSuites.map(\.name)
            throw CLIError(
                message:
                    "no suite definition file or suite '\(value)' for '--suite': expected a file or one of \(names.joined(separator: ", "))",
                code: 66, hint: false)
        }
        do { return (try SuiteDefinition.parse(text, file: file), (file, text)) } catch {
            throw CLIError(message: error.description, code: 65, hint: false)
        }
    }

    /// The tasks to run: `--task`'s, else the quick subset's or every one, in the suite's order.
    static func selectedTasks(_ suite: SuiteDefinition, quick: Bool, ids: [String]?) throws -> [SuiteTask] {
        let all = suite.tasks.map(\.id)
        var chosen = quick ? suite.quick.tasks : all
        if let ids {
            for id in ids where !all.contains(id) {
                var message =
                    "unknown task '\(id)' for '--task': expected task ids of suite \(suite.version): \(all.joined(separator: ", "))"
                if let close = closest(to: id, in: all) { message += " (did you mean '\(close)'?)" }
                throw CLIError.usage(message)
            }
            guard Set(ids).count == ids.count else {
                throw CLIError.usage("invalid value '\(ids.joined(separator: ","))' for '--task': a task given twice")
            }
            chosen = all.filter(ids.contains)
        }
        return suite.tasks.filter { chosen.contains($0.id) }.map { task in
            var task = task
            if quick { task.size = suite.quick.size }
            return task
        }
    }

    /// A task's frontier: `fixed`'s point (the baseline), each scored policy's knob arms
    /// (its declared sweep) and its own point, `oracle`'s and `prophet`'s points.
    static func request(
        _ task: SuiteTask, suite: SuiteDefinition, quick: Bool, policies: [String], common: RunArguments,
        commandLine: [String]
    ) throws -> FrontierRequest {
        guard let text = EmbeddedFiles.preset(named: task.scenario) else {
            throw CLIError(
                message:
                    "suite \(suite.version), task \(task.id): no preset '\(task.scenario)' (expected one of \(EmbeddedFiles.presetNames.joined(separator: ", ")))",
                code: 65, hint: false)
        }
        let loaded = try readingInput {
            try ScenarioLoader.load(
                json: text, file: "preset:\(task.scenario)", overrides: task.overrides + common.overrides)
        }
        let size = task.size
        var options = RunOptions(
            devices: size.devices, days: size.days, seed: size.seed, threads: common.options.threads,
            warmupDays: size.warmupDays)
        options.allowsExternal = common.options.allowsExternal
        if case .habits(let seed) = task.population {
            let trace = HabitUsers.trace(devices: size.devices, days: size.days, seed: seed)
            options.opensTrace = try readingInput {
                try OpensTraceLoader.parse(
                    bytes: Array(trace.utf8), file: "habits(devices=\(size.devices),days=\(size.days),seed=\(seed))")
            }
        }
        var request = FrontierRequest(
            scenario: loaded, policies: [FixedPolicy.name] + policies + TaskScore.bounds,
            baselinePolicy: FixedPolicy.name,
            knobValues: [FixedPolicy.name: [], ProphetPolicy.name: []], energyLevels: [], options: options,
            replications: size.replications, commandLine: commandLine)
        request.points = policies + [ProphetPolicy.name]
        return request
    }

    /// scorecard.json's record of one task: what makes its rows reproducible.
    static func record(_ task: SuiteTask, report: FrontierReport, policies: [String]) -> ScorecardFiles.TaskRecord {
        let scenario = report.request.scenario
        var parameters: [String: String] = [:]
        if let document = try? JSONParser.parse(scenario.resolvedJSON(policies: policies)),
            let section = document.root.object?["policies"]?.object
        {
            for policy in policies { parameters[policy] = section[policy]?.text ?? "{}" }
        }
        return .init(
            task: task, seeds: report.seeds,
            resolvedScenarioSha256: scenario.resolvedSha256(policies: report.request.policies),
            policyParameters: parameters, external: ExternalPolicies.identities(report.run.results) ?? [:])
    }

    /// The terminal's summary: per policy its verdicts and median gaps closed.
    static func summary(_ card: Scorecard, seconds: Double) -> String {
        var out =
            "suite \(card.suite.version)\(card.quick ? " (quick)" : ""): \(card.tasks.count) task\(card.tasks.count == 1 ? "" : "s"), "
            + "\(card.policies.count) polic\(card.policies.count == 1 ? "y" : "ies") against fixed; \(SummaryTable.fixed(seconds, 1)) s\n"
        for policy in card.policies {
            let a = card.aggregate(policy)
            let verdicts =
                "dominates \(a.verdicts[.dominates] ?? 0), trades off \(a.verdicts[.tradesOff] ?? 0), "
                + "indistinguishable \(a.verdicts[.indistinguishable] ?? 0), dominated \(a.verdicts[.dominated] ?? 0)"
            let oracle =
                "median gap closed to oracle \(ScorecardFiles.percent(a.medianGapOracle)) % (\(a.gapOracleTasks) of \(a.tasks) tasks)"
            let prophet =
                "to prophet \(ScorecardFiles.percent(a.medianGapProphet)) % (\(a.gapProphetTasks) of \(a.tasks))"
            out +=
                "\(policy): \(verdicts); \(oracle), \(prophet); constraints met in \(a.constraintsPassed) of \(a.tasks)\n"
        }
        return out
    }

    /// `--compare A B`: the table of B − A per task, policy pair and quantity, and the
    /// warnings (another build, tasks in one only) on stderr.
    static func compare<Out: TextOutputStream>(
        _ a: String, _ b: String, output: inout Out
    ) throws {
        let outcome = try Command.readingReportFolders {
            try ScorecardComparison.compare(
                ScorecardFolder(path: a, role: "A"), ScorecardFolder(path: b, role: "B"))
        }
        var errors = StandardStream.error
        for line in outcome.warnings { errors.write(line + "\n") }
        output.write(comparisonTable(outcome))
    }

    /// One line per task, policy pair and quantity: B − A with its interval, in percentage
    /// points for ratios, and how it was tested.
    static func comparisonTable(_ outcome: ScorecardComparison.Outcome) -> String {
        var lines = ["B − A, per task (95 % intervals across seeds; rates in percentage points)"]
        let taskWidth = max(4, outcome.rows.map(\.task.count).max() ?? 0)
        let pairWidth = max(6, outcome.rows.map { "\($0.policyA) → \($0.policyB)".count }.max() ?? 0)
        func pad(_ s: String, _ w: Int) -> String { s + String(repeating: " ", count: max(0, w - s.count)) }
        lines.append(
            [pad("task", taskWidth), pad("A → B", pairWidth), pad("quantity", 20), pad("B − A [95 % CI]", 28), "test"]
                .joined(separator: "  "))
        for r in outcome.rows {
            let ratio = r.quantity != "headline_difference" || MetricTable.named(r.metric)?.unit == "ratio"
            let scale = ratio ? 100.0 : 1
            var cell = "-"
            if let d = r.difference {
                let decimals = SummaryTable.intervalDecimals(d, scale: scale) ?? 2
                func f(_ x: Double) -> String { SummaryTable.fixed(x * scale, decimals) }
                cell = "\(f(d.value))\(ratio ? " pts" : "")"
                if let low = d.low, let high = d.high { cell += " [\(f(low)), \(f(high))]" }
            }
            let quantity = r.quantity == "headline_difference" ? r.metric : r.quantity
            lines.append(
                [
                    pad(r.task, taskWidth), pad("\(r.policyA) → \(r.policyB)", pairWidth), pad(quantity, 20),
                    pad(cell, 28), r.status,
                ]
                .joined(separator: "  "))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
