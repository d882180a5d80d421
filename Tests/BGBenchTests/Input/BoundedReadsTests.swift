import Foundation
import Testing
@testable import BGBench
@testable import BGBenchCLI
import BGBenchTestSupport

/// Every file bgbench reads is read through `InputFile.read`, never beyond its cap (issue
/// 25 item 6, docs/limits.md): /dev/zero and an endless FIFO given to each command that
/// reads a file are refused in one line naming the file, promptly, and `InputFile.read`
/// takes at most one byte beyond the cap from a stream.
@Suite struct BoundedReadsTests {
    /// A folder with a run's report folder `run`, a shard folder `shard` (0/2), and
    /// `zero.json` linked to /dev/zero.
    static func folder() throws -> String {
        let dir = freshFolder("bounded")
        let small = ["--days", "1", "--devices", "2", "--quiet"]
        #expect(bgbench(small + ["--out", dir + "/run"]).code == 0)
        #expect(bgbench(small + ["--shard", "0/2", "--out", dir + "/shard"]).code == 0)
        try FileManager.default.createSymbolicLink(atPath: dir + "/zero.json", withDestinationPath: "/dev/zero")
        return dir
    }

    /// A report folder `name` of `dir` like `run` (summary.csv; shard.state for `merge`)
    /// whose run.json is `runJSON` (a link to it, or a FIFO made there when nil).
    static func folder(_ name: String, in dir: String, runJSON: String?) throws -> String {
        let path = dir + "/" + name
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: dir + "/run/summary.csv", toPath: path + "/summary.csv")
        try FileManager.default.copyItem(atPath: dir + "/shard/shard.state", toPath: path + "/shard.state")
        if let runJSON {
            try FileManager.default.createSymbolicLink(atPath: path + "/run.json", withDestinationPath: runJSON)
        } else {
            #expect(mkfifo(path + "/run.json", 0o600) == 0)
        }
        return path
    }

    /// Each reading command with `input` in the place of its file: the arguments, and
    /// the file the error line names.
    static func commands(_ input: String, folder: String, dir: String) -> [(arguments: [String], file: String)] {
        [
            (["validate", input], input),
            (["--scenario", input, "--out", dir + "/o"], input),
            (["--opens-trace", input, "--out", dir + "/o"], input),
            (["convert-lsapp", input, "--out", dir + "/t.csv"], input),
            (["bench", "--baseline", input], input),
            (["check", "--baseline", dir + "/run", "--current", folder], folder + "/run.json"),
            (["check", "--baseline", folder, "--current", dir + "/run"], folder + "/run.json"),
            (["check", "--update", "--baseline", dir + "/b", "--current", folder], folder + "/run.json"),
            (["plot", folder], folder + "/run.json"),
            (["merge", folder, "--out", dir + "/m"], folder + "/run.json"),
        ]
    }

    /// /dev/zero (and zero.json, a link to it) is refused by its first 4096 bytes, for
    /// every command, in one line with exit 65 and within seconds: not after 2 GiB.
    @Test func devZeroIsRefusedByEveryReader() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let folder = try Self.folder("z", in: dir, runJSON: "/dev/zero")
        let notText = "not text: its first 4096 bytes are zero (a device such as /dev/zero, or a binary file)"
        let hint = "\nsee 'bgbench --help'\n"
        let expected = [
            "error: /dev/zero: the trace file is \(notText)" + hint,
            "error: /dev/zero: the scenario file is \(notText)" + hint,
            "error: /dev/zero: the trace file is \(notText)" + hint,
            "error: /dev/zero: the LSApp log file is \(notText)" + hint,
            "error: '/dev/zero': the bench baseline is \(notText)\n",
            "error: '\(folder)/run.json' is \(notText)\n",
            "error: '\(folder)/run.json' is \(notText)\n",
            "error: '\(folder)/run.json' is \(notText)\n",
            "error: '\(folder)/run.json' is \(notText)\n",
            "error: shard folder '\(folder)': '\(folder)/run.json' is \(notText)\n",
        ]
        let commands = Self.commands("/dev/zero", folder: folder, dir: dir)
        for (command, message) in zip(commands, expected) {
            let start = Date()
            let r = bgbench(command.arguments)
            #expect(r.code == 65, "\(command.arguments)")
            #expect(r.errors == message, "\(command.arguments)")
            #expect(Date().timeIntervalSince(start) < 5, "\(command.arguments) took long")
        }
        let json = bgbench(["validate", dir + "/zero.json"])
        #expect(json.code == 65)
        #expect(json.errors == "error: \(dir)/zero.json: the scenario file is \(notText)" + hint)
    }

    /// /dev/urandom (issue 25's probe 4.09: 2 GiB and 27 s before its size refused it) is
    /// refused by its first 4096 bytes, which are not UTF-8: at once, in one line, exit 65.
    @Test func devURandomIsRefusedByItsFirstBytes() throws {
        let start = Date()
        let r = bgbench(["validate", "/dev/urandom"])
        #expect(r.code == 65)
        #expect(
            r.errors
                == "error: /dev/urandom: the trace file is not text: its first 4096 bytes are not UTF-8 (a device such as /dev/urandom, or a binary stream)\nsee 'bgbench --help'\n"
        )
        #expect(Date().timeIntervalSince(start) < 5, "took long")
    }

    /// A FIFO that a writer fills with text for as long as it is read (`yes`; each time
    /// it is opened), given to every command: refused at its kind's cap in one line, the
    /// cap named. Scenario files and bench baselines at their documented 1 MiB; traces,
    /// LSApp logs and report files, 2 GiB in use, at caps this test binds (96 and 80 KiB),
    /// so that the stream is not 2 GiB long.
    @Test func endlessFIFOIsCutAtTheCapOfItsKind() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let folder = try Self.folder("f", in: dir, runJSON: nil)
        let input = dir + "/pipe"
        #expect(mkfifo(input, 0o600) == 0)
        // Each writer ends after 8 MiB, so that a reader without a cap ends too (and
        // fails this test) rather than hang it.
        var writers: [Process] = []
        for fifo in [input, folder + "/run.json"] {
            let writer = Process()
            writer.executableURL = URL(fileURLWithPath: "/bin/sh")
            writer.arguments = ["-c", "while :; do yes bgbench | head -c 8388608 > \"$0\"; done", fifo]
            writer.standardError = FileHandle.nullDevice
            try writer.run()
            writers.append(writer)
        }
        defer {
            // Each writer is its own process group; the test process's blocked signals are
            // its too, so SIGKILL (which cannot be blocked) ends the shell, `yes` and `head`.
            for writer in writers {
                kill(-writer.processIdentifier, SIGKILL)
                writer.waitUntilExit()
            }
            // A writer's `yes` left waiting for a reader: open the FIFOs once more.
            for fifo in [input, folder + "/run.json"] {
                let fd = open(fifo, O_RDONLY | O_NONBLOCK)
                if fd >= 0 { close(fd) }
            }
        }
        var limits = InputFile.Limits()
        limits.trace = 96 << 10
        limits.report = 80 << 10
        func cap(_ bytes: Int) -> String {
            "more than \(bytes) bytes: expected at most \(bytes) (\(InputFile.binary(bytes)); docs/limits.md)"
        }
        let hint = "\nsee 'bgbench --help'\n"
        let expected = [
            "error: \(input): the trace file is \(cap(96 << 10))" + hint,
            "error: \(input): the scenario file is \(cap(1 << 20))" + hint,
            "error: \(input): the trace file is \(cap(96 << 10))" + hint,
            "error: \(input): the LSApp log file is \(cap(96 << 10))" + hint,
            "error: '\(input)': the bench baseline is \(cap(1 << 20))\n",
            "error: '\(folder)/run.json' is \(cap(80 << 10))\n",
            "error: '\(folder)/run.json' is \(cap(80 << 10))\n",
            "error: '\(folder)/run.json' is \(cap(80 << 10))\n",
            "error: '\(folder)/run.json' is \(cap(80 << 10))\n",
            "error: shard folder '\(folder)': '\(folder)/run.json' is \(cap(80 << 10))\n",
        ]
        #expect(
            cap(80 << 10).hasSuffix("(80 KiB; docs/limits.md)") && cap(1 << 20).hasSuffix("(1 MiB; docs/limits.md)"))
        let commands = Self.commands(input, folder: folder, dir: dir)
        for (command, message) in zip(commands, expected) {
            let start = Date()
            let r = InputFile.$limits.withValue(limits) { bgbench(command.arguments) }
            #expect(r.code == 65, "\(command.arguments): \(r.errors)")
            #expect(r.errors == message, "\(command.arguments)")
            #expect(Date().timeIntervalSince(start) < 20, "\(command.arguments) took long")
        }
    }

    /// `InputFile.read` takes one byte beyond the cap from a stream and no more: what it
    /// leaves in a FIFO is the rest. The test holds the FIFO open for writing and reading
    /// (O_RDWR), writes 40,000 bytes, and counts what is still there after the refusal.
    @Test func aStreamIsReadToOneByteBeyondTheCap() throws {
        let dir = freshFolder("fifo-cap")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fifo = dir + "/pipe"
        #expect(mkfifo(fifo, 0o600) == 0)
        let fd = open(fifo, O_RDWR | O_NONBLOCK)
        #expect(fd >= 0)
        defer { close(fd) }
        let text = [UInt8](repeating: UInt8(ascii: "y"), count: 40_000)
        #expect(text.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == 40_000)
        #expect(throws: InputFile.Failure(reason: InputFile.tooLarge(10_000, 10_000, atLeast: true), tooLarge: true)) {
            try InputFile.read(fifo, limit: 10_000)
        }
        var rest = [UInt8](repeating: 0, count: 65_536)
        let left = rest.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        #expect(left == 40_000 - 10_001)
    }
}
