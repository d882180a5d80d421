import Foundation
import Testing
@testable import BGBench
import BGBenchTestSupport

/// Issue 25 item 7: a merge recomputes what it can. A shard.state carries the SHA-256 of
/// its sums, so damage to them is refused even where the folder's manifest was rewritten to
/// match; sums that decode are checked against the soak's identities, the device count of
/// the shard's blocks and the scenario's energy bound before anything is written. Each
/// refusal is one line, exit 65, naming the shard folder.
@Suite struct ShardIntegrityTests {
    /// Three shards of one run, 130 devices (3 blocks: one each) × 2 days, `fixed`.
    static func shards(_ extra: [String] = []) throws -> String {
        let dir = freshFolder("integrity")
        for k in 0..<3 {
            let r = bgbench(
                ["run", "--policy", "fixed", "--days", "2", "--devices", "130", "--quiet"] + extra + [
                    "--shard", "\(k)/3", "--out", "\(dir)/a/\(k)",
                ])
            try #require(r.code == 0, "\(r.errors)")
        }
        return dir
    }

    /// A shard.state's two lines: the header as a JSON object and the payload's bytes.
    static func read(_ folder: String) throws -> (header: [String: Any], payload: [UInt8]) {
        let text = try String(contentsOfFile: "\(folder)/shard.state", encoding: .utf8)
        let lines = text.split(separator: "\n")
        let header = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as! [String: Any]
        return (header, [UInt8](Data(base64Encoded: String(lines[1]))!))
    }

