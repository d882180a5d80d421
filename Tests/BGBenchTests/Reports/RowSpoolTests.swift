import Foundation
import Testing
@testable import BGBench
@testable import BGBenchCLI
import BGBenchTestSupport

/// Issue 25 item 2: devices.csv and events.csv written into the staging folder as the
/// devices finish (``RowSpool``), byte for byte the files the in-memory writers print, on
/// any thread count and in any order the blocks end, with memory bounded by the spool's
/// limits rather than by devices or traced devices.
@Suite struct RowSpoolTests {
    /// A run of two policies and two seeds, 200 devices (four blocks, the last partial), the
    /// first 130 traced (three blocks), with per-device rows.
    static func request(threads: Int) -> RunRequest {
        var options = RunOptions(
            devices: 200, days: 3, seed: 11, threads: threads, keepDevices: true, traceDevices: 130)
        options.warmupDays = 1
        return RunRequest(
            scenario: ScenarioLoader.builtInDefault(), policies: ["fixed", "adaptive"], options: options,
            replications: 2)
    }

    static func text(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    /// run.json's text without its `execution` object, keys sorted.
    static func withoutExecution(_ text: String) throws -> String {
        var object = try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        object["execution"] = nil
        return String(
            decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    /// The rows written through a spool whose limits are tiny (every device's rows are
    /// handed over as they come, a traced device's events in chunks of `chunk` rows while
    /// it runs, out-of-order segments are held or spilled) are the in-memory writers'
    /// bytes; the spool held no more than its limit; the manifest's sizes and hashes are
    /// the files'; nothing else is left in the folder. (A traced device logs about 200
    /// events a day under `fixed` here: chunks of 1 and 37 rows cut every device's log.)
    @Test(arguments: [(1, 0, 4096), (2, 0, 1), (2, 3000, 37), (3, 1 << 30, 37)])
    func spooledRowsAreTheInMemoryFiles(_ c: (threads: Int, pending: Int, chunk: Int)) throws {
        let memory = try Runner.run(Self.request(threads: 1))
        let folder = freshFolder("spool")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let request = Self.request(threads: c.threads)
        let spool = try RowSpool(
            folder: folder, streams: [.events, .devices], results: request.rowLabels(), flushBytes: 700,
            pendingBytes: c.pending, traceChunkRows: c.chunk)
        let streamed = try Runner.run(request, rows: spool)
        let written = try spool.finish()
        #expect(spool.peakHeldBytes <= c.pending)
        #expect(streamed.results.allSatisfy { $0.result.devices.isEmpty && $0.result.trace.isEmpty })
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["devices.csv", "events.csv"])
        let devices = try Self.text(folder + "/devices.csv"), events = try Self.text(folder + "/events.csv")
        #expect(devices == SeriesReports.devicesCSV(memory))
        #expect(events == SeriesReports.eventsCSV(memory))
        #expect(
            written == [
                .init(name: "devices.csv", bytes: devices.utf8.count, sha256: SHA256.hex(Array(devices.utf8))),
                .init(name: "events.csv", bytes: events.utf8.count, sha256: SHA256.hex(Array(events.utf8))),
            ])
        // run.json's manifest lists them where the in-memory folder does, with the same entries.
        let folderFiles = ReportWriter.folder(streamed, written: written)
        #expect(folderFiles.names == ReportWriter.files(memory).map(\.0))
        #expect(!folderFiles.files.contains { $0.0 == "devices.csv" || $0.0 == "events.csv" })
        #expect(
            try Self.withoutExecution(folderFiles.files.last!.1) == Self.withoutExecution(ReportWriter.runJSON(memory)))
    }

    /// Segments handed over in a chosen order, by hand: block 2 ends before blocks 0 and 1,
    /// block 1 begins before block 0 ends and becomes the head half way; the part files
    /// take them in block order and the results in report order. With no memory for
    /// waiting segments every one of them spills to a file, and every spill file is gone
    /// once its segment is written.
    @Test(arguments: [0, 10, 1 << 20])
    func segmentsEndingOutOfOrderComeOutInBlockOrder(pending: Int) throws {
        let folder = freshFolder("spool-order")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let spool = try RowSpool(
            folder: folder, streams: [.events], results: [["s", "a", "1"], ["s", "b", "1"]], flushBytes: 1,
            pendingBytes: pending)
        func hand(_ text: String, result: Int, block: Int, ended: Bool) {
            var bytes = Array(text.utf8)
            spool.hand(&bytes, stream: .events, result: result, block: block, ended: ended)
            #expect(bytes.isEmpty)
        }
        hand("b2\n", result: 1, block: 2, ended: true)
        hand("a2\n", result: 0, block: 2, ended: true)
        hand("a1 first\n", result: 0, block: 1, ended: false)
        hand("b0\n", result: 1, block: 0, ended: true)
        hand("a0 first\n", result: 0, block: 0, ended: false)
        hand("a0 last\n", result: 0, block: 0, ended: true)
        // Block 1 is now the head of result 0: what it spilled goes first.
        hand("a1 last\n", result: 0, block: 1, ended: true)
        hand("b1\n", result: 1, block: 1, ended: true)
        #expect(spool.peakHeldBytes <= pending)
        if pending == 0 { #expect(spool.spilledSegments == 3) }
        if pending >= 1 << 20 { #expect(spool.spilledSegments == 0) }
        let written = try spool.finish()
        let header = SeriesReports.eventsHeader.joined(separator: ",") + "\n"
        let expected = header + "a0 first\na0 last\na1 first\na1 last\na2\nb0\nb1\nb2\n"
        #expect(try Self.text(folder + "/events.csv") == expected)
        #expect(
            written == [.init(name: "events.csv", bytes: expected.utf8.count, sha256: SHA256.hex(Array(expected.utf8)))]
        )
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["events.csv"])
    }

