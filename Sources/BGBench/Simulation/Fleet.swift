import Foundation
import Dispatch
import Synchronization

/// The size of a run: how many devices, how long, which seed, how many threads.
public struct RunOptions: Sendable {
    public var devices: Int
    public var days: Int
    public var seed: UInt64
    public var threads: Int
    /// Days left out of every metric at the start (MODEL.md §9).
    public var warmupDays: Int
    /// Keep every device's totals (devices.csv, paired differences).
    public var keepDevices: Bool
    /// Log every event of the first this many devices (events.csv).
    public var traceDevices: Int
    /// Opens replayed from a trace instead of drawn (MODEL.md §3); `devices` must then be
    /// the trace's device count.
    public var opensTrace: OpensTrace?
    /// Check every device's tally against ``DeviceInvariants`` as it finishes and stop the
    /// process at the first broken identity (`--check-invariants`; a soak's checking mode).
    public var checksInvariants = false
    /// The part of the fleet this process simulates (`--shard K/N`, its report a shard
    /// folder); nil for the whole run.
    public var shard: Shard?
    /// Where devices.csv's and events.csv's rows go as the devices finish (a whole run's or
    /// sweep's report folder, ``RowSpool``), and for each arm of this fleet run the spool's
    /// results its rows go to (one; an arm a sweep's points share, one per point); nil:
    /// they are kept in memory (`FleetResult.devices`, `.trace`).
    public var rows: (spool: RowSpool, results: [[Int]])?
    /// Whether the `external` policy may start the program its scenario names
    /// (`--allow-external`): without it, a run of it stops before any process starts.
    public var allowsExternal = false
    /// The shard simulated: `shard`, or the whole fleet.
    public var part: Shard { shard ?? .whole }
    public init(
        devices: Int = 1000, days: Int = 30, seed: UInt64 = 1, threads: Int = 0, warmupDays: Int = 0,
        keepDevices: Bool = false, traceDevices: Int = 0, opensTrace: OpensTrace? = nil
    ) {
        self.devices = devices; self.days = days; self.seed = seed
        self.threads = threads; self.warmupDays = warmupDays; self.keepDevices = keepDevices
        self.traceDevices = traceDevices; self.opensTrace = opensTrace
    }
    /// The device-days of the whole run (every shard).
    public var deviceDays: Int { devices * days }
    /// The worker threads asked for, resolved: `threads`, or every core for 0. `Runner`
    /// resolves it once per run and passes it on in `threads`.
    public var resolvedThreads: Int { max(1, threads > 0 ? threads : System.coreCount) }
}

/// Runs a fleet: every device of a policy × platform, spread over threads in fixed blocks
/// of devices. Every sum over devices is exact (``ExactSum``), so results do not depend on
/// the thread count or on how the fleet is split into shards (MODEL.md §2).
public enum Fleet {
    /// Devices per block: the unit a worker claims, and the unit of a shard
    /// (`RunOptions.shard`).
    public static let blockSize = 64

    /// The blocks of a fleet of `devices`.
    public static func blocks(devices: Int) -> Int { (devices + blockSize - 1) / blockSize }

    /// The workers a fleet run of `blocks` blocks starts on `threads` threads: no more than
    /// its blocks (at least one, so that an empty shard still returns its empty totals).
    public static func workers(threads: Int, blocks: Int) -> Int { max(1, min(threads, blocks)) }

    /// Simulates every device under `policy` on the scenario's platform: totals, per
    /// archetype, daily and hourly series, and per-device rows if `options.keepDevices`.
    public static func simulate(
        scenario: Scenario, policy: PolicyEntry, options: RunOptions,
        feed: NewsFeed, progress: (@Sendable (Int) -> Void)? = nil
    ) throws -> FleetResult {
        try simulate(
            scenario: scenario, policies: [policy], baseline: nil, options: options, feed: feed,
            progress: progress
        ).results[0]
    }

    /// Simulates every device under every policy, block by block: each block of devices
    /// runs under each policy in turn (the same device seeds and feed: common random
    /// numbers, MODEL.md §2) before the next, and, with a `baseline` (an index into
    /// `policies`), each other policy's devices are compared with the baseline's device by
    /// device while the block's tallies are at hand (`PairedTally`, nothing kept per
    /// device). A policy's results are the same as when it runs alone.
    public static func simulate(
        scenario: Scenario, policies: [PolicyEntry], baseline: Int?, options: RunOptions,
        feed: NewsFeed, progress: (@Sendable (Int) -> Void)? = nil
    ) throws -> FleetRun {
        try simulate(
            arms: policies.map { FleetArm(policy: $0, scenario: scenario) }, baseline: baseline, options: options,
            feed: feed, progress: progress)
    }

