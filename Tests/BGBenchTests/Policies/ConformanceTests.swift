import BGBenchTestSupport
import Foundation
import Testing

@testable import BGBench
@testable import BGBenchCLI

/// `bgbench conformance` (docs/protocol.md, "Conformance"): the Python examples pass every
/// check; a policy that breaks one rule fails the check of that rule, with its line.
@Suite struct ConformanceTests {
    static let examples = TestSupport.packageRoot.appendingPathComponent("python/examples").path

    static var hasPython: Bool { PlotCommand.launch(["python3", "-c", "import json"]).status == 0 }

    /// `bgbench conformance -- ARGUMENTS`, made again (at most 5 times) when another
    /// suite registered a policy meanwhile: its parameters join every later run's resolved
    /// scenario, and check 3's shards, run on either side of it, would not merge (as in
    /// ShardTests; never so in a bgbench process of its own).
    static func conformance(_ arguments: [String]) -> CommandResult {
        var result: CommandResult
        var attempts = 0
        repeat {
            attempts += 1
            let generation = RegistryGeneration.current
            result = bgbench(["conformance", "--"] + arguments)
            if RegistryGeneration.current == generation { return result }
        } while attempts < 5
        return result
    }

    /// The check lines of an output (the last line, the verdict, left out).
    static func lines(_ output: String) -> [Substring] {
        output.split(separator: "\n").filter { !$0.hasPrefix("conformance:") }
    }

    /// The examples conform, batched too: checks 1 to 5 `ok`, the speed reported, exit 0.
    /// What fixed's handshake declares is python/examples/fixed_policy.py's, in microseconds.
    @Test(arguments: [
        (
            "fixed_policy.py",
            #"ok   1 handshake: protocol 1, name "fixed-py", version "1", knob {"name":"interval","value":900000000}; callbacks: run_started; denial rule: the grid rule, every 900000000 µs"#
        ),
        (
            "opens_policy.py",
            #"ok   1 handshake: protocol 1, name "after-opens-py", version "1", knob {"name":"gap","value":1800000000}; callbacks: opened, denied, run_started, run_ended, midnight; denial rule: none"#
        ),
        (
            "fixed_policy.py --batch",
            #"ok   1 handshake: protocol 1, name "fixed-py", version "1", knob {"name":"interval","value":900000000}; callbacks: run_started; denial rule: the grid rule, every 900000000 µs; batching: frames of a block's devices"#
        ),
    ])
    func theExamplesPass(example: String, handshake: String) throws {
        guard Self.hasPython else {
            print("ConformanceTests: SKIPPED: python3 is missing")
            return
        }
        let words = example.split(separator: " ").map(String.init)
        let result = Self.conformance(["python3", Self.examples + "/" + words[0]] + words.dropFirst())
        #expect(result.code == 0, "\(result.output)\(result.errors)")
        #expect(result.errors == "")
        let lines = Self.lines(result.output)
        try #require(lines.count == 6, "\(result.output)")
        #expect(lines[0] == handshake)
        for (i, title) in ["runs to the end", "determinism", "device independence", "end of input"].enumerated() {
            #expect(lines[i + 1].hasPrefix("ok   \(i + 2) \(title): "), "\(lines[i + 1])")
        }
        #expect(lines[5].hasPrefix("info 6 speed: ") && lines[5].hasSuffix("(reported, not judged)"))
        #expect(lines[5].contains(" frames") == example.hasSuffix("--batch"), "\(lines[5])")
        #expect(result.output.hasSuffix("\nconformance: every check passed\n"))
    }

    /// A policy that breaks one rule, by name: it speaks the protocol itself (no package)
    /// and asks for a wake an hour after each message, but for its flaw.
    static let flawed = """
        import json, os, random, sys, time
        flaw = sys.argv[1]
        r = os.fdopen(3, "rb")
        w = os.fdopen(4, "wb", buffering=0)
        HOUR = 3600 * 10**6
        served = 0
        clock = random.Random(time.time_ns())
        for line in r:
            m = json.loads(line)
            if m["type"] == "hello":
                if flaw == "nameless-hello":
                    w.write(b'{"type":"hello","protocol":1,"version":"1"}\\n')
                else:
                    w.write(b'{"type":"hello","protocol":1,"name":"flawed","version":"1","callbacks":["run_started"]}\\n')
                continue
            if m["type"] == "start":
                served += 1
            gap = HOUR
            if flaw == "state-across-devices":
                gap = served * 600 * 10**6    # ten minutes per device served so far
            elif flaw == "clock":
                gap = clock.randrange(HOUR // 2, 2 * HOUR)
            w.write(b'{"seq":%d,"decision":"request","at":%d}\\n' % (m["seq"], m["now"] + gap))
        if flaw == "ignores-eof":
            time.sleep(30)
        """