    /// A part file is open only while it is written: 2,000 results (a sweep of 1,000 points
    /// × 2 policies) hold no file open beyond the report file, where one open file per
    /// result would pass a common limit of 1,024 (`ulimit -n`); a result without rows has
    /// no part.
    @Test func partsAreOpenOnlyWhileWritten() throws {
        let folder = freshFolder("spool-parts")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        func open() throws -> Int { try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count }
        let before = try open()
        let results = 2000
        let spool = try RowSpool(
            folder: folder, streams: [.devices], results: (0..<results).map { ["s", "p\($0)", "1"] })
        for r in 0..<results {
            var bytes = Array((r == 7 ? "" : "\(r)\n").utf8)
            spool.hand(&bytes, stream: .devices, result: r, block: 0, ended: true)
        }
        // Other tests running beside this one open files too: far fewer than 2,000.
        #expect(try open() - before < 200)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).count == results - 1)
        _ = try spool.finish()
        let rows = (0..<results).filter { $0 != 7 }.map { "\($0)\n" }.joined()
        #expect(
            try Self.text(folder + "/devices.csv") == SeriesReports.devicesHeader.joined(separator: ",") + "\n" + rows)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["devices.csv"])
    }

    /// A spool that cannot create its files says which report file, and so does a run.
    @Test func aFolderThatCannotBeWrittenIsAnError() throws {
        let missing = freshPath("spool-missing") + "/nowhere"
        #expect(throws: ReportError.self) {
            try RowSpool(folder: missing, streams: [.devices], results: [["s", "a", "1"]])
        }
        do {
            _ = try RowSpool(folder: missing, streams: [.devices], results: [["s", "a", "1"]])
        } catch let error as ReportError {
            #expect(error == .cannotWrite("devices.csv", reason: "No such file or directory"))
        }
    }

    /// SHA-256 fed in pieces of every size is the digest of the whole.
    @Test func hashingInPiecesIsHashingTheWhole() {
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        for piece in [1, 3, 63, 64, 65, 200, 1000] {
            var hasher = SHA256.Hasher()
            for start in stride(from: 0, to: bytes.count, by: piece) {
                hasher.update(Array(bytes[start..<min(bytes.count, start + piece)]))
            }
            #expect(hasher.hex() == SHA256.hex(bytes), "pieces of \(piece)")
        }
        // FIPS 180-4's example "abc".
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        // And its long message, a million times "a" (many blocks: the length field counts
        // every byte fed, not the last block's), whole and fed in pieces.
        let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        let expected = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        #expect(SHA256.hex(million) == expected)
        var pieces = SHA256.Hasher()
        for start in stride(from: 0, to: million.count, by: 4093) {
            pieces.update(Array(million[start..<min(million.count, start + 4093)]))
        }
        #expect(pieces.hex() == expected)
    }

    /// From the command line: --threads 1 and 2 write the same devices.csv and events.csv,
    /// and run.json's manifest has their sizes and hashes (`check` verifies it).
    @Test func threadCountsWriteTheSameFiles() throws {
        let dir = freshFolder("spool-threads")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = [
            "--policy", "fixed,usage", "--days", "3", "--devices", "150", "--per-device", "--trace-devices", "100",
            "--quiet",
        ]
        for threads in ["1", "2"] {
            let r = bgbench(run + ["--threads", threads, "--out", dir + "/t" + threads])
            try #require(r.code == 0, "\(r.errors)")
        }
        let fm = FileManager.default
        #expect(
            try fm.contentsOfDirectory(atPath: dir).sorted() == [".t1.bgbench-lock", ".t2.bgbench-lock", "t1", "t2"])
        for name in ["devices.csv", "events.csv"] {
            let one = try #require(fm.contents(atPath: dir + "/t1/" + name))
            #expect(one == fm.contents(atPath: dir + "/t2/" + name), "\(name)")
            #expect(one.count > 10_000)
        }
        let check = bgbench(["check", "--exact", "--baseline", dir + "/t1", "--current", dir + "/t2"])
        #expect(check.code == 0, "\(check.output)\(check.errors)")
    }

    /// A whole run streams its rows, its shards keep them for the merge: the merge of
    /// three shards is the whole run, byte for byte, with traced devices over three blocks.
    @Test func shardsMergeIntoTheStreamedRun() throws {
        try ShardTests.expectMergeEqualsSingle(
            [
                "--policy", "fixed,adaptive", "--days", "3", "--devices", "200", "--per-device", "--trace-devices",
                "150", "--replications", "2",
            ], shards: 3)
    }

    /// A sweep streams its rows too (``SweepPlan/run(progress:rows:)``): two groups of points
    /// (bar_off_share meets other users), in each of which `adaptive` is one arm shared by
    /// both intervals (its rows written to both points' results), on 2 threads over three
    /// blocks (150 devices, the first 80 traced: two blocks). devices.csv and events.csv are, point by
    /// point in grid order, the rows `Runner.run` keeps in memory for that point alone, each
    /// led by the point's values; run.json's manifest lists them where a sweep rendered
    /// from those in-memory runs has them.
    @Test(arguments: [(0, 37), (1 << 30, 4096)])
    func aSweepStreamsEachPointsOwnRows(_ c: (pending: Int, chunk: Int)) throws {
        let paths = ["population.bar_off_share", "policies.fixed.interval"]
        let values = [["0", "2h"], ["0", "30m"], ["0.5", "2h"], ["0.5", "30m"]]
        let points = try values.map { v in
            var request = Self.request(threads: 2)
            request.options.devices = 150
            request.options.days = 2
            request.options.traceDevices = 80
            request.scenario = try ScenarioLoader.load(
                json: ScenarioLoader.builtInDefault().resolvedJSON, file: "(built-in default)",
                overrides: zip(paths, v).map { "\($0)=\($1)" })
            return request
        }
        let plan = try SweepPlan(points: points)
        #expect(plan.arms == 6)
        let folder = freshFolder("spool-sweep")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let spool = try RowSpool(
            folder: folder, streams: [.devices, .events], columns: paths,
            results: zip(values, points).flatMap { $1.rowLabels(lead: $0) }, flushBytes: 700,
            pendingBytes: c.pending, traceChunkRows: c.chunk)
        let run = try plan.run(rows: spool)
        let written = try spool.finish()
        #expect(spool.peakHeldBytes <= c.pending)
        #expect(
            run.reports.allSatisfy { $0.results.allSatisfy { $0.result.devices.isEmpty && $0.result.trace.isEmpty } })
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["devices.csv", "events.csv"])
        // The oracle: each point run alone on one thread, its rows in memory. No value or
        // label here needs quoting, so a row is a line.
        let alone = try points.map { point in
            var one = point
            one.options.threads = 1
            return try Runner.run(one)
        }
        for (name, header, text) in [
            ("devices.csv", SeriesReports.devicesHeader, SeriesReports.devicesCSV),
            ("events.csv", SeriesReports.eventsHeader, SeriesReports.eventsCSV),
        ] {
            var expected = (paths + header).joined(separator: ",") + "\n"
            for (v, report) in zip(values, alone) {
                let rows = text(report).split(separator: "\n").dropFirst()
                #expect(rows.count >= 600, "\(name)")
                for row in rows { expected += v.joined(separator: ",") + "," + row + "\n" }
            }
            let streamed = try Self.text(folder + "/" + name)
            #expect(streamed == expected, "\(name)")
            #expect(
                written.first { $0.name == name }
                    == .init(name: name, bytes: expected.utf8.count, sha256: SHA256.hex(Array(expected.utf8))))
        }
        // The folder: every other file the in-memory sweep's, the streamed ones listed in place.
        let axes = [
            SweepAxis(path: paths[0], values: ["0", "0.5"]), SweepAxis(path: paths[1], values: ["2h", "30m"]),
        ]
        var memory = SweepReport(axes: axes, specs: []), streamedReport = SweepReport(axes: axes, specs: [])
        streamedReport.streamed = written
        for (k, v) in values.enumerated() {
            memory.add(v, report: alone[k])
            streamedReport.add(v, report: run.reports[k])
        }
        let inMemory = memory.folder(), streamedFolder = streamedReport.folder()
        #expect(streamedFolder.names == inMemory.files.map(\.0))
        #expect(streamedFolder.files.map(\.0) == inMemory.files.map(\.0).filter { !written.map(\.name).contains($0) })
        func manifest(_ files: [(String, String)]) throws -> String {
            let run = try #require(
                JSONSerialization.jsonObject(with: Data(files.last!.1.utf8)) as? [String: Any])
            return String(
                decoding: try JSONSerialization.data(withJSONObject: run["manifest"]!, options: [.sortedKeys]),
                as: UTF8.self)
        }
        #expect(try manifest(streamedFolder.files) == manifest(inMemory.files))
    }
}