    /// Simulates every arm side by side, block by block, as `simulate(scenario:policies:...)`
    /// does for policies: an arm is a policy with its own scenario. With a `baseline` (an
    /// index into `arms`), every other arm is compared with it device by device.
    public static func simulate(
        arms: [FleetArm], baseline: Int?, joint: [Quantity]? = nil, options: RunOptions,
        feed: NewsFeed, progress: (@Sendable (Int) -> Void)? = nil
    ) throws -> FleetRun {
        let b = baseline.flatMap { arms.count > 1 ? $0 : nil }
        let pairs = b.map { b in arms.indices.filter { $0 != b }.map { ArmPair(arm: $0, baseline: b) } } ?? []
        var run = try simulate(arms: arms, pairs: pairs, joint: joint, options: options, feed: feed, progress: progress)
        if b != nil {
            var paired = [PairedTally?](repeating: nil, count: arms.count)
            for (pair, tally) in zip(pairs, run.pairs) { paired[pair.arm] = tally }
            run.paired = paired
        }
        return run
    }

    /// Simulates every arm side by side, block by block: the arms' scenarios may differ in
    /// `policies.*` and `platform.*` only, which no device, user or feed draw reads, so
    /// every arm meets the same users and content (common random numbers; a test checks
    /// that the users are the same on every platform). Each of `pairs` compares its arm
    /// with its baseline arm device by device while the block's tallies are at hand
    /// (`FleetRun.pairs`, in the order given). With `joint`, the per-device cross moments
    /// of those quantities over every arm are accumulated as well (`JointMoments`, for
    /// functions of several arms' means: `bgbench frontier`).
    public static func simulate(
        arms: [FleetArm], pairs: [ArmPair], joint: [Quantity]? = nil, options: RunOptions,
        feed: NewsFeed, progress: (@Sendable (Int) -> Void)? = nil
    ) throws -> FleetRun {
        if let trace = options.opensTrace, trace.deviceCount != options.devices {
            throw SimulationError.traceDevices(trace: trace.deviceCount, devices: options.devices)
        }
        guard let first = arms.first?.scenario else {
            return FleetRun(results: [], paired: nil, busySeconds: [], workers: 0)
        }
        for (i, arm) in arms.enumerated() where !first.meetsTheSameUsers(as: arm.scenario) {
            throw SimulationError.armsDiffer(arm: i)
        }
        if !options.allowsExternal, let arm = arms.first(where: { ExternalPolicies.names.contains($0.policy.name) }) {
            throw ExternalPolicyError.notAllowed.named(arm.policy.name)
        }
        var prepared: [(any Sendable)?] = []
        // Processes an arm started end with the run, and its partner's failure is the run's.
        func finish() throws {
            for case let pool as ExternalPool in prepared { try pool.finish() }
        }
        let runners = try arms.map { arm in
            let input: (any Sendable)?
            do { input = try arm.policy.prepare(arm.scenario) } catch {
                try? finish()
                throw error
            }
            prepared.append(input)
            let context = DeviceRunContext(
                scenario: arm.scenario, seed: options.seed, horizon: SimTime(options.days) * Clock.day,
                countFrom: SimTime(options.warmupDays) * Clock.day, feed: feed, traceDevices: options.traceDevices,
                opensTrace: options.opensTrace, prepared: input)
            let job = FleetJob(context: context, options: options, platform: arm.scenario.platform.name)
            guard let runner = PlatformRegistry.visit(job.platform, PlatformBlocks(policy: arm.policy.calls, job: job))
            else {
                throw SimulationError.unknownPlatform(arm.scenario.platform.name)
            }
            return runner
        }
        var run = run(runners, pairs: pairs, joint: joint, options: options, progress: progress)
        try finish()
        for (i, input) in prepared.enumerated() {
            if let pool = input as? ExternalPool {
                run.results[i].externalPolicy = pool.identity
                run.results[i].externalTraffic = pool.traffic
            }
        }
        return run
    }

