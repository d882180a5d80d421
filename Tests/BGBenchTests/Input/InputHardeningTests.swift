import Foundation
import Testing
@testable import BGBench
@testable import BGBenchCLI
import BGBenchTestSupport

/// Issue 13's inputs and messages (points 3–5): every problem of a file at once, inputs
/// with a cap before memory grows (docs/limits.md), and messages that name the flag or
/// the place, read what root can read, and escape control characters. Each case has its
/// exact message.
@Suite struct InputHardeningTests {
    /// A fresh folder holding `files`.
    /// `validate DIR/NAME` of each case: exit 65 and exactly its line (`NAME:LINE:COLUMN: ...`).
    static func expectValidateRefuses(
        _ dir: String, _ cases: [(String, String)], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for (name, message) in cases {
            let r = bgbench(["validate", dir + "/" + name])
            #expect(r.code == 65, "\(name)", sourceLocation: sourceLocation)
            #expect(r.errors == "error: \(dir)/\(message)\nsee 'bgbench --help'\n", sourceLocation: sourceLocation)
        }
    }

    static func folder(_ files: [(String, Data)]) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bgbench-inputs-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (name, data) in files { FileManager.default.createFile(atPath: folder + "/" + name, contents: data) }
        return folder
    }

    /// Point 10: a duplicate key no longer hides the file's other problems.
    @Test func validateReportsEveryProblemOfAFile() throws {
        let json =
            #"{"name":"x","name":"y","content":{"items_per_day":-5,"kind":"bogus"},"population":{"bar_off_share":7}}"#
        let dir = try Self.folder([("multi.json", Data(json.utf8))])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = bgbench(["validate", dir + "/multi.json"])
        #expect(r.code == 65)
        #expect(
            r.errors == """
                error: \(dir)/multi.json:1:13: name: duplicate key (first at line 1, column 2; that value is kept)
                error: \(dir)/multi.json:1:51: content.items_per_day: -5 is out of range: expected a number from 0 to 100000
                error: \(dir)/multi.json:1:61: content.kind: expected one of: news, sync, catalog, messages
                error: \(dir)/multi.json:1:100: population.bar_off_share: 7 is out of range: expected a number from 0 to 1
                see 'bgbench --help'

                """)
    }

    /// Point 9: an unknown key that only a `--set` created is the flag's problem (64), not
    /// the file's or the built-in defaults'.
    @Test func anUnknownSetPathNamesTheFlag() throws {
        let dir = try Self.folder([("s.json", Data(#"{"name": "s"}"#.utf8))])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for scenario in [[], ["--scenario", dir + "/s.json"]] {
            let r = bgbench(
                scenario + [
                    "--set", "policies.nosuch.interval=5m", "--days", "1", "--devices", "1", "--out", dir + "/out",
                ])
            #expect(r.code == 64)
            #expect(r.errors == "error: --set policies.nosuch: unknown key\nsee 'bgbench --help'\n")
            #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
        }
        // A key the file has stays the file's.
        let file = try Self.folder([("s.json", Data(#"{"policies": {"nosuch": {}}}"#.utf8))])
        defer { try? FileManager.default.removeItem(atPath: file) }
        let r = bgbench(["validate", file + "/s.json"])
        #expect(r.code == 65)
        #expect(r.errors.hasPrefix("error: \(file)/s.json:1:15: policies.nosuch: unknown key"))
    }

    /// Point 17: numbers beyond a double, a NUL between tokens, bytes that are not UTF-8.
    @Test func jsonMessagesSayWhatWasFoundAndWhere() throws {
        let dir = try Self.folder([
            ("big.json", Data(#"{"content":{"items_per_day":1e400}}"#.utf8)),
            ("nul.json", Data([0x7B, 0x00] + Array(#""a":1}"#.utf8))),
            ("latin.json", Data(Array("{\"name\":\n \"ab".utf8) + [0xFF, 0x22, 0x7D])),
        ])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cases: [(String, String)] = [
            (
                "big.json",
                "big.json:1:29: content.items_per_day: 1e400 is out of range: expected a number of magnitude below 1.8e308"
            ),
            ("nul.json", "nul.json:1:2: expected a string key, found U+0000"),
            ("latin.json", "latin.json:2:5: not UTF-8 text: expected a UTF-8 JSON file"),
        ]
        Self.expectValidateRefuses(dir, cases)
    }

    /// Point 12: a NUL inside a timestamp and a device id that is not UTF-8 are refused at
    /// their place (a NUL once cut the text short: `1\0 00` replayed at t = 1).
    @Test func traceFieldsMustBeUTF8TextWithoutControls() throws {
        let dir = try Self.folder([
            ("nul.csv", Data(Array("device,timestamp\nu1,1".utf8) + [0x00] + Array("00\n".utf8))),
            ("latin.csv", Data(Array("device,timestamp\nu".utf8) + [0xFF] + Array("1,100\n".utf8))),
            ("escape.csv", Data(Array("de".utf8) + [0x1B] + Array("[31mvice,timestamp\nu1,1\n".utf8))),
        ])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cases: [(String, String)] = [
            ("nul.csv", "nul.csv:2:5: control character U+0000 in a field: expected text"),
            ("latin.csv", "latin.csv:2:2: invalid UTF-8 (byte 0xFF): expected UTF-8 text"),
            ("escape.csv", "escape.csv:1:3: control character U+001B in a field: expected text"),
        ]
        Self.expectValidateRefuses(dir, cases)
    }

    /// Encodings (issue 25 item 5): a byte order mark inside a trace (two files joined, or
    /// a BOM written twice) is refused where it is, never a phantom device `\u{FEFF}u1`
    /// beside `u1`; UTF-16 and UTF-32 files, with or without a mark, get one line naming
    /// the encoding and the conversion, not a control-character line per NUL.
    @Test func otherEncodingsAndStrayByteOrderMarksAreNamed() throws {
        let text = "device,timestamp\nu1,0\n"
        func utf16(_ bigEndian: Bool) -> [UInt8] {
            text.utf16.flatMap { u in bigEndian ? [UInt8(u >> 8), UInt8(u & 0xFF)] : [UInt8(u & 0xFF), UInt8(u >> 8)] }
        }
        func utf32LE() -> [UInt8] {
            text.unicodeScalars.flatMap { u in (0..<4).map { UInt8((u.value >> (8 * $0)) & 0xFF) } }
        }
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let dir = try Self.folder([
            ("joined.csv", Data(Array(text.utf8) + bom + Array("u1,3600\n".utf8))),
            ("twice.csv", Data(bom + bom + Array(text.utf8))),
            ("once.csv", Data(bom + Array(text.utf8))),
            ("u16le.csv", Data([0xFF, 0xFE] + utf16(false))),
            ("u16be.csv", Data(utf16(true))),
            ("u32le.csv", Data([0xFF, 0xFE, 0x00, 0x00] + utf32LE())),
        ])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let stray = "a byte order mark (U+FEFF) inside the file: expected one at most, at its start (two files joined?)"
        let cases: [(String, String)] = [
            ("joined.csv", "joined.csv:3:1: " + stray),
            ("twice.csv", "twice.csv:1:1: " + stray),
            (
                "u16le.csv",
                "u16le.csv:1:1: the file is UTF-16 little-endian (byte order mark FF FE), expected UTF-8: convert it first, e.g. iconv -f UTF-16LE -t UTF-8"
            ),
            (
                "u16be.csv",
                "u16be.csv:1:1: the file is UTF-16 big-endian (no byte order mark), expected UTF-8: convert it first, e.g. iconv -f UTF-16BE -t UTF-8"
            ),
            (
                "u32le.csv",
                "u32le.csv:1:1: the file is UTF-32 little-endian (byte order mark FF FE 00 00), expected UTF-8: convert it first, e.g. iconv -f UTF-32LE -t UTF-8"
            ),
        ]
        Self.expectValidateRefuses(dir, cases)
        // One mark at the start is UTF-8's own and is dropped.
        let once = bgbench(["validate", dir + "/once.csv"])
        #expect(once.code == 0 && once.output.hasPrefix("ok: \(dir)/once.csv: trace of 1 devices, 1 opens"), "\(once)")
    }

    /// Issue 25's probe (5.31, 5.32, 5.47, 5.48): a scenario in UTF-16 or UTF-32, with or
    /// without a mark, gets the trace reader's line naming the encoding and the iconv call;
    /// a byte order mark between JSON tokens is named, not printed, and one inside a string
    /// is refused as in a trace.
    @Test func scenarioEncodingsAndByteOrderMarksAreNamed() throws {
        let json = #"{"name": "x"}"#
        let utf16LE = json.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let utf32BE = json.unicodeScalars.flatMap { u in (0..<4).reversed().map { UInt8((u.value >> (8 * $0)) & 0xFF) }
        }
        let dir = try Self.folder([
            ("bom16.json", Data([0xFF, 0xFE] + utf16LE)),
            ("le16.json", Data(utf16LE)),
            ("be32.json", Data(utf32BE)),
            ("between.json", Data("{\"name\": \"x\",\u{FEFF} \"description\": \"y\"}".utf8)),
            ("inside.json", Data("{\"name\": \"x\", \"description\": \"a\u{FEFF}b\"}".utf8)),
        ])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let convert = "expected UTF-8: convert it first, e.g. iconv -f"
        let cases: [(String, String)] = [
            (
                "bom16.json",
                "bom16.json:1:1: the file is UTF-16 little-endian (byte order mark FF FE), \(convert) UTF-16LE -t UTF-8"
            ),
            (
                "le16.json",
                "le16.json:1:1: the file is UTF-16 little-endian (no byte order mark), \(convert) UTF-16LE -t UTF-8"
            ),
            (
                "be32.json",
                "be32.json:1:1: the file is UTF-32 big-endian (no byte order mark), \(convert) UTF-32BE -t UTF-8"
            ),
            (
                "between.json",
                "between.json:1:14: expected a string key, found a byte order mark U+FEFF (two files joined?)"
            ),
            (
                "inside.json",
                "inside.json:1:32: a byte order mark (U+FEFF) inside the file: expected one at most, at its start (two files joined?)"
            ),
        ]
        Self.expectValidateRefuses(dir, cases)
        let run = bgbench(["--policy", "fixed", "--quiet", "--scenario", dir + "/le16.json", "--out", dir + "/o"])
        #expect(run.code == 65)
        #expect(run.errors == "error: \(dir)/\(cases[1].1)\nsee 'bgbench --help'\n")
    }

    /// Issue 25's probe (5.38, 5.39, 5.40, 5.42): invisible characters quoted in a message
    /// are escaped like control characters, and a trace's device id that holds one (`u1`
    /// beside `u\u{200B}1`, two devices that look alike) is refused with its line.
    @Test func invisibleCharactersAreEscapedAndNoDeviceIdHoldsOne() throws {
        for scalar: UInt32 in [0xAD, 0x200B, 0x200F, 0x202A, 0x202E, 0x2060, 0x2064, 0xFEFF] {
            let hidden = String(Unicode.Scalar(scalar)!)
            let code = String(scalar, radix: 16, uppercase: true)
            #expect(escapingControls("12\(hidden)34") == "12\\u{\(code)}34")
        }
        #expect(escapingControls("é → ü") == "é → ü")
        let dir = try Self.folder([
            ("ts.csv", Data("device,timestamp\nu1,12\u{202E}34\n".utf8)),
            ("ids.csv", Data("device,timestamp\nu1,0\nu\u{200B}1,10\n".utf8)),
        ])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let ts = bgbench(["validate", dir + "/ts.csv"])
        #expect(ts.code == 65)
        #expect(ts.errors.hasPrefix("error: \(dir)/ts.csv:2:4: timestamp: '12\\u{202E}34' is not a timestamp"), "\(ts)")
        let ids = bgbench(["validate", dir + "/ids.csv"])
        #expect(ids.code == 65)
        #expect(
            ids.errors
                == "error: \(dir)/ids.csv:3:1: device: device id 'u\\u{200B}1' holds an invisible character U+200B: expected visible characters only\nsee 'bgbench --help'\n"
        )
        let policy = bgbench(["--policy", "fix\u{200B}ed", "--quiet", "--out", dir + "/o"])
        #expect(policy.code == 64)
        #expect(policy.errors.hasPrefix("error: unknown policy 'fix\\u{200B}ed' for '--policy'"), "\(policy)")
        let raw = policy.errors.unicodeScalars.contains { $0.isInvisible }
        #expect(!raw)
    }

    /// `validate` refuses a scenario over its 1 MiB cap by the file's size, before reading
    /// it, with `run --scenario`'s message (issue 25: a 1.5 GB .json once took 3 GB and 11 s).
    /// The file is sparse: it takes no disk.
    @Test func validateRefusesAHugeScenarioBeforeReadingIt() throws {
        let folder = freshFolder("huge-scenario")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/huge.json"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("{".utf8)))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 1_500_000_000)
        try handle.close()
        let message =
            "error: \(path): the scenario file is 1500000000 bytes: expected at most 1048576 (1 MiB; docs/limits.md)\n"
        let validate = bgbench(["validate", path])
        #expect(validate.code == 65 && validate.errors == message + "see 'bgbench --help'\n", "\(validate.errors)")
        let run = bgbench(["--scenario", path, "--out", folder + "/out"])
        #expect(run.code == 65 && run.errors == validate.errors)
        // The same message would come after reading the whole file; what keeps memory flat
        // is the cap validate reads with: the scenario's for a .json name, or for a name
        // without a kind when the first bytes are a JSON object.
        #expect(ValidateCommand.readLimit(.scenario) == 1 << 20 && ValidateCommand.readLimit(.trace) == 1 << 31)
        #expect(rename(path, folder + "/huge") == 0)
        let unnamed = bgbench(["validate", folder + "/huge"])
        #expect(unnamed.code == 65)
        #expect(
            unnamed.errors
                == "error: \(folder)/huge: the scenario file is 1500000000 bytes: expected at most 1048576 (1 MiB; docs/limits.md)\nsee 'bgbench --help'\n"
        )
    }

    /// Point 13: root reads /dev/null and a FIFO like files; a folder is "is a directory".
    @Test func specialFilesAreReadNotRefused() throws {
        let dir = try Self.folder([])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let null = bgbench(["validate", "/dev/null"])
        #expect(null.code == 65)
        #expect(
            null.errors
                == "error: /dev/null: empty file: expected a header line 'device,timestamp,session_seconds' and one open per line\nsee 'bgbench --help'\n"
        )
        let scenario = bgbench(["--scenario", "/dev/null", "--days", "1", "--devices", "1", "--out", dir + "/out"])
        #expect(scenario.code == 65)
        #expect(scenario.errors == "error: /dev/null:1:1: unexpected end of file\nsee 'bgbench --help'\n")
        let folder = bgbench(["--scenario", dir, "--days", "1", "--devices", "1", "--out", dir + "/out"])
        #expect(folder.code == 66)
        #expect(folder.errors == "error: cannot read scenario '\(dir)': is a directory\nsee 'bgbench --help'\n")
        // A FIFO, written by another thread while bgbench reads it.
        let fifo = dir + "/pipe.json"
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = Thread {
            let handle = FileHandle(forWritingAtPath: fifo)!
            handle.write(Data(#"{"name": "piped"}"#.utf8))
            try? handle.close()
        }
        writer.start()
        let piped = bgbench(["validate", fifo])
        #expect(piped.code == 0, "\(piped.errors)")
        #expect(piped.output == "ok: \(fifo): scenario 'piped', platform ios-bgtask, 4 archetypes\n")
    }

    /// Point 14: control characters quoted from an input are escaped on the terminal.
    @Test func controlCharactersAreEscapedInMessages() throws {
        let dir = try Self.folder([("esc.json", Data(#"{"name": "a\u001b[31mb", "nme": 1}"#.utf8))])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = bgbench(["validate", dir + "/esc.json"])
        #expect(r.code == 65)
        #expect(!r.errors.contains("\u{1B}"))
        #expect(escapingControls("a\u{1B}[31mb\tc\nd\u{7F}") == "a\\u{1B}[31mb\\u{9}c\nd\\u{7F}")
        let ok = try Self.folder([("esc.json", Data(#"{"name": "a\u001b[31mb"}"#.utf8))])
        defer { try? FileManager.default.removeItem(atPath: ok) }
        let valid = bgbench(["validate", ok + "/esc.json"])
        #expect(valid.output == "ok: \(ok)/esc.json: scenario 'a\\u{1B}[31mb', platform ios-bgtask, 4 archetypes\n")
    }

    /// Point 4: the caps of docs/limits.md, each refused before the value is built.
    @Test func inputsHaveCaps() throws {
        let bigFile =
            Data(#"{"description": ""#.utf8) + Data(repeating: 0x61, count: InputFile.Limit.scenario)
            + Data(#""}"#.utf8)
        let longString =
            Data(#"{"description": ""#.utf8) + Data(repeating: 0x61, count: JSONParser.maxStringBytes + 1)
            + Data(#""}"#.utf8)
        let longArray = Data(
            ("{\"content\": {\"hourly_weights\": ["
                + Array(repeating: "1", count: JSONParser.maxArrayElements + 1)
                .joined(separator: ",") + "]}}").utf8)
        var trace = "device,timestamp\n"
        for k in 0...OpensTraceLoader.maxOpensPerDay { trace += "u1,\(k * 40)\n" }
        let dir = try Self.folder([
            ("big.json", bigFile), ("string.json", longString), ("array.json", longArray),
            ("busy.csv", Data(trace.utf8)),
        ])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cases: [(String, String)] = [
            (
                "big.json",
                "big.json: the scenario file is \(bigFile.count) bytes: expected at most 1048576 (1 MiB; docs/limits.md)"
            ),
            ("string.json", "string.json:1:17: a string longer than 65536 bytes (docs/limits.md)"),
            (
                "array.json",
                "array.json:1:200033: content.hourly_weights: more than 100000 elements in one array (docs/limits.md)"
            ),
            (
                "busy.csv",
                "busy.csv: device 'u1' opens the app more than 2000 times on day 0: expected at most 2000 opens a device-day (docs/limits.md)"
            ),
        ]
        Self.expectValidateRefuses(dir, cases)
    }

    /// Point 15: convert-lsapp writes only what validate accepts: a session longer than a
    /// day (a close logged a century later) is written without a length, and said.
    @Test func convertedTracesValidate() throws {
        let tsv = """
            user_id\tsession_id\ttimestamp\tapp_name\tevent_type
            1\t1\t2018-01-16 06:01:05\tChrome\tOpened
            1\t1\t2118-01-16 06:01:05\tChrome\tClosed
            1\t2\t2018-01-17 08:00:00\tChrome\tOpened
            1\t2\t2018-01-17 08:01:00\tChrome\tClosed

            """
        let dir = try Self.folder([("log.tsv", Data(tsv.utf8))])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let converted = bgbench(["convert-lsapp", dir + "/log.tsv", "--out", dir + "/trace.csv"])
        #expect(converted.code == 0, "\(converted.errors)")
        #expect(
            converted.output
                == "wrote \(dir)/trace.csv: 1 devices, 2 opens of every app, 1 with a session length (1 sessions longer than a day written without a length)\n"
        )
        let valid = bgbench(["validate", dir + "/trace.csv"])
        #expect(valid.code == 0, "\(valid.errors)")
    }

    /// Point 16: `plot` on a garbled folder is one error line (the manifest gate), never a
    /// traceback.
    @Test func plotRefusesAGarbledFolderInOneLine() throws {
        let dir = try Self.folder([("summary.csv", Data("junk\n".utf8))])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = bgbench(["plot", dir])
        #expect(r.code == 66)  // no run.json: no input, as for check (README's exit codes)
        #expect(r.errors == "error: no run.json in '\(dir)': not a complete report folder (bgbench writes it last)\n")
        // A folder whose summary.csv was changed after the run.
        let out = dir + "/run"
        #expect(bgbench(["--days", "2", "--devices", "4", "--quiet", "--out", out]).code == 0)
        try Data("policy\n".utf8).write(to: URL(fileURLWithPath: out + "/summary.csv"))
        let edited = bgbench(["plot", out])
        #expect(edited.code == 65)
        #expect(
            edited.errors == "error: '\(out)/summary.csv' has 7 bytes where run.json's manifest says "
                + "\(try Self.manifestBytes(out, "summary.csv")): not the file the run wrote\n")
    }

    /// A fuzzing finding (Fuzz/README.md): an LSApp log whose user opens the app in 2018 and
    /// in 4036 (a typo) was converted into a trace of 737,061 days, which validate refuses;
    /// the converter now refuses it, naming the line.
    @Test func convertLSAppRefusesASpanNoRunCanHave() throws {
        let tsv = """
            user_id\tsession_id\ttimestamp\tapp_name\tevent_type
            1\t7\t2018-03-02 22:15:30\tGmail\tOpened
            1\t8\t4036-03-02 22:18:00\tGmail\tOpened

            """
        let dir = try Self.folder([("log.tsv", Data(tsv.utf8))])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = bgbench(["convert-lsapp", dir + "/log.tsv", "--out", dir + "/trace.csv"])
        #expect(r.code == 65)
        #expect(
            r.errors
                == "error: \(dir)/log.tsv:3:1: timestamp: user '1' opens the app over 737061 days (from line 2 to this one): expected at most 36500, the longest run (docs/limits.md)\nsee 'bgbench --help'\n"
        )
        #expect(!FileManager.default.fileExists(atPath: dir + "/trace.csv"))
    }

    /// A fuzzing finding (lsapp, after the span fix): an open in the year 18 was written
    /// `18-03-03T07:45:10`, which the trace reader refuses; the year now has four digits.
    @Test func convertLSAppWritesFourDigitYears() throws {
        let tsv = """
            user_id\tsession_id\ttimestamp\tapp_name\tevent_type
            1\t8\t0018-03-03 07:45:10\tGmail\tOpened

            """
        let dir = try Self.folder([("log.tsv", Data(tsv.utf8))])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = bgbench(["convert-lsapp", dir + "/log.tsv", "--app", "Gmail", "--out", dir + "/trace.csv"])
        #expect(r.code == 0, "\(r.errors)")
        let trace = try String(contentsOfFile: dir + "/trace.csv", encoding: .utf8)
        #expect(trace.contains("0018-03-03T07:45:10"))
        #expect(bgbench(["validate", dir + "/trace.csv"]).code == 0)
        #expect(LocalDateTime.format(0) == "1970-01-01T00:00:00")
    }

    static func manifestBytes(_ folder: String, _ name: String) throws -> Int {
        let run =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/run.json")))
            as! [String: Any]
        let entry = (run["manifest"] as! [[String: Any]]).first { $0["name"] as? String == name }!
        return entry["bytes"] as! Int
    }
}
