import Foundation
import Testing
@testable import BGBench
import BGBenchTestSupport

/// Issue 25 item 7: `check` recomputes summary.csv's per-device metrics from devices.csv
/// when a folder has both, and refuses a folder where they disagree (the hostile probe
/// edited summary.csv 20 % down, resealed the manifest, and check said "not significant
/// after Holm": its paired test reads devices.csv only).
@Suite struct SummaryAgreementTests {
    /// Replaces a file of a report folder and rewrites its size and SHA-256 in run.json's
    /// manifest, as a hostile edit would.
    static func reseal(_ folder: String, _ name: String, _ text: String) throws {
        try text.write(toFile: "\(folder)/\(name)", atomically: true, encoding: .utf8)
        let data = Data(text.utf8)
        var run = try String(contentsOfFile: "\(folder)/run.json", encoding: .utf8)
        let entry = try #require(
            run.range(
                of: #""bytes" : [0-9]+,\s*"name" : ""# + name + #"",\s*"sha256" : "[0-9a-f]+""#,
                options: .regularExpression))
        run.replaceSubrange(
            entry,
            with:
                "\"bytes\" : \(data.count),\n      \"name\" : \"\(name)\",\n      \"sha256\" : \"\(SHA256.hex(data))\"")
        try run.write(toFile: "\(folder)/run.json", atomically: true, encoding: .utf8)
    }

    /// summary.csv with one field of one row replaced; returns the new text and the old field.
    static func edit(_ folder: String, line: Int, column: String, _ change: (String) -> String) throws -> (
        String, String
    ) {
        var lines = try String(contentsOfFile: "\(folder)/summary.csv", encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false
        ).map(String.init)
        let header = lines[0].split(separator: ",").map(String.init)
        let j = try #require(header.firstIndex(of: column))
        var fields = lines[line - 1].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        let old = fields[j]
        fields[j] = change(old)
        lines[line - 1] = fields.joined(separator: ",")
        return (lines.joined(separator: "\n"), old)
    }

    static func twenty(_ text: String) -> String { CSVNumber.format(Double(text)! * 0.8) }

    @Test func anEditedSummaryIsRefusedWhereDevicesCSVSaysOtherwise() throws {
        let dir = freshFolder("agreement")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = ["--policy", "fixed,adaptive", "--days", "4", "--devices", "150", "--per-device", "--quiet"]
        for name in ["base", "cur", "b"] {
            let r = bgbench(
                run + (name == "b" ? ["--set", "policies.fixed.interval=2h"] : []) + ["--out", "\(dir)/\(name)"])
            try #require(r.code == 0, "\(r.errors)")
        }
        let check = ["check", "--baseline", "\(dir)/base", "--current", "\(dir)/cur"]
        #expect(bgbench(check).code == 0, "unedited folders agree")
        #expect(bgbench(["check", "--ab", "--baseline", "\(dir)/base", "--current", "\(dir)/b"]).code == 0)

        // The fleet's fresh-open rate of adaptive 20 % down, the manifest resealed.
        let rows = try csvRecords("\(dir)/cur/summary.csv")
        let line = try #require(rows.firstIndex { $0["policy"] == "adaptive" && $0["archetype"] == "all" }) + 2
        let original = try String(contentsOfFile: "\(dir)/cur/summary.csv", encoding: .utf8)
        var (text, old) = try Self.edit("\(dir)/cur", line: line, column: "fresh_open_rate", Self.twenty)
        try Self.reseal("\(dir)/cur", "summary.csv", text)
        let refusal =
            "error: '\(dir)/cur/summary.csv' line \(line), column fresh_open_rate: policy adaptive, archetype all, seed 1: \(Self.twenty(old)) in summary.csv, but devices.csv's rows give \(old): not the file the run wrote\n"
        var r = bgbench(check)
        #expect(r.code == 65)
        #expect(r.errors == refusal)
        #expect(r.output == "")
        // --ab and --update read the same numbers and refuse alike.
        r = bgbench(["check", "--ab", "--baseline", "\(dir)/b", "--current", "\(dir)/cur"])
        #expect(r.code == 65)
        #expect(r.errors == refusal)
        let baseline = try String(contentsOfFile: "\(dir)/base/summary.csv", encoding: .utf8)
        r = bgbench(["check", "--update", "--baseline", "\(dir)/base", "--current", "\(dir)/cur"])
        #expect(r.code == 65)
        #expect(r.errors == refusal)
        #expect(try String(contentsOfFile: "\(dir)/base/summary.csv", encoding: .utf8) == baseline, "not replaced")

        // An interval bound, the device count, and an archetype's energy, each alone.
        try Self.reseal("\(dir)/cur", "summary.csv", original)
        (text, old) = try Self.edit("\(dir)/cur", line: line, column: "runs_per_day_ci_high", Self.twenty)
        try Self.reseal("\(dir)/cur", "summary.csv", text)
        #expect(
            bgbench(check).errors
                == "error: '\(dir)/cur/summary.csv' line \(line), column runs_per_day_ci_high: policy adaptive, archetype all, seed 1: \(Self.twenty(old)) in summary.csv, but devices.csv's rows give \(old): not the file the run wrote\n"
        )
        try Self.reseal("\(dir)/cur", "summary.csv", original)
        (text, old) = try Self.edit("\(dir)/cur", line: 2, column: "devices") { String(Int($0)! * 1000) }
        try Self.reseal("\(dir)/cur", "summary.csv", text)
        #expect(
            bgbench(check).errors
                == "error: '\(dir)/cur/summary.csv' line 2, column devices: policy fixed, archetype all, seed 1: 150000 in summary.csv, but devices.csv has 150 rows\n"
        )
        let archetypeLine = try #require(rows.firstIndex { $0["policy"] == "fixed" && $0["archetype"] != "all" }) + 2
        let archetype = rows[archetypeLine - 2]["archetype"]!
        try Self.reseal("\(dir)/cur", "summary.csv", original)
        (text, old) = try Self.edit(
            "\(dir)/cur", line: archetypeLine, column: "background_energy_j_per_day", Self.twenty)
        try Self.reseal("\(dir)/cur", "summary.csv", text)
        #expect(
            bgbench(check).errors
                == "error: '\(dir)/cur/summary.csv' line \(archetypeLine), column background_energy_j_per_day: policy fixed, archetype \(archetype), seed 1: \(Self.twenty(old)) in summary.csv, but devices.csv's rows give \(old): not the file the run wrote\n"
        )
        // The battery column, from run.json's battery capacity.
        try Self.reseal("\(dir)/cur", "summary.csv", original)
        (text, old) = try Self.edit("\(dir)/cur", line: 2, column: "battery_pct_per_day", Self.twenty)
        try Self.reseal("\(dir)/cur", "summary.csv", text)
        #expect(bgbench(check).code == 65)
        // Put back, it passes again.
        try Self.reseal("\(dir)/cur", "summary.csv", original)
        #expect(bgbench(check).code == 0)
    }

    /// A replicated run with warm-up days: each seed's rows against that seed's devices.
    @Test func replicatedRowsAreRecomputedPerSeed() throws {
        let dir = freshFolder("agreement-rep")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = [
            "--policy", "fixed,usage", "--days", "4", "--warmup-days", "1", "--devices", "100", "--per-device",
            "--replications", "2", "--quiet",
        ]
        for name in ["base", "cur"] { try #require(bgbench(run + ["--out", "\(dir)/\(name)"]).code == 0) }
        let check = ["check", "--baseline", "\(dir)/base", "--current", "\(dir)/cur"]
        #expect(bgbench(check).code == 0)
        let rows = try csvRecords("\(dir)/cur/summary.csv")
        let line =
            try #require(rows.firstIndex { $0["policy"] == "usage" && $0["seed"] == "2" && $0["archetype"] == "all" })
            + 2
        let (text, old) = try Self.edit("\(dir)/cur", line: line, column: "opens_per_day", Self.twenty)
        try Self.reseal("\(dir)/cur", "summary.csv", text)
        let r = bgbench(check)
        #expect(r.code == 65)
        #expect(
            r.errors
                == "error: '\(dir)/cur/summary.csv' line \(line), column opens_per_day: policy usage, archetype all, seed 2: \(Self.twenty(old)) in summary.csv, but devices.csv's rows give \(old): not the file the run wrote\n"
        )
    }
}