    /// The fleet totals of `simulate`.
    public static func run(
        scenario: Scenario, policy: PolicyEntry, options: RunOptions,
        feed: NewsFeed, progress: (@Sendable (Int) -> Void)? = nil
    ) throws -> FleetTally {
        try simulate(scenario: scenario, policy: policy, options: options, feed: feed, progress: progress).fleet
    }

    /// The same for a policy type.
    public static func run<P: WakePolicy>(
        scenario: Scenario, policy: P.Type, options: RunOptions,
        feed: NewsFeed, progress: (@Sendable (Int) -> Void)? = nil
    ) throws -> FleetTally {
        try run(scenario: scenario, policy: PolicyEntry(policy), options: options, feed: feed, progress: progress)
    }

    /// The block loop: the shard's blocks claimed one at a time by the workers; in each
    /// block every arm's runner in turn, then the paired comparisons and the joint sums
    /// of the block's devices. Each worker adds into its own totals; the sums are exact,
    /// so the workers' totals add up to the same numbers in any order (per-device rows and
    /// event logs are put back in device order at the end).
    static func run(
        _ runners: [BlockRunner], pairs: [ArmPair], joint: [Quantity]? = nil, options: RunOptions,
        progress: (@Sendable (Int) -> Void)?
    ) -> FleetRun {
        let blocks = options.part.blocks(devices: options.devices)
        let policies = runners.count
        let keeps = !pairs.isEmpty || joint != nil
        let workers = Fleet.workers(threads: options.resolvedThreads, blocks: blocks.count)
        // Server load per arm, shared by the workers (integer counts, added atomically).
        let loads = runners.map { _ in ServerLoadCounts(days: options.days, firstDay: options.warmupDays) }
        let partials = Slots(UnsafeMutableBufferPointer<WorkerTotals?>.allocate(capacity: workers))
        partials.buffer.initialize(repeating: nil)
        defer { partials.buffer.deinitialize(); partials.buffer.deallocate() }
        let next = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: workers) { w in
            let worker = FleetWorker(days: options.days, firstDay: options.warmupDays, keepsTallies: keeps)
            defer { worker.storage.release() }
            var totals = WorkerTotals(runners: runners, pairs: pairs.count, joint: joint)
            var tallies = [[DeviceTally]](repeating: [], count: keeps ? policies : 0)
            worker.sink = options.rows?.spool.sink()
            worker.storage.traceSpill = worker.sink?.traceSpill()
            while true {
                // A report file that cannot be written stops the run (RowSpool.check says why).
                if let rows = options.rows, rows.spool.failed { break }
                let claimed = next.add(1, ordering: .relaxed).oldValue
                if claimed >= blocks.count { break }
                let block = blocks.lowerBound + claimed
                let size = min(options.devices, (block + 1) * blockSize) - block * blockSize
                for p in 0..<policies {
                    let start = DispatchTime.now().uptimeNanoseconds
                    worker.tallies.removeAll(keepingCapacity: true)
                    worker.archetypes.removeAll(keepingCapacity: true)
                    worker.sink?.begin(block: block, results: options.rows!.results[p])
                    runners[p].run(block, worker, loads[p], &totals.results[p])
                    worker.sink?.end()
                    if keeps { tallies[p] = worker.tallies }
                    totals.busy[p] += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                    progress?(size * options.days)
                }
                if !pairs.isEmpty {
                    PairedTally.add(tallies, archetypes: worker.archetypes, pairs: pairs, into: &totals.pairs)
                }
                if joint != nil { for i in 0..<size { totals.joint!.add(tallies, device: i) } }
            }
            partials.buffer[w] = totals
        }
        // Worker 0's totals take the others' (exact sums: the same in any order), each
        // freed once added, so a run holds one more set of totals only while merging.
        var run = partials.buffer[0].take()!
        for w in 1..<workers { run.merge(partials.buffer[w].take()!) }
        for p in 0..<policies {
            run.results[p].finish()
            // A shard keeps the per-day counts for the merge; a whole run needs only their fold.
            run.results[p].serverLoad = loads[p].take(
                days: options.days, firstDay: options.warmupDays, keepingDays: options.shard != nil)
        }
        return FleetRun(
            results: run.results, paired: nil, pairs: run.pairs, busySeconds: run.busy, workers: workers,
            joint: run.joint)
    }

    /// One block of devices under `policy` on platform F, added to `result` (and each
    /// device's tally to `worker.tallies` when the worker keeps them). An external policy
    /// that batches has the block's devices simulated side by side (``ExternalBatch``);
    /// their records are added in device order all the same.
    static func runBlock<F: PlatformRules>(
        _ policy: PolicyCalls, _: F.Type, block: Int, context: DeviceRunContext, options: RunOptions,
        into result: inout FleetResult,
        worker: FleetWorker, load: ServerLoadCounts
    ) {
        let devices = (block * blockSize)..<min(options.devices, (block + 1) * blockSize)
        // An OS-version mix (MODEL.md §4): a device may run as the platform's legacy
        // variant, each still specialised.
        @Sendable func record(
            _ device: Int, _ context: DeviceRunContext, _ queue: EventQueue<SimEvent>, _ storage: RecorderStorage
        ) -> DeviceRecord {
            F.runsAsLegacyVariant(scenario: context.scenario, seed: context.seed, device: device)
                ? simulate(
                    policy, F.LegacyVariant.self, device: device, context: context, queue: queue, storage: storage)
                : simulate(policy, F.self, device: device, context: context, queue: queue, storage: storage)
        }
        func add(_ record: DeviceRecord) {
            if options.checksInvariants, let broken = DeviceInvariants.violations(record.tally).first {
                fatalError(
                    "invariant broken on device \(record.device) (policy \(policy.name), platform \(F.name), seed \(context.seed)): \(broken)"
                )
            }
            result.add(record)
            worker.sink?.add(record, archetypeNames: result.archetypeNames)
            load.add(record.storage.load)
            if worker.keepsTallies {
                worker.tallies.append(record.tally)
                worker.archetypes.append(record.archetype)
            }
        }
        if let pool = context.prepared as? ExternalPool, pool.handshake.batches {
            // Each device its own queue and buffers (a traced device's events stay in its
            // record: the worker's spill serves one device at a time).
            let (days, firstDay) = (options.days, options.warmupDays)
            let records = ExternalBatch.run(devices, pool: pool) { device, slot in
                var own = context
                own.prepared = slot
                return UncheckedRecord(
                    record(device, own, EventQueue<SimEvent>(), RecorderStorage(days: days, firstDay: firstDay)))
            }
            for r in records {
                add(r.record)
                r.record.storage.release()
            }
            return
        }
        var storage = worker.storage
        for device in devices {
            let r = record(device, context, worker.queue, storage)
            add(r)
            storage = r.storage
        }
        worker.storage = storage
    }

    /// One device, specialised for its platform: its record.
    @inline(__always)
    static func simulate<F: PlatformRules>(
        _ policy: PolicyCalls, _: F.Type, device: Int, context: DeviceRunContext,
        queue: EventQueue<SimEvent>, storage: RecorderStorage
    ) -> DeviceRecord {
        var simulation = DeviceSimulation<F>(
            policy: policy, index: device, context: context, queue: queue, storage: storage)
        return simulation.run()
    }
}

