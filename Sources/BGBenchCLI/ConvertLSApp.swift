import BGBench
import BGHarness
import Foundation

/// `bgbench convert-lsapp IN.tsv [--app NAME] --out OUT.csv`: an LSApp-style app usage log
/// as an opens trace for `--opens-trace` (LSAppConverter has the rules).
struct ConvertLSAppCommand: CommandDefinition {
    struct Values {
        var input: String?, app: String?, out: String?
        var force = false
    }

    static let name = "convert-lsapp"
    static let synopsis = """
        bgbench convert-lsapp IN.tsv [--app NAME] --out OUT.csv [--force]
                                     turn an LSApp-style TSV log into an opens trace:
                                     one app's opens, or every app's
        """
    static let defaults = Values()
    static var options: [Option<Values>] {
        [
            .text(
                "app", "NAME", \.app, expected: "an app name as in the app_name column",
                help: "only this app's opens", defaultText: "every app's open counts"),
            .text(
                "out", "FILE", \.out, expected: "a trace CSV file to write",
                help: "the trace CSV to write (required; an existing FILE only if it is an opens trace, never IN.tsv)"),
            .flag("force", \.force, help: "overwrite --out whatever it is (never an input)"),
        ]
    }

    static func positional(_ word: String, _ values: inout Values) throws {
        guard values.input == nil else {
            throw CLIError.usage("unexpected argument '\(word)': 'convert-lsapp' takes one input file")
        }
        values.input = word
    }

    static func run<Out: TextOutputStream>(_ values: Values, _ invocation: Invocation, output: inout Out) throws {
        let app = values.app, force = values.force
        guard let input = values.input else {
            throw CLIError.usage("'convert-lsapp' needs an input file: an LSApp-style TSV")
        }
        guard let out = values.out else {
            throw CLIError.usage("'convert-lsapp' needs '--out FILE': the trace CSV to write")
        }
        try OutputGuard.checkFile(
            out, option: "--out", kind: traceKind, inputs: [.init(path: input, role: "the input")],
            force: force)
        let converted = try readingInput { try LSAppConverter.convert(file: input, app: app) }
        do {
            try ReportWriter.writeAtomically(converted.csv, to: out)
        } catch let error as ReportError {
            throw CLIError.cannotCreate(error.description)
        }
        output.write(
            "wrote \(out): \(converted.devices) devices, \(converted.opens) opens of "
                + (app.map { "app '\($0)'" } ?? "every app") + ", \(converted.sessions) with a session length"
                + (converted.overlongSessions > 0
                    ? " (\(converted.overlongSessions) sessions longer than a day written without a length)" : "")
                + "\n")
    }

    /// What `--out` may overwrite: an opens trace (its header), as this command writes.
    static let traceKind = OutputGuard.FileKind.csv(
        "an opens trace (first line \(LSAppConverter.traceColumns.joined(separator: ",")))",
        header: LSAppConverter.traceColumns.joined(separator: ","))
}
