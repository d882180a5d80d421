import BGBench
import Foundation

/// `bgbench convert-lsapp IN.tsv [--app NAME] --out OUT.csv`: an LSApp-style app usage log
/// as an opens trace for `--opens-trace` (LSAppConverter has the rules).
extension Command {
    static func convertLSApp<Out: TextOutputStream>(_ tokens: [Token], output: inout Out) throws {
        var input: String?, app: String?, out: String?
        var parser = OptionParser(tokens, command: "convert-lsapp")
        try parser.parse(
            known: ["app", "out"], flags: [],
            option: { name, value in
                if name == "app" { app = try required(value, for: name, expected: "an app name as in the app_name column") }
                else { out = try required(value, for: name, expected: "a trace CSV file to write") }
            },
            positional: { word in
                guard input == nil else { throw CLIError.usage("unexpected argument '\(word)': 'convert-lsapp' takes one input file") }
                input = word
            })
        guard let input else { throw CLIError.usage("'convert-lsapp' needs an input file: an LSApp-style TSV") }
        guard let out else { throw CLIError.usage("'convert-lsapp' needs '--out FILE': the trace CSV to write") }
        let converted = try readingInput { try LSAppConverter.convert(file: input, app: app) }
        do {
            try ReportWriter.writeAtomically(converted.csv, to: out)
        } catch let error as ReportError {
            throw CLIError.cannotCreate(error.description)
        }
        output.write("wrote \(out): \(converted.devices) devices, \(converted.opens) opens of "
                     + (app.map { "app '\($0)'" } ?? "every app") + ", \(converted.sessions) with a session length\n")
    }
}
