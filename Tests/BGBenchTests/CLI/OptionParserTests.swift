import Testing
@testable import BGBenchCLI
import BGBench
import BGBenchTestSupport

/// The option declarations and their parser (Options.swift), on a command of the tests'
/// own: both forms of a value, repeats, flags, negative numbers, hidden options, the
/// environment, and the exact messages.
@Suite struct OptionParserTests {
    struct Values {
        var count = 7
        var offset: Int?
        var name: String?
        var tags: [String] = []
        var loud = false
        var secret: String?
        var fromEnvironment: String?
    }

    static var options: [Option<Values>] {
        [
            .integer("count", "N", \.count, in: 1...10, help: "how many"),
            .integer("offset", "K", \.offset, in: -5...5, help: "a signed shift"),
            .text("name", "NAME", \.name, expected: "a name", help: "who", defaultText: "nobody"),
            .value("tag", "T", expected: "a tag", help: "a label", repeatable: true) { values, text, _ in
                values.tags.append(text)
            },
            .flag("loud", \.loud, help: "shout"),
            .value("secret", "S", expected: "a word", help: "", hidden: true) { values, text, _ in values.secret = text
            },
            .value("where", "auto", expected: "auto", help: "read the place", environment: ["PLACE"]) {
                values, _, environment in
                values.fromEnvironment = environment["PLACE"]
            },
        ]
    }

    /// Parses `arguments` (no command name) into fresh values, or returns the usage error.
    func parse(_ arguments: [String], environment: [String: String] = [:]) -> Result<Values, CLIError> {
        var values = Values()
        do {
            try OptionParser.parse(
                tokenize(arguments), command: "demo", options: Self.options, into: &values,
                environment: environment, positional: { word, _ in throw CLIError.unexpected(word, command: "demo") })
            return .success(values)
        } catch let error as CLIError {
            return .failure(error)
        } catch {
            Issue.record("unexpected \(error)")
            return .failure(CLIError.usage("?"))
        }
    }

    func message(_ arguments: [String]) -> String? {
        if case .failure(let error) = parse(arguments) { return error.message }
        return nil
    }

    @Test func bothFormsOfAValueAreTheSame() throws {
        let spaced = try parse(["--count", "3", "--name", "ann"]).get()
        let attached = try parse(["--count=3", "--name=ann"]).get()
        #expect(spaced.count == 3 && attached.count == 3)
        #expect(spaced.name == "ann" && attached.name == "ann")
        // An attached value may itself hold '=' or start with '-'.
        #expect(try parse(["--name=a=b"]).get().name == "a=b")
        #expect(try parse(["--name=-x"]).get().name == "-x")
    }

    @Test func defaultsStandUntilGiven() throws {
        let values = try parse([]).get()
        #expect(values.count == 7 && values.offset == nil && values.name == nil && !values.loud)
    }

    @Test func negativeNumbersAreValues() throws {
        #expect(try parse(["--offset", "-3"]).get().offset == -3)
        #expect(try parse(["--offset=-5"]).get().offset == -5)
        #expect(message(["--offset", "-6"]) == "invalid value '-6' for '--offset': expected an integer from -5 to 5")
    }

    @Test func repeatableOptionsCollectEveryValueAndOthersRefuseASecond() throws {
        #expect(try parse(["--tag", "a", "--tag=b", "--tag", "c"]).get().tags == ["a", "b", "c"])
        #expect(message(["--count", "1", "--count", "2"]) == "'--count' given twice")
        #expect(message(["--loud", "--loud"]) == "'--loud' given twice")
        #expect(message(["-h", "-h"]) == "'-h' given twice")
    }

    @Test func flagsTakeNoValue() throws {
        #expect(try parse(["--loud"]).get().loud)
        #expect(message(["--loud=yes"]) == "'--loud' takes no value")
        #expect(message(["--help=yes"]) == "'--help' takes no value")
        // A bare word after a flag is a positional argument, not the flag's value.
        #expect(message(["--loud", "yes"]) == "unexpected argument 'yes': 'demo' takes only options")
    }

