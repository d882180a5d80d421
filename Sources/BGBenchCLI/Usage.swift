/// What `bgbench --help` prints, each command's own usage (`bgbench COMMAND --help`,
/// `bgbench help COMMAND`) and docs/cli.md, all derived from the commands' declarations
/// (``CommandDefinition``, ``Option``), so none of them can disagree with the parser.
extension Command {
    /// `bgbench COMMAND --help`: its usage lines, its options (the run options it takes
    /// listed in full), then its discussion.
    static func usage(of name: String) -> String {
        func usage<C: CommandDefinition>(_ command: C.Type) -> String {
            var text = "usage: " + indented(command.synopsis) + "\n"
            let own = command.options.filter { !$0.isHidden }, run = command.runOptions.filter { !$0.isHidden }
            if !own.isEmpty { text += "\n" + heading(command) + "\n" + list(own, defaults: command.defaults) }
            if !run.isEmpty { text += "\n" + "run options:\n" + list(run, defaults: command.defaults) }
            if let discussion = command.discussion { text += "\n" + discussion + "\n" }
            return text
        }
        return usage(named(name)!)
    }

    /// `bgbench --help`: every command's usage lines, then each command's own options once
    /// (the run options with run; the others name the run options they take), then the
    /// exit codes.
    static let help: String = {
        var text = """
            bgbench: simulate background app refresh on a fleet of virtual phones and score
            freshness at each open against energy, timeout kills and throttling.


            """
        for (i, command) in all.enumerated() {
            text += (i == 0 ? "usage: " : "       ") + indented(command.synopsis) + "\n"
        }
        text += "       bgbench --help | --version    (bgbench COMMAND --help: one command's usage)\n"
        func details<C: CommandDefinition>(_ command: C.Type) -> String? {
            var text = ""
            let own = command.options.filter { !$0.isHidden }, run = command.runOptions.filter { !$0.isHidden }
            if !own.isEmpty { text += heading(command) + "\n" + list(own, defaults: command.defaults) }
            if !run.isEmpty {
                text +=
                    wrap(
                        "\(command.name) also takes the run options " + run.map(\.shown).joined(separator: ", ")
                            + otherDefaults(command) + ".", width: width) + "\n"
            }
            if let discussion = command.discussion { text += discussion + "\n" }
            return text.isEmpty ? nil : text
        }
        for command in all { if let d = details(command) { text += "\n" + d } }
        text += """

            exit codes: 0 done, 64 usage error, 65 bad scenario, trace or LSApp data (merge: shard
            folders it refuses), 66 cannot read an input file, report folder or shard folder,
            69 plot's Python packages missing, 73 cannot write reports, 75 another bgbench is
            writing the same folder, 130 and 143 interrupted (every output as before).
            check and bench --baseline: 1 a regression, a difference (--exact) or a slowdown; 65 a
            baseline that does not match or parse; 66 a missing report folder or file.
            conformance: 1 a check failed.

            """
        return text
    }()

    /// Help's width in columns, and where an option's text starts.
    static let width = 88, textColumn = 27

    static func heading<C: CommandDefinition>(_ command: C.Type) -> String {
        "\(command.name) options" + (command.reference.map { " (\($0))" } ?? "") + ":"
    }

    /// Options as help lists them: `  --days D` then the text from column 27, wrapped,
    /// with the range (integers), the default and the variables the option reads.
    static func list<Values>(_ options: [Option<Values>], defaults: Values) -> String {
        var text = ""
        for option in options where !option.isHidden {
            let left = "  " + option.shown + (option.placeholder.map { " " + $0 } ?? "")
            let lines = wrap(description(option, defaults: defaults), width: width - textColumn)
                .split(separator: "\n", omittingEmptySubsequences: false)
            let pad = String(repeating: " ", count: textColumn)
            if left.count <= textColumn - 2 {
                text += left.padding(toLength: textColumn, withPad: " ", startingAt: 0) + lines[0] + "\n"
                for line in lines.dropFirst() { text += pad + line + "\n" }
            } else {
                text += left + "\n" + lines.map { pad + $0 + "\n" }.joined()
            }
        }
        return text
    }

    /// An option's help, then in one parenthesis its range, whether it may be repeated,
    /// its default (from `defaults`) and the variables it reads.
    static func description<Values>(_ option: Option<Values>, defaults: Values) -> String {
        let notes = facts(option, defaults: defaults, quote: { $0 })
        return option.help + (notes.isEmpty ? "" : " (" + notes.joined(separator: "; ") + ")")
    }

    /// What help adds to an option's text, each value through `quote` (Markdown's backticks).
    static func facts<Values>(_ option: Option<Values>, defaults: Values, quote: (String) -> String) -> [String] {
        var notes: [String] = []
        if let range = option.range { notes.append(quote(range)) }
        if option.isRepeatable { notes.append("repeatable") }
        if let shown = option.shownDefault?(defaults) { notes.append("default: " + quote(shown)) }
        if !option.environment.isEmpty {
            notes.append("reads " + option.environment.map(quote).joined(separator: ", "))
        }
        return notes
    }

    /// The run options whose default this command changes, as `; default --out
    /// Reports/sweep` (empty when it changes none).
    static func otherDefaults<C: CommandDefinition>(_ command: C.Type) -> String {
        let changed = command.runOptions.compactMap { option -> String? in
            guard let run = RunCommand.options.first(where: { $0.name == option.name }),
                let mine = option.shownDefault?(command.defaults),
                mine != run.shownDefault?(RunCommand.defaults)
            else { return nil }
            return "\(option.shown) \(mine)"
        }
        return changed.isEmpty ? "" : "; its defaults: " + changed.joined(separator: ", ")
    }

    /// `text` broken at spaces into lines of at most `width` characters (a longer word
    /// stands on a line of its own).
    static func wrap(_ text: String, width: Int) -> String {
        var lines: [String] = [], line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty && line.count + 1 + word.count > width { lines.append(line); line = "" }
            line += (line.isEmpty ? "" : " ") + word
        }
        return (lines + [line]).joined(separator: "\n")
    }

    /// The synopsis with its continuation lines indented by the width of "usage: ".
    static func indented(_ synopsis: String) -> String {
        synopsis.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            .map { $0.offset == 0 ? String($0.element) : "       " + $0.element }.joined(separator: "\n")
    }

    /// docs/cli.md's command sections: each command's usage lines and a table of its
    /// options (the run options in run's table only). The tests check the file is this.
    static func markdown() -> String {
        func section<C: CommandDefinition>(_ command: C.Type) -> String {
            var text = "### `bgbench \(command.name)`\n\n```\n" + command.synopsis + "\n```\n"
            let own = command.options.filter { !$0.isHidden }, run = command.runOptions.filter { !$0.isHidden }
            if !own.isEmpty {
                text += "\n| option | what it does |\n|---|---|\n"
                for option in own {
                    let notes = facts(option, defaults: command.defaults) { "`\($0)`" }
                    let about = option.help + (notes.isEmpty ? "" : " (" + notes.joined(separator: "; ") + ")")
                    let cells = ["`\(option.shown)\(option.placeholder.map { " " + $0 } ?? "")`", about]
                    text +=
                        "| " + cells.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ")
                        + " |\n"
                }
            }
            if !run.isEmpty {
                text +=
                    "\nAlso the run options " + run.map { "`\($0.shown)`" }.joined(separator: ", ")
                    + otherDefaults(command) + ".\n"
            }
            if let discussion = command.discussion {
                text += "\n" + discussion.split(separator: "\n").joined(separator: " ") + "\n"
            }
            return text
        }
        return all.map { section($0) }.joined(separator: "\n")
    }
}
