import BGBench
import Foundation

/// The one way a command writes a report folder (`run`, `sweep`, `frontier`, `merge`):
/// the output is checked, locked and staged before any work (``FolderTransaction``,
/// ``OutputGuard``); the work runs with the progress line; its files are written into the
/// staging folder and swapped into place; then the terminal gets the shard line (for one
/// shard of a run), the command's own text and the `reports:` line, which lists the files
/// written. Nothing is printed, and nothing is in place, unless every file was written.
struct ReportPipeline {
    /// `--out` as typed.
    var out: String
    var force: Bool
    /// The kind of report the command writes: it replaces only its own kind.
    var kind: ReportKind
    /// What the command reads: never an output.
    var inputs: [OutputGuard.Input] = []
    /// Device-days of work the command will report as progress (nil: no progress line).
    var progressTotal: Int? = nil
    var quiet = false
    /// The shard a command runs (`--shard K/N`) and the whole fleet's devices, for the
    /// shard line a cluster's task log keeps.
    var shard: (shard: Shard, devices: Int)? = nil
    /// The job, estimated before anything is staged (nil: nothing to estimate).
    var job: Job? = nil
    /// `--yes`: start even a job beyond the machine.
    var yes = false
    /// `--estimate`: print the estimate and stop.
    var estimateOnly = false

    /// A job that simulates: its shape and how to time this machine on it.
    struct Job {
        var shape: JobShape
        var calibrate: () throws -> JobEstimate.Calibration
    }

    /// Jobs from this many simulated device-days on are timed and, on a terminal, shown.
    static let shownFrom = 1e6
    /// The longest job started without `--yes`: a week on this machine.
    static let longestSeconds = 7 * 86_400.0

    /// What the work produced.
    struct Product {
        /// Every file of the folder as (name, text), in writing order, run.json last.
        var files: [(String, String)]
        /// The command's text for the terminal (a summary table).
        var text: String
        /// Wall seconds and device-days simulated, for the shard line.
        var seconds: Double = 0
        var deviceDays: Int = 0
        /// Every file's name in writing order when the work wrote some into the staging
        /// folder itself (a run's streamed devices.csv and events.csv); nil: `files`' names.
        var names: [String]? = nil
    }

    /// The staging folder, for work that writes files into it as it goes (``RowSpool``):
    /// its path, and the lock a file's creation takes so that a signal never races it.
    struct Staging {
        var path: String
        /// The folder it will be put in place of, for messages.
        var target: String
        let critical: @Sendable (() throws -> Void) throws -> Void = { body in
            try Interruption.critical { _ in try body() }
        }
    }

    /// Checks and stages the folder, runs `work` (given the progress callback), writes and
    /// swaps in its files, and prints what was written.
    func run<Out: TextOutputStream>(
        output: inout Out,
        _ work: (_ progress: (@Sendable (Int) -> Void)?) throws -> Product
    ) throws {
        try run(output: &output) { progress, _ in try work(progress) }
    }

    /// The same for work that writes files into the staging folder as it goes.
    func run<Out: TextOutputStream>(
        output: inout Out,
        _ work: (_ progress: (@Sendable (Int) -> Void)?, _ staging: Staging) throws -> Product
    ) throws {
        // The output first (a folder that cannot be written is exit 73 whatever the job),
        // then the estimate: a refusal leaves nothing, as the staging folder is dropped.
        if estimateOnly, let job { return output.write(try admit(job)) }
        let folder = try FolderTransaction(out: out, force: force, scope: .report(kind), inputs: inputs)
        if let job {
            let line = try admit(job)
            if line.hasPrefix("estimate"), !quiet, isatty(2) != 0 {
                var errors = StandardStream.error
                errors.write(line)
            }
        }
        let progress = progressTotal.flatMap { ProgressLine.make(total: $0, quiet: quiet) }
        var advance: (@Sendable (Int) -> Void)?
        if let progress { advance = { progress.advance($0) } }
        let product = try work(advance, Staging(path: folder.staging, target: folder.target))
        progress?.finish()
        try folder.write(product.files)
        try folder.commit()
        if let shard {
            output.write(
                Command.shardLine(
                    shard.shard, devices: shard.devices, seconds: product.seconds,
                    deviceDays: product.deviceDays))
        }
        output.write(product.text)
        output.write(Self.reportsLine(out, files: product.names ?? product.files.map(\.0)))
    }

