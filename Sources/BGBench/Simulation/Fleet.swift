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
    public init(devices: Int = 1000, days: Int = 30, seed: UInt64 = 1, threads: Int = 0, warmupDays: Int = 0,
                keepDevices: Bool = false, traceDevices: Int = 0, opensTrace: OpensTrace? = nil) {
        self.devices = devices; self.days = days; self.seed = seed
        self.threads = threads; self.warmupDays = warmupDays; self.keepDevices = keepDevices
        self.traceDevices = traceDevices; self.opensTrace = opensTrace
    }
    public var deviceDays: Int { devices * days }
    /// The worker threads asked for, resolved: `threads`, or every core for 0. `Runner`
    /// resolves it once per run and passes it on in `threads`.
    public var resolvedThreads: Int { max(1, threads > 0 ? threads : System.coreCount) }
}

/// Runs a fleet: every device of a policy × platform, spread over threads in fixed blocks
/// of devices whose tallies are merged in block order, so results do not depend on the
/// thread count (MODEL.md §2).
public enum Fleet {
    /// Devices per block: fixed, so block sums are the same on any thread count.
    public static let blockSize = 64
    /// Blocks simulated before their tallies are merged: bounds memory for any fleet size.
    static let wave = 64

    /// The workers a fleet run of `devices` starts on `threads` threads: no more than its
    /// blocks, nor than the blocks of a wave.
    public static func workers(threads: Int, devices: Int) -> Int {
        min(max(1, threads), (devices + blockSize - 1) / blockSize, wave)
    }

    /// Simulates every device under `policy` on the scenario's platform: totals, per
    /// archetype, daily and hourly series, and per-device rows if `options.keepDevices`.
    public static func simulate(scenario: Scenario, policy: PolicyEntry, options: RunOptions,
                                feed: NewsFeed, progress: (@Sendable (Int) -> Void)? = nil) throws -> FleetResult {
        try simulate(scenario: scenario, policies: [policy], baseline: nil, options: options, feed: feed,
                     progress: progress).results[0]
    }

    /// Simulates every device under every policy, block by block: each block of devices
    /// runs under each policy in turn (the same device seeds and feed: common random
    /// numbers, MODEL.md §2) before the next, and, with a `baseline` (an index into
    /// `policies`), each other policy's devices are compared with the baseline's device by
    /// device while the block's tallies are at hand (`PairedTally`, nothing kept per
    /// device). A policy's results are added device by device within a block and merged
    /// in block order, exactly as when it runs alone.
    public static func simulate(scenario: Scenario, policies: [PolicyEntry], baseline: Int?, options: RunOptions,
                                feed: NewsFeed, progress: (@Sendable (Int) -> Void)? = nil) throws -> FleetRun {
        try simulate(arms: policies.map { FleetArm(policy: $0, scenario: scenario) }, baseline: baseline, options: options,
                     feed: feed, progress: progress)
    }

    /// Simulates every arm side by side, block by block, as `simulate(scenario:policies:...)`
    /// does for policies: an arm is a policy with its own scenario, and the arms' scenarios
    /// differ only in `policies.*` (what only the policies read: every device, user and
    /// feed draw is the same in every arm, so the arms meet the same users: common random
    /// numbers). With `joint`, the per-device cross moments of those quantities over every
    /// arm are accumulated as well (`JointMoments`, for functions of several arms' means:
    /// `bgbench frontier`).
    public static func simulate(arms: [FleetArm], baseline: Int?, joint: [Quantity]? = nil, options: RunOptions,
                                feed: NewsFeed, progress: (@Sendable (Int) -> Void)? = nil) throws -> FleetRun {
        if let trace = options.opensTrace, trace.deviceCount != options.devices {
            throw SimulationError.traceDevices(trace: trace.deviceCount, devices: options.devices)
        }
        guard let first = arms.first?.scenario else { return FleetRun(results: [], paired: nil, busySeconds: [], workers: 0) }
        var shared = first
        for (i, arm) in arms.enumerated() {
            shared.policies = arm.scenario.policies
            guard shared == arm.scenario else { throw SimulationError.armsDiffer(arm: i) }
        }
        let runners = try arms.map { arm in
            let context = DeviceRunContext(
                scenario: arm.scenario, seed: options.seed, horizon: SimTime(options.days) * Clock.day,
                countFrom: SimTime(options.warmupDays) * Clock.day, feed: feed, traceDevices: options.traceDevices,
                opensTrace: options.opensTrace)
            let job = FleetJob(context: context, options: options, platform: arm.scenario.platform.name)
            guard let runner = arm.policy.blocks(job) else { throw SimulationError.unknownPlatform(arm.scenario.platform.name) }
            return runner
        }
        return run(runners, baseline: baseline.flatMap { arms.count > 1 ? $0 : nil }, joint: joint, options: options,
                   progress: progress)
    }

