import BGBench

/// One option of a command, declared once: the parser (``OptionParser``), the command's
/// `--help` and docs/cli.md's option lists all read this declaration. It is
/// swift-argument-parser's `@Option` in small (that package cannot be fetched here): a
/// name, the value's placeholder (none for a flag), what a value must be, a help line, the
/// default (read from the command's default values, never written twice), whether it may
/// be repeated, the environment variables it reads, and how a value is taken into the
/// command's `Values`.
struct Option<Values> {
    /// As typed after `--` (`-` for one letter).
    let name: String
    /// The value's name in help (`D`, `FILE|NAME`); nil for a flag, which takes no value.
    let placeholder: String?
    /// What a value must be, for messages and help: "an integer from 1 to 36500".
    let expected: String
    /// One paragraph; help wraps it and adds the range, the default and the variables.
    var help: String
    /// The values allowed, as help shows them (`1...36500`; nil: said by `help`).
    var range: String? = nil
    /// The default as help shows it, read from the command's default `Values` (nil: none).
    var shownDefault: ((Values) -> String?)?
    /// May be given more than once, each value taken in turn (else a second is an error).
    let isRepeatable: Bool
    /// Parsed but not listed (bench's child-process options, Benchmarks/README.md).
    var isHidden: Bool
    /// Environment variables the option reads, named in help.
    let environment: [String]
    /// Takes one value (a flag: none) into the values; throws a usage error for a bad one.
    let take: (inout Values, String?, [String: String]) throws -> Void

    /// The option as typed: `--days`, `-h`.
    var shown: String { name.count == 1 ? "-\(name)" : "--\(name)" }
    var isFlag: Bool { placeholder == nil }
}

extension Option {
    /// A flag: sets `keyPath` to true.
    static func flag(_ name: String, _ keyPath: WritableKeyPath<Values, Bool>, help: String) -> Option {
        Option(
            name: name, placeholder: nil, expected: "no value", help: help, shownDefault: nil, isRepeatable: false,
            isHidden: false, environment: []
        ) { values, _, _ in values[keyPath: keyPath] = true }
    }

    /// An option whose value `parse` turns into what it stores (and may check against the
    /// values taken so far); help shows `shownDefault`'s text when it returns one.
    static func value(
        _ name: String, _ placeholder: String, expected: String, help: String,
        repeatable: Bool = false, hidden: Bool = false, environment: [String] = [],
        shownDefault: ((Values) -> String?)? = nil, defaultText: String? = nil,
        _ parse: @escaping (inout Values, String, [String: String]) throws -> Void
    ) -> Option {
        Option(
            name: name, placeholder: placeholder, expected: expected, help: help,
            shownDefault: shownDefault ?? defaultText.map { text in { _ in text } },
            isRepeatable: repeatable, isHidden: hidden, environment: environment
        ) { values, text, environment in
            guard let text else {
                throw CLIError.usage("missing value for '\(Self.shown(name))': expected \(expected)")
            }
            try parse(&values, text, environment)
        }
    }

    /// A path or name, stored as typed, never empty; nil until given (`defaultText` says
    /// what holds then).
    static func text(
        _ name: String, _ placeholder: String, _ keyPath: WritableKeyPath<Values, String?>,
        expected: String, help: String, defaultText: String? = nil
    ) -> Option {
        value(name, placeholder, expected: expected, help: help, defaultText: defaultText) { values, text, _ in
            values[keyPath: keyPath] = try nonEmpty(text, name, expected)
        }
    }

    /// A path or name, never empty, with a default help shows.
    static func text(
        _ name: String, _ placeholder: String, _ keyPath: WritableKeyPath<Values, String>,
        expected: String, help: String
    ) -> Option {
        value(name, placeholder, expected: expected, help: help, shownDefault: { $0[keyPath: keyPath] }) {
            values, text, _ in
            values[keyPath: keyPath] = try nonEmpty(text, name, expected)
        }
    }

    private static func nonEmpty(_ text: String, _ name: String, _ expected: String) throws -> String {
        guard !text.isEmpty else { throw CLIError.usage("invalid value '' for '\(shown(name))': expected \(expected)") }
        return text
    }

    /// An integer within `range`; help shows the range and the default (`defaultText`, or
    /// the value in the command's defaults unless `showsDefault` is false: a default that
    /// means "off").
    static func integer<T: FixedWidthInteger>(
        _ name: String, _ placeholder: String, _ keyPath: WritableKeyPath<Values, T>,
        in range: ClosedRange<T>, help: String, showsDefault: Bool = true,
        defaultText: String? = nil
    ) -> Option {
        let shown: ((Values) -> String?)? =
            defaultText.map { text in { _ in text } }
            ?? (showsDefault ? { "\($0[keyPath: keyPath])" } : nil)
        return integer(name, placeholder, in: range, help: help, shownDefault: shown) { $0[keyPath: keyPath] = $1 }
    }

    /// An integer within `range` without a fixed default (nil until given).
    static func integer<T: FixedWidthInteger>(
        _ name: String, _ placeholder: String, _ keyPath: WritableKeyPath<Values, T?>,
        in range: ClosedRange<T>, help: String
    ) -> Option {
        integer(name, placeholder, in: range, help: help, shownDefault: nil) { $0[keyPath: keyPath] = $1 }
    }

