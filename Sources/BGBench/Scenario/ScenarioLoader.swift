import Foundation
import Synchronization

/// A scenario ready to run, with where it came from.
public struct LoadedScenario: Sendable {
    /// The scenario; changing it writes `resolvedJSON` anew, so the two always agree.
    public var scenario: Scenario {
        didSet { resolvedJSON = ScenarioLoader.resolvedJSON(scenario); encodedAt = RegistryGeneration.current }
    }
    /// The scenario file as the caller named it; nil for the built-in defaults.
    public var file: String?
    /// SHA-256 (hex) of the file's bytes, or of `ScenarioLoader.builtInDefaultText()` for
    /// the built-in defaults.
    public var sha256: String
    /// Every parameter of the scenario as JSON, those of every registered component
    /// included: pretty, sorted keys, snake_case (Datasets/scenarios/default.json for the
    /// defaults). A run's resolved scenario is `resolvedJSON(policies:)`, cut from this
    /// text (encoding a scenario is most of a small run's start-up).
    public var resolvedJSON: String {
        didSet { encodedAt = nil }
    }
    /// The `path=value` overrides applied over the file, in order.
    public var overrides: [String]
    /// The registry's generation when the loader encoded `resolvedJSON` from `scenario`; nil
    /// when a caller gave the text. A policy registered since adds parameters to the
    /// scenario's JSON: then, or when the text is the caller's, it is encoded anew.
    private var encodedAt: Int?

    public init(scenario: Scenario, file: String?, sha256: String, resolvedJSON: String, overrides: [String] = []) {
        (self.scenario, self.file, self.sha256, self.resolvedJSON) = (scenario, file, sha256, resolvedJSON)
        self.overrides = overrides
    }

    /// A scenario with `resolvedJSON` just encoded from it by the loader.
    init(encoded scenario: Scenario, file: String?, sha256: String, resolvedJSON: String, overrides: [String] = []) {
        self.init(scenario: scenario, file: file, sha256: sha256, resolvedJSON: resolvedJSON, overrides: overrides)
        encodedAt = RegistryGeneration.current
    }

    /// SHA-256 of `resolvedJSON` (every registered component's parameters).
    public var resolvedSha256: String { SHA256.hex(Data(resolvedJSON.utf8)) }

    /// The resolved scenario of a run of `policies`: the parameters of the components it
    /// uses only (`ScenarioLoader.resolvedJSON(_:policies:)`); scenario.json of its reports.
    public func resolvedJSON(policies: [String]) -> String {
        let resolved = encodedAt == RegistryGeneration.current ? resolvedJSON : ScenarioLoader.resolvedJSON(scenario)
        return ScenarioLoader.pruned(resolved, of: scenario, policies: policies, components: true)
    }

    /// SHA-256 of `resolvedJSON(policies:)`: names the effective scenario of a run, whatever
    /// file and overrides produced it (run.json's `resolved_scenario_sha256`).
    public func resolvedSha256(policies: [String]) -> String { SHA256.hex(Data(resolvedJSON(policies: policies).utf8)) }
}

/// Everything the loader found wrong with a scenario; `description` has one line per problem.
public struct ScenarioError: Error, Sendable, CustomStringConvertible {
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        public enum Location: Sendable, Equatable {
            /// A place in the file (1-based; columns count characters).
            case position(file: String, line: Int, column: Int)
            /// The file, at no particular place (a default value the file did not set).
            case file(String)
            /// A `--set path=value` override.
            case override
            /// `--set` overrides, as given (`path=value`), that made a value of the file or
            /// of the defaults wrong: without them the problem is not there (every
            /// archetype weight set to 0 leaves `population.archetypes` without a positive sum).
            case overrides([String])
            case none

            /// A problem of the command line's `--set` flags (exit 64), not of a file.
            public var isOverride: Bool {
                switch self {
                case .override, .overrides: true
                default: false
                }
            }
        }

        public var location: Location
        /// The JSON path, e.g. `population.routine.opens[1].at`; "" when there is none.
        public var path: String
        public var message: String

        public init(location: Location, path: String, message: String) {
            (self.location, self.path, self.message) = (location, path, message)
        }

        /// `error: scenario.json:12:18: platform.ios_bgtask.budget_scal: unknown key`.
        public var description: String {
            let place =
                switch location {
                case .position(let file, let line, let column): "\(file):\(line):\(column): "
                case .file(let file): "\(file): "
                case .override: "--set "
                case .overrides(let flags): flags.map { "--set " + $0 }.joined(separator: ", ") + ": "
                case .none: ""
                }
            return "error: " + place + (path.isEmpty ? "" : path + ": ") + message
        }
    }

    public var problems: [Problem]

    public init(problems: [Problem]) { self.problems = problems }

    public var description: String { problems.map(\.description).joined(separator: "\n") }
}