    /// The fleet totals of `simulate`.
    public static func run(scenario: Scenario, policy: PolicyEntry, options: RunOptions,
                           feed: NewsFeed, progress: (@Sendable (Int) -> Void)? = nil) throws -> FleetTally {
        try simulate(scenario: scenario, policy: policy, options: options, feed: feed, progress: progress).fleet
    }

    /// The same for a policy type (not specialised unless the type is known here).
    public static func run<P: WakePolicy>(scenario: Scenario, policy: P.Type, options: RunOptions,
                                          feed: NewsFeed, progress: (@Sendable (Int) -> Void)? = nil) throws -> FleetTally {
        try run(scenario: scenario, policy: PolicyEntry(policy), options: options, feed: feed, progress: progress)
    }

    /// The block loop: waves of blocks claimed by the workers; in each block every
    /// policy's runner in turn, then the paired comparison of the block; the block results
    /// merged per policy in block order.
    static func run(_ runners: [BlockRunner], baseline: Int?, joint: [Quantity]? = nil, options: RunOptions,
                    progress: (@Sendable (Int) -> Void)?) -> FleetRun {
        let devices = options.devices
        let blocks = (devices + blockSize - 1) / blockSize
        let threads = options.resolvedThreads
        let policies = runners.count
        var totals = runners.map(\.empty)
        var paired = baseline.map { _ in [PairedTally](repeating: PairedTally(), count: policies) }
        var crossed = joint.map { JointMoments(arms: policies, quantities: $0) }
        let keeps = baseline != nil || joint != nil
        var firstBlock = 0
        // Server load per worker and policy (integer counts: merging in any order gives the same).
        let workers = Fleet.workers(threads: threads, devices: devices)
        let loads = (0..<workers).map { _ in
            runners.map { _ in ServerLoadCounts(days: options.days, firstDay: options.warmupDays) }
        }
        // Seconds each worker spent in each policy's blocks.
        let busy = Slots(UnsafeMutableBufferPointer<Double>.allocate(capacity: workers * policies))
        busy.buffer.initialize(repeating: 0)
        defer { busy.buffer.deallocate() }
        while firstBlock < blocks {
            let count = min(wave, blocks - firstBlock)
            let results = Slots(UnsafeMutableBufferPointer<FleetResult?>.allocate(capacity: count * policies))
            results.buffer.initialize(repeating: nil)
            let comparisons = Slots(UnsafeMutableBufferPointer<[PairedTally]?>.allocate(capacity: count))
            comparisons.buffer.initialize(repeating: nil)
            let jointBlocks = Slots(UnsafeMutableBufferPointer<JointMoments?>.allocate(capacity: count))
            jointBlocks.buffer.initialize(repeating: nil)
            let next = Atomic<Int>(0)
            let base = firstBlock
            DispatchQueue.concurrentPerform(iterations: min(threads, count)) { w in
                let worker = FleetWorker(days: options.days, firstDay: options.warmupDays, keepsTallies: keeps)
                defer { worker.storage.release() }
                var tallies = [[DeviceTally]](repeating: [], count: keeps ? policies : 0)
                while true {
                    let slot = next.add(1, ordering: .relaxed).oldValue
                    if slot >= count { break }
                    let block = base + slot
                    let end = min(devices, (block + 1) * blockSize)
                    for p in 0..<policies {
                        let start = DispatchTime.now().uptimeNanoseconds
                        worker.tallies.removeAll(keepingCapacity: true)
                        results.buffer[slot * policies + p] = runners[p].run(block, worker, loads[w][p])
                        if keeps { tallies[p] = worker.tallies }
                        busy.buffer[w * policies + p] += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                        progress?((end - block * blockSize) * options.days)
                    }
                    if let baseline { comparisons.buffer[slot] = PairedTally.block(tallies, baseline: baseline) }
                    if let joint { jointBlocks.buffer[slot] = JointMoments.block(tallies, quantities: joint) }
                }
            }
            for slot in 0..<count {
                for p in 0..<policies { totals[p].merge(results.buffer[slot * policies + p]!) }
                if let block = comparisons.buffer[slot] { for p in 0..<policies { paired![p].merge(block[p]) } }
                if let block = jointBlocks.buffer[slot] { crossed!.merge(block) }
            }
            results.buffer.deinitialize()
            results.buffer.deallocate()
            comparisons.buffer.deinitialize()
            comparisons.buffer.deallocate()
            jointBlocks.buffer.deinitialize()
            jointBlocks.buffer.deallocate()
            firstBlock += count
        }
        for p in 0..<policies {
            totals[p].finish()
            totals[p].serverLoad = ServerLoad(days: options.days, firstDay: options.warmupDays)
            for counts in loads.map({ $0[p] }) {
                totals[p].serverLoad.add(UnsafeBufferPointer(start: counts.counts, count: counts.minutes))
            }
        }
        let seconds = (0..<policies).map { p in (0..<workers).reduce(0.0) { $0 + busy.buffer[$1 * policies + p] } }
        return FleetRun(results: totals, paired: baseline.map { b in paired!.enumerated().map { $0.offset == b ? nil : $0.element } },
                        busySeconds: seconds, workers: workers, joint: crossed)
    }

