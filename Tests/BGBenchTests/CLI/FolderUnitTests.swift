import Foundation
import Testing
@testable import BGBench
@testable import BGHarness
@testable import BGBenchCLI
import BGBenchTestSupport

/// Issue 13, points 1 and 2: a report folder is one unit, and `check` refuses what it
/// cannot trust. The signal and concurrency cases run the real executable.

private let small = ["--policy", "fixed,none", "--days", "3", "--devices", "20", "--quiet"]

/// Every file of a folder (dot files of the parent included) with its SHA-256.
private func snapshot(_ folder: String) -> [String: String] {
    var out: [String: String] = [:]
    for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
        let data = FileManager.default.contents(atPath: folder + "/" + name) ?? Data()
        out[name] = SHA256.hex([UInt8](data))
    }
    return out
}

/// Entries of `parent` that are staging or old folders of a writer.
private func leftovers(_ parent: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? []).filter {
        $0.contains(".bgbench-staging-") || $0.contains(".bgbench-old-")
    }
}

@Suite struct FolderUnitTests {
    // MARK: Point 1, in-process

    /// Issue 13 (1): files of an earlier run do not survive a later run into the folder.
    @Test func earlierRunsFilesDoNotSurvive() throws {
        let out = freshFolder("stale") + "/st"
        #expect(bgbench(small + ["--per-device", "--baseline-policy", "none", "--out", out]).code == 0)
        #expect(FileManager.default.fileExists(atPath: out + "/paired.csv"))
        // One policy: the second run writes no paired.csv of its own.
        #expect(
            bgbench(["--policy", "fixed", "--days", "3", "--devices", "20", "--quiet", "--seed", "9", "--out", out])
                .code == 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        #expect(
            names == ["daily.csv", "hourly.csv", "long.csv", "run.json", "scenario.json", "server.csv", "summary.csv"])
        #expect(leftovers((out as NSString).deletingLastPathComponent).isEmpty)
    }

    /// A folder that holds something else is refused (73, one line naming it and --force)
    /// and left alone; with --force it is replaced whole.
    @Test func foreignFolderNeedsForce() throws {
        let out = freshFolder("foreign") + "/mine"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try "keep me".write(toFile: out + "/notes.txt", atomically: true, encoding: .utf8)
        for command in [["run"], ["sweep", "--set", "population.bar_off_share=0,0.1"]] {
            let result = bgbench(command + small + ["--out", out])
            #expect(result.code == 73)
            #expect(
                result.errors
                    == "error: '\(out)' holds 'notes.txt' and no run.json: not a bgbench report, not replaced (use --force to replace the folder whole)\n"
            )
            #expect(try FileManager.default.contentsOfDirectory(atPath: out) == ["notes.txt"])
        }
        let forced = bgbench(small + ["--out", out, "--force"])
        #expect(forced.code == 0)
        #expect(!FileManager.default.fileExists(atPath: out + "/notes.txt"))
        #expect(FileManager.default.fileExists(atPath: out + "/run.json"))
    }

    /// Outputs that cannot be written fail before any simulation (well under a second on
    /// a run that would take many), and empty values are usage errors.
    @Test func outputsAreCheckedFirst() throws {
        let start = Date()
        var result = bgbench(["--devices", "2000", "--days", "200", "--quiet", "--out", "/proc/x"])
        #expect(result.code == 73)
        #expect(result.errors.hasPrefix("error: cannot write '/proc/x': "))
        result = bgbench([
            "sweep", "--set", "population.bar_off_share=0,0.1", "--devices", "2000", "--days", "200", "--quiet",
            "--out", "/proc/x",
        ])
        #expect(result.code == 73)
        result = bgbench(["bench", "--csv", "/proc/x/bench.csv"])
        #expect(result.code == 73)
        #expect(Date().timeIntervalSince(start) < 1)
        for arguments in [
            ["--out", ""], ["sweep", "--set", "population.bar_off_share=0", "--out", ""], ["bench", "--csv", ""],
            ["check", "--baseline", "a", "--current", "b", "--junit", ""],
        ] {
            let r = bgbench(arguments)
            #expect(r.code == 64, "\(arguments)")
            #expect(r.errors.hasPrefix("error: invalid value '' for '--"), "\(arguments)")
        }
        // check's --junit is checked before the folders are read.
        result = bgbench(["check", "--baseline", "nosuch-a", "--current", "nosuch-b", "--junit", "/proc/x/j.xml"])
        #expect(result.code == 73)
    }

    /// A writer holding the lock: the second fails at once with 75.
    @Test func lockedFolderIsBusy() throws {
        let parent = freshFolder("lock"), out = parent + "/busy"
        let fd = open(parent + "/.busy.bgbench-lock", O_RDWR | O_CREAT, 0o644)
        #expect(fd >= 0)
        #expect(flock(fd, LOCK_EX | LOCK_NB) == 0)
        let result = bgbench(small + ["--out", out])
        #expect(result.code == 75)
        #expect(
            result.errors
                == "error: '\(out)' is being written by another bgbench (lock '\(parent)/.busy.bgbench-lock'): try again when it has finished\n"
        )
        #expect(!FileManager.default.fileExists(atPath: out))
        close(fd)
        #expect(bgbench(small + ["--out", out]).code == 0)
    }

    /// What a killed writer left is repaired: a staging folder is removed, and an old
    /// folder whose report was moved aside (two-rename swap) is put back before the run,
    /// which then guards it like any folder (a file the user added there is kept).
    @Test func leftoversAreRepaired() throws {
        let parent = freshFolder("left"), out = parent + "/r"
        try FileManager.default.createDirectory(
            atPath: parent + "/.r.bgbench-staging-99999999", withIntermediateDirectories: true)
        try "half".write(toFile: parent + "/.r.bgbench-staging-99999999/summary.csv", atomically: true, encoding: .utf8)
        #expect(bgbench(small + ["--out", out]).code == 0)
        #expect(leftovers(parent).isEmpty)
        // An old folder beside an existing report (a crash between the swap and the removal
        // of the old folder): removed by the next writer (issue 29).
        try FileManager.default.createDirectory(
            atPath: parent + "/.r.bgbench-old-99999998", withIntermediateDirectories: true)
        try "old".write(toFile: parent + "/.r.bgbench-old-99999998/summary.csv", atomically: true, encoding: .utf8)
        #expect(bgbench(small + ["--out", out]).code == 0)
        #expect(leftovers(parent).isEmpty)
        // An old folder where the report is missing: restored, then replaced whole by the run.
        try FileManager.default.moveItem(atPath: out, toPath: parent + "/.r.bgbench-old-99999999")
        try "x".write(toFile: parent + "/.r.bgbench-old-99999999/notes.txt", atomically: true, encoding: .utf8)
        var result = bgbench(small + ["--out", out])
        #expect(result.code == 73)
        #expect(
            result.errors
                == "error: '\(out)' holds 'notes.txt', which its run.json's manifest does not list: not replaced (use --force to replace the folder whole)\n"
        )
        #expect(leftovers(parent).isEmpty)
        #expect(FileManager.default.fileExists(atPath: out + "/notes.txt"))
        #expect(FileManager.default.fileExists(atPath: out + "/run.json"))
        result = bgbench(small + ["--out", out, "--force"])
        #expect(result.code == 0, "\(result.errors)")
        #expect(!FileManager.default.fileExists(atPath: out + "/notes.txt"))
    }

    /// check --update replaces the baseline whole, through a staging folder, and refuses a
    /// folder that is not a report without --force.
    @Test func updateIsOneUnit() throws {
        let parent = freshFolder("update")
        let c = parent + "/c", b = parent + "/b"
        #expect(bgbench(small + ["--out", c]).code == 0)
        try FileManager.default.createDirectory(atPath: b, withIntermediateDirectories: true)
        try "x".write(toFile: b + "/notes.txt", atomically: true, encoding: .utf8)
        var result = bgbench(["check", "--update", "--baseline", b, "--current", c])
        #expect(result.code == 73)
        #expect(result.errors.contains("use --force"))
        result = bgbench(["check", "--update", "--force", "--baseline", b, "--current", c])
        #expect(result.code == 0)
        #expect(!FileManager.default.fileExists(atPath: b + "/notes.txt"))
        #expect(leftovers(parent).isEmpty)
        #expect(bgbench(["check", "--exact", "--baseline", b, "--current", c]).code == 0)
    }

    // MARK: Point 2: the gate refuses what it cannot trust

    private func pair() -> (b: String, c: String) {
        let parent = freshFolder("gate")
        let args = small + ["--per-device"]
        #expect(bgbench(args + ["--out", parent + "/b"]).code == 0)
        #expect(bgbench(args + ["--out", parent + "/c"]).code == 0)
        return (parent + "/b", parent + "/c")
    }

    private func edit(_ path: String, reseal sealing: Bool = true, _ change: (String) -> String) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        try change(text).write(toFile: path, atomically: true, encoding: .utf8)
        if sealing { try reseal(path) }
    }

    private func expectRefused(
        _ b: String, _ c: String, _ message: String, code: Int32 = 65,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for mode in [[], ["--exact"]] {
            let result = bgbench(["check"] + mode + ["--baseline", b, "--current", c])
            #expect(result.code == code, "\(mode) \(result.output)", sourceLocation: sourceLocation)
            #expect(result.errors == "error: \(message)\n", sourceLocation: sourceLocation)
        }
    }

    /// A missing column of summary.csv (main: exit 0, the metric "untested").
    @Test func missingColumnIsRefused() throws {
        let (b, c) = pair()
        let path = c + "/summary.csv"
        var table = try CSVTable(parsing: String(contentsOfFile: path, encoding: .utf8))
        let j = try #require(table.index(of: "fresh_open_rate"))
        table.header.remove(at: j)
        for i in table.rows.indices { table.rows[i].remove(at: j) }
        var csv = CSVWriter("")
        csv.row(table.header)
        for r in table.rows { csv.row(r) }
        try edit(path) { _ in csv.output }
        expectRefused(
            b, c,
            "'\(path)' line 1, column \(j + 1): no column fresh_open_rate, which a bgbench report's summary.csv has")
        // An unexpected one.
        let (b2, c2) = pair()
        try edit(c2 + "/summary.csv") { $0.replacingOccurrences(of: "\n", with: ",x\n") }
        let header = SummarySchema.header
        expectRefused(
            b2, c2,
            "'\(c2)/summary.csv' line 1, column \(header.count + 1): unexpected column x (expected no more columns)")
    }

    /// NaN or an infinity in summary.csv or devices.csv (main: exit 0, and a NaN in
    /// devices.csv silently dropped tests).
    @Test(arguments: [("summary.csv", "nan"), ("summary.csv", "inf"), ("devices.csv", "nan"), ("devices.csv", "-inf")])
    func nonFiniteNumbersAreRefused(_ file: String, _ value: String) throws {
        let (b, c) = pair()
        let path = c + "/" + file
        let column = file == "summary.csv" ? "staleness_mean_s" : "runs"
        var table = try CSVTable(parsing: String(contentsOfFile: path, encoding: .utf8))
        let j = try #require(table.index(of: column))
        table.rows[1][j] = value
        var csv = CSVWriter("")
        csv.row(table.header)
        for r in table.rows { csv.row(r) }
        try edit(path) { _ in csv.output }
        expectRefused(
            b, c, "'\(path)' line \(table.lines[1]), column \(j + 1) (\(column)): '\(value)' is not a finite number")
    }

    /// A short row.
    @Test func shortRowIsRefused() throws {
        let (b, c) = pair()
        let path = c + "/devices.csv"
        try edit(path) { text in
            var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            lines[2] = lines[2].split(separator: ",").dropLast().joined(separator: ",")
            return lines.joined(separator: "\n")
        }
        let fields = SeriesReports.devicesHeader.count
        expectRefused(b, c, "'\(path)' line 3: \(fields - 1) fields where the header has \(fields)")
    }

    /// The manifest: a file changed after the run, a file it does not list, a file it
    /// lists that is gone, a folder without one.
    @Test func manifestMustMatch() throws {
        var (b, c) = pair()
        try edit(c + "/daily.csv", reseal: false) { $0 + "\n" }
        expectRefused(
            b, c,
            "'\(c)/daily.csv' has \(try Data(contentsOf: URL(fileURLWithPath: c + "/daily.csv")).count) bytes where run.json's manifest says \(try Data(contentsOf: URL(fileURLWithPath: b + "/daily.csv")).count): not the file the run wrote"
        )
        (b, c) = pair()
        try edit(c + "/daily.csv", reseal: false) { $0.replacingOccurrences(of: "fixed", with: "fixes") }
        expectRefused(
            b, c, "'\(c)/daily.csv': its SHA-256 is not the one in run.json's manifest: not the file the run wrote")
        (b, c) = pair()
        try FileManager.default.copyItem(atPath: c + "/summary.csv", toPath: c + "/replications.csv")
        expectRefused(
            b, c, "'\(c)/replications.csv' is not in run.json's manifest: a file of another run, or added by hand")
        (b, c) = pair()
        try FileManager.default.removeItem(atPath: c + "/server.csv")
        // A file the manifest lists that is not there: no input, 66 (README, "In CI").
        expectRefused(
            b, c, "'\(c)/server.csv' is missing, but run.json's manifest lists it: not a complete report folder",
            code: 66)
        (b, c) = pair()
        try edit(c + "/run.json", reseal: false) { $0.replacingOccurrences(of: "\"manifest\"", with: "\"other\"") }
        expectRefused(
            b, c,
            "'\(c)/run.json' has no manifest of the folder's files: not a complete report folder of this bgbench (schema_version \(ReportWriter.schemaVersion)); make it again"
        )
    }

    /// A staging folder among a folder of report folders is not a run.
    @Test func stagingFoldersAreSkipped() throws {
        let parent = freshFolder("skip")
        #expect(bgbench(small + ["--out", parent + "/b/one"]).code == 0)
        #expect(bgbench(small + ["--out", parent + "/c/one"]).code == 0)
        try FileManager.default.copyItem(atPath: parent + "/c/one", toPath: parent + "/c/.one.bgbench-staging-99999999")
        let names = try ReportFolder.locate(parent + "/c", role: "current").map(\.name)
        #expect(names == ["one"])
    }
}