    @Test func missingAndBadValuesSayWhatWasExpected() {
        #expect(message(["--count"]) == "missing value for '--count': expected an integer from 1 to 10")
        #expect(message(["--count", "--loud"]) == "missing value for '--count': expected an integer from 1 to 10")
        #expect(message(["--count", "11"]) == "invalid value '11' for '--count': expected an integer from 1 to 10")
        #expect(message(["--count", "3x"]) == "invalid value '3x' for '--count': expected an integer from 1 to 10")
        #expect(message(["--name", ""]) == "invalid value '' for '--name': expected a name")
    }

    @Test func unknownOptionsSuggestTheNearestVisibleOne() {
        #expect(message(["--cont", "1"]) == "unknown option '--cont' for 'demo' (did you mean '--count'?)")
        #expect(message(["--hlep"]) == "unknown option '--hlep' for 'demo' (did you mean '--help'?)")
        // A hidden option is parsed but never suggested.
        #expect(message(["--secrt", "x"]) == "unknown option '--secrt' for 'demo'")
        #expect(message(["-x"]) == "unknown option '-x' for 'demo'")
    }

    @Test func helpIsRaisedAfterEveryOtherOptionWasRead() {
        var values = Values()
        #expect(throws: HelpRequested.self) {
            try OptionParser.parse(
                tokenize(["--help", "--count", "2"]), command: "demo", options: Self.options, into: &values,
                environment: [:], positional: { _, _ in })
        }
        #expect(values.count == 2)
        // A bad option after --help is still reported.
        #expect(
            message(["--help", "--count", "0"]) == "invalid value '0' for '--count': expected an integer from 1 to 10")
    }

    @Test func theEnvironmentIsTheOneGivenToTheParser() throws {
        #expect(try parse(["--where", "auto"], environment: ["PLACE": "rack 4"]).get().fromEnvironment == "rack 4")
        #expect(try parse(["--where", "auto"]).get().fromEnvironment == nil)
    }

    /// Help lists every visible option once, with its range, repeatability, default and
    /// variables in one parenthesis, and never a hidden one.
    @Test func helpListsWhatEachDeclarationSays() {
        let text = Command.list(Self.options, defaults: Values())
        #expect(
            text == """
                  --count N                how many (1...10; default: 7)
                  --offset K               a signed shift (-5...5)
                  --name NAME              who (default: nobody)
                  --tag T                  a label (repeatable)
                  --loud                   shout
                  --where auto             read the place (reads PLACE)

                """)
    }

    /// `--shard auto` reads the job engine's variables from the environment the command
    /// line was given, not from the process's.
    @Test func runOptionsReadTheGivenEnvironment() {
        let out = freshPath("env")
        var output = "", errors = ""
        let code = CommandLineTool.run(
            arguments: [
                "--days", "1", "--devices", "2", "--policy", "none", "--shard", "auto",
                "--out", out, "--quiet",
            ],
            output: &output, errors: &errors, environment: ["JOB_COMPLETION_INDEX": "1"])
        #expect(code == 64)
        #expect(
            errors.hasPrefix(
                "error: '--shard auto': JOB_COMPLETION_INDEX is set but not the shard count: expected '--shard auto/N' or BGBENCH_SHARD_COUNT\n"
            ))
    }

    /// `--policy all` (frontier's default) is read from the registry when the run starts,
    /// not when the option is parsed or the defaults are made: help says `all` whatever is
    /// registered (CI once failed docs/cli.md's test when another suite registered a policy
    /// after frontier's defaults were made), and a frozen choice does not move.
    @Test func allPoliciesAreReadWhenTheRunStarts() throws {
        #expect(FrontierCommand.defaults.run.policyChoice == .all)
        #expect(try Command.parsePolicies("all") == .all)
        #expect(
            Command.description(
                RunArguments.options.option("policy").lifted(\FrontierCommand.Values.run),
                defaults: FrontierCommand.defaults
            ).hasSuffix("(default: all)"))
        var arguments = FrontierCommand.defaults.run
        try arguments.finish()
        #expect(arguments.policyChoice == .named(PolicyRegistry.inAll.map(\.name)))
        #expect(!arguments.policies.contains("schedule"), "all leaves out schedule, which needs a plan file")
        #expect(try Command.parsePolicies("fixed,none") == .named(["fixed", "none"]))
        #expect(PolicyChoice.named(PolicyRegistry.all.map(\.name)).shown != "all")
    }
}
