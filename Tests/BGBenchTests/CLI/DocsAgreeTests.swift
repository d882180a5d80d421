import Foundation
import Testing
@testable import BGBench
@testable import BGBenchCLI
import BGBenchTestSupport
@testable import BGHarness

/// Docs that cannot drift (issue 24 item 7): what README.md and the other guides say about
/// the binary's options, defaults, presets and counts is checked against the binary. The
/// generated parts (docs/cli.md, the parameter and column tables, the policy and study
/// tables) have their own tests and scripts; these cover the prose.
@Suite struct DocsAgreeTests {
    static let checkout = TestSupport.packageRoot

    /// Every guide that shows a bgbench command line.
    static let guides: [String] = {
        let docs =
            (try? FileManager.default.contentsOfDirectory(atPath: checkout.appendingPathComponent("docs").path))
            ?? []
        return [
            "README.md", "Datasets/README.md", "Reports/README.md", "Benchmarks/README.md",
            "Scripts/cluster/README.md", "Examples/README.md", "Fuzz/README.md",
        ] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }()

    static func read(_ file: String) throws -> String {
        try String(contentsOf: checkout.appendingPathComponent(file), encoding: .utf8)
    }

    /// The code of a Markdown text: each line of a fenced block (a line ending in `\`
    /// joined to the next) and each inline code span outside the blocks.
    static func codeSpans(_ text: String) -> [String] {
        var spans: [String] = []
        for (i, part) in text.components(separatedBy: "```").enumerated() {
            if i % 2 == 1 {
                spans += part.replacingOccurrences(of: "\\\n", with: " ").split(separator: "\n").dropFirst().map(
                    String.init)
            } else {
                let pieces = part.components(separatedBy: "`")
                spans += stride(from: 1, to: pieces.count, by: 2).map {
                    pieces[$0].replacingOccurrences(of: "\n", with: " ")
                }
            }
        }
        return spans
    }

    /// The bgbench command lines in a span: the words after each `bgbench` that starts a
    /// command (at the start, or after a space, `(`, `;`, `&` or `|`), up to a shell
    /// operator or comment.
    static func commandLines(_ span: String) -> [[String]] {
        let words = span.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        var lines: [[String]] = []
        for (i, word) in words.enumerated() {
            guard word == "bgbench" || word == "(bgbench" || word == "$(bgbench" else { continue }
            var line: [String] = []
            for next in words[(i + 1)...] {
                if next.contains(where: { ";&|#><".contains($0) }) { break }
                line.append(next)
            }
            lines.append(line)
        }
        return lines
    }

