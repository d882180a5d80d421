import BGBench
import BGBenchCLI
import Foundation

/// What one bgbench command line gave: its exit code, standard output and standard error.
public typealias CommandResult = (code: Int32, output: String, errors: String)

/// Runs bgbench in this process with `arguments` (as after the program name), its output
/// captured exactly: the one way the test suites call the command line.
public func bgbench(_ arguments: [String]) -> CommandResult {
    var output = "", errors = ""
    let code = CommandLineTool.run(arguments: arguments, output: &output, errors: &errors)
    return (code, output, errors)
}

/// A new path in the temporary folder, `bgbench-STEM-UUID`, that does not exist yet.
public func freshPath(_ stem: String) -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("bgbench-\(stem)-\(UUID().uuidString)").path
}

/// A new, empty folder in the temporary folder (created) for one test's files.
public func freshFolder(_ stem: String) -> String {
    let path = freshPath(stem)
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// A report CSV's rows by column name (`CSVTable`'s reading of the file).
public func csvRecords(_ path: String) throws -> [[String: String]] {
    let table = try CSVTable(parsing: String(contentsOfFile: path, encoding: .utf8))
    return table.rows.map { Dictionary(uniqueKeysWithValues: zip(table.header, $0)) }
}
