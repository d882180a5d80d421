import Foundation

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
        // A value the parser already reported (a number beyond a double's range) is not
        // reported again as a bad value.
        guard !document.problems.contains(where: { $0.path == path && !$0.message.hasPrefix("duplicate key") }) else {
            return
        }
        problems.append(Problem(location: location(of: path, atKey: atKey), path: path, message: message))
    }

    /// Where `path` came from: an override, else its key or value in the file, else the
    /// nearest enclosing value in the file (not the root), else just the file.
    func location(of path: String, atKey: Bool) -> Problem.Location {
        // The path an override set, a value inside it, or a container the override
        // created on its way (one the file does not have): `--set policies.nosuch.x=1`
        // makes `policies.nosuch`, and its "unknown key" belongs to the flag.
        let inFile = document.keyPositions[path] != nil || document.valuePositions[path] != nil
        let fromOverride = overridePaths.contains {
            path == $0 || path.hasPrefix($0 + ".") || path.hasPrefix($0 + "[")
                || !inFile && ($0.hasPrefix(path + ".") || $0.hasPrefix(path + "["))
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
                    report(
                        path.child(key).display, "unknown key" + Resolver.suggestion(for: key, among: d.keys),
                        atKey: true)
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
                report(
                    path.display, Resolver.message(for: error, expecting: Schema.shared.leafTypes[path.schema] ?? type))
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
            problems.append(
                Problem(location: .override, path: name, message: "expected path=value, e.g. population.model=routine"))
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

    private mutating func set(
        _ text: String, _ components: ArraySlice<Component>, in node: JSONValue?,
        default def: JSONValue?, at path: JSONPath
    ) -> JSONValue {
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
                problems.append(
                    Problem(
                        location: .override, path: path.index(i).display,
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
