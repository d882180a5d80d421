import BGBenchTestSupport
import Foundation
import Testing

@testable import BGBench

/// `external` (docs/protocol.md): the Python `fixed` of python/examples gives the built-in
/// fixed's summary.csv exactly, on any thread count and sharded; a run needs
/// `--allow-external`; every bad partner is one line with exit 76 and no report folder.
@Suite struct ExternalPolicyTests {
    static let example = TestSupport.packageRoot.appendingPathComponent("python/examples/fixed_policy.py").path

    /// `--set` for a command list.
    static func command(_ arguments: [String]) -> String {
        "policies.external.command=[" + arguments.map { "\"\($0)\"" }.joined(separator: ",") + "]"
    }

    /// A run of `policies` on the default scenario, writing to a fresh folder: its result and folder.
    static func run(
        _ policies: String, devices: Int = 50, days: Int = 7, threads: Int = 1, allow: Bool = true,
        _ extra: [String] = []
    ) -> (result: CommandResult, out: String) {
        let out = freshPath("external")
        let result = bgbench(
            [
                "--policy", policies, "--days", "\(days)", "--devices", "\(devices)", "--threads", "\(threads)",
                "--quiet",
            ]
                + (allow ? ["--allow-external"] : []) + ["--out", out] + extra)
        return (result, out)
    }

    /// summary.csv's text with the policy's name put in as `fixed`.
    static func summary(_ out: String) throws -> String {
        try String(contentsOfFile: out + "/summary.csv", encoding: .utf8)
    }

    /// The bridge's oracle: every figure of summary.csv is the built-in fixed's, run side
    /// by side (paired: every difference 0), on two intervals.
    @Test(arguments: [900, 3600])
    func pythonFixedIsFixed(interval: Int) throws {
        let (result, out) = Self.run(
            "external,fixed", threads: 2,
            [
                "--set", Self.command(["python3", Self.example, "--interval", "\(interval)"]),
                "--set", "policies.fixed.interval=\(interval)s",
            ])
        try #require(result.code == 0, "\(result.errors)")
        let rows = try csvRecords(out + "/summary.csv")
        let external = rows.filter { $0["policy"] == "external" }, fixed = rows.filter { $0["policy"] == "fixed" }
        #expect(external.count == fixed.count && external.count > 1)
        for (a, b) in zip(external, fixed) {
            let differing = a.keys.filter { $0 != "policy" && a[$0] != b[$0] }.sorted()
            #expect(differing.isEmpty, "\(a["archetype"] ?? "?"): \(differing)")
        }
        // Its runs are fixed's runs, not nothing: the process was asked.
        #expect(Double(external[0]["runs_per_day"] ?? "0") ?? 0 > 1)
    }

    /// The same answers give the same bytes on 1 and 2 threads (one process per worker),
    /// and in two shards merged.
    @Test func reportsDoNotDependOnThreadsOrShards() throws {
        let command = ["--set", Self.command(["python3", Self.example])]
        let one = Self.run("external", devices: 130, days: 3, threads: 1, command)
        let two = Self.run("external", devices: 130, days: 3, threads: 2, command)
        try #require(one.result.code == 0 && two.result.code == 0, "\(one.result.errors)\(two.result.errors)")
        for name in ["summary.csv", "daily.csv", "hourly.csv", "long.csv"] {
            let a = try String(contentsOfFile: one.out + "/" + name, encoding: .utf8)
            let b = try String(contentsOfFile: two.out + "/" + name, encoding: .utf8)
            #expect(a == b, "\(name) differs between 1 and 2 threads")
        }
        let shards = freshFolder("external-shards")
        for k in 0..<2 {
            let out = shards + "/\(k)"
            let r = bgbench(
                ["--policy", "external", "--days", "3", "--devices", "130", "--quiet", "--allow-external"] + command
                    + ["--shard", "\(k)/2", "--out", out])
            try #require(r.code == 0, "\(r.errors)")
        }
        let merged = freshPath("external-merged")
        let m = bgbench(["merge", "--quiet", "--out", merged, shards])
        try #require(m.code == 0, "\(m.errors)")
        #expect(try Self.summary(merged) == Self.summary(one.out))
    }

