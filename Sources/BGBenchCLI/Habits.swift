import BGBench
import Foundation

/// `bgbench habits [--devices N] [--days D] [--seed S] [--out FILE]`: a synthetic opens
/// trace of users who keep habits, unlike MODEL.md's (HabitUsers has the model), for
/// `--opens-trace`.
struct HabitsCommand: CommandDefinition {
    struct Values {
        var devices = 200, days = 91
        var seed: UInt64 = 2026
        var out: String?
        var force = false
    }

    static let name = "habits"
    static let synopsis = """
        bgbench habits [--devices N] [--days D] [--seed S] [--out FILE]
                                     write an opens trace of users with habits, unlike
                                     MODEL.md's, for --opens-trace
        """
    static let reference: String? = "Datasets/README.md, \"Users with habits\""
    static let discussion: String? = """
        habits: each user keeps 1 to 4 habits (a time of day, a spread, a daily probability
        of being kept, some on weekdays only), opens the app in the background of waking
        hours, reopens, runs later at weekends, takes vacation weeks, and 30 % shift one
        habit once. The same seed gives the same bytes on every machine. At most
        \(maxDeviceDays) device-days, so the trace stays well under a trace's 2 GiB cap.
        """
    static let defaults = Values()
    static let endsCleanlyOnSignals = true
    /// devices × days at most: about 24 bytes an open and 5 opens a device-day keep the
    /// file near 1.2 GB, under `InputFile.Limit.trace`.
    static let maxDeviceDays = 10_000_000

    static var options: [Option<Values>] {
        [
            .integer(
                "devices", "N", \.devices, in: 1...100_000, help: "users (devices) in the trace: h0001, h0002, ..."),
            .integer("days", "D", \.days, in: 1...36_499, help: "days of opens, from day 0 (a Monday)"),
            .integer("seed", "S", \.seed, in: 0...UInt64.max, help: "seed: the same seed, the same bytes"),
            .text(
                "out", "FILE", \.out, expected: "a trace CSV file to write",
                help: "the trace CSV to write (an existing FILE only with --force)",
                defaultText: "standard output"),
            .flag("force", \.force, help: "replace --out when a file is there"),
        ]
    }

    static func run<Out: TextOutputStream>(_ values: Values, _ invocation: Invocation, output: inout Out) throws {
        guard values.devices * values.days <= maxDeviceDays else {
            throw CLIError.usage(
                "invalid value '\(values.devices)' for '--devices': expected at most "
                    + "\(maxDeviceDays / values.days) devices at --days \(values.days) "
                    + "(a trace of at most \(maxDeviceDays) device-days)")
        }
        let (devices, days, seed) = (values.devices, values.days, values.seed)
        guard let out = values.out else {
            _ = HabitUsers.writeTrace(devices: devices, days: days, seed: seed) { output.write($0) }
            return
        }
        if !values.force, FileManager.default.fileExists(atPath: out) {
            throw CLIError.cannotCreate("'\(out)' exists: not overwritten (use --force to replace it)")
        }
        try OutputGuard.checkFile(out, option: "--out", kind: anyFile, inputs: [], force: values.force)
        let opens = try writeAtomically(to: out) { file in
            try HabitUsers.writeTrace(devices: devices, days: days, seed: seed) {
                try file.write(contentsOf: Data($0.utf8))
            }
        }
        output.write("wrote \(out): \(devices) devices, \(days) days, \(opens) opens (seed \(seed))\n")
    }

    /// Checked before: `run` refuses an existing file without --force.
    static let anyFile = OutputGuard.FileKind(description: "a file") { _ in true }

    /// Writes through `body` into a file beside `path`, renamed onto it when whole; a
    /// signal before then removes it (Interruption), so `path` is as it was or whole.
    static func writeAtomically<T>(to path: String, _ body: (FileHandle) throws -> T) throws -> T {
        let temporary = path + ".tmp-\(getpid())"
        Interruption.track(temporary)
        defer { Interruption.untrack(temporary) }
        guard FileManager.default.createFile(atPath: temporary, contents: nil),
            let file = FileHandle(forWritingAtPath: temporary)
        else { throw CLIError.cannotCreate("cannot write '\(path)': cannot create the file") }
        do {
            let result = try body(file)
            try file.close()
            try Interruption.critical { state in
                guard rename(temporary, path) == 0 else {
                    throw CLIError.cannotCreate("cannot write '\(path)': \(String(cString: strerror(errno)))")
                }
                state.settled = true
            }
            return result
        } catch {
            try? file.close()
            unlink(temporary)
            if error is CLIError { throw error }
            // The system's reason ("No space left on device"), as the other writers say it.
            let ns = error as NSError
            let underlying = ns.domain == NSPOSIXErrorDomain ? ns : ns.userInfo[NSUnderlyingErrorKey] as? NSError
            let reason: String
            if let u = underlying, u.domain == NSPOSIXErrorDomain {
                reason = String(cString: strerror(Int32(u.code)))
            } else if ns.domain == NSCocoaErrorDomain, ns.code == CocoaError.fileWriteOutOfSpace.rawValue {
                reason = String(cString: strerror(ENOSPC))
            } else {
                reason = error.localizedDescription
            }
            throw CLIError.cannotCreate("cannot write '\(path)': \(reason)")
        }
    }
}