/// Reads scenario files: the user's JSON is merged over the defaults, decoded and validated,
/// and every problem found is reported with its file position.
public enum ScenarioLoader {
    /// JSON paths of maps: objects with free keys whose entries all have one schema. A user
    /// map replaces the default map; each entry is merged over the default's first entry.
    static let mapPaths: Set<String> = ["population.archetypes"]

    /// Loads a scenario file; `overrides` are `path=value` settings applied over the file.
    /// Throws ScenarioError.
    public static func load(file: String, overrides: [String] = []) throws -> LoadedScenario {
        try load(
            data: Data(InputFile.read(file, limit: InputFile.Limit.scenario, kind: "scenario")), file: file,
            overrides: overrides)
    }

    /// Loads scenario bytes read from `file` (named in messages). Throws ScenarioError.
    public static func load(data: Data, file: String, overrides: [String] = []) throws -> LoadedScenario {
        guard data.count <= InputFile.Limit.scenario else {
            throw ScenarioError(problems: [
                .init(
                    location: .file(file), path: "",
                    message: "the scenario file is \(InputFile.tooLarge(data.count, InputFile.Limit.scenario))")
            ])
        }
        if let message = CSVReader.otherEncodingMessage([UInt8](data.prefix(4))) {
            throw ScenarioError(problems: [
                .init(location: .position(file: file, line: 1, column: 1), path: "", message: message)
            ])
        }
        guard let text = String(data: data, encoding: .utf8) else {
            let at = InputFile.firstInvalidUTF8([UInt8](data)) ?? SourcePosition(line: 1, column: 1)
            throw ScenarioError(problems: [
                .init(
                    location: .position(file: file, line: at.line, column: at.column), path: "",
                    message: "not UTF-8 text: expected a UTF-8 JSON file")
            ])
        }
        return try load(text: text, bytes: data, file: file, overrides: overrides)
    }

    /// Loads scenario JSON text; `file` names it in error messages. Throws ScenarioError.
    public static func load(json: String, file: String = "<string>", overrides: [String] = []) throws -> LoadedScenario
    {
        try load(text: json, bytes: Data(json.utf8), file: file, overrides: overrides)
    }

    /// `Scenario()`, for runs without a scenario file, named like a file by the SHA-256 of
    /// its text (`builtInDefaultText`).
    public static func builtInDefault() -> LoadedScenario {
        let json = resolvedJSON(Scenario())
        return LoadedScenario(
            encoded: Scenario(), file: nil, sha256: SHA256.hex(builtInForm(json).utf8), resolvedJSON: json)
    }

    /// The built-in defaults as a file would hold them: Datasets/scenarios/default.json, the
    /// parameters of bgbench's own components only, so that a policy a package registers
    /// changes no run's `scenario_sha256` (nor what `--set` is applied over).
    public static func builtInDefaultText() -> String { builtInForm(resolvedJSON(Scenario())) }

    /// `resolvedJSON(Scenario())` without the parameters of policies registered by others.
    /// The registry is read after the encoding, so a policy registered meanwhile is pruned.
    private static func builtInForm(_ json: String) -> String {
        PolicyRegistry.all.count == PolicyRegistry.builtIn.count
            ? json
            : pruned(json, of: Scenario(), policies: PolicyRegistry.builtIn.map(\.name), components: false)
    }