// MARK: The real executable: signals, concurrent writers, kill -9

/// The bgbench executable beside the test bundle (`swift test` builds it), else the
/// checkout's release build.
private let executable: String = {
    let products = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    var candidates = [products.appendingPathComponent("bgbench").path]
    var dir = products
    for _ in 0..<4 {
        if dir.lastPathComponent.hasSuffix(".xctest") {
            candidates.append(dir.deletingLastPathComponent().appendingPathComponent("bgbench").path)
        }
        dir = dir.deletingLastPathComponent()
    }
    let checkout = TestSupport.packageRoot
    candidates.append(checkout.appendingPathComponent(".build/release/bgbench").path)
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates.last!
}()

/// Starts bgbench; standard output and error go to /dev/null.
private func launch(_ arguments: [String]) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    return process
}

/// Waits until `condition` holds (at most `seconds`).
private func waitUntil(_ seconds: Double, _ condition: () -> Bool) -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}

/// A run long enough to be interrupted (tens of seconds), into `out`.
private func longRun(_ out: String) -> [String] {
    ["--quiet", "--policy", "adaptive", "--devices", "2000", "--days", "200", "--out", out]
}

@Suite(.serialized) struct FolderProcessTests {
    /// A report folder made by a short in-process run, with its files' hashes.
    private func existing(_ stem: String) -> (parent: String, out: String, before: [String: String]) {
        let parent = freshFolder(stem), out = parent + "/r"
        #expect(bgbench(small + ["--out", out]).code == 0)
        return (parent, out, snapshot(out))
    }

