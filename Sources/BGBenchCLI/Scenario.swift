import BGBench

/// `bgbench scenario`: the resolved scenario of a run of `--policy` (default: the run's
/// default, `adaptive`; `all`: every registered policy) as JSON: the parameters of the
/// components such a run uses, as scenario.json holds them. `--complete` prints every
/// registered component's parameters (Datasets/scenarios/default.json is this with no
/// other option); `--markdown` prints the generated parameter tables of docs/scenario.md.
struct ScenarioCommand: CommandDefinition {
    struct Values {
        var file: String?
        var overrides: [String] = []
        var policies = RunArguments().policyChoice
        var complete = false, markdown = false
    }

    static let name = "scenario"
    static let synopsis = """
        bgbench scenario [--scenario FILE|NAME] [--set PATH=VALUE ...] [--policy NAME[,NAME...]]
                         [--complete | --markdown]
                                     print the resolved scenario of a run of --policy
                                     (default: adaptive): the parameters it uses
        """
    static let defaults = Values()
    static var options: [Option<Values>] {
        [
            .text(
                "scenario", "FILE|NAME", \.file, expected: "a scenario file or a preset's name",
                help: "scenario JSON or a preset's name", defaultText: "built-in"),
            .value(
                "set", "PATH=VALUE", expected: "PATH=VALUE", help: "override one scenario field by its JSON path",
                repeatable: true
            ) { values, text, _ in values.overrides.append(text) },
            .value(
                "policy", "NAME[,NAME...]", expected: "'all' or policy names separated by commas",
                help: "the run's policies, or 'all' (every one but schedule, which needs a plan file)",
                shownDefault: { $0.policies.shown }
            ) { values, text, _ in
                values.policies = try Command.parsePolicies(text)
            },
            .flag("complete", \.complete, help: "every registered component's parameters (default.json)"),
            .flag("markdown", \.markdown, help: "the parameter tables of docs/scenario.md"),
        ]
    }

    static func run<Out: TextOutputStream>(_ values: Values, _ invocation: Invocation, output: inout Out) throws {
        if values.markdown { return output.write(ParameterDocs.markdown()) }
        let loaded = try Command.loadScenario(values.file, overrides: values.overrides)
        output.write(values.complete ? loaded.resolvedJSON : loaded.resolvedJSON(policies: values.policies.names))
    }
}
