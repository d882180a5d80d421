import Foundation
import Testing
@testable import BGBench
@testable import BGBenchCLI
import BGBenchTestSupport

/// Issue 23, point 2: no writing command deletes or overwrites what bgbench did not write
/// (Reports/README.md, "What may be replaced"). Every writing command is tried against a
/// user's file beside run.json, a folder of copied report folders (no lock files), its own
/// input as output, and symbolic links; each refusal is exit 73 with its exact line, and
/// leaves every file as it was.

private let tiny = ["--policy", "fixed,none", "--days", "2", "--devices", "10", "--quiet"]
private let hint = "not replaced (use --force to replace the folder whole)"
private let inputKept = "an input is never replaced, not even with --force"
private let inputFileKept = "an input is never overwritten, not even with --force"

/// Every file below `folder` (dot files included) with its bytes: what must not change.
/// A writer's lock file, `.DIR.bgbench-lock`, is left out: it is made before the output is
/// checked and stays (Reports/README.md, "One writer at a time").
private func snapshot(_ folder: String) -> [String: Data] {
    var out: [String: Data] = [:]
    let enumerator = FileManager.default.enumerator(atPath: folder)
    while let name = enumerator?.nextObject() as? String {
        if FolderTransaction.isLockFile((name as NSString).lastPathComponent) { continue }
        var isDirectory: ObjCBool = false
        let path = (folder as NSString).appendingPathComponent(name)
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
            out[name] = FileManager.default.contents(atPath: path) ?? Data()
        }
    }
    return out
}

/// Runs `arguments`, expects exit 73 with exactly `message`, and that nothing below
/// `parent` changed.
private func expectRefused(
    _ arguments: [String], _ message: String, keeping parent: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let before = snapshot(parent)
    let result = bgbench(arguments)
    #expect(result.code == 73, "\(arguments): \(result.errors)", sourceLocation: sourceLocation)
    #expect(result.errors == "error: \(message)\n", sourceLocation: sourceLocation)
    #expect(result.output == "", sourceLocation: sourceLocation)
    #expect(snapshot(parent) == before, "\(arguments) changed files", sourceLocation: sourceLocation)
}

/// Two shard folders of one small run: `parent/s0`, `parent/s1`.
private func shards(_ parent: String) -> (s0: String, s1: String) {
    let s0 = parent + "/s0", s1 = parent + "/s1"
    #expect(bgbench(tiny + ["--shard", "0/2", "--out", s0]).code == 0)
    #expect(bgbench(tiny + ["--shard", "1/2", "--out", s1]).code == 0)
    return (s0, s1)
}

