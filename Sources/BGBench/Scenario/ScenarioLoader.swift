import Foundation
import Synchronization

/// A scenario ready to run, with where it came from.
public struct LoadedScenario: Sendable {
    public var scenario: Scenario
    /// The scenario file as the caller named it; nil for the built-in defaults.
    public var file: String?
    /// SHA-256 (hex) of the file's bytes, or of `resolvedJSON` for the built-in defaults.
    public var sha256: String
    /// Every parameter of the scenario as JSON, those of every registered component
    /// included: pretty, sorted keys, snake_case (Datasets/scenarios/default.json for the
    /// defaults). A run's resolved scenario is `resolvedJSON(policies:)`.
    public var resolvedJSON: String
    /// The `path=value` overrides applied over the file, in order.
    public var overrides: [String]

    public init(scenario: Scenario, file: String?, sha256: String, resolvedJSON: String, overrides: [String] = []) {
        (self.scenario, self.file, self.sha256, self.resolvedJSON) = (scenario, file, sha256, resolvedJSON)
        self.overrides = overrides
    }

    /// SHA-256 of `resolvedJSON` (every registered component's parameters).
    public var resolvedSha256: String { SHA256.hex(Data(resolvedJSON.utf8)) }

    /// The resolved scenario of a run of `policies`: the parameters of the components it
    /// uses only (`ScenarioLoader.resolvedJSON(_:policies:)`); scenario.json of its reports.
    public func resolvedJSON(policies: [String]) -> String { ScenarioLoader.resolvedJSON(scenario, policies: policies) }

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
            case none
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
            let place = switch location {
            case .position(let file, let line, let column): "\(file):\(line):\(column): "
            case .file(let file): "\(file): "
            case .override: "--set "
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
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw ScenarioError(problems: [.init(location: .none, path: "",
                                                 message: "cannot read scenario '\(file)': \(readFailureReason(error))")])
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ScenarioError(problems: [.init(location: .file(file), path: "", message: "not UTF-8 text")])
        }
        return try load(text: text, bytes: data, file: file, overrides: overrides)
    }

    /// Loads scenario JSON text; `file` names it in error messages. Throws ScenarioError.
    public static func load(json: String, file: String = "<string>", overrides: [String] = []) throws -> LoadedScenario {
        try load(text: json, bytes: Data(json.utf8), file: file, overrides: overrides)
    }

    /// `Scenario()`, for runs without a scenario file.
    public static func builtInDefault() -> LoadedScenario {
        let json = resolvedJSON(Scenario())
        return LoadedScenario(scenario: Scenario(), file: nil, sha256: SHA256.hex(json.utf8), resolvedJSON: json)
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
        pruned(s, policies: policies, components: true)
    }

    /// `resolvedJSON(s)` with the parameters of `policies` only among the policies, and
    /// every platform's, content kind's and the processing task's: the complete form for a
    /// given set of policies (`PolicyRegistry.builtIn`'s: Datasets/scenarios/default.json,
    /// whatever else a process registered).
    public static func completeJSON(_ s: Scenario, policies: [String]) -> String {
        pruned(s, policies: policies, components: false)
    }

    /// The resolved JSON without the parameters of other policies and, with `components`,
    /// of the components a run does not use.
    private static func pruned(_ s: Scenario, policies: [String], components: Bool) -> String {
        guard var root = try? JSONParser.parse(resolvedJSON(s)).root.object else { return resolvedJSON(s) }
        func pruned(_ key: String, keeping keep: (String) -> Bool) {
            guard var section = root[key]?.object else { return }
            for member in section.keys where !keep(member) { section[member] = nil }
            root[key] = .object(section)
        }
        pruned("policies") { policies.contains($0) }
        if components { pruneComponents(s, &root, pruned) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try! encoder.encode(JSONValue.object(root)), as: UTF8.self) + "\n"
    }

    private static func pruneComponents(_ s: Scenario, _ root: inout JSONObject,
                                        _ pruned: (String, (String) -> Bool) -> Void) {
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

    private static func load(text: String, bytes: Data, file: String, overrides: [String]) throws -> LoadedScenario {
        let document: JSONDocument
        do {
            document = try JSONParser.parse(text)
        } catch {
            let at = ScenarioError.Problem.Location.position(file: file, line: error.position.line, column: error.position.column)
            throw ScenarioError(problems: [.init(location: at, path: error.path, message: error.message)])
        }
        var resolver = Resolver(file: file, document: document)
        var user = document.root
        for override in overrides { user = resolver.apply(override: override, to: user) }
        let merged = resolver.merge(user, over: Schema.shared.defaults, at: .root)
        let decoded = resolver.decode(merged)
        for problem in decoded?.validate() ?? [] { resolver.report(problem.path, problem.message) }
        guard resolver.problems.isEmpty, let scenario = decoded else {
            throw ScenarioError(problems: resolver.sortedProblems)
        }
        return LoadedScenario(scenario: scenario, file: file, sha256: SHA256.hex(bytes),
                              resolvedJSON: resolvedJSON(scenario), overrides: overrides)
    }

    /// The OS's reason, short: "no such file", "permission denied", "is a directory".
    static func readFailureReason(_ error: Error) -> String {
        guard let underlying = (error as? CocoaError)?.userInfo[NSUnderlyingErrorKey] as? any Error else {
            return error.localizedDescription
        }
        let code = Int32((underlying as NSError).code)
        return code == ENOENT ? "no such file" : String(cString: strerror(code)).lowercased()
    }
}

