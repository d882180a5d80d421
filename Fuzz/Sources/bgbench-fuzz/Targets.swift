import Foundation
@testable import BGBench
@testable import BGBenchCLI
import BGHarness

// libFuzzer targets for every reader of untrusted input (issue 13 point 6). One binary;
// the target is chosen by BGBENCH_FUZZ_TARGET (Fuzz/README.md). Every input must end in a
// value or in a thrown error with a message: a crash, a trap, a leak or a hang is a finding.

/// The target this process fuzzes, read once.
let target: String = ProcessInfo.processInfo.environment["BGBENCH_FUZZ_TARGET"] ?? "scenario"

/// One input of libFuzzer's.
func fuzzOne(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    switch target {
    case "scenario":
        // The JSON reader, the merge over the defaults, decoding and validation.
        _ = try? ScenarioLoader.load(data: data, file: "fuzz.json")
    case "set":
        // `--set` paths and values over the built-in defaults: one override a line.
        let overrides = String(decoding: data, as: UTF8.self).split(separator: "\n").prefix(8).map(String.init)
        _ = try? ScenarioLoader.load(
            json: ScenarioLoader.builtInDefault().resolvedJSON, file: "(built-in default)",
            overrides: overrides)
    case "trace":
        _ = try? OpensTraceLoader.parse(bytes: [UInt8](data), file: "fuzz.csv")
    case "lsapp":
        // Converted output must validate as a trace (issue 13 point 15).
        if let converted = try? LSAppConverter.convert(data, file: "fuzz.tsv", app: nil) {
            do {
                _ = try OpensTraceLoader.parse(bytes: Array(converted.csv.utf8), file: "converted.csv")
            } catch {
                fatalError("convert-lsapp wrote a trace that does not validate: \(error)")
            }
        }
    case "report":
        // The report CSV reader `check` and `merge` use, and the gate's checks.
        if let text = String(validating: [UInt8](data), as: UTF8.self), let table = try? CSVTable(parsing: text) {
            _ = try? ReportFolder.validate(table, path: "summary.csv")
            _ = try? ReportFolder.validate(table, path: "paired.csv")
        }
    default:
        fatalError("unknown BGBENCH_FUZZ_TARGET '\(target)': expected scenario, set, trace, lsapp or report")
    }
    return 0
}