    /// Nodes of a cluster name one program by other paths: shards whose commands differ
    /// but whose handshakes agree merge into the whole run's summary; shards whose
    /// handshakes differ (another interval, so another knob) are refused, naming both.
    @Test func shardsMergeWhateverPathEachNodeGave() throws {
        let spellings = [["python3", Self.example], ["env", "python3", Self.example]]
        let whole = Self.run("external", devices: 40, days: 2, ["--set", Self.command(spellings[0])])
        try #require(whole.result.code == 0, "\(whole.result.errors)")
        func shards(_ commands: [[String]]) throws -> String {
            let folder = freshFolder("external-nodes")
            for (k, command) in commands.enumerated() {
                let r = bgbench(
                    ["--policy", "external", "--days", "2", "--devices", "40", "--quiet", "--allow-external"]
                        + ["--set", Self.command(command), "--shard", "\(k)/2", "--out", folder + "/\(k)"])
                try #require(r.code == 0, "\(r.errors)")
            }
            return folder
        }
        let merged = freshPath("external-nodes-merged")
        let m = bgbench(["merge", "--quiet", "--out", merged, try shards(spellings)])
        try #require(m.code == 0, "\(m.errors)")
        #expect(try Self.summary(merged) == Self.summary(whole.out))

        let other = spellings[1] + ["--interval", "600"]
        let refused = bgbench([
            "merge", "--quiet", "--out", freshPath("external-refused"), try shards([spellings[0], other]),
        ])
        #expect(refused.code == 65)
        #expect(
            refused.errors.contains(
                #"its external handshake is external: fixed-py 1 knob {"name":"interval","value":600000000}, expected external: fixed-py 1 knob {"name":"interval","value":900000000}"#
            ), "\(refused.errors)")
    }

    /// A scenario alone never starts a process: without `--allow-external`, one line, exit
    /// 64, nothing written, and the program named is not run.
    @Test func aRunMustAllowIt() throws {
        let marker = freshPath("external-ran")
        let (result, out) = Self.run(
            "external", devices: 1, days: 1, allow: false, ["--set", Self.command(["touch", marker])])
        #expect(result.code == 64)
        #expect(
            result.errors
                == "error: the external policy starts the program policies.external.command names: allow it with --allow-external (a scenario alone never starts a process)\n"
        )
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(!FileManager.default.fileExists(atPath: marker))
        // With the flag, the same command line starts it.
        let (allowed, _) = Self.run("external", devices: 1, days: 1, ["--set", Self.command(["touch", marker])])
        #expect(allowed.code == 76)
        #expect(FileManager.default.fileExists(atPath: marker))
    }

    /// A partner that misbehaves one way, by name (docs/protocol.md, "Errors"): it answers
    /// the hello (unless `exit-at-hello` or `bad-hello`) and then the first decision as named.
    static let partner = """
        import json, os, sys, time
        mode = sys.argv[1]
        r = os.fdopen(3, "rb")
        w = os.fdopen(4, "wb", buffering=0)
        def send(text):
            w.write((text + "\\n").encode())
        for line in r:
            m = json.loads(line)
            if m["type"] == "hello":
                if mode == "exit-at-hello":
                    sys.exit(3)
                if mode == "bad-hello":
                    send('{"type":"hello","protocol":2,"name":"t","version":"1"}')
                    continue
                send('{"type":"hello","protocol":1,"name":"t","version":"1","callbacks":["run_started"]}')
                continue
            seq, now = m["seq"], m["now"]
            if mode == "exit":
                sys.exit(0)
            elif mode == "malformed":
                send("not json")
            elif mode == "order":
                send('{"seq":%d,"decision":"keep"}' % (seq + 1))
            elif mode == "past":
                send('{"seq":%d,"decision":"request","at":%d}' % (seq, now - 5))
            elif mode == "beyond":
                send('{"seq":%d,"decision":"request","at":%d}' % (seq, m["horizon"] + 7 * 86400 * 10**6 + 1))
            elif mode == "nan":
                send('{"seq":%d,"decision":"request","at":NaN}' % seq)
            elif mode == "silent":
                time.sleep(30)
            elif mode == "long":
                w.write(b"x" * 70000)
                time.sleep(30)
            elif mode == "nul":
                w.write(b'{"seq":0,\\x00"decision":"keep"}\\n')
            else:
                send('{"seq":%d,"decision":"request","at":%d}' % (seq, now + 3600 * 10**6))
        """

    static let startAt0 = "error: external policy: device 0 at day 0 00:00:00.000000 (t=0 µs), answering 'start': "

    static let badPartners: [(mode: String, error: String)] = [
        ("exit-at-hello", "error: external policy: handshake: the policy process exited with code 3 before answering"),
        (
            "bad-hello",
            #"error: external policy: handshake: expected protocol 1, got: {"type":"hello","protocol":2,"name":"t","version":"1"}"#
        ),
        ("exit", startAt0 + "the policy process exited with code 0 before answering"),
        ("malformed", startAt0 + "a malformed line (expected a value, found 'n' at column 1): not json"),
        ("order", startAt0 + "an answer out of order: seq 1, expected 0"),
        ("past", startAt0 + "a request at t=-5 µs, in the past (now t=0 µs)"),
        (
            "beyond",
            startAt0
                + "a request at t=691200000001 µs, more than a week beyond the horizon (t=691200000000 µs at most)"
        ),
        (
            "nan",
            startAt0
                + #"a malformed line (expected a value, found 'N' at column 36): {"seq":0,"decision":"request","at":NaN}"#
        ),
        ("silent", startAt0 + "no answer within 0.3 s (policies.external.timeout)"),
        ("long", startAt0 + "a line longer than 65536 bytes (docs/protocol.md, \"Limits\")"),
        ("nul", startAt0 + "a NUL byte in the line: {\"seq\":0,\u{0}\"decision\":\"keep\"}"),
    ]

    /// Every bad partner: its one line, exit 76 (EX_PROTOCOL), and no report folder.
    @Test(arguments: badPartners)
    func aBadPartnerStopsTheRun(mode: String, error: String) throws {
        let script = freshPath("partner") + ".py"
        try Self.partner.write(toFile: script, atomically: true, encoding: .utf8)
        let (result, out) = Self.run(
            "external", devices: 1, days: 1,
            ["--set", Self.command(["python3", script, mode]), "--set", "policies.external.timeout=0.3s"])
        #expect(result.code == 76, "\(mode): \(result.errors)")
        #expect(result.errors == error.replacingOccurrences(of: "\u{0}", with: "\\u{0}") + "\n", "\(mode)")
        #expect(!FileManager.default.fileExists(atPath: out), "\(mode): a report folder")
    }

    /// A program that does not exist: one line, exit 76.
    @Test func aProgramThatCannotStart() {
        let (result, out) = Self.run(
            "external", devices: 1, days: 1, ["--set", Self.command(["/nonexistent/policy"])])
        #expect(result.code == 76)
        #expect(
            result.errors == "error: external policy: cannot start '/nonexistent/policy': No such file or directory\n")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// No command: a usage error naming the parameter.
    @Test func noCommand() {
        let (result, _) = Self.run("external", devices: 1, days: 1)
        #expect(result.code == 64)
        #expect(
            result.errors.hasPrefix("error: the external policy needs a command: expected policies.external.command"))
    }

    /// The handshake: callbacks, the grid rule, a knob; bad ones refused.
    @Test func handshakes() throws {
        func parse(_ text: String) -> Result<ExternalProtocol.Handshake, ExternalProtocol.Failure> {
            Result { () throws(ExternalProtocol.Failure) in try ExternalProtocol.handshake(ArraySlice(text.utf8)) }
        }
        let good = try parse(
            #"{"type":"hello","protocol":1,"name":"p","version":"2","knob":{"name":"interval","value":900},"callbacks":["opened","run_ended"],"denials":{"rule":"grid","interval":5}}"#
        ).get()
        #expect(good.callbacks == [.opened, .runEnded] && good.grid == 5 && good.name == "p" && good.version == "2")
        #expect(good.knob == #"{"name":"interval","value":900}"#)
        let refused = [
            #"{"type":"hello","protocol":1,"name":"p","version":"2","callbacks":["denied"],"denials":{"rule":"grid","interval":5}}"#,
            #"{"type":"hello","protocol":1,"name":"p","version":"2","callbacks":["tick"]}"#,
            #"{"type":"hello","protocol":1,"name":"","version":"2"}"#,
            #"{"type":"hello","protocol":1,"name":"p","version":"2","denials":{"rule":"grid","interval":0}}"#,
        ]
        for text in refused {
            guard case .failure = parse(text) else {
                Issue.record("accepted: \(text)")
                continue
            }
        }
    }

    /// bgbench's generator in Python (bgbench.Random) draws what RandomStream draws.
    @Test func pythonGeneratorIsBGBenchs() throws {
        var stream = RandomStream(seed: 1, device: 3, purpose: .policy)
        let seed = [stream.s0, stream.s1, stream.s2, stream.s3]
        let expected = (0..<5).map { _ in stream.uniform() }
        let src = TestSupport.packageRoot.appendingPathComponent("python/src").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c",
            "import sys; sys.path.insert(0, '\(src)'); from bgbench.policy import Random; r = Random(\(seed)); print(*[repr(r.uniform()) for _ in range(5)])",
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        process.waitUntilExit()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let drawn = text.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Double(String($0)) }
        #expect(drawn == expected)
    }
}

