import Foundation
import Testing
@testable import BGBench
@testable import BGBenchCLI
import BGBenchTestSupport

/// README's exit codes are the binary's (issue 25 item 8): the table "exit code | meaning"
/// lists exactly the codes `ExitCode` declares, every code a source file gives a
/// `CLIError` is declared, "In CI"'s codes of `check` are among them, and a command line
/// brings about each code that one can without a signal, a lock or a crash.
@Suite struct ExitCodeTests {
    static let checkout = TestSupport.packageRoot

    /// The codes of README's table, in its order: `| 130, 143 | ...` gives both.
    static func readmeTable() throws -> [Int32] {
        let readme = try String(contentsOf: checkout.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let header = try #require(lines.firstIndex(of: "| exit code | meaning |"), "README has no exit-code table")
        var codes: [Int32] = []
        for line in lines[(header + 2)...] {
            guard line.hasPrefix("|") else { break }
            let cell = line.split(separator: "|")[0]
            for code in cell.split(separator: ",") {
                codes.append(try #require(Int32(code.trimmingCharacters(in: .whitespaces)), "a row '\(line)'"))
            }
        }
        return codes
    }

    @Test func readmeTableIsTheDeclaredCodes() throws {
        let table = try Self.readmeTable()
        #expect(table == ExitCode.allCases.map(\.rawValue))
        #expect(table == [0, 1, 64, 65, 66, 69, 70, 71, 73, 75, 76, 130, 143])
    }

    /// "Exit codes of `check` and `bench --baseline`: 0 ...; 1 ...; 64 usage; ...": each a
    /// declared code, 66 among them for a missing summary.csv.
    @Test func inCICodesAreDeclared() throws {
        let readme = try String(contentsOf: Self.checkout.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "Exit codes of `check` and `bench --baseline`:"))
        let paragraph = readme[start.upperBound...].prefix { $0 != "#" }.split(separator: "\n\n")[0]
        // Each code opens the paragraph or follows a semicolon and a space or line break.
        let codes = paragraph.matches(of: #/(?:^ |;\s)([0-9]+) /#).map { Int32($0.1)! }
        #expect(codes == [0, 1, 64, 65, 66, 73, 75], "\(paragraph)")
        for code in codes { #expect(ExitCode(rawValue: code) != nil, "\(code)") }
        #expect(paragraph.contains("66 a missing folder, run.json,\nsummary.csv or devices.csv"))
    }

    /// Every `code: N` a source file writes is a declared code (`ExitCode`'s integer
    /// literal traps on any other), and the tool's exit is no bare number.
    @Test func everyCodeInTheSourcesIsDeclared() throws {
        let folder = Self.checkout.appendingPathComponent("Sources/BGBenchCLI")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
        var found = 0
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for match in text.matches(of: /code: ([0-9]+)/) {
                found += 1
                #expect(ExitCode(rawValue: Int32(match.1)!) != nil, "\(file): code \(match.1) is not declared")
            }
            if file == "CommandLineTool.swift" {
                #expect(text.matches(of: /return [0-9]+\b/).isEmpty, "\(file) returns a bare exit code")
            }
        }
        #expect(found > 20)
    }

    /// A command line for each code one can bring about in the test process (and 69 in a
    /// child without python3 on its PATH): the code, and the documented line.
    @Test func commandLinesEndWithTheDocumentedCodes() throws {
        let dir = freshFolder("exit-codes")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let small = ["--days", "1", "--devices", "2", "--quiet"]
        #expect(bgbench(small + ["--out", dir + "/a"]).code == ExitCode.done.rawValue)
        // 1: a difference under --exact (run.json's event count, which no manifest seals).
        try FileManager.default.copyItem(atPath: dir + "/a", toPath: dir + "/b")
        let runJSON = try String(contentsOfFile: dir + "/b/run.json", encoding: .utf8)
        let events = try #require(runJSON.firstMatch(of: /"events" : ([0-9]+),/))
        try runJSON.replacingOccurrences(of: String(events.0), with: "\"events\" : 1\(events.1),")
            .write(toFile: dir + "/b/run.json", atomically: true, encoding: .utf8)
        let exact = bgbench(["check", "--exact", "--baseline", dir + "/a", "--current", dir + "/b"])
        #expect(exact.code == ExitCode.failed.rawValue, "\(exact.errors)")
        // 64: an unknown option.
        #expect(bgbench(["--nosuch"]).code == ExitCode.usage.rawValue)
        // 65: a scenario that does not parse.
        try Data("{".utf8).write(to: URL(fileURLWithPath: dir + "/bad.json"))
        #expect(bgbench(["validate", dir + "/bad.json"]).code == ExitCode.data.rawValue)
        // 66: summary.csv missing from a run folder ("In CI"), for check and for plot.
        try FileManager.default.copyItem(atPath: dir + "/a", toPath: dir + "/c")
        try FileManager.default.removeItem(atPath: dir + "/c/summary.csv")
        let check = bgbench(["check", "--baseline", dir + "/a", "--current", dir + "/c"])
        #expect(check.code == ExitCode.noInput.rawValue)
        #expect(
            check.errors
                == "error: '\(dir)/c/summary.csv' is missing, but run.json's manifest lists it: not a complete report folder\n"
        )
        #expect(bgbench(["plot", dir + "/c"]).code == 66)
        // A file the manifest lists, missing, that plot reaches past its summary.csv test.
        try FileManager.default.copyItem(atPath: dir + "/a", toPath: dir + "/d")
        try FileManager.default.removeItem(atPath: dir + "/d/daily.csv")
        let plot = bgbench(["plot", dir + "/d"])
        #expect(plot.code == 66)
        #expect(
            plot.errors
                == "error: '\(dir)/d/daily.csv' is missing, but run.json's manifest lists it: not a complete report folder\n"
        )
        // 73: the reports cannot be written (a file where the folder's parent would be).
        try Data().write(to: URL(fileURLWithPath: dir + "/file"))
        #expect(bgbench(small + ["--out", dir + "/file/out"]).code == ExitCode.cannotCreate.rawValue)
        // 76: an external policy's program that cannot start (ExternalPolicyTests: every bad partner).
        let external = bgbench(
            small + [
                "--policy", "external", "--allow-external", "--set", #"policies.external.command=["/nonexistent"]"#,
                "--out", dir + "/e",
            ])
        #expect(external.code == ExitCode.protocolError.rawValue)
        // 69: plot without python3 on the PATH (a child: the PATH is the process's).
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try ResourcesTests.builtBinary())
        process.arguments = ["plot", dir + "/a"]
        process.environment = ["PATH": dir + "/nothing"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == ExitCode.unavailable.rawValue)
    }
}