/// What a fleet run of several policies returns: one result per policy (in the order
/// given), and with a baseline each other policy's paired comparison with it (nil for the
/// baseline itself).
public struct FleetRun: Sendable {
    public var results: [FleetResult]
    /// With a single baseline (`simulate(arms:baseline:...)`), each arm's comparison with
    /// it, nil for the baseline itself.
    public var paired: [PairedTally?]?
    /// Each of the run's `ArmPair`s compared, in the order asked.
    public var pairs: [PairedTally] = []
    /// Seconds the workers spent in each policy's blocks, summed over workers.
    public var busySeconds: [Double]
    /// The worker threads started.
    public var workers: Int
    /// The exact sums behind the arms' per-device cross moments, when asked for
    /// (`simulate(arms:joint:...)`).
    public var joint: JointSums? = nil
}

/// Two arms of a fleet run compared device by device: `arm` − `baseline`.
public struct ArmPair: Hashable, Sendable {
    public var arm: Int
    public var baseline: Int
    public init(arm: Int, baseline: Int) { self.arm = arm; self.baseline = baseline }
}

/// One arm of a fleet run: a policy and the scenario it runs under (`Fleet.simulate(arms:...)`).
public struct FleetArm: Sendable {
    public var policy: PolicyEntry
    public var scenario: Scenario
    public init(policy: PolicyEntry, scenario: Scenario) { self.policy = policy; self.scenario = scenario }
}