    /// Every parameter of `s` as JSON: pretty, sorted keys, snake_case, a final newline.
    public static func resolvedJSON(_ s: Scenario) -> String {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try! encoder.encode(s), as: UTF8.self) + "\n"
    }

    /// The resolved scenario of a run of `policies`: `resolvedJSON(s)` without the
    /// parameters of components the run does not use, so that registering a component
    /// changes no other run's scenario.json or `resolved_scenario_sha256`. Kept: the run's
    /// policies under `policies`; under `platform` its `name`, the platform's own section
    /// and those it shares (`ios-fetch` reads `ios_bgtask`), plus `ios_fetch` (and what it
    /// shares) when `population.legacy_ios_share` > 0; under `content` the shared fields and
    /// the section of `content.kind` (`sync`, `catalog`, `messages`; none for `news`); under
    /// `app` the processing task only when `app.processing.enabled`. Every other section
    /// is whole. The output loads back (left-out sections take their defaults).
    public static func resolvedJSON(_ s: Scenario, policies: [String]) -> String {
        pruned(resolvedJSON(s), of: s, policies: policies, components: true)
    }

    /// `resolvedJSON(s)` with the parameters of `policies` only among the policies, and
    /// every platform's, content kind's and the processing task's: the complete form for a
    /// given set of policies (`PolicyRegistry.builtIn`'s: Datasets/scenarios/default.json,
    /// whatever else a process registered).
    public static func completeJSON(_ s: Scenario, policies: [String]) -> String {
        pruned(resolvedJSON(s), of: s, policies: policies, components: false)
    }

    /// `resolved` (`resolvedJSON(s)`) without the parameters of other policies and, with
    /// `components`, of the components a run does not use.
    static func pruned(_ resolved: String, of s: Scenario, policies: [String], components: Bool) -> String {
        guard var root = try? JSONParser.parse(resolved).root.object else { return resolved }
        func pruned(_ key: String, keeping keep: (String) -> Bool) {
            guard var section = root[key]?.object else { return }
            for member in section.keys where !keep(member) { section[member] = nil }
            root[key] = .object(section)
        }
        pruned("policies") { policies.contains($0) }
        if components { pruneComponents(s, pruned) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try! encoder.encode(JSONValue.object(root)), as: UTF8.self) + "\n"
    }

    /// `pruned` edits the caller's root object; the root is not passed as well (`inout`
    /// beside a closure that captures it is an exclusivity violation, fatal in a debug build).
    private static func pruneComponents(_ s: Scenario, _ pruned: (String, (String) -> Bool) -> Void) {
        var platformKeys: Set<String> = ["name"]
        func use(_ platform: any PlatformRules.Type) {
            platformKeys.insert(platform.parametersKey)
            platformKeys.formUnion(platform.sharedParameterKeys)
        }
        if let platform = PlatformRegistry.named(s.platform.name) { use(platform) }
        if s.population.legacyIosShare > 0 { use(IOSFetch.self) }
        pruned("platform") { platformKeys.contains($0) }
        let kindSections = ContentKind.allCases.filter { $0 != .news }.map(\.rawValue)
        pruned("content") { !kindSections.contains($0) || $0 == s.content.kind.rawValue }
        pruned("app") { $0 != "processing" || s.app.processing.enabled }
    }

    /// `problems` with those the overrides caused (found at a place of the file or the
    /// defaults, but not there when the same text loads without them) located at the
    /// overrides: the ones whose path is the problem's, inside it or around it, else all.
    private static func blamingOverrides(
        _ problems: [ScenarioError.Problem], text: String, file: String, _ overrides: [String]
    ) -> [ScenarioError.Problem] {
        guard !overrides.isEmpty, problems.contains(where: { $0.location != .override }) else { return problems }
        var without: [ScenarioError.Problem] = []
        do { _ = try load(text: text, bytes: Data(), file: file, overrides: []) } catch let error as ScenarioError {
            without = error.problems
        } catch {}
        let caused = problems.map { problem -> ScenarioError.Problem in
            guard problem.location != .override,
                !without.contains(where: { $0.path == problem.path && $0.message == problem.message })
            else { return problem }
            func within(_ a: String, _ b: String) -> Bool { a == b || a.hasPrefix(b + ".") || a.hasPrefix(b + "[") }
            let related = overrides.filter {
                let path = String($0.prefix { $0 != "=" })
                return problem.path.isEmpty || within(path, problem.path) || within(problem.path, path)
            }
            var moved = problem
            moved.location = .overrides(related.isEmpty ? overrides : related)
            return moved
        }
        // The overrides' problems first, as the resolver orders them.
        return caused.filter { $0.location.isOverride } + caused.filter { !$0.location.isOverride }
    }

    private static func load(text: String, bytes: Data, file: String, overrides: [String]) throws -> LoadedScenario {
        let document: JSONDocument
        do {
            document = try JSONParser.parse(text, lenient: true)
        } catch {
            let at = ScenarioError.Problem.Location.position(
                file: file, line: error.position.line, column: error.position.column)
            throw ScenarioError(problems: [.init(location: at, path: error.path, message: error.message)])
        }
        var resolver = Resolver(file: file, document: document)
        for problem in document.problems {
            resolver.problems.append(
                .init(
                    location: .position(file: file, line: problem.position.line, column: problem.position.column),
                    path: problem.path, message: problem.message))
        }
        var user = document.root
        for override in overrides { user = resolver.apply(override: override, to: user) }
        let merged = resolver.merge(user, over: Schema.shared.defaults, at: .root)
        let decoded = resolver.decode(merged)
        for problem in decoded?.validate() ?? [] { resolver.report(problem.path, problem.message) }
        guard resolver.problems.isEmpty, let scenario = decoded else {
            throw ScenarioError(problems: blamingOverrides(resolver.sortedProblems, text: text, file: file, overrides))
        }
        return LoadedScenario(
            encoded: scenario, file: file, sha256: SHA256.hex(bytes),
            resolvedJSON: resolvedJSON(scenario), overrides: overrides)
    }
}
