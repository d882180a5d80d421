import Foundation
import Testing
@testable import BGBench
@testable import BGBenchCLI
import BGBenchTestSupport

/// Estimates before a job starts (issue 25 item 3): a job beyond the machine is refused
/// (exit 71) before anything is written, caps are usage errors (exit 64), `--yes` starts
/// anyway and `--estimate` only prints.
@Suite struct JobEstimateTests {
    /// A shape by hand: 1,000 devices × 100 days (10 warm-up) × 1 seed, one pass of 4 arms,
    /// 4 results, 2 workers, no per-device rows.
    static let shape = JobShape(
        devices: 1000, days: 100, countedDays: 90, seeds: 1, passes: [4], results: 4, workers: 2,
        keepDevices: false, traceDevices: 0, shard: false)

    /// The model's sums, written out: 4e5 device-days; memory 30 MB + the pass (4 grids of
    /// 90 × 5,760 B, 4 arms × 2 workers × 100 days × 1,512 B, 2 workers × 100 days × 7,000 B)
    /// + the kept results (4 × 100 × 1,512 B); files 4 × (110 kB + 100 × 140 B).
    @Test func theModelAddsUpByHand() {
        let e = JobEstimate(Self.shape, secondsPerArmDeviceDay: 1e-5)
        #expect(e.deviceDays == 400_000)
        let pass: Double = 4 * 90 * 5760 + 4 * 2 * 100 * 1512 + 2 * 100 * 7000
        let kept: Double = 4 * 100 * 1512
        #expect(e.memoryBytes == 30e6 + pass + kept)
        let files: Double = 4 * (110_000 + 100 * 140)
        #expect(e.outputBytes == files)
        #expect(e.seconds == 400_000 * 1e-5 / 2)
        // A shard keeps its results' per-day server counts for the merge.
        var shard = Self.shape
        shard.shard = true
        let grids: Double = 4 * 90 * 5760
        #expect(JobEstimate(shard).memoryBytes - e.memoryBytes == grids)
    }

    /// A whole run or sweep streams devices.csv and events.csv (RowSpool): their rows cost
    /// disk and a fixed spool, not memory per device or traced device-day, as they do when
    /// kept (a shard's).
    @Test func streamedRowsCostDiskNotMemory() {
        var shape = Self.shape
        shape.keepDevices = true
        shape.traceDevices = 1000
        let none = JobEstimate(Self.shape), kept = JobEstimate(shape)
        shape.streamsRows = true
        let streamed = JobEstimate(shape)
        // Kept: 4 results × (1,000 rows × 2,000 B + 1,000 traced devices × 100 days × 30,000 B).
        let rows: Double = 4 * (1000 * 2000 + 1000 * 100 * 30000)
        #expect(kept.memoryBytes - none.memoryBytes == rows)
        // Streamed: 48 MB + 2 workers × 2 MB, and each worker's chunk of its traced device's
        // events, 2 MB whatever the days.
        let spool: Double = 48e6 + 2 * 2e6 + 2 * 2e6
        #expect(streamed.memoryBytes - none.memoryBytes == spool)
        #expect(streamed.outputBytes == kept.outputBytes)
        // Beside the files while a streamed file is put together: one result's rows.
        let part: Double = 1000 * 300 + 1000 * 100 * 7700
        #expect(streamed.stagingBytes == part)
        #expect(kept.stagingBytes == 0)
    }

    /// The command line's jobs: a whole sweep streams its rows, as a run does, and so does
    /// each of its shards (into its own folder, shard.state recording where each result's
    /// rows are). 2 points × 2 policies (3 arms) over 1,000 devices × 100 days with
    /// `--per-device` and 100 traced devices, 2 workers: the whole sweep costs its passes
    /// and the fixed spool (about 0.1 GB); a shard of two the same, where it kept its 4
    /// results × (512 rows × 2,000 B + 100 traced devices × 100 days × 30,000 B), 1.2 GB.
    @Test func aSweepAndItsShardsStreamTheirRows() throws {
        var common = RunArguments()
        common.options = RunOptions(devices: 1000, days: 100, threads: 2, keepDevices: true, traceDevices: 100)
        func shape() -> JobShape {
            common.job(passes: [3], results: 4, scenario: Scenario(), policies: ["fixed", "adaptive"]).shape
        }
        let whole = shape()
        #expect(whole.streamsRows)
        #expect(JobEstimate(whole).memoryBytes < 0.15e9)
        common.options.shard = try #require(Shard(index: 0, count: 2))
        var shard = shape()
        #expect(shard.streamsRows && shard.devices == 512)
        #expect(JobEstimate(shard).memoryBytes < 0.15e9)
        shard.streamsRows = false
        let kept = JobEstimate(shard).memoryBytes
        shard.streamsRows = true
        // Kept rows in place of the spool (48 MB + 2 workers × (2 MB + 2 MB)).
        let rows: Double = 4 * (512 * 2000 + 100 * 100 * 30000), spool: Double = 48e6 + 2 * 2e6 + 2 * 2e6
        #expect(kept - JobEstimate(shard).memoryBytes == rows - spool)
    }

