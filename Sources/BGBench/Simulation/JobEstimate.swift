import Foundation

/// The shape of a job that simulates (`run`, `sweep`, `frontier`), as far as its cost
/// goes: what ``JobEstimate`` reads before the job starts.
public struct JobShape: Sendable {
    /// The devices this process simulates (a shard's part of the fleet).
    public var devices: Int
    public var days: Int
    /// Days that count toward metrics (after the warm-up).
    public var countedDays: Int
    public var seeds: Int
    /// The arms of each fleet pass (a pass runs its arms side by side; passes run one
    /// after another, once per seed): a run's policies; a sweep's groups; a frontier's arms.
    public var passes: [Int]
    /// The results kept to the end, per seed (a run's policies; a sweep's points × policies;
    /// a frontier's arms): what the report files are written from.
    public var results: Int
    /// Worker threads.
    public var workers: Int
    public var keepDevices: Bool
    public var traceDevices: Int
    /// A shard keeps each result's per-day server counts for its merge.
    public var shard: Bool
    /// devices.csv and events.csv are written as the devices finish (a whole run's or
    /// sweep's, ``RowSpool``) rather than kept to the end (a shard's).
    public var streamsRows = false
    /// A sweep's points (0 for a run or a frontier): each one's scenario, loaded and
    /// checked, its request and its results' reports, held from planning to the end.
    public var points = 0

    public init(
        devices: Int, days: Int, countedDays: Int, seeds: Int, passes: [Int], results: Int, workers: Int,
        keepDevices: Bool, traceDevices: Int, shard: Bool
    ) {
        self.devices = devices; self.days = days; self.countedDays = countedDays; self.seeds = seeds
        self.passes = passes; self.results = results; self.workers = workers; self.keepDevices = keepDevices
        self.traceDevices = traceDevices; self.shard = shard
    }

    /// Device-days simulated: every arm of every pass over the devices, days and seeds.
    public var deviceDays: Double {
        Double(passes.reduce(0, +)) * Double(devices) * Double(days) * Double(seeds)
    }
}

/// What a job will cost, estimated before it starts (docs/limits.md, "Memory" and "Before a
/// job starts"): its peak memory and the size of its report files from a model whose
/// coefficients were measured (each one below, with what it counts), and its wall time
/// from a calibration on this machine. Large jobs print it; jobs beyond the machine are
/// refused unless `--yes`.
public struct JobEstimate: Sendable {
    public var deviceDays: Double
    public var memoryBytes: Double
    public var outputBytes: Double
    /// Disk used beside the files while they are written: a streamed file's last part
    /// (one result's rows) until it is appended (``RowSpool/finish()``).
    public var stagingBytes: Double = 0
    /// nil without a calibration.
    public var seconds: Double?

    /// The memory of the process before the job: the binary, the runtime, GSL, the scenario.
    static let baseBytes = 30e6
    /// Per arm of a pass and counted day: its server-load grid (1440 minutes × 4 bytes),
    /// alive while the pass runs.
    static let gridBytesPerArmDay = 5760.0
    /// Per arm and day, per worker: the daily series' exact sums (9 fields × 3 sums × 56
    /// bytes), the workers' totals while the pass runs and the results' after.
    static let seriesBytesPerArmDay = 1512.0
    /// Per worker and day: a device's own per-day rows, request log and what else a device
    /// keeps per day (fitted: 1 device × 3,650 days under 1 and 12 policies).
    static let deviceBytesPerDay = 7000.0
    /// Per kept result and device (`--per-device`): its row in memory and its devices.csv
    /// line (measured: 1,000 devices × 30 days × 12 policies: 1,800 bytes, rounded up).
    static let deviceRowBytes = 2000.0
    /// Per traced device-day: its event rows in memory and their events.csv lines
    /// (measured: 1,000 traced devices × 365 days under `fixed` and `adaptive`, 22 GB),
    /// when they are kept to the end.
    static let tracedBytesPerDeviceDay = 30_000.0
    /// Streamed rows (``RowSpool``): the ended segments held waiting for their turn (its
    /// 16 MB `pendingBytes`, in arrays that grow by doubling, and what the allocator keeps
    /// of them: fitted between the 70 MB and 135 MB peaks of docs/limits.md's streamed
    /// runs) and each worker's two buffers of `flushBytes`.
    static let spoolBytes = 48e6
    static let spoolBytesPerWorker = 2e6
    /// Per worker with traced devices, streamed: the traced device a worker is simulating
    /// holds at most a chunk of its event rows (``RowSpool``'s `traceChunkRows`, 4,096) and
    /// their text before handing them over, whatever its days (about 100 bytes a row and
    /// 80 of text, with the arrays' growth, rounded up).
    static let tracedBytesPerWorker = 2e6
    /// Per point of a sweep: its scenario, loaded and checked, its request and its place in
    /// the plan, held from planning to the end; and per result of a sweep (a point's policy
    /// and seed), what else it holds beyond its daily series (its report, the files' text:
    /// the peak, not broken down). Fitted together (least squares, release build) to the peaks
    /// of sweeps of 20 to 2,000 points on 1 device × 1 day under one and two policies:
    /// 35 kB and 399 kB (docs/limits.md, "Memory"). A run's few results and their reports
    /// are within `baseBytes`.
    static let pointBytes = 35_000.0
    static let sweepResultBytes = 400_000.0
    /// Report file bytes per result and day (daily.csv and its share of the rest), per
    /// result (server.csv's 1440 lines, hourly.csv, summary.csv), per devices.csv line and
    /// per traced device-day (events.csv).
    static let outputBytesPerResultDay = 140.0
    static let outputBytesPerResult = 110_000.0
    static let outputBytesPerDeviceRow = 300.0
    static let outputBytesPerTracedDeviceDay = 7700.0