/// A copy of `folder` at `copy` as `cp -r` makes it: no bgbench lock file beside it.
private func copyFolder(_ folder: String, to copy: String) throws {
    try FileManager.default.createDirectory(
        atPath: (copy as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: folder, toPath: copy)
}

@Suite struct OutputSafetyTests {
    // MARK: A user's file beside run.json

    /// run, sweep, frontier and merge each refuse to replace their own earlier report when
    /// the user put a file beside its run.json; the file names the refusal.
    @Test func userFileBesideRunJSONIsKept() throws {
        let parent = freshFolder("notes")
        let (s0, s1) = shards(parent)
        let commands: [(name: String, arguments: [String])] = [
            ("run", tiny),
            ("sweep", ["sweep", "--set", "population.bar_off_share=0,0.2"] + tiny),
            ("frontier", ["frontier", "--knob", "fixed=30m,2h"] + tiny),
            ("merge", ["merge", s0, s1]),
        ]
        for command in commands {
            let out = parent + "/" + command.name
            let first = bgbench(command.arguments + ["--out", out])
            #expect(first.code == 0, "\(command.name): \(first.errors)")
            // Its own earlier report is replaced without --force.
            #expect(bgbench(command.arguments + ["--out", out]).code == 0, "\(command.name) over its own report")
            try "keep me".write(toFile: out + "/notes.txt", atomically: false, encoding: .utf8)
            expectRefused(
                command.arguments + ["--out", out],
                "'\(out)' holds 'notes.txt', which its run.json's manifest does not list: \(hint)", keeping: parent)
            let forced = bgbench(command.arguments + ["--out", out, "--force"])
            #expect(forced.code == 0, "\(command.name) --force: \(forced.errors)")
            #expect(!FileManager.default.fileExists(atPath: out + "/notes.txt"))
        }
    }

    /// A report file the user edited is the user's now: it no longer matches the manifest.
    @Test func editedReportFileIsKept() throws {
        let parent = freshFolder("edited"), out = parent + "/r"
        #expect(bgbench(tiny + ["--out", out]).code == 0)
        let handle = try #require(FileHandle(forWritingAtPath: out + "/summary.csv"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("# my note\n".utf8))
        try handle.close()
        expectRefused(
            tiny + ["--out", out],
            "'\(out)' holds 'summary.csv', which is not the file bgbench wrote there (not the size and SHA-256 in its run.json's manifest): \(hint)",
            keeping: parent)
        // An edit that keeps the size: only the SHA-256 tells.
        #expect(bgbench(tiny + ["--out", out, "--force"]).code == 0)
        var daily = try String(contentsOfFile: out + "/daily.csv", encoding: .utf8)
        // the last digit before the final line feed
        let last = daily.index(before: daily.index(before: daily.endIndex))
        daily.replaceSubrange(last...last, with: daily[last] == "1" ? "2" : "1")
        try daily.write(toFile: out + "/daily.csv", atomically: false, encoding: .utf8)
        expectRefused(
            tiny + ["--out", out],
            "'\(out)' holds 'daily.csv', which is not the file bgbench wrote there (not the size and SHA-256 in its run.json's manifest): \(hint)",
            keeping: parent)
    }

    /// A report of another kind is not this command's to replace.
    @Test func reportOfAnotherKindIsKept() throws {
        let parent = freshFolder("kind"), out = parent + "/r"
        #expect(bgbench(tiny + ["--out", out]).code == 0)
        expectRefused(
            ["sweep", "--set", "population.bar_off_share=0,0.2"] + tiny + ["--out", out],
            "'\(out)' holds a bgbench run report, not a sweep report: \(hint)", keeping: parent)
        expectRefused(
            ["frontier", "--knob", "fixed=30m,2h"] + tiny + ["--out", out],
            "'\(out)' holds a bgbench run report, not a frontier report: \(hint)", keeping: parent)
    }

    /// PNG files plot drew (signed) go with the folder; a PNG of the same name that bgbench
    /// did not draw is the user's.
    @Test func plotSignatureDecidesWhosePNG() throws {
        let parent = freshFolder("png"), out = parent + "/r"
        #expect(bgbench(tiny + ["--out", out]).code == 0)
        try Data(Self.png(software: "bgbench plot")).write(to: URL(fileURLWithPath: out + "/daily.png"))
        #expect(bgbench(tiny + ["--out", out]).code == 0)
        #expect(!FileManager.default.fileExists(atPath: out + "/daily.png"))
        try Data(Self.png(software: "Matplotlib version3.8")).write(to: URL(fileURLWithPath: out + "/daily.png"))
        expectRefused(
            tiny + ["--out", out], "'\(out)' holds 'daily.png', which its run.json's manifest does not list: \(hint)",
            keeping: parent)
        // plot itself refuses to draw over it (before it looks for python3).
        expectRefused(
            ["plot", out],
            "'\(out)/daily.png' is not a PNG that bgbench plot drew: not overwritten (use --force to replace it)",
            keeping: parent)
    }

    /// A PNG's first chunks: the signature, IHDR, a tEXt `Software` chunk, an empty IDAT.
    static func png(software: String) -> [UInt8] {
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let n = UInt32(data.count)
            return [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + Array(type.utf8)
                + data + [0, 0, 0, 0]
        }
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + chunk("IHDR", [0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0])
            + chunk("tEXt", Array("Software".utf8) + [0] + Array(software.utf8)) + chunk("IDAT", []) + chunk("IEND", [])
    }

    @Test func pngSignatureIsRead() {
        #expect(PlotFiles.signature(in: Self.png(software: "bgbench plot")) == "bgbench plot")
        #expect(PlotFiles.signature(in: Self.png(software: "other")) == "other")
        // A text chunk after the image data does not count; nor does a file that is no PNG.
        let late =
            Array(Self.png(software: "x").prefix(8 + 25)) + Array(Self.png(software: "bgbench plot").dropFirst(8 + 25))
        #expect(PlotFiles.signature(in: late) == "bgbench plot")
        #expect(PlotFiles.signature(in: Array("bgbench plot".utf8)) == nil)
        #expect(
            PlotFiles.signature(
                in: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [0, 0, 0, 0] + Array("IDAT".utf8)
                    + [0, 0, 0, 0]) == nil)
    }

    // MARK: A folder of copied report folders

    /// `cp -r s0 s1 p/`: no lock files, no run.json of its own. No command replaces it; merge
    /// reads it as its input and refuses to write over it.
    @Test func folderOfCopiedReportsIsKept() throws {
        let parent = freshFolder("copied")
        let (s0, s1) = shards(parent)
        let p = parent + "/p"
        try copyFolder(s0, to: p + "/s0")
        try copyFolder(s1, to: p + "/s1")
        expectRefused(
            ["merge", "--out", p, p], "'\(p)' is this command's input (shard folder '\(p)'): \(inputKept)",
            keeping: parent)
        expectRefused(
            tiny + ["--out", p], "'\(p)' holds 's0' and no run.json: not a bgbench report, \(hint)", keeping: parent)
        expectRefused(
            ["sweep", "--set", "population.bar_off_share=0,0.2"] + tiny + ["--out", p],
            "'\(p)' holds 's0' and no run.json: not a bgbench report, \(hint)", keeping: parent)
        expectRefused(
            ["merge", "--out", p, s0, s1], "'\(p)' holds 's0' and no run.json: not a bgbench report, \(hint)",
            keeping: parent)
        // The merge of the copies into a new folder works, and leaves them be.
        #expect(bgbench(["merge", "--out", parent + "/merged", p]).code == 0)
        #expect(FileManager.default.fileExists(atPath: p + "/s1/shard.state"))
    }

    /// check --update may replace a folder of baselines (its documented case), but not one
    /// that holds anything else.
    @Test func baselineFolderHoldsOnlyReports() throws {
        let parent = freshFolder("baselines")
        let c = parent + "/c/r1", b = parent + "/b"
        #expect(bgbench(tiny + ["--out", c]).code == 0)
        try copyFolder(c, to: b + "/r1")
        try copyFolder(c, to: b + "/r2")
        #expect(bgbench(["check", "--update", "--baseline", b, "--current", parent + "/c"]).code == 0)
        #expect(FileManager.default.fileExists(atPath: b + "/r2/run.json"))
        try "mine".write(toFile: b + "/README.txt", atomically: false, encoding: .utf8)
        expectRefused(
            ["check", "--update", "--baseline", b, "--current", parent + "/c"],
            "'\(b)' holds 'README.txt', which is not a bgbench report folder: \(hint)", keeping: parent)
        try FileManager.default.removeItem(atPath: b + "/README.txt")
        try "mine".write(toFile: b + "/r2/notes.txt", atomically: false, encoding: .utf8)
        expectRefused(
            ["check", "--update", "--baseline", b, "--current", parent + "/c"],
            "'\(b)/r2' holds 'notes.txt', which its run.json's manifest does not list: \(hint)", keeping: parent)
    }

    // MARK: An input as output

    @Test func inputIsNeverOutput() throws {
        let parent = freshFolder("input")
        let (s0, s1) = shards(parent)
        expectRefused(
            ["merge", "--out", s0, s0, s1], "'\(s0)' is this command's input (shard folder '\(s0)'): \(inputKept)",
            keeping: parent)
        // A folder that holds an input: replacing it would delete the input.
        let outer = parent + "/outer"
        #expect(bgbench(tiny + ["--out", outer]).code == 0)
        try FileManager.default.copyItem(
            atPath: TestSupport.packageRoot.path + "/Datasets/traces/sample.csv",
            toPath: outer + "/trace.csv")
        expectRefused(
            ["--opens-trace", outer + "/trace.csv", "--policy", "fixed", "--days", "2", "--quiet", "--out", outer],
            "'\(outer)' holds this command's input (--opens-trace '\(outer)/trace.csv'): \(inputKept)", keeping: parent)
        // check --update: the current folder inside the baseline folder.
        let b = parent + "/b"
        #expect(bgbench(tiny + ["--out", b + "/run"]).code == 0)
        expectRefused(
            ["check", "--update", "--baseline", b, "--current", b + "/run"],
            "'\(b)' holds this command's input (--current '\(b)/run'): \(inputKept)", keeping: parent)
    }

    /// Issue 25's probe (1.31, 1.32, 1.33, 8.29): `--force` replaces what bgbench did not
    /// write, but never an input: not the shard folders merge reads, not a folder holding
    /// the trace, not a file of the baseline folder, not the TSV being converted (named
    /// `./x.tsv` or by a hard link).
    @Test func inputIsNeverOutputEvenWithForce() throws {
        let parent = freshFolder("input-force")
        _ = shards(parent + "/shards")
        let s = parent + "/shards"
        expectRefused(
            ["merge", "--out", s, s, "--force"], "'\(s)' is this command's input (shard folder '\(s)'): \(inputKept)",
            keeping: parent)
        let folder = parent + "/in"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: TestSupport.packageRoot.path + "/Datasets/traces/sample.csv", toPath: folder + "/t.csv")
        expectRefused(
            [
                "--policy", "fixed", "--quiet", "--days", "2", "--opens-trace", folder + "/t.csv", "--out", folder,
                "--force",
            ],
            "'\(folder)' holds this command's input (--opens-trace '\(folder)/t.csv'): \(inputKept)", keeping: parent)
        let b = parent + "/base", c = parent + "/cur"
        #expect(bgbench(tiny + ["--out", b]).code == 0)
        #expect(bgbench(tiny + ["--out", c]).code == 0)
        expectRefused(
            ["check", "--baseline", b, "--current", c, "--junit", b + "/run.json", "--force"],
            "'\(b)/run.json' is inside this command's input (--baseline '\(b)'): \(inputFileKept)", keeping: parent)
        let tsv = parent + "/x.tsv", hard = parent + "/hard.csv"
        try "user_id\tsession_id\ttimestamp\tapp_name\tevent_type\nu1\t1\t2024-01-01 08:00:00\tGmail\tOpened\n"
            .write(toFile: tsv, atomically: false, encoding: .utf8)
        try FileManager.default.linkItem(atPath: tsv, toPath: hard)
        let dotted = parent + "/./x.tsv"
        for force in [[], ["--force"]] {
            expectRefused(
                ["convert-lsapp", tsv, "--out", dotted] + force,
                "'\(dotted)' is this command's input (the input '\(tsv)'): \(inputFileKept)", keeping: parent)
            expectRefused(
                ["convert-lsapp", tsv, "--out", hard] + force,
                "'\(hard)' is this command's input (the input '\(tsv)'): \(inputFileKept)", keeping: parent)
        }
    }

    /// Single-file outputs refuse their input, and overwrite only a file of their own kind.
    @Test func singleFilesReplaceOnlyTheirOwnKind() throws {
        let parent = freshFolder("files")
        let tsv = parent + "/log.tsv"
        try "user_id\tsession_id\ttimestamp\tapp_name\tevent_type\nu1\t1\t2024-01-01 08:00:00\tGmail\tOpened\n"
            .write(toFile: tsv, atomically: false, encoding: .utf8)
        expectRefused(
            ["convert-lsapp", tsv, "--out", tsv],
            "'\(tsv)' is this command's input (the input '\(tsv)'): \(inputFileKept)",
            keeping: parent)
        let notes = parent + "/notes.csv"
        try "a,b\n1,2\n".write(toFile: notes, atomically: false, encoding: .utf8)
        expectRefused(
            ["convert-lsapp", tsv, "--out", notes],
            "'\(notes)' exists and is not an opens trace (first line device,timestamp,session_seconds): not overwritten (use --force to replace it)",
            keeping: parent)
        let trace = parent + "/trace.csv"
        #expect(bgbench(["convert-lsapp", tsv, "--out", trace]).code == 0)
        #expect(bgbench(["convert-lsapp", tsv, "--out", trace]).code == 0, "its own kind is replaced")
        #expect(bgbench(["convert-lsapp", tsv, "--out", notes, "--force"]).code == 0)

        // bench --csv: checked before any workload runs.
        expectRefused(
            ["bench", "--csv", tsv],
            "'\(tsv)' exists and is not a bench CSV of bgbench (first line workload,...): not overwritten (use --force to replace it)",
            keeping: parent)
        let benchCSV = parent + "/bench.csv"
        try (BenchTable.columns.joined(separator: ",") + "\n").write(
            toFile: benchCSV, atomically: false, encoding: .utf8)
        expectRefused(
            ["bench", "--baseline", benchCSV, "--csv", benchCSV],
            "'\(benchCSV)' is this command's input (--baseline '\(benchCSV)'): \(inputFileKept)",
            keeping: parent)
        #expect(bgbench(["bench", "--force"]).errors == "error: '--force' needs '--csv'\nsee 'bgbench --help'\n")

        // check --junit: a report file of the folder it reads is no JUnit file.
        let b = parent + "/b", c = parent + "/c"
        #expect(bgbench(tiny + ["--out", b]).code == 0)
        #expect(bgbench(tiny + ["--out", c]).code == 0)
        expectRefused(
            ["check", "--baseline", b, "--current", c, "--junit", c + "/summary.csv"],
            "'\(c)/summary.csv' is inside this command's input (--current '\(c)'): \(inputFileKept)",
            keeping: parent)
        let junit = parent + "/junit.xml"
        #expect(bgbench(["check", "--exact", "--baseline", b, "--current", c, "--junit", junit]).code == 0)
        #expect(
            bgbench(["check", "--exact", "--baseline", b, "--current", c, "--junit", junit]).code == 0,
            "its own kind is replaced")
    }

    // MARK: Symbolic links

    @Test func symbolicLinksAreFollowedToWhatTheyName() throws {
        let parent = freshFolder("links")
        let (s0, s1) = shards(parent)
        // An output that is a link to an input is that input.
        let link = parent + "/link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: s0)
        expectRefused(
            ["merge", "--out", link, s0, s1], "'\(link)' is this command's input (shard folder '\(s0)'): \(inputKept)",
            keeping: parent)
        // A link inside a report folder is not a file bgbench wrote, even under a report
        // file's name (replacing the folder would drop it).
        let out = parent + "/r"
        #expect(bgbench(tiny + ["--out", out]).code == 0)
        try FileManager.default.createSymbolicLink(atPath: out + "/mine", withDestinationPath: parent + "/s0")
        expectRefused(tiny + ["--out", out], "'\(out)' holds 'mine', a symbolic link: \(hint)", keeping: parent)
        // A single-file output that links to an input is that input.
        let tsv = parent + "/log.tsv", tsvLink = parent + "/out.csv"
        try "user_id\tsession_id\ttimestamp\tapp_name\tevent_type\n".write(
            toFile: tsv, atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: tsvLink, withDestinationPath: tsv)
        expectRefused(
            ["convert-lsapp", tsv, "--out", tsvLink],
            "'\(tsvLink)' is this command's input (the input '\(tsv)'): \(inputFileKept)",
            keeping: parent)
    }
}