/// A JSON path as users read it (`population.routine.opens[1].at`) and as the schema knows
/// it, with array indices as `[]` and map keys as `*` (`population.routine.opens[].at`).
struct JSONPath: Sendable {
    var display = ""
    var schema = ""

    static let root = JSONPath()

    var isMap: Bool { ScenarioLoader.mapPaths.contains(schema) }

    /// The member `key`: a field, or an entry when this path is a map.
    func child(_ key: String) -> JSONPath {
        JSONPath(display: JSONPathText.key(display, key), schema: JSONPathText.key(schema, isMap ? "*" : key))
    }

    func index(_ i: Int) -> JSONPath {
        JSONPath(display: JSONPathText.index(display, i), schema: schema + "[]")
    }
}

/// The defaults as a JSON tree, the Swift type of every leaf (number, string, bool) by schema
/// path, so that a user's leaf can be checked against its type before decoding, and the Swift
/// name of every JSON key.
struct Schema: @unchecked Sendable /* immutable after init */ {
    let defaults: JSONValue
    let leafTypes: [String: any Decodable.Type]
    /// JSON key → Swift property name. `.convertFromSnakeCase` is not the inverse of
    /// `.convertToSnakeCase`: it reads `latency_median_nr5g` as `latencyMedianNr5G`.
    let swiftNames: [String: String]

    /// The schema of the registry as it is now: rebuilt after a policy is registered, so
    /// that its `policies.<name>.*` keys are known.
    static var shared: Schema {
        let generation = RegistryGeneration.value.load(ordering: .sequentiallyConsistent)
        return cache.withLock { cache in
            if let cached = cache, cached.generation == generation { return cached.schema }
            let schema = Schema()
            cache = (generation, schema)
            return schema
        }
    }

    private static let cache = Mutex<(generation: Int, schema: Schema)?>(nil)

    private init() {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = .sortedKeys
        defaults = try! JSONParser.parse(String(decoding: try! encoder.encode(Scenario()), as: UTF8.self)).root
        var types: [String: any Decodable.Type] = [:], names: [String: String] = [:]
        Schema.collect(Scenario(), defaults, at: .root, types: &types, names: &names)
        (leafTypes, swiftNames) = (types, names)
    }

    /// Walks a default value and its JSON together; maps and arrays by their first element.
    private static func collect(_ value: Any, _ json: JSONValue, at path: JSONPath,
                                types: inout [String: any Decodable.Type], names: inout [String: String]) {
        let children = Mirror(reflecting: value).children
        switch json {
        case .object(let object) where path.isMap:
            guard let (key, entry) = object.members.first,
                  let pair = children.first(where: { Mirror(reflecting: $0.value).children.first?.value as? String == key })
            else { return }
            let entryValue = Mirror(reflecting: pair.value).children.dropFirst().first!.value
            collect(entryValue, entry, at: path.child(key), types: &types, names: &names)
        case .object(let object) where value is SchemaMembers:
            // Sections keyed by component name (`policies`, `platform`).
            for (key, member) in (value as! SchemaMembers).schemaMembers {
                guard let json = object[key] else { continue }
                collect(member, json, at: path.child(key), types: &types, names: &names)
            }
        case .object(let object):
            for child in children {
                guard let label = child.label, case let key = snakeCase(label), let member = object[key] else { continue }
                names[key] = label
                collect(child.value, member, at: path.child(key), types: &types, names: &names)
            }
        case .array(let elements):
            if let first = elements.first, let element = children.first?.value {
                collect(element, first, at: path.index(0), types: &types, names: &names)
            }
        default:
            types[path.schema] = type(of: value) as? any Decodable.Type
        }
    }

    /// A Swift property name as JSONEncoder's `.convertToSnakeCase` spells it.
    static func snakeCase(_ name: String) -> String {
        struct Field: Encodable {
            let name: String
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: AnyKey.self)
                try container.encodeNil(forKey: AnyKey(stringValue: name))
            }
        }
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let json = String(decoding: try! encoder.encode(Field(name: name)), as: UTF8.self)
        return try! JSONParser.parse(json).root.object!.keys[0]
    }
}