    /// Writes a shard.state, then rewrites the size and SHA-256 that run.json's manifest
    /// records for it: what a hostile edit (or a tool that "repairs" manifests) does.
    static func write(_ folder: String, header: [String: Any], payload: [UInt8]) throws {
        let json = try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys])
        let state = Data(json + Data("\n".utf8) + Data(Data(payload).base64EncodedString().utf8) + Data("\n".utf8))
        try state.write(to: URL(fileURLWithPath: "\(folder)/shard.state"))
        var run = try String(contentsOfFile: "\(folder)/run.json", encoding: .utf8)
        let entry = try #require(
            run.range(
                of: #""bytes" : [0-9]+,\s*"name" : "shard.state",\s*"sha256" : "[0-9a-f]+""#,
                options: .regularExpression))
        run.replaceSubrange(
            entry,
            with:
                "\"bytes\" : \(state.count),\n      \"name\" : \"shard.state\",\n      \"sha256\" : \"\(SHA256.hex(state))\""
        )
        try run.write(toFile: "\(folder)/run.json", atomically: true, encoding: .utf8)
    }

    /// Decodes a shard's sums, lets `edit` change them, encodes them again and reseals both
    /// the state's own SHA-256 and the manifest: sums that decode, checked on their merits.
    static func forge(_ folder: String, _ edit: (inout FleetResult) -> Void) throws {
        var (header, payload) = try read(folder)
        let parsed = try ShardHeader.parse(
            Substring(String(contentsOfFile: "\(folder)/shard.state", encoding: .utf8).split(separator: "\n")[0]))
        let request = try parsed.request(0)
        var runs = try ShardState.decode(payload, requests: [request], joint: []).runs
        edit(&runs[0][0].result)
        var w = StateWriter()
        for r in runs[0] {
            r.result.encode(&w)
            w.double(r.wallSeconds)
            w.bool(r.paired != nil)
            r.paired?.encode(&w)
        }
        payload = w.bytes
        header["payload_sha256"] = SHA256.hex(payload)
        try write(folder, header: header, payload: payload)
    }

    static func merge(_ dir: String) -> (Int32, String) {
        let r = bgbench(["merge", "--out", "\(dir)/out", "\(dir)/a"])
        return (r.code, r.errors)
    }

    /// 40 bytes of the sums flipped, the manifest resealed: the state's own SHA-256 refuses
    /// it (the hostile probe merged such a state into 1.39e124 J per device-day, exit 0).
    @Test func flippedBytesAreRefusedThoughTheManifestWasResealed() throws {
        let dir = try Self.shards()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var (header, payload) = try Self.read("\(dir)/a/1")
        for i in stride(from: 7, to: payload.count, by: payload.count / 40).prefix(40) { payload[i] ^= 0x5A }
        try Self.write("\(dir)/a/1", header: header, payload: payload)
        #expect(
            Self.merge(dir) == (
                65,
                "error: '\(dir)/a/1/shard.state': its sums' SHA-256 is not the one its header records: damaged or changed after the shard wrote it (rerun shard 1/3)\n"
            ))
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/out"), "nothing written")
        // A state of the first format (no SHA-256 of its sums) is refused by its format, and
        // so is one of format 5, whose payload carried the rows that format 6 streams.
        header["format_version"] = 1
        header["payload_sha256"] = nil
        try Self.write("\(dir)/a/1", header: header, payload: try Self.read("\(dir)/a/0").payload)
        #expect(
            Self.merge(dir) == (
                65,
                "error: shard folder '\(dir)/a/1': its shard.state is format 1, this bgbench merges format 6 only: rerun the shard with this bgbench\n"
            ))
        header["format_version"] = 5
        try Self.write("\(dir)/a/1", header: header, payload: try Self.read("\(dir)/a/0").payload)
        #expect(
            Self.merge(dir) == (
                65,
                "error: shard folder '\(dir)/a/1': its shard.state is format 5, this bgbench merges format 6 only: rerun the shard with this bgbench\n"
            ))
    }

    /// A shard identity claiming 10⁹ devices, in every shard alike (so they agree with one
    /// another): the sums count the devices of the shard's blocks, 64, not a third of 10⁹.
    @Test func aFleetTheSumsDoNotCountIsRefused() throws {
        let dir = try Self.shards()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for k in 0..<3 {
            var (header, payload) = try Self.read("\(dir)/a/\(k)")
            var runs = header["runs"] as! [[String: Any]]
            runs[0]["devices"] = 1_000_000_000
            header["runs"] = runs
            try Self.write("\(dir)/a/\(k)", header: header, payload: payload)
            payload = []
        }
        let range = Shard(index: 0, count: 3)!.devices(of: 1_000_000_000)
        #expect(
            Self.merge(dir) == (
                65,
                "error: shard folder '\(dir)/a/0': policy fixed, seed 1: the fleet counts 64 devices, but shard 0/3 of a fleet of 1000000000 holds \(range.count) (devices 0..<\(range.upperBound))\n"
            ))
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/out"), "nothing written")
    }

    /// Sums that decode but break the soak's identities or the energy bound.
    @Test func impossibleSumsAreRefused() throws {
        let dir = try Self.shards(["--per-device"])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clean = try Self.read("\(dir)/a/2")
        func set(_ q: Quantity, _ value: (Double) -> Double, in tally: inout FleetTally) {
            let v = value(tally[q])
            tally.sums[3 * q.rawValue] = ExactSum()
            tally.sums[3 * q.rawValue].add(v)
        }

        // More fresh opens than opens in the fleet's totals.
        var opens = 0.0
        try Self.forge("\(dir)/a/2") { r in
            opens = r.fleet[.opens]
            set(.freshOpens, { _ in opens + 5 }, in: &r.fleet)
        }
        let o = CSVNumber.format(opens)
        #expect(
            Self.merge(dir) == (
                65,
                "error: shard folder '\(dir)/a/2': policy fixed, seed 1: archetype all: fresh_opens \(CSVNumber.format(opens + 5)) > opens \(o)\n"
            ))

        // A digit changed in devices.csv, which the shard streamed (format 6): its size is
        // the manifest's, its SHA-256 not the one shard.state records.
        try Self.write("\(dir)/a/2", header: clean.header, payload: clean.payload)
        let devicesCSV = "\(dir)/a/2/devices.csv"
        let rows = try Data(contentsOf: URL(fileURLWithPath: devicesCSV))
        var changed = rows
        let digit = try #require(
            changed.indices.dropFirst(changed.firstIndex(of: 0x0A)!).first { (0x30...0x38).contains(changed[$0]) })
        changed[digit] += 1
        try changed.write(to: URL(fileURLWithPath: devicesCSV))
        #expect(
            Self.merge(dir) == (
                65,
                "error: '\(devicesCSV)': its SHA-256 is not the one its shard.state records: damaged or changed after the shard wrote it (rerun shard 2/3)\n"
            ))
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/out"), "nothing written")
        // A row dropped, and the shard's record of its bytes changed to match: counted.
        try rows.write(to: URL(fileURLWithPath: devicesCSV))
        var header = clean.header
        var streamed = try #require(header["rows"] as? [[String: Any]])
        let firstRow = rows.firstIndex(of: 0x0A)! + 1
        let secondRow = rows[firstRow...].firstIndex(of: 0x0A)! + 1
        var shortened = rows
        shortened.removeSubrange(firstRow..<secondRow)
        try shortened.write(to: URL(fileURLWithPath: devicesCSV))
        var results = try #require(streamed[0]["results"] as? [Int])
        results[0] -= secondRow - firstRow
        streamed[0]["results"] = results
        streamed[0]["bytes"] = shortened.count
        streamed[0]["sha256"] = SHA256.hex([UInt8](shortened))
        header["rows"] = streamed
        // The manifest's entry for devices.csv resealed too.
        var run = try String(contentsOfFile: "\(dir)/a/2/run.json", encoding: .utf8)
        let entry = try #require(
            run.range(
                of: #""bytes" : [0-9]+,\s*"name" : "devices.csv",\s*"sha256" : "[0-9a-f]+""#,
                options: .regularExpression))
        run.replaceSubrange(
            entry,
            with:
                "\"bytes\" : \(shortened.count),\n      \"name\" : \"devices.csv\",\n      \"sha256\" : \"\(SHA256.hex([UInt8](shortened)))\""
        )
        try run.write(toFile: "\(dir)/a/2/run.json", atomically: true, encoding: .utf8)
        try Self.write("\(dir)/a/2", header: header, payload: clean.payload)
        let shard2 = Shard(index: 2, count: 3)!.devices(of: 130).count
        #expect(
            Self.merge(dir).1.hasSuffix(
                "devices.csv's rows of result 1 count \(shard2 - 1) devices, but shard 2/3 holds \(shard2)\n"),
            "\(Self.merge(dir))")
        try rows.write(to: URL(fileURLWithPath: devicesCSV))
        run = run.replacingOccurrences(of: "\"bytes\" : \(shortened.count),", with: "\"bytes\" : \(rows.count),")
            .replacingOccurrences(of: SHA256.hex([UInt8](shortened)), with: SHA256.hex([UInt8](rows)))
        try run.write(toFile: "\(dir)/a/2/run.json", atomically: true, encoding: .utf8)

        // Background energy far beyond what the runs could cost (the probe's 1.39e124 J is beyond
        // an exact sum's range, 2^192: set so, it reads back as NaN, refused as not finite).
        try Self.write("\(dir)/a/2", header: clean.header, payload: clean.payload)
        var runs = 0.0, transfers = 0.0
        try Self.forge("\(dir)/a/2") { r in
            runs = r.fleet[.runs]
            transfers = r.fleet[.transfers]
            set(.backgroundEnergy, { _ in 1e12 }, in: &r.fleet)
        }
        let devices = Shard(index: 2, count: 3)!.devices(of: 130).count
        let bound = DeviceInvariants.backgroundEnergyBound(
            Scenario(), runs: runs, transfers: transfers, deviceSeconds: Double(devices) * 3 * 86_400)
        #expect(
            Self.merge(dir) == (
                65,
                "error: shard folder '\(dir)/a/2': policy fixed, seed 1: background_energy_j 1000000000000 J over \(devices) devices × 2 days is above the \(CSVNumber.format(bound)) J its scenario allows (\(CSVNumber.format(runs)) runs and \(CSVNumber.format(transfers)) transfers at most at launch and radio set-up energy, and at most twice the highest active radio power all the time)\n"
            ))
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/out"), "nothing written")

        // The untouched shards merge.
        try Self.write("\(dir)/a/2", header: clean.header, payload: clean.payload)
        #expect(Self.merge(dir).0 == 0)
    }

    /// The bound holds with room to spare on every preset's real sums: the busiest policy
    /// (push: a run per delivered push) and a catalog preset with transfers.
    @Test(arguments: ["messaging", "ecommerce", "default"])
    func theEnergyBoundHoldsOnRealRuns(preset: String) throws {
        let dir = freshFolder("integrity-bound")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let policies = preset == "messaging" ? "push,fixed" : "fixed,usage,oracle"
        for k in 0..<2 {
            let r = bgbench(
                [
                    "run", "--scenario", preset, "--policy", policies, "--days", "3", "--devices", "100",
                    "--set", "platform.name=unrestricted", "--quiet", "--shard", "\(k)/2", "--out", "\(dir)/a/\(k)",
                ])
            try #require(r.code == 0, "\(r.errors)")
        }
        let merged = bgbench(["merge", "--out", "\(dir)/out", "\(dir)/a"])
        #expect(merged.code == 0, "\(merged.errors)")
    }
}
