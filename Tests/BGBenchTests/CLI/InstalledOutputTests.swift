import Foundation
import Testing
@testable import BGBenchCLI

/// Issue 25 item 1: never delete what bgbench did not write, seen from outside. The binary
/// is installed by README's `install.sh --binary` into a temporary prefix and run as a
/// separate process from an empty folder, with relative paths, as a user runs it. Every
/// writing command meets a user's file beside run.json, a folder of copied report
/// folders, its own input as output, symbolic links to either and single-file outputs;
/// each refusal is exit 73 with its exact line, and every file of the folder is byte for
/// byte as before. A disk that fills up in the middle of a write (a 200 KiB tmpfs,
/// /dev/full) gives one line with the system's reason, exit 73, and the earlier report
/// whole.
@Suite struct InstalledOutputTests {
    let prefix: String, work: String
    static let hint = "not replaced (use --force to replace the folder whole)"
    static let inputKept = "an input is never replaced, not even with --force"
    static let tiny = ["--policy", "fixed", "--days", "2", "--devices", "10", "--quiet"]

    init() throws {
        prefix = try ResourcesTests.temporaryFolder("installed-prefix")
        work = try ResourcesTests.temporaryFolder("installed-work")
        let install = try ResourcesTests.run(
            [
                ResourcesTests.root.appendingPathComponent("install.sh").path, "--prefix", prefix, "--binary",
                try ResourcesTests.builtBinary(),
            ], in: work, path: "/nonexistent")
        try #require(install.code == 0, "\(install.errors)")
    }