    /// Traced devices cost time as well: each traced device-day of each result its events'
    /// recording and printing, on top of the simulation, shared by the workers. 4 results ×
    /// 50 traced devices × 100 days at 300 µs, with 4e5 device-days at 10 µs, on 2 workers.
    @Test func tracedDevicesCostTime() {
        var shape = Self.shape
        shape.traceDevices = 50
        let calibration = JobEstimate.Calibration(secondsPerArmDeviceDay: 1e-5, secondsPerTracedDeviceDay: 3e-4)
        // (4e5 × 1e-5 + 4 × 50 × 100 × 3e-4) / 2 = (4 + 6) / 2.
        #expect(abs(JobEstimate(shape, calibration: calibration).seconds! - 5) < 1e-9)
        // More traced devices than the fleet has: the fleet's. (4 + 4 × 1,000 × 100 × 3e-4) / 2.
        shape.traceDevices = 5000
        #expect(abs(JobEstimate(shape, calibration: calibration).seconds! - 62) < 1e-9)
        #expect(abs(JobEstimate(Self.shape, calibration: calibration).seconds! - 2) < 1e-9)
    }

    /// The calibration of a traced job times the tracing: on the default scenario `fixed`
    /// prints about 200 event lines a device-day, which costs more than simulating it
    /// (measured: 25–35 times as much, release build); here only that it costs something and
    /// that an untraced job's calibration charges nothing for it.
    @Test func calibrationTimesTheTracing() throws {
        let plain = try JobEstimate.calibrate(scenario: Scenario(), policies: ["fixed"], seed: 1)
        #expect(plain.secondsPerArmDeviceDay > 0 && plain.secondsPerTracedDeviceDay == 0)
        let traced = try JobEstimate.calibrate(scenario: Scenario(), policies: ["fixed"], seed: 1, traces: true)
        #expect(traced.secondsPerTracedDeviceDay > 0)
    }