    /// Estimates the job (docs/limits.md, "Before a job starts"): a large one is timed on
    /// this machine and shown on a terminal; one that needs more memory, disk or time
    /// than the machine has is refused (exit 71) unless `--yes`.
    /// Returns the estimate's line ("estimate: ..."; empty for a small job unless
    /// `--estimate` asks).
    func admit(_ job: Job) throws -> String {
        let large = job.shape.deviceDays >= Self.shownFrom || estimateOnly
        let estimate = JobEstimate(job.shape, calibration: large ? try job.calibrate() : nil)
        let memory = JobEstimate.availableMemory, disk = JobEstimate.availableDisk(at: out)
        func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
        let what = [
            count(job.shape.devices, "device"), count(job.shape.days, "day"),
            count(job.shape.passes.reduce(0, +), "configuration"), count(job.shape.seeds, "seed"),
        ].joined(separator: " × ")
        if !yes && !estimateOnly, let refusal = Self.refusal(estimate, memory: memory, disk: disk, out: out) {
            throw CLIError(
                message:
                    "the job (\(what)) \(refusal) (docs/limits.md, \"Before a job starts\"): make it smaller, shard it "
                    + "(--shard), or start it anyway with --yes",
                code: 71, hint: false)
        }
        guard large else { return "" }
        let deviceDays =
            estimate.deviceDays < 1e6
            ? String(Int(estimate.deviceDays))
            : estimate.deviceDays < 1e9
                ? JobEstimate.twoDigits(estimate.deviceDays / 1e6) + "M"
                : String(format: "%.1e", estimate.deviceDays).replacingOccurrences(of: "e+", with: "e")
        var line = "estimate: \(what) = \(deviceDays) device-days"
        if let seconds = estimate.seconds { line += ", about \(JobEstimate.duration(seconds))" }
        line +=
            ", memory about \(JobEstimate.bytes(estimate.memoryBytes)), files about \(JobEstimate.bytes(estimate.outputBytes))\n"
        return line
    }

    /// What the machine lacks for a job estimated as `estimate`, given the `memory` it has
    /// available and the `disk` free at `out`: memory first, then disk, then time (more
    /// than ``longestSeconds``); nil when it has enough. A function of these alone: the
    /// time is the estimate's, from a rate in CPU time (``JobEstimate/calibrate``), so the
    /// decision does not move with other processes' load.
    static func refusal(_ estimate: JobEstimate, memory: Double, disk: Double?, out: String) -> String? {
        if estimate.memoryBytes > memory {
            return "needs about \(JobEstimate.bytes(estimate.memoryBytes)) of memory and this machine has "
                + "\(JobEstimate.bytes(memory)) available"
        }
        if let disk, estimate.outputBytes + estimate.stagingBytes > disk {
            return
                "writes about \(JobEstimate.bytes(estimate.outputBytes)) and '\(out)' has \(JobEstimate.bytes(disk)) free"
        }
        if let seconds = estimate.seconds, seconds > Self.longestSeconds {
            return "would take about \(JobEstimate.duration(seconds)) on this machine"
        }
        return nil
    }

    /// `reports: OUT/ (a.csv, b.csv, ..., run.json)`: the files written, in writing order,
    /// a run of numbered files (`scenario-1.json` to `scenario-9.json`) as its first and last.
    static func reportsLine(_ out: String, files: [String]) -> String {
        var shown: [String] = []
        var i = 0
        while i < files.count {
            let stem = numberedStem(files[i])
            var j = i
            while stem != nil, j + 1 < files.count, numberedStem(files[j + 1]) == stem { j += 1 }
            shown.append(j > i + 1 ? "\(files[i]) … \(files[j])" : files[i...j].joined(separator: ", "))
            i = j + 1
        }
        return "reports: \(out)/ (\(shown.joined(separator: ", ")))\n"
    }

    /// `scenario-12.json` → `scenario-.json`; nil for a name without a number before its
    /// extension.
    private static func numberedStem(_ name: String) -> String? {
        guard let dash = name.lastIndex(of: "-"), let dot = name.lastIndex(of: "."), dash < dot,
            Int(name[name.index(after: dash)..<dot]) != nil
        else { return nil }
        return String(name[...dash]) + String(name[dot...])
    }
}

extension Command {
    /// A shard's first line (a cluster's task log keeps it): "shard K/N (devices A–B of D): S s, R device-days/s".
    static func shardLine(_ shard: Shard, devices fleet: Int, seconds: Double, deviceDays: Int) -> String {
        let devices = shard.devices(of: fleet)
        let span = devices.isEmpty ? "no devices" : "devices \(devices.lowerBound)–\(devices.upperBound - 1)"
        return
            "shard \(shard) (\(span) of \(fleet)): \(SummaryTable.fixed(seconds, 2)) s, \(SummaryTable.fixed((Double(deviceDays) / max(seconds, 1e-9)).rounded(.down), 0)) device-days/s\n"
    }
}
