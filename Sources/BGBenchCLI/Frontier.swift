import BGBench
import BGHarness
import Foundation

/// `bgbench frontier`: every policy at every value of its aggressiveness knob, and the
/// baseline at its own point, side by side on the same users and feed (one fleet pass per
/// seed); frontier.csv, frontier-matched.csv and a table of each policy's quality
/// difference at the baseline's energy (docs/policies.md, "The frontier").
struct FrontierCommand: CommandDefinition {
    struct Values {
        var run = RunArguments()
        var knobs: [(policy: String, values: [String], text: String)] = []
        var levels = FrontierRequest.defaultEnergyLevels
        var range: ClosedRange<Double>?
        var quality: FrontierAxis?
        var comparisons: [(policy: String, reference: String, text: String)] = []
    }

    static let name = "frontier"
    static let synopsis = """
        bgbench frontier [--knob POLICY=V1,V2,... ...] [run options]
                                     every policy at every value of its knob and the
                                     baseline at its own point, on the same users:
                                     quality (fresh opens, or the preset's headline
                                     rate) at matched energy (frontier.csv)
        """
    static let reference: String? = "docs/policies.md, \"The frontier\""
    static let defaults: Values = {
        var values = Values()
        values.run.policyChoice = .all
        values.run.out = "Reports/frontier"
        return values
    }()
    static var options: [Option<Values>] {
        [
            .value(
                "knob", "POLICY=V1,V2,...", expected: "POLICY=V1,V2,...",
                help: "the values of POLICY's knob, one per policy", repeatable: true,
                defaultText: "its declared sweep, docs/scenario.md"
            ) { values, text, _ in values.knobs.append(try Command.parseKnob(text)) },
            .value(
                "energy-levels", "J,...", expected: "comma-separated non-negative J/day values",
                help: "J/day at which each curve is read besides the baseline's own",
                shownDefault: {
                    $0.levels.map { "\(Int(exactly: $0).map(String.init) ?? "\($0)")" }.joined(separator: ",")
                }
            ) { values, text, _ in
                values.levels = try Command.energies(text, for: "energy-levels", count: nil)
            },
            .value(
                "energy-range", "LOW,HIGH", expected: "LOW,HIGH in J/day",
                help: "J/day range of the areas under the curves",
                defaultText: "the baseline policy's curve range, else the range every curve spans"
            ) { values, text, _ in
                let pair = try Command.energies(text, for: "energy-range", count: 2)
                guard pair[0] < pair[1] else {
                    throw CLIError.usage(
                        "invalid value '\(text)' for '--energy-range': expected LOW,HIGH in J/day with LOW < HIGH")
                }
                values.range = pair[0]...pair[1]
            },
            .value(
                "quality", "METRIC", expected: "a summary.csv rate where higher is better",
                help: "the curves' vertical axis, a summary.csv metric",
                defaultText: "the scenario's first headline metric if it can be one, else fresh_open_rate"
            ) { values, text, _ in
                do { values.quality = try FrontierAxis.quality(named: text) } catch let error as FrontierError {
                    throw CLIError.usage(error.description)
                }
            },
            .value(
                "compare", "A,B", expected: "A,B: two policies of --policy with a knob",
                help: "also A's curve minus B's at matched energy, with intervals (frontier-matched.csv)",
                repeatable: true
            ) { values, text, _ in
                let parts = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                    throw CLIError.usage(
                        "invalid value '\(text)' for '--compare': expected A,B, two policies with a knob")
                }
                guard parts[0] != parts[1] else {
                    throw CLIError.usage(
                        "invalid value '\(text)' for '--compare': expected two different policies")
                }
                values.comparisons.append((parts[0], parts[1], text))
            },
            RunArguments.options.option("policy").lifted(\Values.run),
            RunArguments.options.option("baseline-policy").lifted(\Values.run)
                .withHelp(
                    "what every arm is compared with: a policy's point at the scenario's own parameters, or one arm of its knob as POLICY[KNOB=VALUE], e.g. 'fixed[interval=30m]'"
                ),
            RunArguments.options.option("replications").lifted(\Values.run)
                .withHelp("R seeds (S, S+1, ...); the intervals are then across the seeds"),
        ]
    }
    /// The run options a frontier takes: all but the per-device files.
    static var runOptions: [Option<Values>] {
        RunArguments.options.excluding(
            "policy", "baseline-policy", "replications", "per-device",
            "trace-devices"
        ).map { $0.lifted(\Values.run) }
    }
    static let endsCleanlyOnSignals = true
    /// The most values a knob and arms a frontier take without `--yes` (docs/limits.md, "Caps").
    static let maxKnobValues = 200
    static let maxArms = 2000

    static func run<Out: TextOutputStream>(_ values: Values, _ invocation: Invocation, output: inout Out) throws {
        var common = values.run
        let knobs = values.knobs, levels = values.levels, range = values.range, quality = values.quality
        // An arm of a knob as the baseline (`fixed[interval=30m]`) is checked against the
        // arms (`Frontier.arms`), a policy's point by `finish`.
        let armBaseline = common.baseline.flatMap { $0.contains("[") || $0.contains("]") ? $0 : nil }
        if armBaseline != nil { common.baseline = nil }
        // The cap on a knob's values first: 5,000 values are refused at once, not after
        // every arm's scenario is loaded.
        if let long = knobs.first(where: { $0.values.count > Self.maxKnobValues }), !common.yes {
            throw CLIError.usage(
                "invalid value '\(long.text)' for '--knob': \(long.values.count) values, more than the \(Self.maxKnobValues) a knob takes without --yes (docs/limits.md, \"Caps\")"
            )
        }
        try common.finish()
        let policies = common.policies, replications = common.replications
        let baseline = armBaseline ?? common.baseline
        var knobValues: [String: [String]] = [:]
        for knob in knobs {
            guard policies.contains(knob.policy) else {
                throw CLIError.usage(
                    "invalid value '\(knob.text)' for '--knob': policy '\(knob.policy)' is not among the policies run (\(policies.joined(separator: ", ")))"
                )
            }
            guard knobValues.updateValue(knob.values, forKey: knob.policy) == nil else {
                throw CLIError.usage("'--knob' given twice for policy '\(knob.policy)'")
            }
        }
        var comparisons: [FrontierRequest.Comparison] = []
        for c in values.comparisons {
            for name in [c.policy, c.reference] {
                guard policies.contains(name) else {
                    throw CLIError.usage(
                        "invalid value '\(c.text)' for '--compare': policy '\(name)' is not among the policies run (\(policies.joined(separator: ", ")))"
                    )
                }
                guard PolicyRegistry.named(name)?.parameters?.knob != nil else {
                    throw CLIError.usage(
                        "invalid value '\(c.text)' for '--compare': policy '\(name)' has no aggressiveness knob, so no curve"
                    )
                }
            }
            guard !comparisons.contains(where: { Set([$0.policy, $0.reference]) == Set([c.policy, c.reference]) })
            else {
                throw CLIError.usage("'--compare' given twice for policies \(c.policy) and \(c.reference)")
            }
            comparisons.append(.init(c.policy, minus: c.reference))
        }
        let loaded = try Command.loadScenario(common.scenarioFile, overrides: common.overrides)
        let request = FrontierRequest(
            scenario: loaded, policies: policies, baselinePolicy: baseline, knobValues: knobValues,
            energyLevels: levels, energyRange: range, quality: quality, comparisons: comparisons,
            options: common.options,
            replications: replications, commandLine: ["bgbench"] + invocation.arguments)
        // Against the baseline policy's curve every policy is read already: the rows would repeat.
        if let c = values.comparisons.first(where: { $0.reference == request.resolvedBaseline }) {
            throw CLIError.usage(
                "invalid value '\(c.text)' for '--compare': \(c.reference) is the baseline policy, whose curve every policy is compared with already (reference \(c.reference)[curve]); give it first"
            )
        }
        // Every arm's scenario is loaded (a bad knob value found) before the folder is opened.
        let arms: [FrontierArm]
        do { arms = try Frontier.arms(request) } catch let error as FrontierError {
            throw CLIError.usage(error.description)
        }
        guard arms.count <= Self.maxArms || common.yes else {
            throw CLIError.usage(
                "the frontier has \(arms.count) arms (policies × knob values), more than the \(Self.maxArms) it runs side by side without --yes (docs/limits.md, \"Caps\")"
            )
        }
        // Two spellings of one knob value (`15m,900s`) would be one arm twice.
        for knob in knobs {
            var seen: [String: String] = [:]
            for arm in arms where arm.policy == knob.policy {
                guard let value = arm.value else { continue }
                if let other = seen.updateValue(value, forKey: ScenarioLoader.resolvedJSON(arm.scenario)) {
                    throw CLIError.usage(
                        "invalid value '\(knob.text)' for '--knob': '\(other)' and '\(value)' are the same value")
                }
            }
        }
        let work =
            common.options.part.devices(of: common.options.devices).count * common.options.days * arms.count
            * replications
        let job = common.job(
            passes: [arms.count], results: arms.count, scenario: loaded.scenario, policies: policies)
        try common.pipeline(.frontier, work: work, job: job).run(output: &output) { progress in
            let report = try Frontier.run(request, progress: progress)
            return .init(
                files: FrontierFiles.files(report), text: Command.frontierTable(report),
                seconds: report.run.wallSeconds,
                deviceDays: work)
        }
    }

}

