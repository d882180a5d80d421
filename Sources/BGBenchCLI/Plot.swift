import BGBench
import BGHarness
import Foundation

/// `bgbench plot DIR`: runs Reports/plot.py (built into the binary) on a report folder when python3 with
/// matplotlib and pandas is there, and otherwise says exactly how to install them.
struct PlotCommand: CommandDefinition {
    struct Values {
        var folder: String?
        var force = false
    }

    static let name = "plot"
    static let synopsis = """
        bgbench plot DIR [--force]   draw a report folder as PNG files (python3,
                                     matplotlib, pandas)
        """
    static let defaults = Values()
    static var options: [Option<Values>] {
        [
            .flag(
                "force", \.force,
                help: "overwrite PNG files of the folder that bgbench did not draw (without it, such a file is refused)"
            )
        ]
    }

    static func positional(_ word: String, _ values: inout Values) throws {
        guard values.folder == nil else { throw CLIError.unexpected(word, command: name) }
        values.folder = word
    }

    static func run<Out: TextOutputStream>(_ values: Values, _ invocation: Invocation, output: inout Out) throws {
        let force = values.force
        guard let folder = values.folder else {
            throw CLIError.usage("'plot' needs a report folder, e.g. bgbench plot Reports/latest")
        }
        guard FileManager.default.fileExists(atPath: (folder as NSString).appendingPathComponent("summary.csv")) else {
            throw CLIError(message: "no summary.csv in '\(folder)': expected a bgbench report folder", code: 66)
        }
        // Only a whole folder is drawn: the gate `check` uses (run.json's manifest matches
        // every file; no NaN, no missing column), so a garbled folder is one error line.
        do {
            try ReportFolder.verifyComplete(folder)
        } catch {
            throw CLIError(message: error.description, code: error.isMissing ? .noInput : .data, hint: false)
        }
        // A PNG of plot's names that bgbench did not draw is the user's (PlotFiles).
        for name in PlotFiles.names.sorted() where !force {
            let path = (folder as NSString).appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: path), !PlotFiles.isDrawnByBGBench(path, name: name) {
                throw CLIError.cannotCreate(
                    "'\(path)' is not a PNG that bgbench plot drew: not overwritten (use --force to replace it)")
            }
        }
        guard launch(["python3", "-c", "import matplotlib, pandas"]).status == 0 else {
            throw CLIError(
                message: "bgbench plot needs python3 with matplotlib and pandas: install them with "
                    + "'python3 -m pip install matplotlib pandas' (or 'apt-get install python3-matplotlib python3-pandas')",
                code: 69, hint: false)
        }
        // plot.py is built into the binary (EmbeddedFiles): written to a temporary folder,
        // run, removed, so plot works wherever bgbench is installed.
        let script = try EmbeddedFiles.writePlotScript()
        defer { try? FileManager.default.removeItem(at: script.deletingLastPathComponent()) }
        let result = launch(["python3", script.path, folder])
        guard result.status == 0 else {
            // One line, never a traceback: its last line says what went wrong.
            let last = result.output.split(separator: "\n").last { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            throw CLIError(
                message:
                    "plot.py could not draw '\(folder)': \(last.map(String.init) ?? "exit status \(result.status)")",
                code: 70, hint: false)
        }
        output.write(result.output)
    }

    /// Runs a program through /usr/bin/env; its status and combined output.
    static func launch(_ arguments: [String]) -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        do { try process.run() } catch { return (127, "\(error)") }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