    private static func integer<T: FixedWidthInteger>(
        _ name: String, _ placeholder: String, in range: ClosedRange<T>,
        help: String, shownDefault: ((Values) -> String?)?,
        store: @escaping (inout Values, T) -> Void
    ) -> Option {
        let expected = "an integer from \(range.lowerBound) to \(range.upperBound)"
        var option = value(name, placeholder, expected: expected, help: help, shownDefault: shownDefault) {
            values, text, _ in
            guard let value = T(text), range.contains(value) else {
                throw CLIError.usage("invalid value '\(text)' for '\(Self.shown(name))': expected \(expected)")
            }
            store(&values, value)
        }
        option.range = "\(range.lowerBound)...\(range.upperBound)"
        return option
    }

    /// The same option for a command whose values hold these (`RunArguments` inside a
    /// frontier's values): one declaration, every command that takes it.
    func lifted<Outer>(_ keyPath: WritableKeyPath<Outer, Values>) -> Option<Outer> {
        let take = self.take, shownDefault = self.shownDefault
        return Option<Outer>(
            name: name, placeholder: placeholder, expected: expected, help: help, range: range,
            shownDefault: shownDefault.map { shown in { shown($0[keyPath: keyPath]) } },
            isRepeatable: isRepeatable, isHidden: isHidden, environment: environment
        ) { outer, text, environment in
            try take(&outer[keyPath: keyPath], text, environment)
        }
    }

    /// `--threads T`: one declaration for every command that runs simulations.
    static func threads(
        _ keyPath: WritableKeyPath<Values, Int>, help: String = "worker threads, 0 = all cores",
        defaultText: String? = nil
    ) -> Option {
        integer("threads", "T", keyPath, in: 0...1024, help: help, defaultText: defaultText)
    }

    /// The same option, parsed but not listed.
    var hidden: Option {
        var option = self
        option.isHidden = true
        return option
    }

    /// The same option with the help a command gives it (frontier's `--baseline-policy`).
    func withHelp(_ help: String, defaultText: String? = nil) -> Option {
        var option = self
        option.help = help
        if let defaultText { option.shownDefault = { _ in defaultText } }
        return option
    }

    static func shown(_ name: String) -> String { name.count == 1 ? "-\(name)" : "--\(name)" }
}

/// Options by name, for a command that takes some of another's declarations.
extension Array {
    func option<Values>(_ name: String) -> Option<Values> where Element == Option<Values> {
        first { $0.name == name }!
    }

    func excluding<Values>(_ names: String...) -> [Option<Values>] where Element == Option<Values> {
        filter { !names.contains($0.name) }
    }
}

/// `--help` or `-h` among a command's options: `CommandLineTool` prints the command's
/// usage (exit 0) once every other option has been read without error.
struct HelpRequested: Error {}

/// Binds a command's tokens to its declared options, in order: each option once (a
/// repeatable one collects every value), `--x v` and `--x=v`, a value that starts with `-`
/// only in the attached form or when it is a negative number (``tokenize``); each value is
/// parsed and checked at once, so the first bad token is the one reported. Every command
/// accepts `--help` and `-h`.
enum OptionParser {
    static let helpNames: Set<String> = ["help", "h"]

    static func parse<Values>(
        _ tokens: [Token], command: String, options: [Option<Values>], into values: inout Values,
        environment: [String: String],
        positional: (String, inout Values) throws -> Void
    ) throws {
        var byName: [String: Option<Values>] = [:]
        for option in options { byName[option.name] = option }
        var seen: Set<String> = [], help = false, index = 0
        while index < tokens.count {
            let token = tokens[index]
            index += 1
            switch token {
            case .value(let text):
                try positional(text, &values)
            case .option(let name, let attached) where helpNames.contains(name):
                let shown = Option<Values>.shown(name)
                guard attached == nil else { throw CLIError.usage("'\(shown)' takes no value") }
                guard seen.insert(name).inserted else { throw CLIError.usage("'\(shown)' given twice") }
                help = true
            case .option(let name, let attached):
                guard let option = byName[name] else {
                    var message = "unknown option '\(Option<Values>.shown(name))' for '\(command)'"
                    let visible = options.filter { !$0.isHidden && $0.name.count > 1 }.map(\.name) + ["help"]
                    if let close = closest(to: name, in: visible) { message += " (did you mean '--\(close)'?)" }
                    throw CLIError.usage(message)
                }
                guard option.isRepeatable || seen.insert(name).inserted else {
                    throw CLIError.usage("'\(option.shown)' given twice")
                }
                if option.isFlag {
                    if attached != nil { throw CLIError.usage("'\(option.shown)' takes no value") }
                    try option.take(&values, nil, environment)
                    continue
                }
                var value = attached
                if value == nil, index < tokens.count, case .value(let next) = tokens[index] {
                    value = next
                    index += 1
                }
                try option.take(&values, value, environment)
            }
        }
        if help { throw HelpRequested() }
    }
}

/// A comma-separated value as a message quotes it: whole up to `keeping` items, else its
/// first `keeping` and how many there are (`fixed=1s,2s,3s,4s,5s,… (5000 values)`), so a
/// line that refuses 5,000 values stays one short line.
func abbreviatedList(_ text: String, keeping count: Int = 5) -> String {
    let items = text.split(separator: ",", omittingEmptySubsequences: false)
    guard items.count > count else { return text }
    return items.prefix(count).joined(separator: ",") + ",… (\(items.count) values)"
}

/// The known word nearest to `word` within edit distance 2, for "did you mean".
func closest(to word: String, in candidates: [String]) -> String? {
    Suggestion.closest(to: word, in: candidates)
}