/// A worker's reusable state: its event queue and recorder storage, and the tallies of
/// the devices of the block and policy it is simulating (kept for the paired comparison).
final class FleetWorker {
    let queue = EventQueue<SimEvent>()
    var storage: RecorderStorage
    let keepsTallies: Bool
    var tallies: [DeviceTally] = []
    /// Their archetypes (the same under every arm: the same users).
    var archetypes: [Int] = []
    /// Where the devices' rows go, when a spool writes them (`RunOptions.rows`).
    var sink: RowSink?
    init(days: Int, firstDay: Int, keepsTallies: Bool) {
        storage = RecorderStorage(days: days, firstDay: firstDay)
        self.keepsTallies = keepsTallies
        tallies.reserveCapacity(Fleet.blockSize)
    }
}

/// What one worker adds up: each policy's results and busy seconds, the paired
/// comparisons and the joint sums.
struct WorkerTotals {
    var results: [FleetResult]
    var busy: [Double]
    /// One per `ArmPair` of the run.
    var pairs: [PairedTally]
    var joint: JointSums?

    init(runners: [BlockRunner], pairs: Int, joint quantities: [Quantity]?) {
        results = runners.map(\.empty)
        busy = Array(repeating: 0, count: runners.count)
        self.pairs = Array(repeating: PairedTally(), count: pairs)
        joint = quantities.map { JointSums(arms: runners.count, quantities: $0) }
    }

    mutating func merge(_ o: WorkerTotals) {
        for p in results.indices {
            results[p].merge(o.results[p])
            busy[p] += o.busy[p]
        }
        for k in pairs.indices { pairs[k].merge(o.pairs[k]) }
        if let other = o.joint { joint!.merge(other) }
    }
}

/// One policy's block simulation, specialised for its platform type.
struct BlockRunner: Sendable {
    /// A block's result before any device is added.
    let empty: FleetResult
    let run:
        @Sendable (_ block: Int, _ worker: FleetWorker, _ load: ServerLoadCounts, _ result: inout FleetResult) -> Void
}

/// One fleet simulation waiting for its platform type.
struct FleetJob: Sendable {
    let context: DeviceRunContext
    let options: RunOptions
    let platform: String
}

/// Makes a policy's block runner once the registry supplies the platform type.
struct PlatformBlocks: PlatformVisitor {
    let policy: PolicyCalls
    let job: FleetJob
    func visit<F: PlatformRules>(_: F.Type) -> BlockRunner {
        let context = job.context, options = job.options, policy = policy
        // Rows a spool writes are not kept.
        let empty = FleetResult(
            scenario: context.scenario, days: options.days, keepDevices: options.keepDevices && options.rows == nil,
            replay: context.opensTrace != nil, keepTrace: options.rows == nil)
        return BlockRunner(empty: empty) { block, worker, load, result in
            Fleet.runBlock(
                policy, F.self, block: block, context: context, options: options, into: &result,
                worker: worker, load: load)
        }
    }
}

/// A device's record handed from its thread to its block's (``ExternalBatch``), which
/// reads it only after the device's thread has finished with it.
struct UncheckedRecord: @unchecked Sendable {
    let record: DeviceRecord
    init(_ record: DeviceRecord) { self.record = record }
}

/// Per-worker result slots: each worker writes only its own, and the merge reads them
/// after all workers have finished.
struct Slots<T>: @unchecked Sendable {
    let buffer: UnsafeMutableBufferPointer<T>
    init(_ buffer: UnsafeMutableBufferPointer<T>) { self.buffer = buffer }
}

/// A run that cannot start.
public enum SimulationError: Error, Equatable, CustomStringConvertible {
    case unknownPlatform(String)
    case traceDevices(trace: Int, devices: Int)
    case armsDiffer(arm: Int)
    public var description: String {
        switch self {
        case .armsDiffer(let arm):
            "arm \(arm)'s scenario differs from arm 0's outside `policies` and `platform`: expected arms that meet the same users (differ only in policy and platform parameters)"
        case .traceDevices(let trace, let devices):
            "the opens trace has \(trace) devices but the run has \(devices): expected one device per trace device"
        case .unknownPlatform(let name):
            "unknown platform '\(name)': expected one of \(PlatformRegistry.all.map { $0.name }.joined(separator: ", "))"
        }
    }
}

/// Facts about the machine.
public enum System {
    public static var coreCount: Int { ProcessInfo.processInfo.activeProcessorCount }
}