    /// The time refusal, with a calibration fixed by hand: 1e8 devices × 36,500 days on 2
    /// workers at 10 µs per device-day is 211 days; the pass holds one grid of 36,500 days
    /// (210 MB), two workers' series (110 MB) and per-day device state (511 MB), the
    /// result its series (55 MB): 917 MB with the 30 MB base.
    @Test func aJobOfMonthsIsRefusedUnlessYes() throws {
        var shape = Self.shape
        shape.devices = 100_000_000
        shape.days = 36500
        shape.countedDays = 36500
        shape.passes = [1]
        shape.results = 1
        let job = ReportPipeline.Job(
            shape: shape, calibrate: { .init(secondsPerArmDeviceDay: 1e-5, secondsPerTracedDeviceDay: 0) })
        var pipeline = ReportPipeline(out: freshPath("never"), force: false, kind: .run)
        #expect(throws: CLIError.self) { try pipeline.admit(job) }
        do { _ = try pipeline.admit(job) } catch let error as CLIError {
            #expect(error.code == 71)
            #expect(
                error.message
                    == "the job (100000000 devices × 36500 days × 1 configuration × 1 seed) would take about 211 days on this machine (docs/limits.md, \"Before a job starts\"): make it smaller, shard it (--shard), or start it anyway with --yes"
            )
        }
        pipeline.yes = true
        let line = try pipeline.admit(job)
        #expect(
            line
                == "estimate: 100000000 devices × 36500 days × 1 configuration × 1 seed = 3.6e12 device-days, about 211 days, memory about 917 MB, files about 5.2 MB\n",
            "\(line)")
    }

    /// The week's boundary is a function of the job's counts and the rate alone (issue 25,
    /// probe 3.24: the refusal flipped with other processes' load when the rate was wall
    /// time). 12,096 devices × 100 days × 1 arm = 1,209,600 device-days on one worker: at
    /// 0.5 s a device-day exactly 604,800 s, a week, which starts; a hair slower does not.
    @Test func theWeekBoundaryIsAFunctionOfCountsAndRate() throws {
        var shape = Self.shape
        shape.devices = 12096
        shape.countedDays = 100
        shape.passes = [1]
        shape.results = 1
        shape.workers = 1
        let week = JobEstimate(shape, secondsPerArmDeviceDay: 0.5)
        #expect(week.seconds == 604_800)
        #expect(ReportPipeline.refusal(week, memory: 1e12, disk: 1e12, out: "o") == nil)
        let over = JobEstimate(shape, secondsPerArmDeviceDay: 0.500_001)
        #expect(
            ReportPipeline.refusal(over, memory: 1e12, disk: 1e12, out: "o")
                == "would take about 7.0 days on this machine")
        // Memory before disk before time, each at its own boundary.
        #expect(
            ReportPipeline.refusal(over, memory: over.memoryBytes - 1, disk: 1e12, out: "o")?.hasPrefix("needs about ")
                == true)
        #expect(ReportPipeline.refusal(week, memory: week.memoryBytes, disk: week.outputBytes, out: "o") == nil)
        #expect(
            ReportPipeline.refusal(week, memory: 1e12, disk: week.outputBytes - 1, out: "o")
                == "writes about 124 kB and 'o' has 124 kB free")
        // Through the pipeline, with the rate injected: the exact line and exit code.
        func job(_ rate: Double) -> ReportPipeline.Job {
            .init(shape: shape, calibrate: { .init(secondsPerArmDeviceDay: rate, secondsPerTracedDeviceDay: 0) })
        }
        let pipeline = ReportPipeline(out: freshPath("never"), force: false, kind: .run)
        #expect(
            try pipeline.admit(job(0.5)).hasPrefix(
                "estimate: 12096 devices × 100 days × 1 configuration × 1 seed = 1.2M device-days, about 7.0 days, "))
        do {
            _ = try pipeline.admit(job(0.500_001))
            Issue.record("a job of more than a week started")
        } catch let error as CLIError {
            #expect(error.code == 71)
            #expect(
                error.message
                    == "the job (12096 devices × 100 days × 1 configuration × 1 seed) would take about 7.0 days on this machine (docs/limits.md, \"Before a job starts\"): make it smaller, shard it (--shard), or start it anyway with --yes"
            )
        }
    }

    /// A sweep's arms from its axes' value counts (SweepPlan.passes) are the plan's from
    /// its loaded points: 2 intervals × 2 platforms × 2 bar-off shares under fixed and
    /// adaptive make 2 groups (the bar-off shares) of 2 × 2 fixed arms and 2 adaptive ones.
    @Test func aSweepsArmsFromItsCounts() throws {
        let axes = [
            SweepAxis(path: "policies.fixed.interval", values: ["2h", "30m"]),
            SweepAxis(path: "platform.name", values: ["ios-bgtask", "android-workmanager"]),
            SweepAxis(path: "population.bar_off_share", values: ["0", "0.5"]),
        ]
        let policies = ["fixed", "adaptive"]
        let overrides = Command.grid(axes).map { point in zip(axes, point).map { "\($0.path)=\($1)" } }
        let plan = try SweepPlan(points: SweepPlanTests.points(overrides, policies: policies))
        #expect(plan.passes == [6, 6])
        #expect(SweepPlan.passes(axes: axes, policies: policies) == plan.passes)
        // A policy no axis configures is one arm per platform.
        #expect(SweepPlan.passes(axes: axes, policies: ["adaptive"]) == [2, 2])
    }

    /// Issue 25's probe 3.10: `--estimate` of a sweep of 10⁶ points (100 intervals × 100
    /// daily weights × 100 heavy weights, `--yes` past the 10,000-point cap) neither
    /// printed nor stopped in 180 s, as it loaded and planned every point. From the counts:
    /// 10⁴ groups (the weights) of 100 arms (the intervals), 10 devices × 2 days: 2e7
    /// device-days; memory 30 MB + one pass (100 arms × 2 days × 5,760 B + 100 arms × 1
    /// worker × 2 days × 1,512 B + 2 days × 7,000 B) + 10⁶ results × 2 days × 1,512 B +
    /// 10⁶ points × 35,000 B + 10⁶ results × 400,000 B (each point and its result's report
    /// held to the end, measured; 3.1 GB before they were counted) = 438.06 GB;
    /// files 10⁶ × (110 kB + 2 × 140 B) = 110 GB.
    @Test func aMillionPointSweepIsEstimatedFromItsCounts() throws {
        let hundred = (1...100).map(String.init)
        let axes = [
            SweepAxis(path: "policies.fixed.interval", values: hundred.map { $0 + "m" }),
            SweepAxis(path: "population.archetypes.daily.weight", values: hundred),
            SweepAxis(path: "population.archetypes.heavy.weight", values: hundred),
        ]
        let passes = SweepPlan.passes(axes: axes, policies: ["fixed"])
        #expect(passes.count == 10_000 && Set(passes) == [100])
        var shape = JobShape(
            devices: 10, days: 2, countedDays: 2, seeds: 1, passes: passes, results: 1_000_000, workers: 1,
            keepDevices: false, traceDevices: 0, shard: false)
        shape.points = 1_000_000
        let e = JobEstimate(shape)
        #expect(e.deviceDays == 2e7)
        let pass: Double = 100 * 2 * 5760 + 100 * 1 * 2 * 1512 + 2 * 7000
        #expect(e.memoryBytes == 30e6 + pass + 1e6 * 2 * 1512 + 1e6 * 35000 + 1e6 * 400_000)
        #expect(e.memoryBytes == 438_055_468_400)
        #expect(e.outputBytes == 1e6 * (110_000 + 2 * 140))
        let r = bgbench(
            [
                "sweep", "--policy", "fixed", "--devices", "10", "--days", "2", "--estimate", "--yes", "--out",
                freshPath("never"),
            ]
                + axes.flatMap { ["--set", "\($0.path)=\($0.values.joined(separator: ","))"] })
        #expect(r.code == 0, "\(r.errors)")
        #expect(
            r.output.hasPrefix(
                "estimate: 10 devices × 2 days × 1000000 configurations × 1 seed = 20M device-days, about "),
            "\(r.output)")
        #expect(r.output.hasSuffix(", memory about 438 GB, files about 110 GB\n"), "\(r.output)")
    }

    /// A sweep holds every point (35,000 B) and each of its results' reports (400,000 B) to
    /// the end (JobEstimate.pointBytes and sweepResultBytes, fitted to sweeps of 20 to
    /// 2,000 points on 1 device × 1 day under one and two policies). The shape by hand as a
    /// sweep of 2,000 points under 2 policies (4,000 results): 30 MB + the pass + 4,000
    /// results × 100 days × 1,512 B + 2,000 × 35,000 B + 4,000 × 400,000 B; the same
    /// results counted as a run's (no points) are without the last two.
    @Test func aSweepsPointsAreCounted() {
        var shape = Self.shape
        shape.results = 4000
        let run = JobEstimate(shape)
        shape.points = 2000
        let sweep = JobEstimate(shape)
        let pass: Double = 4 * 90 * 5760 + 4 * 2 * 100 * 1512 + 2 * 100 * 7000
        let kept: Double = 4000 * 100 * 1512
        #expect(run.memoryBytes == 30e6 + pass + kept)
        #expect(sweep.memoryBytes == 30e6 + pass + kept + 2000 * 35000 + 4000 * 400_000)
        #expect(sweep.memoryBytes - run.memoryBytes == 1_670_000_000)
    }

    /// A started sweep (not `--estimate`) is estimated from its axes' value counts and
    /// refused before its points are loaded and planned: its second point's interval does
    /// not load (a usage error, exit 64, when the sweep is small enough to plan), yet 10⁸
    /// devices × 36,500 days on one worker are refused first, exit 71, the one line naming
    /// the job, and nothing is written. Before, every point was loaded and planned first
    /// (minutes of silence for 10⁶ points, issue 25's probe 3.10), so this sweep was the
    /// usage error.
    @Test func aStartedSweepIsRefusedBeforeItsPointsArePlanned() {
        let out = freshPath("sweep-refused")
        let axis = ["--set", "policies.fixed.interval=1h,bogus"]
        let small = bgbench(["sweep", "--policy", "fixed", "--devices", "10", "--days", "2", "--out", out] + axis)
        #expect(small.code == 64, "\(small.errors)")
        #expect(
            small.errors.hasPrefix(
                "error: --set policies.fixed.interval: expected a duration such as 90, \"90s\", \"15m\", \"2h\" or \"1d\"\n"
            ), "\(small.errors)")
        #expect(!FileManager.default.fileExists(atPath: out))
        let huge = bgbench(
            ["sweep", "--policy", "fixed", "--devices", "100000000", "--days", "36500", "--threads", "1", "--out", out]
                + axis)
        #expect(huge.code == 71, "\(huge.errors)")
        #expect(
            huge.errors.hasPrefix(
                "error: the job (100000000 devices × 36500 days × 2 configurations × 1 seed) would take about "),
            "\(huge.errors)")
        #expect(
            huge.errors.hasSuffix(
                " days on this machine (docs/limits.md, \"Before a job starts\"): make it smaller, shard it (--shard), or start it anyway with --yes\n"
            ), "\(huge.errors)")
        #expect(huge.errors.filter { $0 == "\n" }.count == 1 && huge.output.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// From the command line: refused before the folder exists; memory before time.
    @Test func refusalsFromTheCommandLine() {
        let out = freshPath("huge")
        let time = bgbench(["--devices", "100000000", "--days", "36500", "--out", out])
        #expect(time.code == 71)
        let line = time.errors.split(separator: "\n").first.map(String.init) ?? ""
        #expect(
            line.hasPrefix(
                "error: the job (100000000 devices × 36500 days × 1 configuration × 1 seed) would take about "))
        #expect(
            line.hasSuffix(
                " days on this machine (docs/limits.md, \"Before a job starts\"): make it smaller, shard it (--shard), or start it anyway with --yes"
            ))
        #expect(!FileManager.default.fileExists(atPath: out))
        // 1,000 traced devices over 36,500 days under 12 policies, 1,000 seeds: petabytes.
        let memory = bgbench([
            "--devices", "1000", "--days", "36500", "--policy", "all", "--trace-devices", "1000", "--replications",
            "1000", "--out", out,
        ])
        #expect(memory.code == 71)
        #expect(memory.errors.contains(" of memory and this machine has "), "\(memory.errors)")
        #expect(!FileManager.default.fileExists(atPath: out))
        // Under two policies and one seed the traced events are streamed, so memory is no
        // longer what stops the job: their 562 GB on disk is.
        let disk = bgbench([
            "--devices", "1000", "--days", "36500", "--policy", "fixed,adaptive", "--trace-devices", "1000", "--out",
            out,
        ])
        #expect(disk.code == 71)
        #expect(disk.errors.contains(" writes about 562 GB and '\(out)' has "), "\(disk.errors)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func estimateOnlyPrintsAndWritesNothing() throws {
        let out = freshPath("estimate-only")
        let r = bgbench(["--devices", "10", "--days", "3", "--policy", "fixed,none", "--estimate", "--out", out])
        #expect(r.code == 0, "\(r.errors)")
        let line = r.output.split(separator: "\n").map(String.init)
        #expect(line.count == 1)
        #expect(line[0].hasPrefix("estimate: 10 devices × 3 days × 2 configurations × 1 seed = 60 device-days, about "))
        #expect(line[0].hasSuffix(", memory about 30 MB, files about 221 kB"))
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// Caps on what a user can make large by typing: sweep points, knob values, arms.
    @Test func capsAreUsageErrors() {
        let hundred = (1...100).map { "\($0)m" }.joined(separator: ",")
        let sweep = bgbench([
            "sweep", "--set", "policies.fixed.interval=" + hundred, "--set",
            "platform.ios_bgtask.budget_cap=" + (0...100).map(String.init).joined(separator: ","),
            "--out", freshPath("never"),
        ])
        #expect(sweep.code == 64)
        #expect(
            sweep.errors.split(separator: "\n").first
                == "error: the sweep has 10100 points (the product of its axes' value counts), more than the 10000 a sweep takes without --yes (docs/limits.md, \"Caps\")"
        )
        let knob = (1...201).map { "\($0)m" }.joined(separator: ",")
        let frontier = bgbench([
            "frontier", "--policy", "fixed", "--knob", "fixed=" + knob, "--out", freshPath("never"),
        ])
        #expect(frontier.code == 64)
        #expect(
            frontier.errors.split(separator: "\n").first
                == "error: invalid value 'fixed=1m,2m,3m,4m,5m,… (201 values)' for '--knob': 201 values, more than the 200 a knob takes without --yes (docs/limits.md, \"Caps\")"
        )
        // Issue 25's probe 3.12: 5,000 values were refused after 60 s, the line quoting all
        // of them; refused on their count at once, five of them quoted.
        let many = (1...5000).map { "\($0)s" }.joined(separator: ",")
        let start = Date()
        let huge = bgbench([
            "frontier", "--policy", "fixed,adaptive", "--knob", "fixed=" + many, "--out", freshPath("never"),
        ])
        #expect(huge.code == 64)
        #expect(
            huge.errors
                == "error: invalid value 'fixed=1s,2s,3s,4s,5s,… (5000 values)' for '--knob': 5000 values, more than the 200 a knob takes without --yes (docs/limits.md, \"Caps\")\nsee 'bgbench --help'\n"
        )
        #expect(Date().timeIntervalSince(start) < 5, "took long")
    }
}
