import BGBenchTestSupport
import Foundation
import Testing

@testable import BGBench

/// Batching (docs/protocol.md, "Batching"): a process that declares `"batch":true` is sent
/// a block's devices side by side in frames, and the reports are the ones it gives
/// unbatched, on any thread count; its frames are what the protocol says; a bad answer in
/// a frame names its own device.
@Suite struct ExternalBatchTests {
    static let examples = TestSupport.packageRoot.appendingPathComponent("python/examples").path

    /// `--set` for policy `name`'s command list.
    static func command(_ name: String, _ arguments: [String]) -> String {
        "policies.\(name).command=[" + arguments.map { "\"\($0)\"" }.joined(separator: ",") + "]"
    }

    /// summary.csv's rows of `policy`, without the policy's name.
    static func rows(_ out: String, _ file: String, _ policy: String) throws -> [[String: String]] {
        try csvRecords(out + "/" + file).filter { $0["policy"] == policy }.map { $0.filter { $0.key != "policy" } }
    }

    /// The Python `fixed` batched, the same program unbatched and the built-in `fixed`, side
    /// by side on 130 devices (three blocks, the last one short) and 2 threads: every
    /// summary.csv, devices.csv and events.csv row (66 devices traced: a batched traced
    /// device keeps its events in its record) is the same under the three. And the policy that
    /// hears five callbacks (opens, denials, run starts and ends, midnights) batched
    /// equals itself unbatched.
    @Test(arguments: [("fixed_policy.py", true), ("opens_policy.py", false)])
    func batchedEqualsUnbatched(example: String, comparesBuiltIn: Bool) throws {
        let program = ["python3", Self.examples + "/" + example]
        let (result, out) = ExternalPolicyTests.run(
            comparesBuiltIn ? "external,external2,fixed" : "external,external2", devices: 130, days: 3, threads: 2,
            [
                "--set", Self.command("external", program + ["--batch"]),
                "--set", Self.command("external2", program), "--per-device", "--trace-devices", "66",
            ])
        try #require(result.code == 0, "\(result.errors)")
        for file in ["summary.csv", "devices.csv", "events.csv"] {
            let batched = try Self.rows(out, file, "external")
            #expect(batched.count > 1)
            #expect(batched == (try Self.rows(out, file, "external2")), "\(example): \(file), batched vs unbatched")
            if comparesBuiltIn {
                #expect(batched == (try Self.rows(out, file, "fixed")), "\(file): batched vs built-in fixed")
            }
        }
        let runs = try Self.rows(out, "summary.csv", "external")[0]["runs_per_day"]
        #expect(Double(runs ?? "0") ?? 0 > 1, "the process was asked: \(runs ?? "?") runs a day")
    }

    /// A partner that speaks the frames itself (no package) and logs each frame's header:
    /// `count` is how many of the block's devices wait (all of them at the first frame,
    /// 64 then 6 for 70 devices on one thread), `ended` lists each device once, after its
    /// last message; the reports equal the same partner
    /// unbatched, on one thread and on two.
    static let framesPartner = """
        import json, os, sys
        batch, log = sys.argv[1] == "batch", open(sys.argv[2], "a")
        r, w = os.fdopen(3, "rb"), os.fdopen(4, "wb", buffering=0)
        def decide(m):
            return '{"seq":%d,"decision":"request","at":%d}\\n' % (m["seq"], m["now"] + 2700 * 10**6)
        for line in r:
            m = json.loads(line)
            if m["type"] == "hello":
                hello = {"type": "hello", "protocol": 1, "name": "frames", "version": "1",
                         "callbacks": ["run_started", "opened"], "batch": batch}
                w.write((json.dumps(hello) + "\\n").encode())
            elif m["type"] == "batch":
                messages = [json.loads(next(r)) for _ in range(m["count"])]
                log.write(json.dumps({"count": m["count"], "ended": m["ended"],
                                      "devices": [x["device"] for x in messages]}) + "\\n")
                log.flush()
                w.write("".join(decide(x) for x in messages).encode())
            else:
                w.write(decide(m).encode())
        """

