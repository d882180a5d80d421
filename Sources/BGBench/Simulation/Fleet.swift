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
        if let trace = options.opensTrace, trace.deviceCount != options.devices {
            throw SimulationError.traceDevices(trace: trace.deviceCount, devices: options.devices)
        }
        let context = DeviceRunContext(
            scenario: scenario, seed: options.seed, horizon: SimTime(options.days) * Clock.day,
            countFrom: SimTime(options.warmupDays) * Clock.day, feed: feed, traceDevices: options.traceDevices,
            opensTrace: options.opensTrace)
        let job = FleetJob(context: context, options: options, progress: progress, platform: scenario.platform.name)
        guard let result = policy.simulate(job) else { throw SimulationError.unknownPlatform(scenario.platform.name) }
        return result
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

    static func runSpecialised<P: WakePolicy, F: PlatformRules>(
        _: P.Type, _: F.Type, context: DeviceRunContext, options: RunOptions,
        progress: (@Sendable (Int) -> Void)?
    ) -> FleetResult {
        let devices = options.devices
        let blocks = (devices + blockSize - 1) / blockSize
        let threads = options.resolvedThreads
        let empty = FleetResult(scenario: context.scenario, days: options.days, keepDevices: options.keepDevices,
                                replay: context.opensTrace != nil)
        var total = empty
        var firstBlock = 0
        // Server load per worker (integer counts: merging in any order gives the same).
        let workers = Fleet.workers(threads: threads, devices: devices)
        let loads = (0..<workers).map { _ in ServerLoadCounts(days: options.days, firstDay: options.warmupDays) }
        while firstBlock < blocks {
            let count = min(wave, blocks - firstBlock)
            let results = Slots(UnsafeMutableBufferPointer<FleetResult?>.allocate(capacity: count))
            results.buffer.initialize(repeating: nil)
            let next = Atomic<Int>(0)
            let base = firstBlock
            DispatchQueue.concurrentPerform(iterations: min(threads, count)) { worker in
                let queue = EventQueue<SimEvent>()
                let load = loads[worker]
                var storage = RecorderStorage(days: options.days, firstDay: options.warmupDays)
                defer { storage.release() }
                while true {
                    let slot = next.add(1, ordering: .relaxed).oldValue
                    if slot >= count { break }
                    let block = base + slot
                    var result = empty
                    let end = min(devices, (block + 1) * blockSize)
                    for device in (block * blockSize)..<end {
                        // An OS-version mix (MODEL.md §4): a device may run as the
                        // platform's legacy variant, each still specialised.
                        let record = F.runsAsLegacyVariant(scenario: context.scenario, seed: context.seed, device: device)
                            ? simulate(P.self, F.LegacyVariant.self, device: device, context: context, queue: queue, storage: storage)
                            : simulate(P.self, F.self, device: device, context: context, queue: queue, storage: storage)
                        result.add(record)
                        load.add(record.storage.load)
                        storage = record.storage
                    }
                    results.buffer[slot] = result
                    progress?((end - block * blockSize) * options.days)
                }
            }
            for slot in 0..<count { total.merge(results.buffer[slot]!) }
            results.buffer.deinitialize()
            results.buffer.deallocate()
            firstBlock += count
        }
        total.finish()
        total.serverLoad = ServerLoad(days: options.days, firstDay: options.warmupDays)
        for counts in loads { total.serverLoad.add(UnsafeBufferPointer(start: counts.counts, count: counts.minutes)) }
        return total
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

/// One fleet simulation waiting for its policy and platform types.
struct FleetJob: Sendable {
    let context: DeviceRunContext
    let options: RunOptions
    let progress: (@Sendable (Int) -> Void)?
    let platform: String
}

/// Runs a job for policy P once the registry supplies the platform type.
struct PolicyFleet<P: WakePolicy>: PlatformVisitor {
    let job: FleetJob
    func visit<F: PlatformRules>(_: F.Type) -> FleetResult {
        Fleet.runSpecialised(P.self, F.self, context: job.context, options: job.options, progress: job.progress)
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
    public var description: String {
        switch self {
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
