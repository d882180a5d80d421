import BGBench
import BGHarness
import Foundation

/// `bgbench plot DIR`: runs Reports/plot.py (built into the binary) on a report folder when python3 with
/// matplotlib and pandas is there, and otherwise says exactly how to install them.
struct PlotCommand: CommandDefinition {
    struct Values {
        var folder: String?
        var force = false
        var metrics: String?
        var policies: String?
        var noBounds = false
    }

    static let name = "plot"
    static let synopsis = """
        bgbench plot DIR [--metric NAME,...] [--policy NAME,...] [--no-bounds] [--force]
                                     draw a report folder as PNG files (python3,
                                     matplotlib, pandas)
        """
    static let defaults = Values()
    static var options: [Option<Values>] {
        [
            .value(
                "metric", "NAME[,NAME...]", expected: "summary.csv metric names, comma-separated",
                help: "the metrics every figure draws (headline, daily, hourly; frontier's vertical axis: the first "
                    + "that is not an energy); an unknown name is an error naming those that exist",
                defaultText: "the scenario's report.headline"
            ) { values, text, _ in values.metrics = text },
            .value(
                "policy", "NAME[,NAME...]", expected: "policies of the folder, comma-separated",
                help: "draw only these policies (and the baseline, which every difference is from)",
                defaultText: "every policy of the folder"
            ) { values, text, _ in values.policies = text },
            .flag(
                "no-bounds", \.noBounds,
                help: "leave out the bounds push, oracle and prophet (else drawn apart: the axes are scaled to the "
                    + "other policies)"),
            .flag(
                "force", \.force,
                help: "overwrite PNG files of the folder that bgbench did not draw (without it, such a file is refused)"
            ),
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
        let tables = [ReportFile.summary.name, ReportFile.scorecardCSV.name]
        guard
            tables.contains(where: {
                FileManager.default.fileExists(atPath: (folder as NSString).appendingPathComponent($0))
            })
        else {
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
        var arguments = ["python3", script.path, folder]
        if let metrics = values.metrics { arguments += ["--metric", metrics] }
        if let policies = values.policies { arguments += ["--policy", policies] }
        if values.noBounds { arguments.append("--no-bounds") }
        let result = launch(arguments)
        // plot.py exits 64 on an unknown --metric or --policy: its one `error:` line names it
        // and what the folder has (plot.py checks them against the folder's own tables); 73
        // on a PNG it cannot write (a full disk), the PNG left as it was.
        let lines = result.output.split(separator: "\n")
        if let line = lines.last(where: { $0.hasPrefix("error: ") }).map({ String($0.dropFirst("error: ".count)) }) {
            if result.status == 64 { throw CLIError.usage(line) }
            if result.status == 73 { throw CLIError.cannotCreate(line) }
        }
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