    /// Runs the flawed policy with `flaw`: the result, which must be exit 1 with the failed
    /// checks named on standard error.
    static func flawed(_ flaw: String, failing checks: String) throws -> CommandResult {
        let script = freshPath("flawed") + ".py"
        try Self.flawed.write(toFile: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: script) }
        let result = Self.conformance(["python3", script, flaw])
        #expect(result.code == 1, "\(flaw): \(result.output)\(result.errors)")
        #expect(result.errors == "error: conformance: \(checks) failed (above; docs/protocol.md, \"Conformance\")\n")
        return result
    }

    /// A handshake without a name: check 1's line is the error a run stops with; the
    /// others have nothing to run.
    @Test func aMalformedHandshakeFailsCheck1() throws {
        guard Self.hasPython else { return }
        let result = try Self.flawed("nameless-hello", failing: "check 1")
        #expect(
            Self.lines(result.output) == [
                #"FAIL 1 handshake: external policy: handshake: expected a "name" of 1 to 64 bytes, got: {"type":"hello","protocol":1,"version":"1"}"#,
                "skip 2 runs to the end: no handshake", "skip 3 determinism: no handshake",
                "skip 4 device independence: no handshake", "skip 5 end of input: no handshake",
                "skip 6 speed: no handshake",
            ])
    }

    /// State kept across devices: the second block's devices (64–99) are served first by a
    /// fresh process in shard 1/2, and after the first block's 64 in the whole run. Device
    /// 64 has Background App Refresh off (devices.csv's `bar_off` is 1): nothing it asks
    /// for runs, and its row is the same either way. Device 65 asks 20 minutes ahead in the
    /// first case and 660 in the second, and its runs differ: check 4 names it. The same run
    /// twice is the same (one thread serves the devices in order); two threads and two
    /// shards are not.
    @Test func stateAcrossDevicesFailsCheck4() throws {
        guard Self.hasPython else { return }
        let result = try Self.flawed("state-across-devices", failing: "checks 3, 4")
        let lines = Self.lines(result.output)
        try #require(lines.count == 6, "\(result.output)")
        // The run on two threads differs when both threads served a block, each with a
        // process of its own (one thread may take both blocks before the other starts).
        #expect(lines[2].hasPrefix("FAIL 3 determinism: "))
        #expect(lines[2].hasSuffix("2 shards merged give another summary.csv than the whole run"))
        #expect(
            lines[3]
                == "FAIL 4 device independence: device 65's row of devices.csv differs when devices 64–99 are served by a fresh process (shard 1/2) from its row in the whole run, served after devices 0–63: the answers depend on other devices' messages (keep no state across devices: reset it at start)"
        )
        #expect(lines[0].hasPrefix("ok   1 ") && lines[1].hasPrefix("ok   2 ") && lines[4].hasPrefix("ok   5 "))
    }

    /// Draws from a generator seeded by the clock: the same run twice differs (check 3), and
    /// device independence cannot be told (check 4 skipped).
    @Test func aClockSeededPolicyFailsCheck3() throws {
        guard Self.hasPython else { return }
        let result = try Self.flawed("clock", failing: "check 3")
        let lines = Self.lines(result.output)
        try #require(lines.count == 6, "\(result.output)")
        #expect(
            lines[2].hasPrefix(
                "FAIL 3 determinism: two runs of the same scenario and seed give different summary.csv (draw from start's seed, not the clock)"
            ))
        #expect(
            lines[3] == "skip 4 device independence: the same run gives different rows (check 3): nothing to compare")
    }

    /// Ignores the end of its input: every process of checks 2 (4 runs, a process each) and
    /// 3 (5 runs, the one on two threads with one process or two: a thread may take both
    /// blocks before the other starts) is still there 2 s after its fd 3 closed.
    @Test func aPolicyThatIgnoresEndOfInputFailsCheck5() throws {
        guard Self.hasPython else { return }
        let result = try Self.flawed("ignores-eof", failing: "check 5")
        let lines = Self.lines(result.output)
        try #require(lines.count == 6, "\(result.output)")
        let counts = ["9 of 9", "10 of 10"].map {
            "FAIL 5 end of input: \($0) processes were still running 2 s after their fd 3 closed (bgbench kills them "
                + "then): exit at the end of the input"
        }
        #expect(counts.contains(String(lines[4])), "\(lines[4])")
    }

    /// No program: a usage error.
    @Test func noProgram() {
        let result = bgbench(["conformance"])
        #expect(result.code == 64)
        #expect(
            result.errors
                == "error: 'conformance' needs the policy's command: bgbench conformance -- PROGRAM [ARGS...]\nsee 'bgbench --help'\n"
        )
    }
}