    @Test func framesAreWhatTheProtocolSays() throws {
        let script = freshPath("frames") + ".py"
        try Self.framesPartner.write(toFile: script, atomically: true, encoding: .utf8)
        func run(_ mode: String, threads: Int) throws -> (summary: String, frames: [[String: [Int]]]) {
            let log = freshPath("frames-log")
            let (result, out) = ExternalPolicyTests.run(
                "external", devices: 70, days: 2, threads: threads,
                ["--set", Self.command("external", ["python3", script, mode, log])])
            try #require(result.code == 0, "\(result.errors)")
            let lines = (try? String(contentsOfFile: log, encoding: .utf8))?.split(separator: "\n") ?? []
            let frames = try lines.map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
                    .mapValues { ($0 as? [Int]) ?? [($0 as? Int) ?? -1] }
            }
            return (try String(contentsOfFile: out + "/summary.csv", encoding: .utf8), frames)
        }
        let unbatched = try run("plain", threads: 1)
        #expect(unbatched.frames.isEmpty)
        let one = try run("batch", threads: 1)
        let two = try run("batch", threads: 2)
        #expect(one.summary == unbatched.summary)
        #expect(two.summary == unbatched.summary)
        // One thread, one process: block 0's 64 devices, then block 1's 6.
        let first = try #require(one.frames.first)
        #expect(first["count"] == [64] && first["devices"] == Array(0..<64) && first["ended"] == [])
        let second = try #require(one.frames.firstIndex { $0["devices"]?.first == 64 })
        #expect(one.frames[second]["count"] == [6] && one.frames[second]["devices"] == Array(64..<70))
        let endedBefore = one.frames[...second].flatMap { $0["ended"] ?? [] }
        #expect(endedBefore.sorted() == Array(0..<64), "block 0's devices have ended by block 1's first frame")
        var ended: [Int] = []
        var last: [Int: Int] = [:]  // each device's last frame
        for (k, frame) in one.frames.enumerated() {
            let devices = frame["devices"] ?? []
            #expect(devices == devices.sorted() && Set(devices).count == devices.count, "frame \(k): \(devices)")
            #expect(frame["count"] == [devices.count] && frame["ended"] == frame["ended"]?.sorted())
            for d in frame["ended"] ?? [] { #expect(last[d].map { $0 < k } ?? false, "device \(d) ended early") }
            ended += frame["ended"] ?? []
            for d in devices { last[d] = k }
        }
        // Each device once; block 1's last devices end with the run, after the last frame.
        #expect(Set(ended).count == ended.count && Set(0..<64).isSubset(of: ended) && ended.allSatisfy { $0 < 70 })
        // Every paused device is in the next frame: a block takes as many frames as its
        // busiest device has messages (2,220 messages in 280 frames here).
        for block in [0..<64, 64..<70] {
            let frames = one.frames.filter { ($0["devices"] ?? []).contains { block.contains($0) } }
            let busiest = block.map { d in frames.filter { $0["devices"]!.contains(d) }.count }.max()
            #expect(frames.count == busiest, "block \(block): \(frames.count) frames")
            #expect(frames.allSatisfy { $0["devices"]!.allSatisfy { block.contains($0) } }, "a frame holds one block")
        }
    }

    /// A bad answer inside a frame stops the run naming its own device, the same on every
    /// run: the partner answers device 3's `start` in the past, devices 0–2 well.
    @Test func aBadAnswerNamesItsDevice() throws {
        let script = freshPath("frames-bad") + ".py"
        try Self.framesPartner.replacingOccurrences(
            of: #"m["now"] + 2700 * 10**6)"#, with: #"m["now"] + (-5 if m["device"] == 3 else 60))"#
        ).write(toFile: script, atomically: true, encoding: .utf8)
        for threads in [1, 2] {
            let (result, out) = ExternalPolicyTests.run(
                "external", devices: 70, days: 1, threads: threads,
                ["--set", Self.command("external", ["python3", script, "batch", freshPath("frames-bad-log")])])
            #expect(result.code == 76)
            #expect(
                result.errors
                    == "error: external policy: device 3 at day 0 00:00:00.000000 (t=0 µs), answering 'start': a request at t=-5 µs, in the past (now t=0 µs)\n"
            )
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }

    /// `"batch"` in the handshake: a boolean, part of what every process must declare alike.
    @Test func handshakeDeclaresBatching() throws {
        func parse(_ text: String) -> Result<ExternalProtocol.Handshake, ExternalProtocol.Failure> {
            Result { () throws(ExternalProtocol.Failure) in try ExternalProtocol.handshake(ArraySlice(text.utf8)) }
        }
        let hello = #"{"type":"hello","protocol":1,"name":"p","version":"2""#
        #expect(try parse(hello + #","batch":true}"#).get().batches)
        #expect(try !parse(hello + #","batch":false}"#).get().batches)
        #expect(try !parse(hello + "}").get().batches)
        #expect(try parse(hello + #","batch":true}"#).get() != parse(hello + "}").get())
        guard case .failure(.message(let problem)) = parse(hello + #","batch":1}"#) else {
            Issue.record("\"batch\":1 accepted")
            return
        }
        #expect(
            problem
                == #"expected "batch" as true or false, got: {"type":"hello","protocol":1,"name":"p","version":"2","batch":1}"#
        )
    }
}