    /// The installed bgbench, run in the work folder; ended by SIGTERM (exit 143) after
    /// 120 s, so that a command that blocks (reading a pipe it was to write) fails the test
    /// instead of hanging it.
    /// `standardOutput`: a file for its standard output instead of a pipe (`/dev/full`).
    func bgbench(_ arguments: [String], standardOutput: FileHandle? = nil) throws -> (
        code: Int32, output: String, errors: String
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: prefix + "/bin/bgbench")
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: work)
        let out = Pipe(), err = Pipe()
        process.standardOutput = standardOutput ?? out
        process.standardError = err
        try process.run()
        if standardOutput != nil { try out.fileHandleForWriting.close() }
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 120, execute: watchdog)
        nonisolated(unsafe) var errorData = Data()
        let reader = Thread { errorData = err.fileHandleForReading.readDataToEndOfFile() }
        reader.start()
        let outputData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        while !reader.isFinished { usleep(1000) }
        return (
            process.terminationStatus, String(decoding: outputData, as: UTF8.self),
            String(decoding: errorData, as: UTF8.self)
        )
    }

    /// Every file and link below the work folder with its bytes (a link: its target), but
    /// writers' lock files, which a writer makes before it checks its output and leaves.
    func snapshot() -> [String: Data] {
        var out: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: work)
        while let name = enumerator?.nextObject() as? String {
            if FolderTransaction.isLockFile((name as NSString).lastPathComponent) { continue }
            let path = work + "/" + name
            if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path) {
                out[name] = Data(("link:" + target).utf8)
                continue
            }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                out[name] = FileManager.default.contents(atPath: path) ?? Data()
            }
        }
        return out
    }

    /// Runs `arguments`, expects exit 73 with exactly the line `message`, nothing on
    /// standard output, and every file as it was.
    func expectRefused(
        _ arguments: [String], _ message: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = snapshot()
        let r = try bgbench(arguments)
        #expect(r.code == 73, "\(arguments): \(r.errors)", sourceLocation: sourceLocation)
        #expect(r.errors == "error: \(message)\n", sourceLocation: sourceLocation)
        #expect(r.output == "", sourceLocation: sourceLocation)
        #expect(snapshot() == before, "\(arguments) changed files", sourceLocation: sourceLocation)
    }

    func write(_ text: String, _ name: String) throws {
        try text.write(toFile: work + "/" + name, atomically: false, encoding: .utf8)
    }

    func link(_ name: String, to target: String) throws {
        try FileManager.default.createSymbolicLink(atPath: work + "/" + name, withDestinationPath: target)
    }

    /// The report folders: a user's file beside run.json, a folder of copies, an input as
    /// output and links to them, for run, sweep, frontier, merge and check --update.
    @Test func reportFoldersKeepWhatBGBenchDidNotWrite() throws {
        defer { for f in [prefix, work] { try? FileManager.default.removeItem(atPath: f) } }
        let hint = Self.hint, tiny = Self.tiny
        for (args, out) in [(tiny, "r"), (tiny + ["--shard", "0/2"], "s0"), (tiny + ["--shard", "1/2"], "s1")] {
            try #require(try bgbench(args + ["--out", out]).code == 0)
        }
        // `cp -r r p/a; cp -r r p/b`: a folder of copied report folders, no lock files.
        for copy in ["p/a", "p/b"] {
            try FileManager.default.createDirectory(atPath: work + "/p", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: work + "/r", toPath: work + "/" + copy)
        }
        try write("mine\n", "r/notes.txt")
        try link("r-link", to: "r")
        try link("s1-link", to: "s1")

        let notes = "'r' holds 'notes.txt', which its run.json's manifest does not list: \(hint)"
        try expectRefused(tiny + ["--out", "r"], notes)
        try expectRefused(
            tiny + ["--out", "r-link"],
            "'r-link' holds 'notes.txt', which its run.json's manifest does not list: \(hint)")
        try expectRefused(
            ["sweep", "--set", "population.bar_off_share=0,0.2"] + tiny + ["--out", "r"],
            "'r' holds a bgbench run report, not a sweep report: \(hint)")
        try expectRefused(
            ["frontier", "--policy", "fixed", "--days", "2", "--devices", "10", "--quiet", "--out", "r"],
            "'r' holds a bgbench run report, not a frontier report: \(hint)")
        try expectRefused(["merge", "--out", "r", "s0", "s1"], notes)
        try expectRefused(["check", "--update", "--baseline", "r", "--current", "p/a"], notes)

        let copies = "'p' holds 'a' and no run.json: not a bgbench report, \(hint)"
        try expectRefused(tiny + ["--out", "p"], copies)
        try expectRefused(["sweep", "--set", "population.bar_off_share=0,0.2"] + tiny + ["--out", "p"], copies)
        try expectRefused(
            ["frontier", "--policy", "fixed", "--days", "2", "--devices", "10", "--quiet", "--out", "p"], copies)
        try expectRefused(["merge", "--out", "p", "s0", "s1"], copies)

        try expectRefused(
            ["merge", "--out", "s0", "s0", "s1"], "'s0' is this command's input (shard folder 's0'): \(Self.inputKept)")
        try expectRefused(
            ["merge", "--out", "s1-link", "s0", "s1"],
            "'s1-link' is this command's input (shard folder 's1'): \(Self.inputKept)")
        try FileManager.default.copyItem(
            atPath: ResourcesTests.root.appendingPathComponent("Datasets/traces/sample.csv").path,
            toPath: work + "/p/a/trace.csv")
        try expectRefused(
            ["--opens-trace", "p/a/trace.csv", "--policy", "fixed", "--days", "2", "--quiet", "--out", "p/a"],
            "'p/a' holds this command's input (--opens-trace 'p/a/trace.csv'): \(Self.inputKept)")
        try expectRefused(
            ["check", "--update", "--baseline", "p", "--current", "p/b"],
            "'p' holds this command's input (--current 'p/b'): \(Self.inputKept)")

        // What is bgbench's alone is replaced: the earlier report without the user's file.
        try FileManager.default.removeItem(atPath: work + "/r/notes.txt")
        #expect(try bgbench(tiny + ["--out", "r"]).code == 0)
        #expect(try bgbench(["merge", "--out", "m", "s0", "s1"]).code == 0)
        #expect(try bgbench(["merge", "--out", "m", "s0", "s1"]).code == 0)
    }

    /// The single-file outputs: check --junit, bench --csv, convert-lsapp --out, habits
    /// --out and plot's PNG files refuse a user's file, an input and links to either.
    @Test func singleFilesKeepWhatBGBenchDidNotWrite() throws {
        defer { for f in [prefix, work] { try? FileManager.default.removeItem(atPath: f) } }
        for out in ["a", "b"] { try #require(try bgbench(Self.tiny + ["--out", out]).code == 0) }
        try write("mine\n", "notes.txt")
        try link("notes-link.xml", to: "notes.txt")
        try write(
            "user_id\tsession_id\ttimestamp\tapp_name\tevent_type\nu1\t1\t2024-01-01 08:00:00\tGmail\tOpened\n",
            "log.tsv")
        try link("log-link.csv", to: "log.tsv")
        let kept = "not overwritten (use --force to replace it)"
        let never = "an input is never overwritten, not even with --force"
        let check = ["check", "--baseline", "a", "--current", "b", "--junit"]
        try expectRefused(
            check + ["notes.txt"], "'notes.txt' exists and is not a JUnit report of bgbench check: \(kept)")
        try expectRefused(
            check + ["notes-link.xml"], "'notes-link.xml' exists and is not a JUnit report of bgbench check: \(kept)")
        try expectRefused(
            check + ["b/summary.csv"], "'b/summary.csv' is inside this command's input (--current 'b'): \(never)")
        try expectRefused(
            ["bench", "--csv", "notes.txt"],
            "'notes.txt' exists and is not a bench CSV of bgbench (first line workload,...): \(kept)")
        try expectRefused(
            ["convert-lsapp", "log.tsv", "--out", "log.tsv"],
            "'log.tsv' is this command's input (the input 'log.tsv'): \(never)")
        try expectRefused(
            ["convert-lsapp", "log.tsv", "--out", "log-link.csv"],
            "'log-link.csv' is this command's input (the input 'log.tsv'): \(never)")
        try expectRefused(
            ["convert-lsapp", "log.tsv", "--out", "notes.txt"],
            "'notes.txt' exists and is not an opens trace (first line device,timestamp,session_seconds): \(kept)")
        try expectRefused(
            ["habits", "--devices", "2", "--days", "2", "--out", "notes.txt"], "'notes.txt' exists: \(kept)")
        try expectRefused(
            ["habits", "--devices", "2", "--days", "2", "--out", "notes-link.xml"], "'notes-link.xml' exists: \(kept)")
        // A PNG of plot's names that plot did not draw (checked before python3 is looked for).
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array("mine".utf8)).write(
            to: URL(fileURLWithPath: work + "/a/headline.png"))
        try expectRefused(["plot", "a"], "'a/headline.png' is not a PNG that bgbench plot drew: \(kept)")

        // Their own kind is replaced, and a stream (a device) is written into, not replaced.
        let exact = ["check", "--exact", "--baseline", "a", "--current", "b", "--junit", "j.xml"]
        #expect(try bgbench(exact).code == 0)
        #expect(try bgbench(exact).code == 0)
        let stdout = try bgbench(["check", "--exact", "--baseline", "a", "--current", "b", "--junit", "/dev/stdout"])
        #expect(stdout.code == 0, "\(stdout.errors)")
        #expect(stdout.output.contains("<testsuites name=\"bgbench check\""))
    }

    /// A full disk: /dev/full (and a link to it) as a single file, a 200 KiB tmpfs as the
    /// parent of a report folder and of a JUnit file. One line with the system's reason,
    /// exit 73, the earlier outputs whole and nothing left beside them.
    @Test func aFullDiskLeavesTheEarlierOutputWhole() throws {
        defer { for f in [prefix, work] { try? FileManager.default.removeItem(atPath: f) } }
        for out in ["a", "b"] { try #require(try bgbench(Self.tiny + ["--out", out]).code == 0) }
        try link("full.xml", to: "/dev/full")
        try write(
            "user_id\tsession_id\ttimestamp\tapp_name\tevent_type\nu1\t1\t2024-01-01 08:00:00\tGmail\tOpened\n",
            "log.tsv")
        let check = ["check", "--exact", "--baseline", "a", "--current", "b", "--junit"]
        for target in ["/dev/full", "full.xml"] {
            let before = snapshot()
            let r = try bgbench(check + [target])
            #expect(r.code == 73)
            #expect(r.errors == "error: cannot write '\(target)': No space left on device\n")
            #expect(snapshot() == before)
        }
        let convert = try bgbench(["convert-lsapp", "log.tsv", "--out", "/dev/full"])
        #expect(convert.code == 73)
        #expect(convert.errors == "error: cannot write '/dev/full': No space left on device\n")
        // Standard output on a full disk (issue 25, 1.53 and 1.54; a Swift trap, exit 132,
        // before): one line, exit 73; the report folder written before the table stays.
        let devFull = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let sample = ResourcesTests.root.appendingPathComponent("Datasets/traces/sample.csv").path
        let validate = try bgbench(["validate", sample], standardOutput: devFull)
        #expect(validate.code == 73)
        #expect(validate.errors == "error: cannot write standard output: No space left on device\n")
        let table = try bgbench(Self.tiny.filter { $0 != "--quiet" } + ["--out", "t"], standardOutput: devFull)
        #expect(table.code == 73)
        #expect(table.errors == "error: cannot write standard output: No space left on device\n")
        #expect(FileManager.default.fileExists(atPath: work + "/t/summary.csv"), "the report folder stays")

        let small = work + "/small"
        try FileManager.default.createDirectory(atPath: small, withIntermediateDirectories: true)
        let mount = try ResourcesTests.run(
            ["mount", "-t", "tmpfs", "-o", "size=200k", "tmpfs", small], in: work, path: "/usr/bin:/bin")
        guard mount.code == 0 else {
            print("InstalledOutputTests: tmpfs part skipped: mount failed: \(mount.errors)")
            return
        }
        defer { _ = try? ResourcesTests.run(["umount", small], in: work, path: "/usr/bin:/bin") }
        // An earlier report that fits, then a run whose files do not (devices.csv alone is
        // about 400 KB).
        try #require(try bgbench(Self.tiny + ["--out", "small/r"]).code == 0)
        #expect(try bgbench(check + ["small/j.xml"]).code == 0)
        let before = snapshot()
        let big = ["--policy", "fixed,adaptive", "--days", "3", "--devices", "400", "--per-device", "--quiet"]
        // The estimate sees the files will not fit and refuses before anything is written.
        let refused = try bgbench(big + ["--out", "small/r"])
        #expect(refused.code == 71)
        #expect(
            refused.errors.hasPrefix("error: the job (400 devices × 3 days × 2 configurations × 1 seed) writes about "),
            "\(refused.errors)")
        #expect(snapshot() == before, "the earlier report whole, no staging folder left")
        // Started anyway, the write itself meets the full disk.
        let r = try bgbench(big + ["--yes", "--out", "small/r"])
        #expect(r.code == 73)
        #expect(
            r.errors.hasPrefix("error: cannot write '\(small)/r/")
                && r.errors.hasSuffix("': No space left on device\n") && r.errors.split(separator: "\n").count == 1,
            "\(r.errors)")
        #expect(snapshot() == before, "the earlier report whole, no staging folder left")
        // A JUnit file with the tmpfs filled up (dd stops at the full disk): the earlier one whole.
        _ = try ResourcesTests.run(
            ["dd", "if=/dev/zero", "of=small/filler", "bs=4k"], in: work, path: "/usr/bin:/bin")
        let full = snapshot()
        let junit = try bgbench(check + ["small/j.xml"])
        #expect(junit.code == 73)
        #expect(junit.errors == "error: cannot write 'small/j.xml': No space left on device\n")
        #expect(snapshot() == full, "the earlier JUnit file whole")
        // habits --out writes as it draws: the full disk stops it, no file is left.
        let habits = try bgbench(["habits", "--devices", "300", "--days", "30", "--out", "small/h.csv"])
        #expect(habits.code == 73)
        #expect(habits.errors == "error: cannot write 'small/h.csv': No space left on device\n")
        #expect(snapshot() == full, "no file left")
        // plot on the full disk (1.55; exit 70 and a 0-byte headline.png before): one line,
        // exit 73, no PNG and no temporary file left.
        let plot = try bgbench(["plot", "small/r"])
        if plot.code != 69 {
            #expect(plot.code == 73)
            #expect(plot.errors == "error: cannot write 'small/r/headline.png': No space left on device\n")
            #expect(snapshot() == full, "no PNG left")
        }
        try FileManager.default.removeItem(atPath: small + "/filler")
    }
}