extension ExternalPolicyTests {
    /// The quick reading of canonical answers gives the parser's answer, and leaves
    /// everything else to it.
    @Test(arguments: [
        (#"{"seq":3,"decision":"keep"}"#, WakeDecision?.some(.keep)),
        (#"{"seq":3,"decision":"cancel"}"#, .some(.cancel)),
        (#"{"seq":3,"decision":"request","at":120}"#, .some(.request(at: 120))),
        (#"{"seq":3,"decision":"request","at":0120}"#, nil),
        (#"{"seq":3,"decision":"request","at":-1}"#, nil),
        (#"{"seq":3,"decision":"request","at":1.5}"#, nil),
        (#"{"seq":3, "decision":"keep"}"#, nil),
        (#"{"seq":3,"decision":"keep"} "#, nil),
        (#"{"seq":3,"decision":"keepx"}"#, nil),
    ])
    func canonicalAnswers(_ text: String, _ expected: WakeDecision?) throws {
        let line = ArraySlice(text.utf8)
        let quick = ExternalProtocol.canonical(line)
        #expect(quick?.decision == expected, "\(text)")
        if expected != nil { #expect(quick?.seq == 3) }
        // Whichever path reads it, the answer (or the refusal) is the parser's.
        let full = Result { () throws(ExternalProtocol.Failure) in
            try ExternalProtocol.decision(line, seq: 3, now: 100, latest: 1000)
        }
        if let expected, case .success(let d) = full { #expect(d == expected) }
    }
}

extension ExternalPolicyTests {
    /// run.json names the policy the handshake declared, and so does a merged run.json.
    @Test func runJSONRecordsTheHandshake() throws {
        let command = ["--set", Self.command(["python3", Self.example, "--interval", "600"])]
        let (result, out) = Self.run("external", devices: 70, days: 1, command)
        try #require(result.code == 0, "\(result.errors)")
        let expected = [
            #""external_policies" : {"#, #"    "external" : {"#,
            #"      "knob" : "{\"name\":\"interval\",\"value\":600000000}","#, #"      "name" : "fixed-py","#,
            #"      "version" : "1""#, "    }", "  }",
        ].joined(separator: "\n")
        let runJSON = try String(contentsOfFile: out + "/run.json", encoding: .utf8)
        #expect(runJSON.contains(expected), "\(runJSON)")
        let shards = freshFolder("external-identity")
        for k in 0..<2 {
            let r = bgbench(
                ["--policy", "external", "--days", "1", "--devices", "70", "--quiet", "--allow-external"] + command
                    + ["--shard", "\(k)/2", "--out", shards + "/\(k)"])
            try #require(r.code == 0, "\(r.errors)")
            let state = try String(contentsOfFile: shards + "/\(k)/shard.state", encoding: .utf8)
            #expect(
                state.contains(
                    #""external_policies":{"external":{"knob":"{\"name\":\"interval\",\"value\":600000000}","name":"fixed-py","version":"1"}}"#
                ))
        }
        let merged = freshPath("external-identity-merged")
        let m = bgbench(["merge", "--quiet", "--out", merged, shards])
        try #require(m.code == 0, "\(m.errors)")
        #expect(try String(contentsOfFile: merged + "/run.json", encoding: .utf8).contains(expected))
        // Without external, no such key.
        let (plain, plainOut) = Self.run("fixed", devices: 1, days: 1)
        try #require(plain.code == 0)
        #expect(!(try String(contentsOfFile: plainOut + "/run.json", encoding: .utf8)).contains("external_policies"))
    }

    /// Two external policies side by side, each its own program, paired like built-in
    /// ones: `external2` (the Python fixed at 1 h) gives the built-in fixed's summary rows
    /// at 1 h exactly and a paired difference of zero, `external` (at 15 min) another;
    /// run.json records both handshakes by name; a second program that cannot start is
    /// named in the error.
    @Test func twoExternalPoliciesSideBySide() throws {
        let set = [
            "--set", Self.command(["python3", Self.example, "--interval", "900"]),
            "--set",
            Self.command(["python3", Self.example, "--interval", "3600"]).replacing(
                "policies.external.", with: "policies.external2."),
            "--set", "policies.fixed.interval=1h",
        ]
        let (result, out) = Self.run("external,external2,fixed", devices: 60, days: 3, threads: 2, set)
        try #require(result.code == 0, "\(result.errors)")
        let summary = try csvRecords(out + "/summary.csv")
        func rows(_ policy: String) -> [[String: String]] { summary.filter { $0["policy"] == policy } }
        #expect(rows("external2").count == rows("fixed").count && rows("fixed").count > 1)
        for (a, b) in zip(rows("external2"), rows("fixed")) {
            #expect(a.keys.filter { $0 != "policy" && a[$0] != b[$0] }.isEmpty, "\(a["archetype"] ?? "?")")
        }
        // Another program: at 15 min it asks four times as often, so the budget denies it more.
        let quarter = Double(rows("external")[0]["denied_per_day"] ?? "") ?? 0
        let hourly = Double(rows("external2")[0]["denied_per_day"] ?? "") ?? 0
        #expect(quarter > 2 * hourly && hourly > 1, "denials a day: \(quarter) at 15 min, \(hourly) at 1 h")
        // Every paired difference from fixed is zero (or undefined, as for fixed itself).
        let paired = try csvRecords(out + "/paired.csv").filter { $0["policy"] == "external2" }
        #expect(paired.count > 10)
        #expect(paired.allSatisfy { $0["difference"] == "" || Double($0["difference"] ?? "") == 0 })
        let runJSON = try String(contentsOfFile: out + "/run.json", encoding: .utf8)
        #expect(runJSON.contains(#""knob" : "{\"name\":\"interval\",\"value\":900000000}""#))
        #expect(
            runJSON.contains(
                #""external2" : {"# + "\n" + #"      "knob" : "{\"name\":\"interval\",\"value\":3600000000}""#))

        // The command line's mistakes are usage errors of the policy they concern: exit 64.
        let notAllowed = Self.run("external2", devices: 2, days: 1, allow: false, [set[2], set[3]])
        #expect(notAllowed.result.code == 64)
        #expect(
            notAllowed.result.errors
                == "error: the external policy 'external2' starts the program policies.external2.command names: allow it with --allow-external (a scenario alone never starts a process)\n"
        )
        let noCommand = Self.run("external2", devices: 2, days: 1)
        #expect(noCommand.result.code == 64)
        #expect(
            noCommand.result.errors
                == #"error: the external policy 'external2' needs a command: expected policies.external2.command as a list of arguments, e.g. --set 'policies.external2.command=["python3","policy.py"]'"#
                + "\n")

        let missing = Self.run(
            "external,external2", devices: 2, days: 1,
            [set[0], set[1], "--set", #"policies.external2.command=["no-such-program-bgbench"]"#])
        #expect(missing.result.code == 76)
        #expect(
            missing.result.errors
                == "error: external policy 'external2': cannot start 'no-such-program-bgbench': No such file or directory\n"
        )
        #expect(!FileManager.default.fileExists(atPath: missing.out))
    }
}

extension ExternalPolicyTests {
    /// SIGTERM to bgbench in the middle of a run: it exits 143, no report folder, and its
    /// partner processes end with it (none left behind). A partner whose stdout would
    /// corrupt a protocol on stdout prints freely (it goes to bgbench's stderr).
    @Test func childrenEndWithTheParent() throws {
        let folder = freshFolder("external-signal")
        let script = folder + "/slow.py", pids = folder + "/pids"
        try """
        import json, os, sys, time
        open(sys.argv[1], "a").write("%d\\n" % os.getpid())
        r = os.fdopen(3, "rb")
        w = os.fdopen(4, "wb", buffering=0)
        for line in r:
            m = json.loads(line)
            print("a print() on stdout", m["type"])
            if m["type"] == "hello":
                w.write(b'{"type":"hello","protocol":1,"name":"slow","version":"1","callbacks":["run_started"]}\\n')
                continue
            time.sleep(0.02)
            w.write(b'{"seq":%d,"decision":"request","at":%d}\\n' % (m["seq"], m["now"] + 3600 * 10**6))
        """.write(toFile: script, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try ResourcesTests.builtBinary())
        process.arguments = [
            "--allow-external", "--policy", "external", "--days", "30", "--devices", "400", "--threads", "2",
            "--quiet", "--set", Self.command(["python3", script, pids]), "--out", folder + "/out",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Both workers' processes started (or 20 s passed).
        var started: [pid_t] = []
        for _ in 0..<200 {
            started = ((try? String(contentsOfFile: pids, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
                pid_t($0)
            }
            if started.count >= 2 { break }
            usleep(100_000)
        }
        try #require(!started.isEmpty && process.isRunning)
        process.terminate()  // SIGTERM
        process.waitUntilExit()
        #expect(process.terminationStatus == 143)
        #expect(!FileManager.default.fileExists(atPath: folder + "/out"))
        // Every partner has ended within 3 s (kill(pid, 0) fails once it is gone and reaped
        // by init; a zombie counts as ended).
        func alive(_ pid: pid_t) -> Bool {
            guard kill(pid, 0) == 0 else { return false }
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            return !stat.contains(") Z ")
        }
        var left = started
        for _ in 0..<30 where !left.isEmpty {
            usleep(100_000)
            left = left.filter(alive)
        }
        #expect(left.isEmpty, "partners left running: \(left)")
    }
}