    /// The estimate of `shape`; the ``Calibration`` (``calibrate``) gives the time.
    public init(_ shape: JobShape, calibration: Calibration?) {
        self.init(
            shape, secondsPerArmDeviceDay: calibration?.secondsPerArmDeviceDay,
            secondsPerTracedDeviceDay: calibration?.secondsPerTracedDeviceDay ?? 0)
    }

    /// The estimate of `shape`: an arm-device-day takes `secondsPerArmDeviceDay` on one
    /// worker, and a traced device-day of a result `secondsPerTracedDeviceDay` more (its
    /// events recorded and printed as events.csv lines).
    public init(_ shape: JobShape, secondsPerArmDeviceDay: Double? = nil, secondsPerTracedDeviceDay: Double = 0) {
        let days = Double(shape.days), counted = Double(shape.countedDays), seeds = Double(shape.seeds)
        let workers = Double(max(1, shape.workers)), results = Double(shape.results) * seeds
        deviceDays = shape.deviceDays
        let traced = Double(min(shape.traceDevices, shape.devices)) * days
        outputBytes =
            results
            * (Self.outputBytesPerResult + Self.outputBytesPerResultDay * days
                + (shape.keepDevices ? Self.outputBytesPerDeviceRow * Double(shape.devices) : 0)
                + Self.outputBytesPerTracedDeviceDay * traced)
        let widest = Double(shape.passes.max() ?? 0)
        let pass =
            widest * counted * Self.gridBytesPerArmDay + widest * workers * days * Self.seriesBytesPerArmDay
            + workers * days * Self.deviceBytesPerDay
        let rows =
            shape.streamsRows
            ? 0
            : (shape.keepDevices ? Self.deviceRowBytes * Double(shape.devices) : 0) + Self.tracedBytesPerDeviceDay
                * traced
        let kept =
            results
            * (days * Self.seriesBytesPerArmDay + (shape.shard ? counted * Self.gridBytesPerArmDay : 0) + rows)
        // Streamed rows cost a fixed spool and, while a traced device runs, its own rows.
        let spool =
            shape.streamsRows && (shape.keepDevices || traced > 0)
            ? Self.spoolBytes + workers * Self.spoolBytesPerWorker
                + (traced > 0 ? workers * Self.tracedBytesPerWorker : 0) : 0
        // A sweep holds every point and its results' reports to the end.
        let points =
            shape.points > 0 ? Double(shape.points) * Self.pointBytes + results * Self.sweepResultBytes : 0
        memoryBytes = Self.baseBytes + pass + kept + spool + points
        // While a streamed file is put together, the last result's part is still on disk beside it.
        stagingBytes =
            shape.streamsRows && results > 1
            ? (shape.keepDevices ? Self.outputBytesPerDeviceRow * Double(shape.devices) : 0)
                + Self.outputBytesPerTracedDeviceDay * traced : 0
        let tracedDeviceDays = results * traced
        seconds = secondsPerArmDeviceDay.map {
            (deviceDays * $0 + tracedDeviceDays * secondsPerTracedDeviceDay) / workers
        }
    }

    /// This machine's speed for a job: seconds per arm-device-day, and per traced
    /// device-day on top of it (0 when the job traces no device).
    public struct Calibration: Sendable {
        public var secondsPerArmDeviceDay: Double
        public var secondsPerTracedDeviceDay: Double
    }

