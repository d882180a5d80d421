import Foundation
import Testing
@testable import BGBench
@testable import BGBenchCLI
import BGBenchTestSupport

/// The checkout this file lives in.
private let checkout = TestSupport.packageRoot

/// Scenario files for the error cases, written once into a folder of their own.
private enum Fixtures {
    static let folder: String = {
        let folder = freshPath("fixtures")
        try! FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let files: [(String, Data)] = [
            ("syntax.json", Data("{\n  \"name\": \"x\",\n}".utf8)),
            ("unknown-key.json", Data(#"{"platform": {"nam": "unrestricted"}}"#.utf8)),
            ("out-of-range.json", Data(#"{"population": {"bar_off_share": 1.5}}"#.utf8)),
            ("unknown-platform.json", Data(#"{"platform": {"name": "windows-phone"}}"#.utf8)),
            ("two-problems.json", Data(#"{"nme": "a", "device": {"idle_w": -1}}"#.utf8)),
            // {"name":"é"}
            ("latin1.json", Data([0x7B, 0x22, 0x6E, 0x61, 0x6D, 0x65, 0x22, 0x3A, 0x22, 0xE9, 0x22, 0x7D])),
        ]
        for (name, data) in files {
            FileManager.default.createFile(atPath: folder + "/" + name, contents: data)
        }
        return folder
    }()
}

/// One command line that must fail. In `arguments` and `errors`, `DIR` stands for the
/// fixtures folder and `OUT` for a fresh report folder that must still not exist afterwards.
struct ErrorCase: Sendable, CustomTestStringConvertible {
    var arguments: [String]
    /// The message lines, without the `error: ` prefix.
    var errors: [String]
    var code: Int32
    /// Whether `see 'bgbench --help'` follows.
    var hint = true

    init(_ arguments: [String], _ errors: String..., code: Int32 = 64, hint: Bool = true) {
        self.arguments = arguments; self.errors = errors; self.code = code; self.hint = hint
    }

    var testDescription: String { arguments.joined(separator: " ") }
}

private let errorCases: [ErrorCase] = [
    // Unknown options, with and without a suggestion; single-letter options keep one dash.
    // Each names the command (`run` when none is typed).
    ErrorCase(["--out", "OUT", "--dayz", "3"], "unknown option '--dayz' for 'run' (did you mean '--days'?)"),
    ErrorCase(["--out", "OUT", "--Seed", "3"], "unknown option '--Seed' for 'run' (did you mean '--seed'?)"),
    ErrorCase(["--out", "OUT", "--frobnicate"], "unknown option '--frobnicate' for 'run'"),
    ErrorCase(["--out", "OUT", "-x"], "unknown option '-x' for 'run'"),
    ErrorCase(
        ["run", "--out", "OUT", "--polcy", "fixed"], "unknown option '--polcy' for 'run' (did you mean '--policy'?)"),
    ErrorCase(["run", "--out", "OUT", "--hlep"], "unknown option '--hlep' for 'run' (did you mean '--help'?)"),
    ErrorCase(["sweep", "--out", "OUT", "--version"], "unknown option '--version' for 'sweep'"),
    ErrorCase(
        ["sweep", "--out", "OUT", "--sett", "x=1,2"], "unknown option '--sett' for 'sweep' (did you mean '--set'?)"),
    ErrorCase(["plot", "--out", "x"], "unknown option '--out' for 'plot'"),
    ErrorCase(["plot", "-v", "x"], "unknown option '-v' for 'plot'"),
    ErrorCase(["validate", "--strict", "x.json"], "unknown option '--strict' for 'validate'"),
    ErrorCase(
        ["convert-lsapp", "in.tsv", "--ap", "Gmail", "--out", "OUT"],
        "unknown option '--ap' for 'convert-lsapp' (did you mean '--app'?)"),
    ErrorCase(
        ["check", "--baseline", "b", "--current", "c", "--exactly"],
        "unknown option '--exactly' for 'check' (did you mean '--exact'?)"),
    ErrorCase(["help", "--all"], "unknown option '--all' for 'help'"),
    ErrorCase(
        ["help", "rn"],
        "unknown command 'rn' for 'help': expected one of run, sweep, frontier, suite, merge, plot, list, scenario, validate, convert-lsapp, habits, bench, check, conformance, help (did you mean 'run'?)"
    ),
    ErrorCase(["help", "run", "check"], "unexpected argument 'check': 'help' takes one command name"),
    // --help is read with the other options: a bad one is still an error.
    ErrorCase(["bench", "--help", "--quik"], "unknown option '--quik' for 'bench' (did you mean '--quick'?)"),
    ErrorCase(["check", "--help=yes"], "'--help' takes no value"),
    ErrorCase(["validate", "-h", "-h"], "'-h' given twice"),
    // Unknown commands.
    ErrorCase(
        ["rn", "--out", "OUT"],
        "unknown command 'rn': expected one of run, sweep, frontier, suite, merge, plot, list, scenario, validate, convert-lsapp, habits, bench, check, conformance, help (did you mean 'run'?)"
    ),
    ErrorCase(
        ["lst"],
        "unknown command 'lst': expected one of run, sweep, frontier, suite, merge, plot, list, scenario, validate, convert-lsapp, habits, bench, check, conformance, help (did you mean 'list'?)"
    ),
    ErrorCase(
        ["simulate", "--out", "OUT"],
        "unknown command 'simulate': expected one of run, sweep, frontier, suite, merge, plot, list, scenario, validate, convert-lsapp, habits, bench, check, conformance, help"
    ),
    // An option given twice (`--set` may repeat).
    ErrorCase(["--out", "OUT", "--days", "3", "--days", "4"], "'--days' given twice"),
    ErrorCase(["--out", "OUT", "--out", "OUT"], "'--out' given twice"),
    ErrorCase(["--out", "OUT", "-h", "-h"], "'-h' given twice"),
    // Missing values: at the end, or followed by another option.
    ErrorCase(["--out", "OUT", "--days"], "missing value for '--days': expected an integer from 1 to 36500"),
    ErrorCase(
        ["--out", "OUT", "--devices", "--days", "3"],
        "missing value for '--devices': expected an integer from 1 to 100000000"),
    ErrorCase(
        ["--out", "OUT", "--seed"], "missing value for '--seed': expected an integer from 0 to 18446744073709551615"),
    ErrorCase(["--out", "OUT", "--threads"], "missing value for '--threads': expected an integer from 0 to 1024"),
    ErrorCase(
        ["--out", "OUT", "--warmup-days"], "missing value for '--warmup-days': expected an integer from 0 to 36499"),
    ErrorCase(
        ["--out", "OUT", "--policy"], "missing value for '--policy': expected 'all' or policy names separated by commas"
    ),
    ErrorCase(
        ["--out", "OUT", "--scenario"], "missing value for '--scenario': expected a scenario file or a preset's name"),
    ErrorCase(["--out", "OUT", "--set"], "missing value for '--set': expected PATH=VALUE"),
    ErrorCase(["--days", "3", "--out"], "missing value for '--out': expected a folder"),
    // Malformed and out-of-range numbers.
    ErrorCase(
        ["--out", "OUT", "--days", "abc"], "invalid value 'abc' for '--days': expected an integer from 1 to 36500"),
    ErrorCase(["--out", "OUT", "--days", "0"], "invalid value '0' for '--days': expected an integer from 1 to 36500"),
    ErrorCase(
        ["--out", "OUT", "--days=36501"], "invalid value '36501' for '--days': expected an integer from 1 to 36500"),
    ErrorCase(
        ["--out", "OUT", "--days", "2.5"], "invalid value '2.5' for '--days': expected an integer from 1 to 36500"),
    ErrorCase(
        ["--out", "OUT", "--devices", "1e3"],
        "invalid value '1e3' for '--devices': expected an integer from 1 to 100000000"),
    ErrorCase(
        ["--out", "OUT", "--devices", "-5"],
        "invalid value '-5' for '--devices': expected an integer from 1 to 100000000"),
    ErrorCase(
        ["--out", "OUT", "--devices", "100000001"],
        "invalid value '100000001' for '--devices': expected an integer from 1 to 100000000"),
    ErrorCase(
        ["--out", "OUT", "--seed", "-1"],
        "invalid value '-1' for '--seed': expected an integer from 0 to 18446744073709551615"),
    ErrorCase(
        ["--out", "OUT", "--seed", "18446744073709551616"],
        "invalid value '18446744073709551616' for '--seed': expected an integer from 0 to 18446744073709551615"),
    ErrorCase(
        ["--out", "OUT", "--seed", "0x10"],
        "invalid value '0x10' for '--seed': expected an integer from 0 to 18446744073709551615"),
    ErrorCase(
        ["--out", "OUT", "--threads", "many"],
        "invalid value 'many' for '--threads': expected an integer from 0 to 1024"),
    ErrorCase(
        ["--out", "OUT", "--threads", "1025"],
        "invalid value '1025' for '--threads': expected an integer from 0 to 1024"),
    ErrorCase(
        ["--out", "OUT", "--warmup-days", "x"],
        "invalid value 'x' for '--warmup-days': expected an integer from 0 to 36499"),
    ErrorCase(
        ["--out", "OUT", "--warmup-days", "-1"],
        "invalid value '-1' for '--warmup-days': expected an integer from 0 to 36499"),
    ErrorCase(
        ["--out", "OUT", "--warmup-days", "36500"],
        "invalid value '36500' for '--warmup-days': expected an integer from 0 to 36499"),
    // --warmup-days must leave at least one counted day (default --days is 30).
    ErrorCase(
        ["--out", "OUT", "--days", "3", "--warmup-days", "3"],
        "invalid value '3' for '--warmup-days': expected an integer from 0 to 2 (fewer than --days)"),
    ErrorCase(
        ["--out", "OUT", "--warmup-days", "30"],
        "invalid value '30' for '--warmup-days': expected an integer from 0 to 29 (fewer than --days)"),
    // Policies.
    ErrorCase(
        ["--out", "OUT", "--policy", "pushy"],
        "unknown policy 'pushy' for '--policy': expected one of none, fixed, adaptive, usage, histogram, nhpp, bayes, kde, logistic, push, schedule, external, external2, external3, oracle, prophet, all (did you mean 'push'?)"
    ),
    ErrorCase(
        ["--out", "OUT", "--policy", "fixed,adaptve"],
        "unknown policy 'adaptve' for '--policy': expected one of none, fixed, adaptive, usage, histogram, nhpp, bayes, kde, logistic, push, schedule, external, external2, external3, oracle, prophet, all (did you mean 'adaptive'?)"
    ),
    ErrorCase(
        ["--out", "OUT", "--policy", "fixed,"],
        "unknown policy '' for '--policy': expected one of none, fixed, adaptive, usage, histogram, nhpp, bayes, kde, logistic, push, schedule, external, external2, external3, oracle, prophet, all"
    ),
    ErrorCase(["--out", "OUT", "--policy", "fixed,none,fixed"], "policy 'fixed' given twice in '--policy'"),
    ErrorCase(
        ["--out", "OUT", "--policy", "fixed,all"],
        "invalid value 'fixed,all' for '--policy': expected 'all' alone or a list of policy names"),
    // Bare words where only options may stand; flags given a value.
    ErrorCase(["--out", "OUT", "--days", "3", "extra"], "unexpected argument 'extra': 'run' takes only options"),
    ErrorCase(["--out", "OUT", "--policy", "fixed", "none"], "unexpected argument 'none': 'run' takes only options"),
    ErrorCase(["--out", "OUT", "--help=yes"], "'--help' takes no value"),
    ErrorCase(["--out", "OUT", "--version=1"], "'--version' takes no value"),
    // Scenario files that cannot be read: 66, no input.
    ErrorCase(
        ["--out", "OUT", "--scenario", "DIR/missing.json"], "cannot read scenario 'DIR/missing.json': no such file",
        code: 66),
    ErrorCase(["--out", "OUT", "--scenario", "DIR"], "cannot read scenario 'DIR': is a directory", code: 66),
    // Scenario data that is wrong: 65, each problem at its line:column.
    ErrorCase(
        ["--out", "OUT", "--scenario", "DIR/syntax.json"], "DIR/syntax.json:3:1: expected a string key, found '}'",
        code: 65),
    ErrorCase(
        ["--out", "OUT", "--scenario", "DIR/latin1.json"],
        "DIR/latin1.json:1:10: not UTF-8 text: expected a UTF-8 JSON file", code: 65),
    ErrorCase(
        ["--out", "OUT", "--scenario", "DIR/unknown-key.json"],
        "DIR/unknown-key.json:1:15: platform.nam: unknown key (did you mean 'name'?)", code: 65),
    ErrorCase(
        ["--out", "OUT", "--scenario", "DIR/out-of-range.json"],
        "DIR/out-of-range.json:1:34: population.bar_off_share: 1.5 is out of range: expected a number from 0 to 1",
        code: 65),
    ErrorCase(
        ["--out", "OUT", "--scenario", "DIR/unknown-platform.json"],
        "DIR/unknown-platform.json:1:23: platform.name: unknown platform 'windows-phone': expected one of ios-bgtask, ios-fetch, android-workmanager, unrestricted",
        code: 65),
    ErrorCase(
        ["--out", "OUT", "--scenario", "DIR/two-problems.json"],
        "DIR/two-problems.json:1:2: nme: unknown key (did you mean 'name'?)",
        "DIR/two-problems.json:1:35: device.idle_w: -1 is out of range: expected a number from 0 to 100", code: 65),
    // Bad --set: a usage error (64) when every problem comes from --set; 65 with file problems too.
    ErrorCase(
        ["--out", "OUT", "--set", "population.bar_of_share=0.2"],
        "--set population.bar_of_share: unknown key (did you mean 'bar_off_share'?)"),
    ErrorCase(
        ["--out", "OUT", "--set", "population.rate_sigma=abc"], "--set population.rate_sigma: expected a number"),
    ErrorCase(
        ["--out", "OUT", "--set", "population.model"],
        "--set population.model: expected path=value, e.g. population.model=routine"),
    ErrorCase(
        ["--out", "OUT", "--set", "population.routine.opens[3].at=06:00"],
        "--set population.routine.opens[3]: index out of range: the array has 3 elements"),
    ErrorCase(
        ["--out", "OUT", "--set", "platform.name=android"],
        "--set platform.name: unknown platform 'android': expected one of ios-bgtask, ios-fetch, android-workmanager, unrestricted"
    ),
    ErrorCase(
        ["--out", "OUT", "--set", "platform.name=android-workmanager", "--set", "population.legacy_ios_share=0.2"],
        "--set population.legacy_ios_share: 0.2 needs platform ios-bgtask: the share of iOS 12 devices that use ios-fetch mixes into an ios-bgtask fleet (platform is android-workmanager); expected 0"
    ),
    ErrorCase(
        ["--out", "OUT", "--set", "platform.ios_fetch.minimum_interval=soon"],
        "--set platform.ios_fetch.minimum_interval: expected \"never\" or a duration such as \"15m\", \"1h\" or 900"),
    ErrorCase(
        ["--out", "OUT", "--set", "user.p_reopen=2"],
        "--set user.p_reopen: 2 is out of range: expected a number from 0 to 0.95"),
    ErrorCase(
        ["--out", "OUT", "--scenario", "DIR/unknown-key.json", "--set", "app.sync=partial"],
        "--set app.sync: expected one of: delta, full",
        "DIR/unknown-key.json:1:15: platform.nam: unknown key (did you mean 'name'?)", code: 65),
    // list, bench and scenario given bad arguments.
    ErrorCase(["list", "policies"], "unexpected argument 'policies': 'list' takes no arguments"),
    ErrorCase(["list", "--all"], "unknown option '--all' for 'list'"),
    ErrorCase(["bench", "--quik"], "unknown option '--quik' for 'bench' (did you mean '--quick'?)"),
    ErrorCase(["bench", "--days", "3"], "unknown option '--days' for 'bench'"),
    ErrorCase(["bench", "r1"], "unexpected argument 'r1': 'bench' takes only options"),
    ErrorCase(["bench", "--quick=yes"], "'--quick' takes no value"),
    ErrorCase(["bench", "--quick", "--quick"], "'--quick' given twice"),
    ErrorCase(["bench", "--repeats", "0"], "invalid value '0' for '--repeats': expected an integer from 1 to 100"),
    ErrorCase(["bench", "--repeats"], "missing value for '--repeats': expected an integer from 1 to 100"),
    ErrorCase(["bench", "--threads", "-1"], "invalid value '-1' for '--threads': expected an integer from 0 to 1024"),
    ErrorCase(
        ["bench", "--workloads", "r1/fixed,nope"],
        "unknown workload 'nope' for '--workloads': expected one of r1/fixed, default/fixed, default/adaptive, default/usage, default/histogram, default/nhpp, default/bayes, default/kde, default/logistic"
    ),
    ErrorCase(
        ["bench", "--workloads", "default/nhp"],
        "unknown workload 'default/nhp' for '--workloads': expected one of r1/fixed, default/fixed, default/adaptive, default/usage, default/histogram, default/nhpp, default/bayes, default/kde, default/logistic (did you mean 'default/nhpp'?)"
    ),
    ErrorCase(
        ["bench", "--workloads", "r1/fixed,"],
        "invalid value 'r1/fixed,' for '--workloads': expected workload names separated by commas"),
    ErrorCase(
        ["bench", "--workloads"], "missing value for '--workloads': expected workload names separated by commas"),
    ErrorCase(["bench", "--workloads", "r1/fixed,r1/fixed"], "workload 'r1/fixed' given twice in '--workloads'"),
    ErrorCase(["bench", "--memory", "--workloads", "r1/fixed"], "'--memory' cannot be combined with '--workloads'"),
    ErrorCase(
        ["bench", "--devices", "0"], "invalid value '0' for '--devices': expected an integer from 1 to 10000000"),
    ErrorCase(
        ["bench", "--run-workload", "r1"],
        "unknown workload 'r1' for '--run-workload': expected one of r1/fixed, default/fixed, default/adaptive, default/usage, default/histogram, default/nhpp, default/bayes, default/kde, default/logistic, r1/memory"
    ),
    ErrorCase(
        ["bench", "--run-workload", "r1/fixed", "--csv", "x.csv"], "'--run-workload' cannot be combined with '--csv'"),
    ErrorCase(["scenario", "default"], "unexpected argument 'default': 'scenario' takes only options"),
    ErrorCase(["scenario", "--days", "3"], "unknown option '--days' for 'scenario'"),
    ErrorCase(["scenario", "--sett", "name=x"], "unknown option '--sett' for 'scenario' (did you mean '--set'?)"),
    ErrorCase(
        ["scenario", "--scenario"], "missing value for '--scenario': expected a scenario file or a preset's name"),
    ErrorCase(
        ["scenario", "--scenario", "DIR/missing.json"], "cannot read scenario 'DIR/missing.json': no such file",
        code: 66),
    ErrorCase(
        ["scenario", "--scenario", "DIR/unknown-key.json"],
        "DIR/unknown-key.json:1:15: platform.nam: unknown key (did you mean 'name'?)", code: 65),
    ErrorCase(
        ["scenario", "--set", "policies.fixed.interval=15 min"],
        #"--set policies.fixed.interval: expected a duration such as 90, "90s", "15m", "2h" or "1d""#),
]

@Suite struct CLITests {
    /// Every error: `error: ...` lines and then exactly the hint, nothing on standard
    /// output, the documented exit code, and no report folder.
    /// `text` without the names of policies registered from outside (PublicAPITests runs
    /// in the same process and registers one, maybe while these tests run): the expected
    /// lists name the built-in policies only. Registration only adds, so a name registered
    /// after the command ran is simply absent and removing it changes nothing.
    static func withoutRegisteredPolicies(_ text: String) -> String {
        let builtIn = Set(PolicyRegistry.builtIn.map(\.name))
        return PolicyRegistry.all.filter { !builtIn.contains($0.name) }
            .reduce(text) { $0.replacingOccurrences(of: ", \($1.name),", with: ",") }
    }

    @Test(arguments: errorCases)
    func errorIsReportedExactly(_ c: ErrorCase) {
        let out = freshPath("out")
        let arguments = c.arguments.map {
            $0.replacingOccurrences(of: "OUT", with: out).replacingOccurrences(of: "DIR", with: Fixtures.folder)
        }
        let expected =
            c.errors.map { "error: " + $0.replacingOccurrences(of: "DIR", with: Fixtures.folder) + "\n" }.joined()
            + (c.hint ? "see 'bgbench --help'\n" : "")
        let result = bgbench(arguments)
        #expect(result.code == c.code)
        #expect(Self.withoutRegisteredPolicies(result.errors) == expected)
        #expect(result.output == "")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// Every error line starts with `error: ` and the hint, when present, is the last line.
    @Test(arguments: errorCases)
    func errorShape(_ c: ErrorCase) {
        let arguments = c.arguments.map {
            $0.replacingOccurrences(of: "OUT", with: freshPath("out")).replacingOccurrences(
                of: "DIR", with: Fixtures.folder)
        }
        let lines = bgbench(arguments).errors.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.last == "")
        let body = lines.dropLast()
        #expect(body.dropLast(c.hint ? 1 : 0).allSatisfy { $0.hasPrefix("error: ") && !$0.dropFirst(7).isEmpty })
        #expect((body.last == "see 'bgbench --help'") == c.hint)
        #expect(body.count == c.errors.count + (c.hint ? 1 : 0))
    }

    /// A report folder that cannot be created: 73, and no hint (the command line was fine).
    @Test func reportFolderCannotBeCreated() throws {
        let file = freshPath("file")
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let out = file + "/reports"
        let result = bgbench(["--devices", "2", "--days", "1", "--policy", "none", "--out", out])
        #expect(result.code == 73)
        #expect(result.errors == "error: cannot write '\(out)': cannot create the folder\n")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    // MARK: Success paths

    @Test(arguments: [["--help"], ["-h"], ["help"], ["--days", "3", "--help"]])
    func help(_ arguments: [String]) {
        let result = bgbench(arguments)
        #expect(result.code == 0)
        #expect(result.errors == "")
        #expect(result.output == Command.help)
        #expect(result.output.hasPrefix("bgbench: "))
        #expect(result.output.contains("usage: bgbench [run] [options]"))
        for option in [
            "--policy", "--days", "--devices", "--seed", "--threads", "--scenario", "--set", "--warmup-days", "--out",
        ] {
            #expect(result.output.contains("  \(option) "), "help lacks \(option)")
        }
    }

    /// Every command's `--help` and `-h` (and `bgbench help COMMAND`): its own usage on
    /// standard output, exit 0, whatever else stands on the line.
    @Test(arguments: Command.names)
    func commandHelp(_ command: String) {
        for arguments in [[command, "--help"], [command, "-h"], ["help", command]] {
            let result = bgbench(arguments)
            #expect(result.code == 0, "\(arguments)")
            #expect(result.errors == "", "\(arguments)")
            #expect(result.output == Command.usage(of: command), "\(arguments)")
            #expect(result.output.hasPrefix("usage: bgbench \(command == "run" ? "[run]" : command)"), "\(arguments)")
        }
        // Every option the command parses but the internal ones is in its usage, once.
        func declared<C: CommandDefinition>(_ c: C.Type) -> [String] {
            (c.options + c.runOptions).filter { !$0.isHidden }.map(\.shown)
        }
        let usage = Command.usage(of: command)
        for option in declared(Command.named(command)!) {
            #expect(usage.components(separatedBy: "\n  \(option) ").count == 2, "\(command) usage lists \(option) once")
        }
    }

    /// The exact text of a few commands' usage.
    static let usageTexts: [(arguments: [String], output: String)] = [
        (["list", "--help"], "usage: bgbench list                 policies, platforms and scenarios\n"),
        (
            ["plot", "-h"],
            """
            usage: bgbench plot DIR [--metric NAME,...] [--policy NAME,...] [--no-bounds] [--force]
                                                draw a report folder as PNG files (python3,
                                                matplotlib, pandas)

            plot options:
              --metric NAME[,NAME...]  the metrics every figure draws (headline, daily, hourly;
                                       frontier's vertical axis: the first that is not an energy);
                                       an unknown name is an error naming those that exist (default:
                                       the scenario's report.headline)
              --policy NAME[,NAME...]  draw only these policies (and the baseline, which every
                                       difference is from) (default: every policy of the folder)
              --no-bounds              leave out the bounds push, oracle and prophet (else drawn
                                       apart: the axes are scaled to the other policies)
              --force                  overwrite PNG files of the folder that bgbench did not draw
                                       (without it, such a file is refused)

            """
        ),
        (["help", "help"], "usage: bgbench help [COMMAND]       this help, or one command's usage\n"),
        (
            ["validate", "--help", "x.json"],
            """
            usage: bgbench validate FILE        check a scenario JSON or an opens trace CSV and
                                                report every problem at once

            validate: FILE is a scenario if it ends in .json, a trace if it ends in .csv, else
            a scenario if its first character other than a space is '{'; exit 0 and one 'ok:'
            line when it is valid, 65 and an 'error:' line per problem when not.

            """
        ),
        (
            ["convert-lsapp", "--help"],
            """
            usage: bgbench convert-lsapp IN.tsv [--app NAME] --out OUT.csv [--force]
                                                turn an LSApp-style TSV log into an opens trace:
                                                one app's opens, or every app's

            convert-lsapp options:
              --app NAME               only this app's opens (default: every app's open counts)
              --out FILE               the trace CSV to write (required; an existing FILE only if it
                                       is an opens trace, never IN.tsv)
              --force                  overwrite --out whatever it is (never an input)

            """
        ),
        (
            ["bench", "--quick", "--help"],
            """
            usage: bgbench bench [--quick] [--workloads NAME,...] [--memory] [--repeats N] [--threads T]
                                 [--csv FILE [--force]] [--baseline FILE]
                                                the speed benchmark: device-days/s, events/s, ns/event
                                                and peak memory per workload, on 1 thread and on all;
                                                exit 1 below 85 % of a --baseline CSV's device-days/s

            bench options (Benchmarks/README.md):
              --quick                  a tenth of the devices of each workload
              --workloads NAME,...     only these workloads: r1/fixed, default/fixed,
                                       default/adaptive, default/usage, default/histogram,
                                       default/nhpp, default/bayes, default/kde, default/logistic
                                       (default: all)
              --memory                 R1 with 100,000 devices × 365 days, once
              --repeats N              runs of each workload (1...100; default: 3)
              --threads T              only this thread count, 0 = all cores (0...1024; default: 1
                                       and all)
              --csv FILE               also write the results as CSV (an existing FILE only if it is
                                       a bench CSV, never --baseline's)
              --force                  overwrite --csv whatever it is (never an input)
              --baseline FILE          compare with a bench CSV made on this machine

            """
        ),
    ]

    @Test(arguments: usageTexts.indices)
    func usageText(_ i: Int) {
        let (arguments, output) = Self.usageTexts[i]
        let result = bgbench(arguments)
        #expect(result.code == 0)
        #expect(result.errors == "")
        #expect(result.output == output)
    }

    @Test func version() {
        let result = bgbench(["--version"])
        #expect(result.code == 0)
        #expect(result.errors == "")
        #expect(result.output.hasPrefix("bgbench \(BuildInfo.version) "))
        #expect(result.output.hasSuffix("\n") && result.output.split(separator: "\n").count == 1)
    }

    @Test func listNamesEveryPolicyAndPlatform() {
        let result = bgbench(["list"])
        #expect(result.code == 0)
        #expect(result.errors == "")
        let lines = result.output.split(separator: "\n").map(String.init)
        for policy in PolicyRegistry.builtIn {
            #expect(
                lines.contains { $0.hasPrefix("  \(policy.name) ") && $0.hasSuffix(policy.summary) },
                "list lacks \(policy.name)")
        }
        for platform in PlatformRegistry.all {
            #expect(
                lines.contains { $0.hasPrefix("  \(platform.name) ") && $0.hasSuffix(platform.summary) },
                "list lacks \(platform.name)")
        }
        #expect(lines.first == "policies:" && lines.contains("platforms:") && lines.contains("scenarios:"))
    }

    @Test func scenarioPrintsTheDefaultsThatLoadBack() throws {
        let result = bgbench(["scenario"])
        #expect(result.code == 0)
        #expect(result.errors == "")
        // A run of the default policy's resolved scenario (scenario.json of `bgbench`).
        #expect(result.output == ScenarioLoader.resolvedJSON(Scenario(), policies: ["adaptive"]))
        #expect(try ScenarioLoader.load(json: result.output).scenario == Scenario())
        // --complete: every registered component's parameters (default.json).
        #expect(bgbench(["scenario", "--complete"]).output == ScenarioLoader.resolvedJSON(Scenario()))
    }

    @Test func scenarioAppliesSetOverrides() throws {
        let result = bgbench([
            "scenario", "--policy", "fixed", "--set", "policies.fixed.interval=30m", "--set",
            "platform.name=unrestricted",
        ])
        #expect(result.code == 0)
        var expected = Scenario()
        expected.policies[FixedPolicy.self].interval = .minutes(30)
        expected.platform.name = "unrestricted"
        #expect(try ScenarioLoader.load(json: result.output).scenario == expected)
    }

    /// The shipped default.json is exactly the built-in defaults, byte for byte, so the
    /// file and `Scenario()` never drift apart.
    @Test func defaultScenarioFileIsTheBuiltInDefaults() throws {
        let path = checkout.appendingPathComponent("Datasets/scenarios/default.json").path
        #expect(try ScenarioLoader.load(file: path).scenario == Scenario())
        // The built-in policies' parameters (other tests of this process register their own).
        #expect(
            try String(contentsOfFile: path, encoding: .utf8)
                == ScenarioLoader.completeJSON(Scenario(), policies: PolicyRegistry.builtIn.map(\.name)))
    }

    @Test func r1ScenarioFileLoads() throws {
        let path = checkout.appendingPathComponent("Datasets/scenarios/r1.json").path
        let s = try ScenarioLoader.load(file: path).scenario
        #expect(s.name == "r1")
        #expect(s.platform.name == "unrestricted" && s.platform[Unrestricted.self].dailyCap == 12)
        #expect(s.policies[FixedPolicy.self].interval == .minutes(30))
    }

    @Test func smallRunWritesReports() throws {
        let out = freshPath("run")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = bgbench(["--devices", "20", "--days", "3", "--policy", "fixed,none", "--out", out])
        #expect(result.code == 0)
        #expect(result.errors == "")
        // Two policies: paired.csv (baseline fixed) and the paired table, by default.
        #expect(
            result.output.hasSuffix(
                "reports: \(out)/ (summary.csv, daily.csv, hourly.csv, server.csv, scenario.json, paired.csv, paired-archetypes.csv, long.csv, run.json)\n"
            ))
        #expect(
            result.output.contains(
                "paired difference from fixed, same users and feed (95 % interval over devices; * excludes 0):\n"))

        func table(_ name: String) throws -> [[String]] {
            let csv = try String(contentsOfFile: out + "/" + name, encoding: .utf8)
            #expect(csv.hasSuffix("\n"))
            return csv.split(separator: "\n").map {
                $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            }
        }
        // summary.csv: per policy, the fleet (`all`) and each of the four archetypes.
        let rows = try table("summary.csv")
        #expect(rows.count == 1 + 2 * 5)
        #expect(rows[0] == SummarySchema.header)
        #expect(
            rows.dropFirst().map { $0[1] } == Array(repeating: "fixed", count: 5) + Array(repeating: "none", count: 5))
        #expect(
            rows.dropFirst().map { $0[2] }
                == Array(repeating: ["all", "daily", "heavy", "occasional", "rare"], count: 2).flatMap { $0 })
        for row in rows.dropFirst() {
            #expect(row.count == SummarySchema.header.count)
            if row[2] == "all" {
                #expect(Array(row[0..<9]) == ["default", row[1], "all", "ios-bgtask", "1", "20", "3", "0", "60"])
            }
        }
        for policy in ["fixed", "none"] {
            let archetypeDevices = rows.filter { $0[1] == policy && $0[2] != "all" }.map { Int($0[5])! }
            #expect(archetypeDevices.reduce(0, +) == 20, "archetype rows partition the fleet")
        }
        // daily.csv: 3 days × 2 policies; hourly.csv: 24 hours × 2 policies.
        let daily = try table("daily.csv"), hourly = try table("hourly.csv")
        #expect(daily[0] == SeriesReports.dailyHeader && daily.count == 1 + 3 * 2)
        #expect(daily.dropFirst().map { $0[3] } == ["0", "1", "2", "0", "1", "2"])
        #expect(hourly[0] == SeriesReports.hourlyHeader && hourly.count == 1 + 24 * 2)
        #expect(!FileManager.default.fileExists(atPath: out + "/devices.csv"), "devices.csv only with --per-device")
        // scenario.json loads back to the scenario that ran, and holds the parameters of
        // the run's policies only (`none` has none): `fixed`'s, not `adaptive`'s.
        #expect(try ScenarioLoader.load(file: out + "/scenario.json").scenario == Scenario())
        let scenarioJSON = try String(contentsOfFile: out + "/scenario.json", encoding: .utf8)
        #expect(scenarioJSON == ScenarioLoader.resolvedJSON(Scenario(), policies: ["fixed", "none"]))
        #expect(scenarioJSON.contains("\"fixed\" : {") && !scenarioJSON.contains("\"adaptive\""))
        #expect(
            try String(contentsOfFile: out + "/run.json", encoding: .utf8)
                .contains("\"resolved_scenario_sha256\" : \"\(SHA256.hex(Data(scenarioJSON.utf8)))\""))

        let data = try Data(contentsOf: URL(fileURLWithPath: out + "/run.json"))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        for key in [
            "schema_version", "bgbench_version", "git_commit", "scenario_file", "scenario_sha256", "policies",
            "seed", "devices", "days", "warmup_days", "device_days", "events", "gsl", "execution", "scenario",
        ] {
            #expect(json[key] != nil, "run.json lacks \(key)")
        }
        #expect(json["schema_version"] as? Int == ReportWriter.schemaVersion)
        #expect(json["seed"] as? Int == 1 && json["devices"] as? Int == 20 && json["days"] as? Int == 3)
        #expect(json["policies"] as? [String] == ["fixed", "none"])
        #expect(json["scenario_file"] as? String == "(built-in default)")
        #expect((json["scenario"] as? [String: Any])?["name"] as? String == "default")
        let execution = try #require(json["execution"] as? [String: Any])
        #expect(
            Set(execution.keys) == [
                "command_line", "threads", "wall_seconds", "device_days_per_second", "events_per_second",
            ])
    }

    /// Same scenario, policies and seed: summary.csv byte-identical and run.json identical
    /// except `execution`, whatever the thread count (MODEL.md §2). 130 devices span three
    /// blocks of 64.
    @Test func reportsDoNotDependOnThreads() throws {
        func reports(threads: Int) throws -> (csv: String, json: Data) {
            let out = freshPath("threads")
            defer { try? FileManager.default.removeItem(atPath: out) }
            let result = bgbench([
                "--devices", "130", "--days", "2", "--policy", "adaptive,oracle",
                "--threads", String(threads), "--out", out,
            ])
            #expect(result.code == 0)
            let data = try Data(contentsOf: URL(fileURLWithPath: out + "/run.json"))
            var json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect(json.removeValue(forKey: "execution") != nil)
            return (
                try String(contentsOfFile: out + "/summary.csv", encoding: .utf8),
                try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])
            )
        }
        let one = try reports(threads: 1), two = try reports(threads: 2)
        #expect(one.csv == two.csv)
        #expect(one.json == two.json)
    }

    /// Reports/README.md documents every column of summary.csv, with the schema's own
    /// unit and definition, so the documentation cannot drift from the code.
    @Test func reportsReadmeDocumentsEveryColumn() throws {
        let readme = try String(contentsOf: checkout.appendingPathComponent("Reports/README.md"), encoding: .utf8)
        for column in SummarySchema.header + SeriesReports.dailyHeader + SeriesReports.hourlyHeader
            + SeriesReports.devicesHeader + SeriesReports.pairedHeader
        {
            let base = column.replacingOccurrences(of: "_ci_low", with: "").replacingOccurrences(
                of: "_ci_high", with: "")
            #expect(
                readme.contains("`\(column)`") || readme.contains("`\(base)`"), "Reports/README.md lacks `\(column)`")
        }
        for column in SummarySchema.metrics {
            #expect(readme.contains(column.definition), "Reports/README.md lacks the definition of \(column.name)")
            #expect(readme.contains("| \(column.unit) |"), "Reports/README.md lacks the unit of \(column.name)")
        }
    }

    /// docs/scenario.md documents every field of a scenario by its JSON path (map entries
    /// as `<name>`, array elements as `[i]`), so the reference cannot miss a new field.
    @Test func scenarioDocDocumentsEveryField() throws {
        let doc = try String(contentsOf: checkout.appendingPathComponent("docs/scenario.md"), encoding: .utf8)
        // Policies registered by other tests of this process are not bgbench's.
        let foreign = Set(PolicyRegistry.all.map(\.name)).subtracting(PolicyRegistry.builtIn.map(\.name))
        for path in Schema.shared.leafTypes.keys.sorted()
        where !foreign.contains(where: { path.hasPrefix("policies.\($0).") }) {
            // An array of numbers is documented as the array.
            let field = path.hasSuffix("[]") ? String(path.dropLast(2)) : path
            let shown = field.replacingOccurrences(of: ".*.", with: ".<name>.").replacingOccurrences(
                of: "[]", with: "[i]")
            #expect(doc.contains("| `\(shown)` |"), "docs/scenario.md lacks `\(shown)`")
        }
    }
}
