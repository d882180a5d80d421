import Foundation

/// Everything that defines a run: scenario × policies × seed × fleet size (MODEL.md §1).
public struct RunRequest: Sendable {
    public var scenario: LoadedScenario
    /// Policy names, each known to `PolicyRegistry`, in report order.
    public var policies: [String]
    public var options: RunOptions
    /// The command line as typed, for run.json.
    public var commandLine: [String]
    /// The policy every other is compared with, device by device (paired.csv); nil for
    /// the default (`defaultBaseline`).
    public var baselinePolicy: String?
    /// Independent replications: seeds `options.seed`, `options.seed + 1`, ...
    public var replications: Int
    /// The replayed opens trace as run.json names it: `options.opensTrace`'s, or, for a
    /// merge of shards (which has no trace to read), the shards'.
    public var opensTraceIdentity: OpensTraceIdentity?
    public init(
        scenario: LoadedScenario, policies: [String], options: RunOptions, commandLine: [String] = [],
        baselinePolicy: String? = nil, replications: Int = 1
    ) {
        self.scenario = scenario; self.policies = policies; self.options = options; self.commandLine = commandLine
        self.baselinePolicy = baselinePolicy; self.replications = replications
        opensTraceIdentity = options.opensTrace.map(OpensTraceIdentity.init)
    }

    /// The baseline of a run of `policies` when none is named: `fixed` when it runs, else
    /// the first policy listed; none for a single policy.
    public static func defaultBaseline(policies: [String]) -> String? {
        guard policies.count > 1 else { return nil }
        return policies.contains(FixedPolicy.name) ? FixedPolicy.name : policies[0]
    }

    /// The baseline the run compares with: the one named, else the default.
    public var resolvedBaseline: String? {
        if let baselinePolicy { return policies.contains(baselinePolicy) ? baselinePolicy : nil }
        return Self.defaultBaseline(policies: policies)
    }

    /// The seeds of the replications, in order.
    public var seeds: [UInt64] { (0..<UInt64(max(1, replications))).map { options.seed &+ $0 } }

    /// The leading fields of devices.csv's and events.csv's rows for each of the run's
    /// results, in report order (per seed, each policy): `lead` (a sweep point's values),
    /// the scenario's name, the policy and the seed. A ``RowSpool``'s results.
    public func rowLabels(lead: [String] = []) -> [[String]] {
        seeds.flatMap { seed in policies.map { lead + [scenario.scenario.name, $0, String(seed)] } }
    }
}

/// The outcome of a run: one result per policy, and how long it took.
public struct RunReport: Sendable {
    public var request: RunRequest
    public var results: [PolicyResult]
    public var wallSeconds: Double
    /// The worker threads the fleet runs started: the most any of them started (each
    /// starts `Fleet.workers(threads:blocks:)`, one per block of devices at most).
    public var threads: Int
    public var events: Double { results.reduce(0) { $0 + $1.tally[.events] } }
    public var deviceDays: Int { request.options.deviceDays * results.count }
    /// The device-days this process simulated: a shard's part of `deviceDays`.
    public var simulatedDeviceDays: Int {
        let o = request.options
        return o.part.devices(of: o.devices).count * o.days * results.count
    }
    /// Days that count toward metrics (the warm-up left out).
    public var countedDays: Int { request.options.days - request.options.warmupDays }
    /// The policy the others are compared with (paired.csv): `RunRequest.resolvedBaseline`.
    public var baselinePolicy: String? { request.resolvedBaseline }
    /// The shards a merged report was made of (run.json's `execution.shards`); empty for a run.
    public var mergedShards: [ShardHeader] = []
    package init(request: RunRequest, results: [PolicyResult], wallSeconds: Double, threads: Int) {
        self.request = request; self.results = results; self.wallSeconds = wallSeconds; self.threads = threads
    }
}

/// Runs every policy of a request over the same fleet: the same device seeds and the same
/// feed, so every policy meets the same users (common random numbers, MODEL.md §2).
public enum Runner {
    /// With `rows`, devices.csv's and events.csv's rows are written into it as the devices
    /// finish (its results: every seed's policies, in report order) instead of being kept
    /// in the results; the caller then calls its `finish()`.
    public static func run(
        _ request: RunRequest, progress: (@Sendable (Int) -> Void)? = nil, rows: RowSpool? = nil
    ) throws -> RunReport {
        let scenario = request.scenario.scenario
        let start = DispatchTime.now()
        var results: [PolicyResult] = []
        // `--threads` resolved once (0: every core); every fleet run gets the same count.
        let threads = request.options.resolvedThreads
        for seed in request.seeds {
            var options = request.options
            options.seed = seed
            options.threads = threads
            options.rows = rows.map { spool in (spool, request.policies.indices.map { [results.count + $0] }) }
            let feed = feed(scenario, days: options.days, seed: seed)
            let entries = try request.policies.map { name in
                guard let policy = PolicyRegistry.named(name) else { throw RunError.unknownPolicy(name) }
                return policy
            }
            // Every policy block by block, side by side, compared with the baseline as
            // the blocks complete (paired.csv).
            let baseline = request.resolvedBaseline.flatMap { request.policies.firstIndex(of: $0) }
            let run = try Fleet.simulate(
                scenario: scenario, policies: entries, baseline: baseline, options: options,
                feed: feed, progress: progress)
            try rows?.check()
            for (i, name) in request.policies.enumerated() {
                results.append(
                    PolicyResult(
                        policy: name, seed: seed, result: run.results[i], wallSeconds: run.busySeconds[i],
                        workers: run.workers, paired: run.paired?[i] ?? nil))
            }
        }
        return RunReport(
            request: request, results: results, wallSeconds: seconds(since: start),
            threads: results.map(\.workers).max() ?? 0)
    }

    /// One feed per replication, shared by every policy (the same content for all); `sync`
    /// devices make their own streams instead.
    static func feed(_ scenario: Scenario, days: Int, seed: UInt64) -> NewsFeed {
        scenario.content.kind.sharesFeed
            ? NewsFeed(content: scenario.content, days: days, seed: seed) : NewsFeed(times: [])
    }

    package static func seconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }
}

/// A run that cannot go ahead.
public enum RunError: Error, Equatable, CustomStringConvertible {
    case unknownPolicy(String)
    public var description: String {
        switch self {
        case .unknownPolicy(let name):
            "unknown policy '\(name)': expected one of \(PolicyRegistry.all.map { $0.name }.joined(separator: ", "))"
        }
    }
}
