import BGBench
import BGHarness
import Foundation

/// `bgbench convert-lsapp IN.tsv [--app NAME] --out OUT.csv`: an LSApp-style app usage log
/// as an opens trace for `--opens-trace` (LSAppConverter has the rules).
extension Command {
    enum ConvertOption: String, CommandOption {
        case app, out, force
        var isFlag: Bool { self == .force }
    }

    static func convertLSApp<Out: TextOutputStream>(_ tokens: [Token], output: inout Out) throws {
        var input: String?, app: String?, out: String?, force = false
        var parser = OptionParser(tokens, command: "convert-lsapp")
        try parser.parse(
            option: { (option: ConvertOption, value) in
                switch option {
                case .app: app = try required(value, for: option.rawValue, expected: "an app name as in the app_name column")
                case .out: out = try required(value, for: option.rawValue, expected: "a trace CSV file to write")
                case .force: force = true
                }
            },
            positional: { word in
                guard input == nil else { throw CLIError.usage("unexpected argument '\(word)': 'convert-lsapp' takes one input file") }
                input = word
            })
        guard let input else { throw CLIError.usage("'convert-lsapp' needs an input file: an LSApp-style TSV") }
        guard let out else { throw CLIError.usage("'convert-lsapp' needs '--out FILE': the trace CSV to write") }
        try OutputGuard.checkFile(out, option: "--out", kind: traceKind, inputs: [.init(path: input, role: "the input")],
                                  force: force)
        let converted = try readingInput { try LSAppConverter.convert(file: input, app: app) }
        do {
            try ReportWriter.writeAtomically(converted.csv, to: out)
        } catch let error as ReportError {
            throw CLIError.cannotCreate(error.description)
        }
        output.write("wrote \(out): \(converted.devices) devices, \(converted.opens) opens of "
                     + (app.map { "app '\($0)'" } ?? "every app") + ", \(converted.sessions) with a session length"
                     + (converted.overlongSessions > 0
                        ? " (\(converted.overlongSessions) sessions longer than a day written without a length)" : "") + "\n")
    }

    /// What `--out` may overwrite: an opens trace (its header), as this command writes.
    static let traceKind = OutputGuard.FileKind.csv("an opens trace (first line \(LSAppConverter.traceColumns.joined(separator: ",")))",
                                                    header: LSAppConverter.traceColumns.joined(separator: ","))
}