    /// The writer's staging folder exists: it has passed its checks and is simulating.
    private func started(_ process: Process, _ parent: String) -> Bool {
        waitUntil(5) {
            FileManager.default.fileExists(atPath: parent + "/.r.bgbench-staging-\(process.processIdentifier)")
        }
    }

    @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
    func signalLeavesTheFolderAsItWas(_ signal: Int32, _ code: Int32) throws {
        #expect(FileManager.default.isExecutableFile(atPath: executable), "no executable at \(executable)")
        let (parent, out, before) = existing("signal")
        let process = try launch(longRun(out))
        #expect(started(process, parent))
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == code)
        #expect(snapshot(out) == before)
        #expect(leftovers(parent).isEmpty)
    }

    @Test func secondWriterFailsAtOnce() throws {
        let (parent, out, before) = existing("concurrent")
        let first = try launch(longRun(out))
        #expect(started(first, parent))
        let start = Date()
        let second = try launch(["--quiet", "--days", "2", "--devices", "5", "--out", out])
        second.waitUntilExit()
        #expect(second.terminationStatus == 75)
        #expect(Date().timeIntervalSince(start) < 2)
        kill(first.processIdentifier, SIGTERM)
        first.waitUntilExit()
        #expect(first.terminationStatus == 143)
        #expect(snapshot(out) == before)
        #expect(leftovers(parent).isEmpty)
    }

    @Test func nextRunRemovesWhatKillNineLeft() throws {
        let (parent, out, before) = existing("kill9")
        let process = try launch(longRun(out))
        #expect(started(process, parent))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(leftovers(parent).count == 1)
        #expect(snapshot(out) == before)
        let next = try launch(["--quiet", "--days", "2", "--devices", "5", "--out", out])
        next.waitUntilExit()
        #expect(next.terminationStatus == 0)
        #expect(leftovers(parent).isEmpty)
        #expect(FileManager.default.fileExists(atPath: out + "/run.json"))
    }
}