/// A coding key with any name.
struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// One load's state: the user's document, the overrides applied to it, and the problems found.
struct Resolver {
    typealias Problem = ScenarioError.Problem

    let file: String
    let document: JSONDocument
    var overridePaths: [String] = []
    var problems: [Problem] = []

    init(file: String, document: JSONDocument) {
        self.file = file
        self.document = document
    }

    /// Problems in order: overrides, then by file position, then the rest.
    var sortedProblems: [Problem] {
        func key(_ p: (offset: Int, element: Problem)) -> (Int, Int, Int, Int) {
            switch p.element.location {
            case .override: (0, 0, 0, p.offset)
            case .position(_, let line, let column): (1, line, column, p.offset)
            default: (2, 0, 0, p.offset)
            }
        }
        return problems.enumerated().sorted { key($0) < key($1) }.map(\.element)
    }

    mutating func report(_ path: String, _ message: String, atKey: Bool = false) {
        problems.append(Problem(location: location(of: path, atKey: atKey), path: path, message: message))
    }

    /// Where `path` came from: an override, else its key or value in the file, else the
    /// nearest enclosing value in the file (not the root), else just the file.
    func location(of path: String, atKey: Bool) -> Problem.Location {
        let fromOverride = overridePaths.contains {
            path == $0 || path.hasPrefix($0 + ".") || path.hasPrefix($0 + "[")
        }
        if fromOverride { return .override }
        func at(_ p: SourcePosition) -> Problem.Location { .position(file: file, line: p.line, column: p.column) }
        if atKey, let p = document.keyPositions[path] { return at(p) }
        var enclosing = path
        while true {
            if let p = document.valuePositions[enclosing] { return at(p) }
            guard let cut = enclosing.lastIndex(where: { $0 == "." || $0 == "[" }) else { return .file(file) }
            enclosing = String(enclosing[..<cut])
        }
    }

    // MARK: Merging

    /// The user's value merged over the default: objects key by key, arrays and maps
    /// replaced (each element merged over the default's first), leaves checked against their
    /// Swift type. A bad value is reported and replaced by the default, so that loading can
    /// go on and report every problem.
    mutating func merge(_ user: JSONValue, over def: JSONValue, at path: JSONPath) -> JSONValue {
        switch (def, user) {
        case (.object(let d), .object(let u)) where path.isMap:
            guard let template = d.members.first?.value else { return user }
            var map = JSONObject()
            for (key, value) in u.members { map[key] = merge(value, over: template, at: path.child(key)) }
            return .object(map)
        case (.object(var d), .object(let u)):
            for (key, value) in u.members {
                if let old = d[key] {
                    d[key] = merge(value, over: old, at: path.child(key))
                } else {
                    report(path.child(key).display, "unknown key" + Resolver.suggestion(for: key, among: d.keys), atKey: true)
                }
            }
            return .object(d)
        case (.array(let d), .array(let u)):
            guard let template = d.first else { return user }
            return .array(u.enumerated().map { merge($1, over: template, at: path.index($0)) })
        case (.object, _):
            report(path.display, "expected an object")
            return def
        case (.array, _):
            report(path.display, "expected an array")
            return def
        default:
            guard let type = Schema.shared.leafTypes[path.schema] else { return user }
            do {
                _ = try JSONDecoder().decode(type, from: Data(user.text.utf8))
                return user
            } catch {
                report(path.display, Resolver.message(for: error, expecting: type))
                return def
            }
        }
    }

    /// " (did you mean 'x'?)" naming the closest key within edit distance 2, or "".
    static func suggestion(for key: String, among keys: [String]) -> String {
        Suggestion.closest(to: key, in: keys).map { " (did you mean '\($0)'?)" } ?? ""
    }

    // MARK: Decoding

    /// Decodes the merged tree; on failure reports the first error with its JSON path.
    mutating func decode(_ tree: JSONValue) -> Scenario? {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .custom { codingPath in
            let key = codingPath.last!.stringValue
            return AnyKey(stringValue: Schema.shared.swiftNames[key] ?? key)
        }
        do {
            return try decoder.decode(Scenario.self, from: Data(tree.text.utf8))
        } catch let error as DecodingError {
            let codingPath: [any CodingKey], type: Any.Type?
            switch error {
            case .typeMismatch(let t, let c), .valueNotFound(let t, let c): (codingPath, type) = (c.codingPath, t)
            case .keyNotFound(let key, let c): (codingPath, type) = (c.codingPath + [key], nil)
            case .dataCorrupted(let c): (codingPath, type) = (c.codingPath, nil)
            @unknown default: (codingPath, type) = ([], nil)
            }
            let path = Resolver.jsonPath(codingPath)
            if case .keyNotFound = error {
                report(path.display, "required key is missing")
            } else {
                report(path.display, Resolver.message(for: error, expecting: Schema.shared.leafTypes[path.schema] ?? type))
            }
        } catch {
            report("", "\(error)")
        }
        return nil
    }