    /// One block of devices under policy P on platform F: its result (and each device's
    /// tally in `worker.tallies` when the worker keeps them).
    static func runBlock<P: WakePolicy, F: PlatformRules>(
        _: P.Type, _: F.Type, block: Int, context: DeviceRunContext, options: RunOptions, empty: FleetResult,
        worker: FleetWorker, load: ServerLoadCounts
    ) -> FleetResult {
        var result = empty
        let end = min(options.devices, (block + 1) * blockSize)
        var storage = worker.storage
        for device in (block * blockSize)..<end {
            // An OS-version mix (MODEL.md §4): a device may run as the platform's legacy
            // variant, each still specialised.
            let record = F.runsAsLegacyVariant(scenario: context.scenario, seed: context.seed, device: device)
                ? simulate(P.self, F.LegacyVariant.self, device: device, context: context, queue: worker.queue, storage: storage)
                : simulate(P.self, F.self, device: device, context: context, queue: worker.queue, storage: storage)
            if options.checksInvariants, let broken = DeviceInvariants.violations(record.tally).first {
                fatalError("invariant broken on device \(device) (policy \(P.name), platform \(F.name), seed \(context.seed)): \(broken)")
            }
            result.add(record)
            load.add(record.storage.load)
            storage = record.storage
            if worker.keepsTallies { worker.tallies.append(record.tally) }
        }
        worker.storage = storage
        return result
    }

    /// One device, specialised for its policy and platform: its record.
    @inline(__always)
    static func simulate<P: WakePolicy, F: PlatformRules>(
        _: P.Type, _: F.Type, device: Int, context: DeviceRunContext, queue: EventQueue<SimEvent>, storage: RecorderStorage
    ) -> DeviceRecord {
        var simulation = DeviceSimulation<P, F>(index: device, context: context, queue: queue, storage: storage)
        return simulation.run()
    }
}

/// What a fleet run of several policies returns: one result per policy (in the order
/// given), and with a baseline each other policy's paired comparison with it (nil for the
/// baseline itself).
public struct FleetRun: Sendable {
    public var results: [FleetResult]
    public var paired: [PairedTally?]?
    /// Seconds the workers spent in each policy's blocks, summed over workers.
    public var busySeconds: [Double]
    /// The worker threads started.
    public var workers: Int
    /// The arms' per-device cross moments, when asked for (`simulate(arms:joint:...)`).
    public var joint: JointMoments? = nil
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
    init(days: Int, firstDay: Int, keepsTallies: Bool) {
        storage = RecorderStorage(days: days, firstDay: firstDay)
        self.keepsTallies = keepsTallies
        tallies.reserveCapacity(Fleet.blockSize)
    }
}

/// One policy's block simulation, specialised for its policy and platform types.
struct BlockRunner: Sendable {
    /// A block's result before any device is added.
    let empty: FleetResult
    let run: @Sendable (_ block: Int, _ worker: FleetWorker, _ load: ServerLoadCounts) -> FleetResult
}

/// One fleet simulation waiting for its policy and platform types.
struct FleetJob: Sendable {
    let context: DeviceRunContext
    let options: RunOptions
    let platform: String
}

/// Makes a policy P's block runner once the registry supplies the platform type.
struct PolicyBlocks<P: WakePolicy>: PlatformVisitor {
    let job: FleetJob
    func visit<F: PlatformRules>(_: F.Type) -> BlockRunner {
        let context = job.context, options = job.options
        let empty = FleetResult(scenario: context.scenario, days: options.days, keepDevices: options.keepDevices,
                                replay: context.opensTrace != nil)
        return BlockRunner(empty: empty) { block, worker, load in
            Fleet.runBlock(P.self, F.self, block: block, context: context, options: options, empty: empty,
                           worker: worker, load: load)
        }
    }
}

/// Per-block result slots: each worker writes only the slots of the blocks it claimed,
/// and the merge reads them after all workers have finished.
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
            "arm \(arm)'s scenario differs from arm 0's outside `policies`: expected arms that differ only in policy parameters"
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