extension Command {
    /// `--knob POLICY=V1,V2,...`: a policy with a declared knob and its values as `--set` takes them.
    /// `text`, the knob as messages quote it: at most its first 5 values, then how many.
    static func parseKnob(_ whole: String) throws -> (policy: String, values: [String], text: String) {
        let text = abbreviatedList(whole)
        let withKnob = PolicyRegistry.all.filter { $0.parameters?.knob != nil }.map(\.name)
        guard let eq = whole.firstIndex(of: "="), eq != whole.startIndex else {
            throw CLIError.usage(
                "invalid value '\(text)' for '--knob': expected POLICY=V1,V2,... (a policy with a knob: \(withKnob.joined(separator: ", ")))"
            )
        }
        let policy = String(whole[..<whole.firstIndex(of: "=")!])
        guard let entry = PolicyRegistry.named(policy) else {
            var message = "unknown policy '\(policy)' for '--knob': expected one of \(withKnob.joined(separator: ", "))"
            if let close = closest(to: policy, in: withKnob) { message += " (did you mean '\(close)'?)" }
            throw CLIError.usage(message)
        }
        guard entry.parameters?.knob != nil else {
            throw CLIError.usage(
                "invalid value '\(text)' for '--knob': policy '\(policy)' has no aggressiveness knob (policies with one: \(withKnob.joined(separator: ", ")))"
            )
        }
        let values = whole[whole.index(after: eq)...].split(separator: ",", omittingEmptySubsequences: false).map(
            String.init)
        guard !values.contains(where: \.isEmpty) else {
            throw CLIError.usage("invalid value '\(text)' for '--knob': expected POLICY=V1,V2,... with no empty value")
        }
        var seen = Set<String>()
        if let twice = values.first(where: { !seen.insert($0).inserted }) {
            throw CLIError.usage("invalid value '\(text)' for '--knob': value '\(twice)' given twice")
        }
        return (policy, values, text)
    }