    /// Every `--option` of every bgbench command line in the guides is one the command
    /// parses (hidden ones included: Benchmarks/README.md documents bench's child options).
    @Test func everyDocumentedOptionExists() throws {
        func names<C: CommandDefinition>(_ command: C.Type) -> Set<String> {
            Set((command.options + command.runOptions).map(\.name)).union(OptionParser.helpNames)
        }
        var known: [String: Set<String>] = [:]
        for command in Command.all { known[command.name] = names(command) }
        var checked = 0
        for file in Self.guides {
            for span in Self.codeSpans(try Self.read(file)) {
                for line in Self.commandLines(span) {
                    var command = "run", words = line[...]
                    if let first = words.first, !first.hasPrefix("-") {
                        guard known[first] != nil else { continue }  // "bgbench 0.1.0", a path
                        command = first
                        words = words.dropFirst()
                    }
                    // After a bare `--`, the words are a program's (`conformance -- PROGRAM ARGS`).
                    for word in words.prefix(while: { $0 != "--" }) where word.hasPrefix("--") {
                        let name = String(word.dropFirst(2).prefix { $0 != "=" })
                        #expect(
                            known[command]!.contains(name),
                            "\(file): '\(word)' in `bgbench \(line.joined(separator: " "))`")
                        checked += 1
                    }
                }
            }
        }
        #expect(checked > 200, "the guides' command lines were found (\(checked) options)")
    }

    /// A default the prose states, found by a pattern with one capture.
    struct Claim: CustomTestStringConvertible, Sendable {
        var file: String, pattern: String, command: String, option: String
        var testDescription: String { "\(file): \(command) --\(option)" }
    }

    static let claims: [Claim] = [
        Claim(file: "README.md", pattern: #"writes to `--out` \(default `([^`]+)`\)"#, command: "run", option: "out"),
        Claim(
            file: "README.md", pattern: #"into one folder \(default `([^`]+)`\)"#, command: "sweep", option: "out"),
        Claim(
            file: "README.md", pattern: #"`bgbench --policy adaptive --days 365` \(([0-9,]+) devices[,)]"#,
            command: "run", option: "devices"),
        Claim(
            file: "Reports/README.md", pattern: #"`--out` \(default `([^`]+)`\) is written as one unit"#,
            command: "sweep", option: "out"),
        Claim(
            file: "Reports/README.md", pattern: #"Its folder \(default `([^`]+)`\)"#, command: "frontier", option: "out"
        ),
        Claim(
            file: "docs/policies.md", pattern: #"every policy of `--policy` \(default `([^`]+)`\)"#,
            command: "frontier", option: "policy"),
        Claim(
            file: "Datasets/README.md", pattern: #"The defaults, `--devices ([0-9]+) --days [0-9]+ --seed [0-9]+`"#,
            command: "habits", option: "devices"),
        Claim(
            file: "Datasets/README.md", pattern: #"The defaults, `--devices [0-9]+ --days ([0-9]+) --seed [0-9]+`"#,
            command: "habits", option: "days"),
        Claim(
            file: "Datasets/README.md", pattern: #"The defaults, `--devices [0-9]+ --days [0-9]+ --seed ([0-9]+)`"#,
            command: "habits", option: "seed"),
    ]

    /// Each default the prose states is the one `--help` shows, and the pattern finds it
    /// exactly once (a reworded sentence fails here rather than going unchecked).
    @Test(arguments: claims) func documentedDefaultIsTheBinarys(_ claim: Claim) throws {
        func shown<C: CommandDefinition>(_ command: C.Type) -> String? {
            (command.options + command.runOptions).first { $0.name == claim.option }?.shownDefault?(command.defaults)
        }
        let command = try #require(Command.named(claim.command))
        let shownDefault: String? = shown(command)
        let binary = try #require(shownDefault, "\(claim.command) --\(claim.option) shows a default")
        let text = try Self.read(claim.file).replacingOccurrences(of: "\n", with: " ")
        let regex = try NSRegularExpression(pattern: claim.pattern)
        let matches = regex.matches(in: text, range: NSRange(text.startIndex..., in: text))
        try #require(matches.count == 1, "\(claim.file): \(matches.count) matches of \(claim.pattern)")
        let documented = String(text[Range(matches[0].range(at: 1), in: text)!]).replacingOccurrences(of: ",", with: "")
        #expect(documented == binary, "\(claim.file) says \(documented), the binary \(binary)")
    }

    /// `--out`'s default in each writing command's `--help`: its own folder once, never
    /// another command's (sweep's help said `Reports/latest` beside `Reports/sweep`).
    @Test func helpStatesEachCommandsOwnOutDefault() {
        for (command, folder) in [
            ("run", "Reports/latest"), ("sweep", "Reports/sweep"), ("frontier", "Reports/frontier"),
        ] {
            let help = bgbench([command, "--help"]).output.replacingOccurrences(of: "\n", with: " ")
            let folders = ["Reports/latest", "Reports/sweep", "Reports/frontier"].filter { help.contains($0) }
            #expect(folders == [folder], "\(command) --help names \(folders)")
        }
    }

    /// Each preset's headline (`report.headline` of the preset the binary embeds) is what
    /// README.md's table lists, in order, and what Datasets/README.md's section of the
    /// preset says; every preset has a row.
    @Test func presetHeadlinesAreTheBinarys() throws {
        var headline: [String: [String]] = [:]
        for preset in EmbeddedFiles.presets {
            headline[preset.name] = try ScenarioLoader.load(json: preset.text, file: preset.name).scenario.report
                .headline
        }
        func ticked(_ text: Substring) -> [String] {
            text.components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
        }
        let readme = try Self.read("README.md")
        let table = try #require(
            readme.components(separatedBy: "| preset | headline metrics, most important first |").last)
        var rowed: Set<String> = []
        for row in table.split(separator: "\n").dropFirst().prefix(while: { $0.hasPrefix("|") }) {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            for name in ticked(cells[0][...]) {
                rowed.insert(name)
                #expect(ticked(cells[1][...]) == headline[name], "README.md's row of \(name)")
            }
        }
        #expect(rowed == Set(headline.keys), "README.md's preset table rows")

        let datasets = try Self.read("Datasets/README.md")
        for (name, metrics) in headline where !["default", "r1"].contains(name) {
            let section = try #require(
                datasets.components(separatedBy: "### `\(name).json`").dropFirst().first?.components(
                    separatedBy: "\n### "
                ).first, "Datasets/README.md has a section for \(name)")
            let line = try #require(
                section.components(separatedBy: "(`report.headline`").dropFirst().first, "\(name)'s headline line")
            let listed = line.components(separatedBy: ": ").dropFirst().joined(separator: ": ").prefix { $0 != "." }
            #expect(ticked(listed) == metrics, "Datasets/README.md's headline of \(name)")
        }
    }

    /// The frontier's arm count the prose states (README.md, docs/policies.md) is the
    /// binary's for `--policy all` on the default scenario.
    @Test func frontierArmCountIsTheBinarys() throws {
        let request = FrontierRequest(
            scenario: ScenarioLoader.builtInDefault(),
            policies: PolicyRegistry.builtIn.filter { !$0.needsInput }.map(\.name),
            options: RunOptions(devices: 1, days: 1, seed: 1, threads: 1))
        let arms = try Frontier.arms(request)
        let knobs = arms.filter { $0.knob != nil }.count
        let readme = try Self.read("README.md").replacingOccurrences(of: "\n", with: " ")
        #expect(readme.contains("`bgbench frontier --days 90 --devices 500` runs \(arms.count) arms"))
        let policies = try Self.read("docs/policies.md").replacingOccurrences(of: "\n", with: " ")
        #expect(
            policies.contains(
                "\(arms.count) arms (the baseline's point, \(knobs) knob values, `none`, `oracle`; a test counts them)"),
            "\(arms.count) arms, \(knobs) knob values")
        #expect(arms.count == knobs + 3, "the baseline's point, none and oracle besides the knobs")
    }

    /// The habits trace's size Datasets/README.md quotes is what the binary writes.
    @Test func habitsCountIsTheBinarys() throws {
        let text = try Self.read("Datasets/README.md").replacingOccurrences(of: "\n", with: " ")
        let regex = try NSRegularExpression(pattern: #"--seed ([0-9]+)`, write ([0-9,]+) opens"#)
        let match = try #require(regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)))
        let documented = Int(text[Range(match.range(at: 2), in: text)!].replacingOccurrences(of: ",", with: ""))
        let defaults = HabitsCommand.defaults
        let opens = (0..<defaults.devices).reduce(0) {
            $0 + HabitUsers.opens(device: $1, days: defaults.days, seed: defaults.seed).count
        }
        #expect(documented == opens)
    }

    /// The pandas loading example of Reports/README.md prints each policy once (it printed
    /// `fixed` once per archetype row).
    @Test func loadingExamplePrintsEachPolicyOnce() throws {
        let readme = try Self.read("Reports/README.md")
        let loading = try #require(readme.components(separatedBy: "## Loading").dropFirst().first)
        let code = try #require(
            loading.components(separatedBy: "```python\n").dropFirst().first?.components(
                separatedBy: "```"
            ).first)
        let folder = freshFolder("loading")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let run = bgbench([
            "--policy", "fixed,adaptive", "--devices", "20", "--days", "2", "--out", folder + "/Reports/latest",
            "--quiet",
        ])
        try #require(run.code == 0, "\(run.errors)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", code]
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "python: \(out)")
        let rows = out.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        #expect(rows.filter { $0.contains("fixed") }.count == 1, "\(out)")
        #expect(rows.filter { $0.contains("adaptive") }.count == 1, "\(out)")
    }
}