    /// A decoder's coding path as a JSON path: snake_case fields, map keys verbatim.
    static func jsonPath(_ codingPath: [any CodingKey]) -> JSONPath {
        codingPath.reduce(JSONPath.root) { path, key in
            if path.isMap { return path.child(key.stringValue) }
            if let i = key.intValue { return path.index(i) }
            return path.child(Schema.snakeCase(key.stringValue))
        }
    }

    /// What a value of `type` should have been: "expected a number", "expected one of: a, b".
    /// A custom type's own message is kept when it starts with "expected" (TimeSpan's does).
    static func message(for error: Error, expecting type: Any.Type?) -> String {
        if let type, let choices = enumChoices(type) { return "expected one of: " + choices.joined(separator: ", ") }
        if case DecodingError.dataCorrupted(let c) = error, c.debugDescription.hasPrefix("expected") {
            return c.debugDescription
        }
        return switch type {
        case let t? where t == Bool.self: "expected true or false"
        case let t? where t == String.self: "expected a string"
        case let t? where t is any BinaryInteger.Type: "expected an integer"
        case let t? where t is any BinaryFloatingPoint.Type: "expected a number"
        default: "invalid value"
        }
    }

    /// The raw values of a String enum, in declaration order.
    static func enumChoices(_ type: Any.Type) -> [String]? {
        func choices<T: CaseIterable & RawRepresentable<String>>(_: T.Type) -> [String] { T.allCases.map(\.rawValue) }
        guard let enumType = type as? any (CaseIterable & RawRepresentable<String>).Type else { return nil }
        return choices(enumType)
    }

    // MARK: Overrides

    private enum Component { case key(String), index(Int) }

    /// Sets `path=value` in the user's tree. Containers the file does not have are created: objects empty (the merge fills them),
    /// arrays and maps as copies of the default (they would otherwise replace it).
    mutating func apply(override: String, to root: JSONValue) -> JSONValue {
        let name = String(override.prefix { $0 != "=" })
        guard name.count < override.count, let components = Resolver.components(of: name) else {
            problems.append(Problem(location: .override, path: name, message: "expected path=value, e.g. population.model=routine"))
            return root
        }
        overridePaths.append(name)
        let text = String(override.dropFirst(name.count + 1))
        return set(text, components[...], in: root, default: Schema.shared.defaults, at: .root)
    }

    /// An override's value: JSON if it parses, else a string; a string field takes the text
    /// as it is, so that `name=2024` needs no quotes.
    private static func overrideValue(_ text: String, at path: JSONPath) -> JSONValue {
        let parsed = try? JSONParser.parse(text).root
        if case .string? = parsed { return parsed! }
        if Schema.shared.leafTypes[path.schema] == String.self { return .string(text) }
        return parsed ?? .string(text)
    }

    private mutating func set(_ text: String, _ components: ArraySlice<Component>, in node: JSONValue?,
                              default def: JSONValue?, at path: JSONPath) -> JSONValue {
        guard let first = components.first else { return Resolver.overrideValue(text, at: path) }
        switch first {
        case .key(let key):
            var object = node?.object ?? (path.isMap ? def?.object : nil) ?? JSONObject()
            let childDefault = path.isMap ? def?.object?.members.first?.value : def?.object?[key]
            object[key] = set(text, components.dropFirst(), in: object[key], default: childDefault, at: path.child(key))
            return .object(object)
        case .index(let i):
            var array = node?.array ?? def?.array ?? []
            guard i < array.count else {
                problems.append(Problem(location: .override, path: path.index(i).display,
                                        message: "index out of range: the array has \(array.count) elements"))
                return node ?? .array(array)
            }
            array[i] = set(text, components.dropFirst(), in: array[i], default: def?.array?.first, at: path.index(i))
            return .array(array)
        }
    }

    /// `a.b[1].c` as keys and indices; nil when malformed.
    private static func components(of path: String) -> [Component]? {
        var result: [Component] = []
        for part in path.split(separator: ".", omittingEmptySubsequences: false) {
            let name = part.prefix { $0 != "[" }
            guard !name.isEmpty else { return nil }
            result.append(.key(String(name)))
            var rest = part.dropFirst(name.count)
            while !rest.isEmpty {
                guard rest.first == "[", let close = rest.firstIndex(of: "]"),
                      let i = Int(rest[rest.index(after: rest.startIndex)..<close]), i >= 0
                else { return nil }
                result.append(.index(i))
                rest = rest[rest.index(after: close)...]
            }
        }
        return result
    }
}