    /// Comma-separated non-negative J/day values (`count` of them when given).
    static func energies(_ text: String, for option: String, count: Int?) throws -> [Double] {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        let values = parts.compactMap { Double($0) }.filter { $0.isFinite && $0 >= 0 }
        guard values.count == parts.count, !values.isEmpty, count.map({ $0 == values.count }) ?? true else {
            let expected = count == 2 ? "LOW,HIGH in J/day" : "comma-separated non-negative J/day values"
            throw CLIError.usage("invalid value '\(text)' for '--\(option)': expected \(expected)")
        }
        return values
    }

    /// The terminal table: the baseline's point, then per policy its arms' energy range and
    /// its quality difference at the baseline's J/day (across seeds when replicated: then
    /// every figure is the mean over the seeds, as frontier.csv's `seeds` rows).
    static func frontierTable(_ report: FrontierReport) -> String {
        let replicated = report.seeds.count > 1
        let rows = replicated ? report.matchedAcrossSeeds() : report.matched(seed: 0)
        let run = report.run
        let battery = run.request.scenario.scenario.device.batteryWh * 3600
        let quality = report.quality.metric
        let ratio = quality.support == 0...1
        let scale = ratio ? 100.0 : 1.0
        let unit = ratio ? "pts" : quality.unit
        /// A metric of an arm, its mean over the seeds.
        func mean(_ metric: Metric, _ label: String) -> Double {
            let values = run.results.filter { $0.policy == label }.map {
                metric.kind.estimate(FleetEstimates(tally: $0.tally, days: run.countedDays), batteryJoules: battery)
                    .value
            }
            return values.reduce(0, +) / Double(max(1, values.count))
        }
        let baseline = report.arms[0].label
        var out =
            "frontier: \(report.arms.count) arms × \(run.request.options.devices) devices × \(run.request.options.days) days, "
            + (replicated
                ? "\(report.seeds.count) seeds (means and intervals across seeds)"
                : "seed \(report.seeds[0]) (device-clustered paired intervals)")
            + "; \(SummaryTable.fixed(run.wallSeconds, 1)) s\n"
        let level = mean(quality, baseline)
        out +=
            "baseline \(baseline)\(report.arms[0].knob == nil ? " at its own point" : ""): \(quality.name) \(SummaryTable.fixed(level * scale, ratio ? 1 : 3))"
            + (ratio ? " %" : " \(quality.unit)")
            + ", \(SummaryTable.fixed(mean(FrontierAxis.energy.metric, baseline), 1)) J/day\n"
        func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : String(repeating: " ", count: n - s.count) + s }
        out +=
            "policy".padding(toLength: 12, withPad: " ", startingAt: 0) + pad("arms", 5) + pad("J/day range", 16)
            + pad("Δ \(unit) at baseline J/day", 32) + pad("Δ area (\(unit) × J/day)", 26) + "\n"
        func cell(_ m: FrontierReport.Matched?, _ scale: Double, _ decimals: Int) -> String {
            guard let m else { return "" }
            guard let d = m.difference else { return m.status.replacingOccurrences(of: "_", with: " ") }
            let text = (d.value >= 0 ? "+" : "") + SummaryTable.fixed(d.value * scale, decimals)
            guard let low = d.low, let high = d.high else { return text }
            return text
                + " [\(SummaryTable.fixed(low * scale, decimals)), \(SummaryTable.fixed(high * scale, decimals))]"
                + (low > 0 || high < 0 ? "*" : " ")
        }
        let baselineRows = rows.filter {
            $0.reference == baseline || $0.reference == "\(report.request.resolvedBaseline)[curve]"
        }
        for policy in report.request.policies {
            let arms = report.arms.filter { $0.policy == policy && $0.knob != nil }
            let energies = arms.map { mean(FrontierAxis.energy.metric, $0.label) }
            let span =
                energies.isEmpty
                ? "point" : "\(SummaryTable.fixed(energies.min()!, 1))–\(SummaryTable.fixed(energies.max()!, 1))"
            let at = baselineRows.first { $0.policy == policy && $0.measure == .atBaselineEnergy }
            let area = baselineRows.first { $0.policy == policy && $0.measure == .area }
            out +=
                policy.padding(toLength: 12, withPad: " ", startingAt: 0) + pad(String(max(1, arms.count)), 5)
                + pad(span, 16)
                + pad(cell(at, scale, 2), 32) + pad(cell(area, scale, 1), 26) + "\n"
        }
        // `--compare A,B`: A's curve minus B's, the rows after the baseline's.
        for c in report.request.comparisons {
            let mine = rows.filter { $0.policy == c.policy && $0.reference == "\(c.reference)[curve]" }
            let at = mine.first { $0.measure == .atBaselineEnergy }
            let area = mine.first { $0.measure == .area }
            let range = area?.range.map {
                " over \(SummaryTable.fixed($0.lowerBound, 1))–\(SummaryTable.fixed($0.upperBound, 1)) J/day"
            }
            out +=
                "\(c.policy) − \(c.reference), curve against curve: Δ \(unit) at baseline J/day "
                + cell(at, scale, 2).trimmingCharacters(in: .whitespaces) + "; Δ area "
                + cell(area, scale, 1).trimmingCharacters(in: .whitespaces) + (range ?? "") + "\n"
        }
        out += "* the interval excludes zero; frontier-matched.csv has the fixed energy levels and the ranges\n"
        if ratio {
            out +=
                "pts: percentage points of \(quality.name); frontier-matched.csv holds differences of ratios (0.01 is 1 pt)\n"
        }
        // The arms on the freshness–energy frontier, with the seeds in which each is, and
        // the frontier pairs that are not significant (pareto-pairs.csv).
        let pareto = report.paretoMembership
        let count = report.seeds.count
        let onFront = report.arms.indices.filter { pareto.pooled[$0] }.map { i in
            report.arms[i].label
                + (replicated ? " \(Int((pareto.share[i] * Double(count)).rounded()))/\(count)" : "")
        }
        out +=
            "Pareto frontier of fresh-open rate against J/day (frontier.csv's pareto"
            + (replicated ? "; k/\(count): the seeds in which the arm is on it, pareto_share" : "") + "): "
            + onFront.joined(separator: ", ") + "\n"
        out += SweepTable.paretoLines(report.paretoPairs().verdicts, replications: count)
        return out
    }
}