    /// This machine's speed for `policies` on `scenario`: each policy simulated alone on a
    /// small fleet (64 devices, 7 days, the job's seed), timed, and averaged over the
    /// policies. About 3,000 device-days: a few tenths of a second. Timed in the CPU time
    /// of this process and its children (an external policy's), not on the wall clock:
    /// what other processes on the machine take from it does not change the rate, so the
    /// refusal of a job beyond a week does not flip with the machine's load (issue 25,
    /// probe 3.24). The estimate then assumes the job's workers each get a core of their
    /// own (docs/limits.md, "Before a job starts"). When the job traces
    /// devices (`traces`), the same fleet again with every device traced and its events
    /// printed as events.csv lines: the difference is the traced device-day's cost, which
    /// grows with the policy's events (`fixed` on the default scenario: about 200 lines a
    /// device-day, 30 times its untraced cost; docs/limits.md, "Before a job starts").
    public static func calibrate(scenario: Scenario, policies: [String], seed: UInt64, traces: Bool = false) throws
        -> Calibration
    {
        var options = RunOptions(devices: 64, days: 7, seed: seed, threads: 1)
        options.warmupDays = 0
        let feed = Runner.feed(scenario, days: options.days, seed: seed)
        let entries = try policies.map { name in
            guard let policy = PolicyRegistry.named(name) else { throw RunError.unknownPolicy(name) }
            return policy
        }
        let deviceDays = Double(max(1, entries.count) * options.devices * options.days)
        var start = cpuSeconds()
        for policy in entries {
            _ = try Fleet.simulate(scenario: scenario, policy: policy, options: options, feed: feed)
        }
        let plain = (cpuSeconds() - start) / deviceDays
        guard traces else { return Calibration(secondsPerArmDeviceDay: plain, secondsPerTracedDeviceDay: 0) }
        options.traceDevices = options.devices
        start = cpuSeconds()
        for policy in entries {
            let result = try Fleet.simulate(scenario: scenario, policy: policy, options: options, feed: feed)
            var bytes: [UInt8] = []
            SeriesReports.appendEvents(result.trace, labels: [scenario.name, policy.name, "1"], to: &bytes)
            withExtendedLifetime(bytes) {}
        }
        let traced = (cpuSeconds() - start) / deviceDays
        return Calibration(secondsPerArmDeviceDay: plain, secondsPerTracedDeviceDay: max(0, traced - plain))
    }

    /// CPU seconds (user and system) used so far by this process and by its children that
    /// have ended (an external policy's process, ended with its fleet).
    static func cpuSeconds() -> Double {
        func seconds(_ who: __rusage_who_t) -> Double {
            var usage = rusage()
            guard getrusage(who, &usage) == 0 else { return 0 }
            return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
                + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        }
        return seconds(RUSAGE_SELF.rawValue) + seconds(RUSAGE_CHILDREN.rawValue)
    }

    /// The memory this machine has for a job: /proc/meminfo's MemAvailable, else the
    /// physical memory.
    public static var availableMemory: Double {
        if let text = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("MemAvailable:") }),
            let kb = Double(line.split(separator: " ").dropFirst().first ?? "")
        {
            return kb * 1024
        }
        return Double(ProcessInfo.processInfo.physicalMemory)
    }

    /// Free bytes on the file system that holds `path` (or its nearest existing ancestor);
    /// nil when it cannot be read.
    public static func availableDisk(at path: String) -> Double? {
        var folder = URL(fileURLWithPath: path).standardizedFileURL
        while !FileManager.default.fileExists(atPath: folder.path), folder.path != "/" {
            folder.deleteLastPathComponent()
        }
        guard let attributes = try? FileManager.default.attributesOfFileSystem(forPath: folder.path),
            let free = attributes[.systemFreeSize] as? NSNumber
        else { return nil }
        return free.doubleValue
    }

    /// "1.2 GB", "340 MB", "12 kB": decimal units, two significant digits.
    public static func bytes(_ b: Double) -> String {
        let units = [(1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB")]
        for (size, unit) in units where b >= size { return Self.twoDigits(b / size) + " " + unit }
        return "\(Int(b)) B"
    }

    /// "4.2 s", "13 min", "2.5 h", "286 days".
    public static func duration(_ s: Double) -> String {
        if s < 60 { return twoDigits(s) + " s" }
        if s < 3600 { return twoDigits(s / 60) + " min" }
        if s < 86_400 { return twoDigits(s / 3600) + " h" }
        return twoDigits(s / 86_400) + " days"
    }

    public static func twoDigits(_ x: Double) -> String {
        x >= 10 ? String(Int(x.rounded())) : String(format: "%.1f", x)
    }
}
